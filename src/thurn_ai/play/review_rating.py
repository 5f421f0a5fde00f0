"""How a game review rates one decision: the played move against the search's best, each by the best
continuation of the turn after it, in expected final points (thurn_ai.play.review uses it; docs/review.md).

    >>> from thurn_ai.play.review_rating import rate_decision
    >>> rating = rate_decision(state, seat, played, spec, seed, budget)   # a Rating: both moves' values, the loss

The method, in three steps, all from the seat's information only (`seat_view`: what it could not see is
re-dealt, as `thurn-ai hint` does):
1. The main search (hint's configuration, `budget` iterations) names the best move and its line: the rest of
   the turn it recommends, and the official each move uses.
2. When the played move is not the best, both moves are searched again, each by a search that spends its
   whole budget through that one move (SearchBot.restrict_root_move): below it the search is free, so a
   move's value is what the best continuation of the turn -- and of the game -- can still reach after it.
   A mid-turn draw that the rest of the turn makes good again is worth what that turn is worth; a thrown-away
   route is not. The two searches have equal budgets and the same seed (common random numbers: the same first
   worlds re-dealt), and the pair is searched twice, with two seeds.
3. The loss is the mean of the two pairs' differences in expected final points (the unit that never
   saturates: a player far behind still loses points by a bad move), never below 0; the uncertainty is half
   their difference. The label is the one the SMALLER of the two losses earns, so a loss within the searches'
   own disagreement is not labelled. The win chance and the search's own utility (its reward, a mix of win and
   score margin) are kept beside it, as columns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..bots.base import Observation
from ..bots.spec import BotSpec, make_bot
from ..errors import BotSpecError
from ..game.officials import official_of
from ..game.state import GameState
from ..learned.features import position_features
from .analysis import Analysis, analyse
from .match import derive_seed
from .win_chance import win_chance_for

__all__ = ["Rating", "MoveValue", "rate_decision", "rate_move", "seat_view", "THRESHOLDS", "LABELS", "UNIT",
           "ACCURACY_POINTS", "label_of", "accuracy_of"]

#: the unit of a loss: the seat's expected final points (the search's mean final score after each move)
UNIT = "points"
#: lost expected final points from which a decision is an inaccuracy, a mistake, a blunder (chosen on the
#: planted mistakes and the search's self-play: results/review/README.md)
THRESHOLDS = {"inaccuracy": 0.5, "mistake": 1.0, "blunder": 3.0}
LABELS = tuple(THRESHOLDS)
#: the share of the main search's visits a move needs to count as a good answer besides the best
GOOD_SHARE = 0.1
#: a decision's accuracy is 100 exp(-loss / ACCURACY_POINTS): 100 for no loss, 61 for half a point lost, 37 for
#: a point (a mistake), 5 for three (a blunder)
ACCURACY_POINTS = 1.0


def label_of(loss: float) -> str | None:
    """The label a loss of expected points earns (None below the first threshold)."""
    out = None
    for name, threshold in THRESHOLDS.items():
        if loss >= threshold:
            out = name
    return out


def accuracy_of(loss: float) -> float:
    """A decision's accuracy, 0-100, from its loss of expected points (100: the best move or as good)."""
    return 100.0 * math.exp(-max(loss, 0.0) / ACCURACY_POINTS)


@dataclass(frozen=True)
class MoveValue:
    """One move as a search through it rated it: the seat's win chance (calibrated among equal players where
    the search has a map), its expected final points, the search's own utility (mean reward) and the other
    players' mean expected final points, `table` (both None where only the main search rated it)."""
    win: float
    points: float
    utility: float | None = None
    table: float | None = None

    @property
    def margin(self) -> float:
        """The seat's expected final margin over the table: its points minus the others' mean (0 without a
        table)."""
        return self.points - self.table if self.table is not None else 0.0


