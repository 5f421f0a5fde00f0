"""A review's losses at the table that played: each move the search labels a mistake or a blunder is played on
both ways -- the move played and the search's best -- by the bots that sat at the table (the mover by
TABLE_MOVER), from deals of what the mover could not see, and its loss becomes the difference of the mover's
mean final scores.

Why: the search's values are those of a table that plays like the search (docs/review.md, "What a loss
assumes"). Against slower players, holding a route open costs less than the search says, and a review of a
game of bots then ranks the players wrongly (results/review/order_truth.csv: at the table that played,
`heuristic`'s mistakes by the search were worth 0.24 points of the 1.74 it said, `greedy`'s 1.55 of 1.47).
Only a record whose every seat was a bot that does not search can be played on this way (a person's play
cannot; a search's is hours of searches).

    >>> from thurn_ai.play.review import review
    >>> r = review(record, table_deals=TABLE_DEALS)      # the search's review, its mistakes re-rated

A loss at the table is the mover's mean final score after the best move less after the move played, over
`deals` deals (the mover's unknown cards and the deck dealt again from what it knew; both moves from the same
deals and bot seeds); the other players play on as their bots did, the mover as TABLE_MOVER, the same for
every seat: a move is measured against one continuation, so that losses compare across players (the mover's own
bot would measure a weak player's move against its own weak play after it). Its uncertainty: the standard error
of that mean; the label, as the search's, is the one the smaller loss (mean less uncertainty) earns.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..bots.base import Analyst, Observation
from ..bots.spec import BotSpec, make_bot
from ..errors import ThurnError
from ..game.state import GameState
from .match import derive_seed
from .review_rating import label_of

__all__ = ["TABLE_DEALS", "TABLE_MOVER", "TableLoss", "table_loss", "pooled", "table_seed", "table_bots",
           "needs_table", "table_rating", "at_table_decision"]

#: deals each re-rated decision is played on from, both ways (a loss's standard error about 1-1.3 points at 3-4
#: players; 0.5-0.7 at 48 deals, results/review/order_truth.csv): a label needs the loss less that error
TABLE_DEALS = 16
#: the bot the mover plays on with, after either move (the strongest bot that does not search)
TABLE_MOVER = "heuristic"
#: the search's labels whose moves are played on at the table
PLAYED_ON = ("mistake", "blunder")


@dataclass(frozen=True)
class TableLoss:
    """A decision played on by the table: the mover's mean final score after the move played and after the best,
    their difference (loss = best - played) and its standard error, over `deals` deals."""
    played_points: float
    best_points: float
    loss: float
    se: float
    deals: int


def table_bots(bots) -> tuple[str, ...]:
    """The record's seats as bot specs that can play on (checked): ThurnError naming a seat played by a person
    or a search, or by a name that is no bot."""
    out = []
    for seat, name in enumerate(bots):
        try:
            bot = make_bot(BotSpec.parse(str(name)))
        except ThurnError:
            raise ThurnError(f"seat {seat} was played by {name!r}, not a bot this toolkit can play on with: the "
                             "table can rate a game of bots only") from None
        if isinstance(bot, Analyst) or getattr(bot, "spec", "") == "human":
            raise ThurnError(f"seat {seat} was played by {name!r}: the table can rate a game of bots that do not "
                             "search (a person's play cannot be played on; a search's would take hours)")
        out.append(str(name))
    return tuple(out)


def needs_table(label: str | None) -> bool:
    """Whether a decision the search rated is played on by the table: the search labels it a mistake or worse
    (the moves a player looks at; an inaccuracy keeps the search's rating)."""
    return label in PLAYED_ON


def _play_out(state: GameState, specs, seed: int) -> None:
    """Play `state` to its end with bots of `specs` (a seat each), each seeing only its own observation."""
    bots = [make_bot(spec, derive_seed("table-bot", seed, i)) for i, spec in enumerate(specs)]
    k = 0
    while not state.is_terminal():
        p = state.current_player
        state.apply(int(bots[p].choose(Observation(state, p, derive_seed("table-observation", seed, k)))))
        k += 1


def table_loss(state: GameState, seat: int, played: str, best: str, specs, deals: int = TABLE_DEALS,
               seed: int = 0, mover: str | None = TABLE_MOVER, first: int = 0) -> TableLoss:
    """The decision of `seat` in `state` (the true position; only what `seat` knew is kept: each deal is
    state.determinize(seat, ...)) played on both ways, `deals` times, by bots of `specs` (a seat each), the
    mover's seat by `mover` (None: by its own spec). `first`: the index of the first deal in the seed's sequence
    of deals (more deals later: pooled(table_loss(..., n), table_loss(..., m, first=n)) is table_loss(..., n + m))."""
    if deals < 2:
        raise ThurnError(f"the table plays on from at least 2 deals, not {deals}")
    specs = [mover if i == seat and mover is not None else spec for i, spec in enumerate(specs)]
    scores: dict[str, list[int]] = {played: [], best: []}
    for j in range(first, first + deals):
        deal_seed = derive_seed("review-table", seed, j)
        dealt = state.determinize(seat, deal_seed)
        for text in dict.fromkeys((played, best)):
            s = dealt.clone()
            s.apply(s.parse_move(text))
            _play_out(s, specs, deal_seed)
            scores[text].append(s.score(seat))
    diff = np.subtract(scores[best], scores[played])
    return TableLoss(played_points=float(np.mean(scores[played])), best_points=float(np.mean(scores[best])),
                     loss=float(diff.mean()), se=float(diff.std(ddof=1) / np.sqrt(deals)), deals=deals)


def pooled(a: TableLoss, b: TableLoss) -> TableLoss:
    """Two TableLosses of one decision over disjoint deals as one over all of them: the means weighted by deals,
    the standard error from the pooled sum of squares of the per-deal differences (within both and between)."""
    n = a.deals + b.deals
    loss = (a.deals * a.loss + b.deals * b.loss) / n
    squares = sum((t.deals - 1) * t.deals * t.se ** 2 for t in (a, b)) + a.deals * b.deals / n * (a.loss - b.loss) ** 2
    return TableLoss(played_points=(a.deals * a.played_points + b.deals * b.played_points) / n,
                     best_points=(a.deals * a.best_points + b.deals * b.best_points) / n,
                     loss=loss, se=float(np.sqrt(squares / (n - 1) / n)), deals=n)


def table_seed(review_seed: int, index: int) -> int:
    """The seed a review with `review_seed` plays its decision `index` (move number from 0) on with: a study
    that re-rates a review's rows gets the review's own losses by it."""
    return derive_seed(review_seed, index)


def table_rating(t: TableLoss) -> tuple[float, str | None]:
    """A decision's loss and label at the table: the loss (0 when the move played did as well or better) and
    the label its smaller loss (mean less standard error) earns."""
    return max(t.loss, 0.0), label_of(t.loss - t.se)


def at_table_decision(task: tuple):
    """A worker's task (module level: picklable): (state, DecisionReview, specs, deals, seed) -> the decision
    re-rated at the table: loss_points the table's loss (0 when the move played did as well), uncertainty its
    standard error, the label the smaller loss earns, loss_search the search's loss, rated_by 'table'."""
    state, d, specs, deals, seed = task
    t = table_loss(state, d.seat, d.played, d.best, specs, deals, table_seed(seed, d.index))
    loss, label = table_rating(t)
    return replace(d, loss_points=loss, uncertainty=t.se, label=label, loss_search=d.loss_points, rated_by="table")