@dataclass(frozen=True)
class Rating:
    """One decision rated. main: the main search (its best move, line and options); played / best: the two
    moves' values (the same when the best was played); loss_*: best minus played (means over the pairs
    searched), uncertainty: half the difference of two pairs' losses of points (None with one pair);
    smaller_loss: the smaller loss of points (what the label reads); loss_margin: best minus played in
    expected margin over the table (MoveValue.margin), never below 0: a column, not a label."""
    main: Analysis
    played: MoveValue | None
    best: MoveValue
    loss_points: float | None
    loss_win: float | None
    loss_utility: float | None
    uncertainty: float | None
    smaller_loss: float | None
    official: str | None
    loss_margin: float | None = None

    @property
    def good_moves(self) -> tuple:
        """The moves (notation) the main search visited often (GOOD_SHARE of its visits or more) and rated
        within the inaccuracy threshold of the best, the best first: the answers "learn from your mistakes"
        accepts besides the best."""
        top = self.main.best
        return tuple(o.notation for o in self.main.options if o.move == top.move or
                     (o.share >= GOOD_SHARE and top.mean_score - o.mean_score < THRESHOLDS["inaccuracy"]))


def seat_view(state: GameState, seat: int, seed: int) -> GameState:
    """What `seat` knew at `state`, with everything it could not see re-dealt (seeded): the state a review
    searches. Two states the seat cannot tell apart give the same seat_view."""
    from ..position import position_from_dict
    return position_from_dict(state.to_dict(viewer=seat), seed=seed)


def rate_move(view: GameState, move: int, spec: BotSpec, seed: int, budget: int) -> MoveValue:
    """`move` of the decision at `view` (the player to move's view), rated by `spec`'s search spending all
    `budget` iterations through it (restrict_root_move): the value of the best continuation after it."""
    searcher = make_bot(spec.with_(iterations=budget), derive_seed("review-rate", seed))
    if not hasattr(searcher, "restrict_root_move"):
        raise BotSpecError(f"bot {str(spec)!r} cannot rate a chosen move; review with a tree search such as mcts")
    searcher.restrict_root_move(move)
    obs = Observation(view, view.current_player, derive_seed("hint-observation", seed))
    row = searcher.analyse(obs)[0]
    n = view.n_players
    chance = win_chance_for(spec, n)
    progress = position_features(view)[0] if chance.win_map is not None else 0.0
    return MoveValue(win=chance.chance(float(row.win_prob), progress, n), points=float(row.mean_score),
                     utility=float(row.value), table=float(row.mean_table))


def rate_decision(state: GameState, seat: int, played: int, spec: BotSpec, seed: int, budget: int,
                  index: int = 0) -> Rating:
    """Rate the decision of `seat` at `state` (the true state or any the seat cannot tell from it: only its
    seat_view is searched) where `played` (a move code) was played; `index` (the move's number) and `seed`
    seed the re-deal and the searches. See the module's text for the method."""
    view = seat_view(state, seat, derive_seed("review-view", seed, index))
    seeds = [derive_seed("review-search", seed, index, k) for k in range(2)]
    main = analyse(view, bot=spec, iterations=budget, seed=seeds[0])
    top = main.best
    best = MoveValue(win=top.win_prob, points=top.mean_score)
    official = official_of(view, played)
    if played == top.move:
        return Rating(main, best, best, 0.0, 0.0, 0.0, 0.0, 0.0, official, loss_margin=0.0)
    pairs = [(rate_move(view, top.move, spec, seeds[0], budget), rate_move(view, played, spec, seeds[0], budget))]
    if pairs[0][0].points - pairs[0][1].points >= THRESHOLDS[LABELS[0]]:
        # a label is possible: a second pair decides (a loss under the first threshold earns none either way)
        pairs.append((rate_move(view, top.move, spec, seeds[1], budget),
                      rate_move(view, played, spec, seeds[1], budget)))
    losses = [b.points - p.points for b, p in pairs]
    best, mine = _mean([b for b, _ in pairs]), _mean([p for _, p in pairs])
    # a second search may rate the played move above the best: that counts as no loss, not as a gain
    return Rating(main, mine, best, loss_points=max(best.points - mine.points, 0.0),
                  loss_win=max(best.win - mine.win, 0.0),
                  loss_utility=max((best.utility or 0.0) - (mine.utility or 0.0), 0.0),
                  uncertainty=abs(losses[0] - losses[1]) / 2 if len(losses) == 2 else None,
                  smaller_loss=min(losses), official=official,
                  loss_margin=max(best.margin - mine.margin, 0.0))


def _mean(values: list[MoveValue]) -> MoveValue:
    k = len(values)
    return MoveValue(win=sum(v.win for v in values) / k, points=sum(v.points for v in values) / k,
                     utility=sum(v.utility or 0.0 for v in values) / k,
                     table=sum(v.table or 0.0 for v in values) / k)
