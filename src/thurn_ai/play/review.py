"""Reviewing a whole game: where each player lost points (what `thurn-ai review` and the board's "Review this
game" show), as data.

    >>> from thurn_ai.play.review import load_record, review
    >>> record, name = load_record("examples/review_game.jsonl")      # or a tournament folder and game number
    >>> r = review(record, seats=[0])                                 # a Review: frozen, the same each time
    >>> [(d.index, d.played, d.best, d.loss_points, d.label) for d in r.labelled]
    >>> s = r.summary(0); s.accuracy, s.total_loss_points, s.counts, s.worst_turns

Every decision of the chosen seats (a move with more than one legal option) is rated from THAT player's
information only, the played move against the search's best, each by the best continuation of the turn after
it; the loss is in expected final points (play/review_rating.py says how). A seat's summary: its accuracy
(the mean over its rated decisions of 100 exp(-loss / ACCURACY_POINTS)), its total and mean loss, the count
of each label, its three worst turns (the most points lost in one turn) and its turning points (its largest
labelled losses).
"""
from __future__ import annotations

import hashlib
import json
from contextlib import closing
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from ..bots.base import Analyst
from ..bots.spec import BotSpec, make_bot
from ..errors import BotSpecError, PositionError, ThurnError
from ..fileio import atomic_write_text, loads_json, read_text
from ..game.state import GameState
from .analysis import DEFAULT_SPEC, bot_spec
from .match import GameRecord, Table
from .review_rating import ACCURACY_POINTS, LABELS, THRESHOLDS, UNIT, accuracy_of, label_of, rate_decision, seat_view
from .review_table import at_table_decision, needs_table, table_bots
from .workers import run_each

__all__ = ["review", "review_decision", "Review", "DecisionReview", "PlayerSummary", "WorstTurn", "decisions_of",
           "seat_view", "DEFAULT_BUDGET", "THRESHOLDS", "LABELS", "UNIT", "ACCURACY_POINTS",
           "cache_path", "default_cache_dir", "load_record", "ReviewCancelled"]

#: iterations per search at the default budget: a 3-player game, all seats, in under 2 minutes on 2 cores
#: (results/review/README.md)
DEFAULT_BUDGET = 3000
#: bumped when a review's numbers would change for the same record, budget and spec (the cache's key)
REVIEW_VERSION = 4
UNCERTAINTY = ("each search through one move, both moves with the same budget and seed; a loss worth a label is "
               "searched again with another seed and the label is the one the smaller of the two losses earns "
               "(uncertainty: half their difference)")


@dataclass(frozen=True)
class DecisionReview:
    """One decision of a reviewed seat.

    index: the move's number in the game (from 0; printed from 1); turn (from 0), seat, phase.
    played / best: the moves (notation); played_official / best_official: the official each uses (None: none).
    best_line: the rest of the turn the search recommends, from the best move on; best_line_then: what comes
        after it. good_moves: the moves the search rates about as good as the best (the best first).
    played_win / best_win: the seat's win chance after each move; played_points / best_points: its expected
        final points (the value of the best continuation after the move).
    loss_points (the unit of labels and summaries) / loss_win / loss_utility: best minus played, 0 when the
        best was played; uncertainty: half the difference of two pairs' losses of points (None where one pair
        showed no loss worth a label).
    label: 'inaccuracy', 'mistake', 'blunder' or None; rated_by: 'best' (the best move was played) or 'both
        searched'; options: the legal moves; loss_margin: the loss in expected margin over the table (the
        seat's points less the other players' mean; a column: labels and summaries read loss_points);
        accuracy: 100 exp(-loss / ACCURACY_POINTS). loss_search: the search's loss where the decision was
        played on at the table (rated_by 'table', loss_points and uncertainty then the table's; review_table.py),
        else None."""
    index: int
    turn: int
    seat: int
    phase: str
    played: str
    best: str
    played_official: str | None
    best_official: str | None
    best_line: tuple
    best_line_then: str
    good_moves: tuple
    played_win: float
    best_win: float
    played_points: float
    best_points: float
    loss_points: float
    loss_win: float
    loss_utility: float
    uncertainty: float | None
    label: str | None
    rated_by: str
    options: int
    loss_margin: float = 0.0
    loss_search: float | None = None

    @property
    def win(self) -> float:
        """The seat's win chance at this decision with the best move (the graph's value)."""
        return self.best_win

    @property
    def accuracy(self) -> float:
        return accuracy_of(self.loss_points)


@dataclass(frozen=True)
class WorstTurn:
    """One of a seat's worst turns: the turn (from 0), the expected points its decisions lost in all, and
    the move (index from 0) that lost the most of them (where to look)."""
    turn: int
    loss_points: float
    move: int


@dataclass(frozen=True)
class PlayerSummary:
    """One reviewed seat: decisions reviewed (rated); accuracy (0-100, the mean of its decisions'); the total
    and mean loss of expected points and the mean loss of win chance; counts of each label; worst_turns: its
    (at most) three turns that lost the most points, worst first (WorstTurn); turning_points: the indexes of
    its largest labelled losses, largest first, at most 3."""
    seat: int
    bot: str
    decisions: int
    rated: int
    accuracy: float
    total_loss_points: float
    mean_loss_points: float
    mean_loss_win: float
    counts: dict = field(default_factory=dict)
    worst_turns: tuple = ()
    turning_points: tuple = ()


@dataclass(frozen=True)
class Review:
    """The review of one game record: the settings (seats, budget, the search's spec, seed), every reviewed
    decision in game order and a summary per seat. `unit`: the unit of losses, labels and summaries (expected
    final points). `labelled`: the decisions with a label. table_deals: the deals each of the search's
    mistakes and blunders was played on from by the bots that sat at the table (0: losses by the search alone;
    review_table.py)."""
    players: int
    bots: tuple
    seats: tuple
    budget: int
    spec: str
    seed: int
    calibrated: bool
    decisions: tuple
    summaries: tuple
    scores: tuple = ()
    unit: str = UNIT
    thresholds: dict = field(default_factory=lambda: dict(THRESHOLDS))
    accuracy_points: float = ACCURACY_POINTS
    uncertainty: str = UNCERTAINTY
    table_deals: int = 0

    @property
    def labelled(self) -> tuple:
        return tuple(d for d in self.decisions if d.label)

    def summary(self, seat: int) -> PlayerSummary:
        return next(s for s in self.summaries if s.seat == seat)

    def to_dict(self) -> dict:
        """JSON-ready: the settings, `decisions` (each a dict of DecisionReview's fields and its accuracy) and
        `summaries`."""
        d = asdict(self)
        d["bots"], d["seats"], d["scores"] = list(self.bots), list(self.seats), list(self.scores)
        d["decisions"] = [{**asdict(x), "best_line": list(x.best_line), "good_moves": list(x.good_moves),
                           "accuracy": round(x.accuracy, 2)}
                          for x in self.decisions]
        d["summaries"] = [{**asdict(s), "worst_turns": [asdict(w) for w in s.worst_turns],
                           "turning_points": list(s.turning_points)} for s in self.summaries]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Review":
        """The Review of a to_dict() (a cache file); KeyError / TypeError for anything else."""
        decisions = tuple(DecisionReview(**{**{k: v for k, v in x.items() if k != "accuracy"},
                                            "best_line": tuple(x["best_line"]),
                                            "good_moves": tuple(x["good_moves"])}) for x in d["decisions"])
        summaries = tuple(PlayerSummary(**{**s, "worst_turns": tuple(WorstTurn(**w) for w in s["worst_turns"]),
                                           "turning_points": tuple(s["turning_points"])})
                          for s in d["summaries"])
        return cls(**{**d, "bots": tuple(d["bots"]), "seats": tuple(d["seats"]), "scores": tuple(d["scores"]),
                      "decisions": decisions, "summaries": summaries})


class ReviewCancelled(ThurnError):
    """review() stopped because `cancelled()` said so."""


# ---------------------------------------------------------------- the decisions of a record

@dataclass(frozen=True)
class Decision:
    """A decision to review: the state before the move (the true state: reduce it with seat_view before
    searching), its number in the game, the seat and the move played (code and notation)."""
    index: int
    state: GameState
    seat: int
    move: int
    text: str


def decisions_of(record: GameRecord, seats=None, moves=None) -> list[Decision]:
    """The decisions of `seats` (None: all) in a record: every move whose position had more than one legal
    move (`moves`: only those with these numbers, from 0). The record is replayed by match.Table
    (ReplayError names a move that does not replay; PositionError if it ends with other scores than the
    record says)."""
    chosen = set(range(record.rules.players) if seats is None else seats)
    table = Table.new(record.rules, record.seed, record.bots)
    out: list[Decision] = []

    def keep(state, player, move):
        if player in chosen and (moves is None or len(table.moves) in moves) and len(state.legal_moves()) > 1:
            out.append(Decision(len(table.moves), state.clone(), player, move, state.move_str(move)))

    for _ in table.replay(record.moves, keep):
        pass
    if record.scores and table.state.scores() != list(record.scores):     # as `thurn-ai replay` refuses it
        raise PositionError(f"replay ends with scores {table.state.scores()}, the record says "
                            f"{list(record.scores)}")
    return out


# ---------------------------------------------------------------- one decision

def review_decision(state: GameState, seat: int, played: int, index: int, spec: BotSpec, seed: int,
                    budget: int) -> DecisionReview:
    """Review one decision: `state` the position (the true one or any the seat cannot tell from it: only
    seat_view(state) is searched), `played` the move's code. See play/review_rating.py for the method."""
    r = rate_decision(state, seat, played, spec, seed, budget, index)
    top, line = r.main.best, r.main.recommended_turn
    mine = r.played if r.played is not None else r.best
    both = played != top.move
    return DecisionReview(
        index=index, turn=state.turn, seat=seat, phase=state.phase, played=state.move_str(played),
        best=top.notation, played_official=r.official, best_official=top.official,
        best_line=tuple(line.moves) or (top.notation,), best_line_then=line.then, good_moves=r.good_moves,
        played_win=mine.win, best_win=r.best.win, played_points=mine.points, best_points=r.best.points,
        loss_points=r.loss_points or 0.0, loss_win=r.loss_win or 0.0, loss_utility=r.loss_utility or 0.0,
        uncertainty=r.uncertainty, label=label_of(r.smaller_loss) if both and r.smaller_loss else None,
        rated_by="both searched" if both else "best", options=len(state.legal_moves()),
        loss_margin=r.loss_margin or 0.0)


def _review_task(task: tuple) -> DecisionReview:
    """A worker's task (module level: picklable): (state, seat, move, index, spec, seed, budget)."""
    return review_decision(*task)


# ---------------------------------------------------------------- the whole game

def review(record: GameRecord, seats=None, budget: int = DEFAULT_BUDGET, bot: BotSpec = DEFAULT_SPEC,
           seed: int = 0, jobs: int = 1, client=None, progress: Callable[[int, int], None] | None = None,
           cache_dir=None, cancelled: Callable[[], bool] | None = None, moves=None,
           table_deals: int = 0) -> Review:
    """Review `record` for `seats` (None: every seat) with searches of `budget` iterations of `bot` (hint's
    configuration of it: analysis.bot_spec); `moves`: only the decisions with these move numbers (from 0;
    None: all). jobs > 1 searches decisions in a process pool, `client` on a
    Dask cluster (play/workers.run_each). progress(done, total) after each decision. cache_dir: read the
    review from there if it was made before, else write it there (cache_path). cancelled(): checked after
    each decision; True stops the review (ReviewCancelled). table_deals (at least 2; 0: none): then every
    decision the search labels a mistake or a blunder is played on at the table that played, from that many
    deals (review_table.py; a game of bots that do not search only: ThurnError otherwise, before any work).
    The same arguments give the same Review. PositionError for a record that does not replay or seats that
    are not the game's."""
    n = record.rules.players
    seats = tuple(sorted(set(range(n) if seats is None else seats)))
    if not seats or any(not isinstance(s, int) or not 0 <= s < n for s in seats):
        raise PositionError(f"seats must be seats of this {n}-player game (0-{n - 1}), not {list(seats)}")
    if not isinstance(make_bot(bot), Analyst):
        raise BotSpecError(f"bot {str(bot)!r} cannot analyse a position; review with a search bot such as mcts")
    spec = bot_spec(bot, budget, None, n)
    if table_deals:                     # checked before any work
        if isinstance(table_deals, bool) or not isinstance(table_deals, int) or table_deals < 2:
            raise ThurnError(f"the table plays on from at least 2 deals, not {table_deals!r}")
        specs = table_bots(record.bots)
    if isinstance(moves, range):        # bounded by the game: --moves 1-10**20 is never a set of 10**20
        moves = frozenset(i for i in range(len(record.moves)) if i in moves)
    elif moves is not None:
        moves = frozenset(moves)
    path = cache_path(record, seats, budget, spec, seed, cache_dir, moves, table_deals) \
        if cache_dir is not None else None
    cached = _read_cache(path)
    if cached is not None:
        if progress:
            progress(len(cached.decisions), len(cached.decisions))
        return cached
    if table_deals:
        out = _at_table(review(record, seats, budget, bot, seed, jobs, client, progress, cache_dir, cancelled, moves),
                        record, specs, table_deals, jobs, client, progress, cancelled)
        if path is not None:
            _write_cache(path, out)
        return out
    decisions = decisions_of(record, seats, moves)
    tasks = [(d.state, d.seat, d.move, d.index, spec, seed, budget) for d in decisions]
    done: list[DecisionReview] = []
    with closing(iter(run_each(_review_task, tasks, jobs, client))) as results:   # closing stops the workers
        for result in results:
            done.append(result)
            if progress:
                progress(len(done), len(tasks))
            if cancelled and cancelled():
                raise ReviewCancelled("review cancelled")
    done.sort(key=lambda d: d.index)
    out = Review(players=n, bots=tuple(record.bots), seats=seats, budget=budget, spec=str(spec),
                 seed=seed, calibrated=_calibrated(spec, n),
                 decisions=tuple(done), summaries=tuple(_summary(s, record.bots[s], done) for s in seats),
                 scores=tuple(record.scores))
    if path is not None:
        _write_cache(path, out)
    return out


def _at_table(base: Review, record: GameRecord, specs, table_deals: int, jobs, client, progress,
              cancelled) -> Review:
    """The search's review `base` with its mistakes and blunders played on at the table that played by bots of
    `specs` (review_table.at_table_decision), its summaries made again."""
    todo = [d for d in base.decisions if needs_table(d.label)]
    states = {d.index: d.state for d in decisions_of(record, base.seats, {d.index for d in todo})}
    tasks = [(states[d.index], d, specs, table_deals, base.seed) for d in todo]
    rerated = {}
    with closing(iter(run_each(at_table_decision, tasks, jobs, client))) as results:
        for result in results:
            rerated[result.index] = result
            if progress:
                progress(len(base.decisions) + len(rerated), len(base.decisions) + len(tasks))
            if cancelled and cancelled():
                raise ReviewCancelled("review cancelled")
    done = [rerated.get(d.index, d) for d in base.decisions]
    return replace(base, decisions=tuple(done), table_deals=table_deals,
                   summaries=tuple(_summary(s, record.bots[s], done) for s in base.seats))


def _calibrated(spec: BotSpec, players: int) -> bool:
    from .win_chance import win_chance_for
    return win_chance_for(spec, players).calibrated


def _summary(seat: int, bot: str, decisions: list[DecisionReview]) -> PlayerSummary:
    mine = [d for d in decisions if d.seat == seat]
    n = max(len(mine), 1)
    labelled = sorted((d for d in mine if d.label), key=lambda d: -d.loss_points)
    return PlayerSummary(
        seat=seat, bot=bot, decisions=len(mine), rated=len(mine),
        accuracy=sum(d.accuracy for d in mine) / n if mine else 100.0,
        total_loss_points=sum(d.loss_points for d in mine),
        mean_loss_points=sum(d.loss_points for d in mine) / n, mean_loss_win=sum(d.loss_win for d in mine) / n,
        counts={name: sum(d.label == name for d in mine) for name in LABELS},
        worst_turns=worst_turns(mine), turning_points=tuple(d.index for d in labelled[:3]))


def worst_turns(decisions, k: int = 3) -> tuple:
    """The `k` turns of these decisions (one seat's) that lost the most expected points, worst first; turns
    that lost nothing are left out."""
    turns: dict[int, list[DecisionReview]] = {}
    for d in decisions:
        turns.setdefault(d.turn, []).append(d)
    rows = [WorstTurn(turn=t, loss_points=sum(d.loss_points for d in ds),
                      move=max(ds, key=lambda d: d.loss_points).index) for t, ds in turns.items()]
    rows = [w for w in rows if w.loss_points > 0]
    return tuple(sorted(rows, key=lambda w: (-w.loss_points, w.turn))[:k])


# ---------------------------------------------------------------- the cache

def default_cache_dir() -> Path:
    """Where reviews are cached: $THURN_AI_CACHE/reviews, else $XDG_CACHE_HOME/thurn-ai/reviews, else
    ~/.cache/thurn-ai/reviews."""
    import os
    if os.environ.get("THURN_AI_CACHE"):
        return Path(os.environ["THURN_AI_CACHE"]) / "reviews"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "thurn-ai" / "reviews"


def cache_path(record: GameRecord, seats, budget: int, spec: BotSpec, seed: int, cache_dir, moves=None,
               table_deals: int = 0) -> Path:
    """The cache file of a review: named by a hash of the record (its JSON line), the seats, the budget,
    the search's spec, the seed, the moves asked for, the table's deals (if any) and REVIEW_VERSION."""
    key = json.dumps([REVIEW_VERSION, json.loads(record.to_json()), list(seats), budget, str(spec), seed,
                      None if moves is None else sorted(moves), *([table_deals] if table_deals else [])],
                     sort_keys=True, ensure_ascii=False)
    return Path(cache_dir) / f"review-{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def _cache_checksum(review: dict) -> str:
    """The SHA-256 of a review's canonical JSON: written beside it in the cache, checked when read."""
    text = json.dumps(review, sort_keys=True, ensure_ascii=False, allow_nan=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read_cache(path: Path | None) -> Review | None:
    """The cached review, or None (missing, unreadable, not a review or not what was written: its checksum
    differs, e.g. an edited label; it is then made again: a cache is never trusted as read)."""
    if path is None or not path.is_file():
        return None
    try:
        saved = loads_json(read_text(path, "review cache"), str(path))
        if not isinstance(saved, dict) or set(saved) != {"sha256", "review"} \
                or saved["sha256"] != _cache_checksum(saved["review"]):
            return None
        return Review.from_dict(saved["review"])
    except (ThurnError, KeyError, TypeError, ValueError, AttributeError):
        return None


def _write_cache(path: Path, out: Review) -> None:
    """Write the review atomically with its checksum; a cache that cannot be written is no error (the review
    is returned)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        review = json.loads(json.dumps(out.to_dict(), ensure_ascii=False))      # as it will be read back
        atomic_write_text(path, json.dumps({"sha256": _cache_checksum(review), "review": review},
                                           ensure_ascii=False), what="review cache")
    except (OSError, ThurnError, ValueError):
        pass



# ---------------------------------------------------------------- which record

def load_record(path, game: int = 1, board_file=None) -> tuple[GameRecord, str]:
    """The record to review and how to name it: `path` a file of game records (JSON lines, as `play` and the
    board write them; `game`: its line, 1 = first) or a tournament's folder (its records.jsonl; `game`: the
    game's number there, as results.csv numbers games). One PositionError for anything else."""
    from ..fileio import path_text
    from .match import parse_records
    p = Path(path)
    if p.is_dir():
        line, numbers = _tournament_line(p / "records.jsonl", game)
        if line is None:
            raise PositionError(f"{path_text(p)} holds no game {game} (its games: {_ranges(numbers)})")
        return parse_records(line, f"{path_text(p / 'records.jsonl')} game {game}", board_file)[0], \
            f"{path_text(p)} game {game}"
    from .match import read_records
    records = read_records(p, board_file)
    if not 1 <= game <= len(records):
        n = len(records)
        raise PositionError(f"{path_text(p)} holds {n} game{'s' if n != 1 else ''}; game {game} is out of "
                            f"range (1-{n})")
    return records[game - 1], f"{path_text(p)} game {game}"


def _tournament_line(path: Path, game: int) -> tuple[str | None, list]:
    """The line of game `game` in a tournament's records.jsonl, streamed to it (a log of any size is never
    held whole: fileio.read_lines), or None and the lowest and highest game numbers seen."""
    from ..fileio import decode_text, path_text, read_lines
    from .tournament.store import MAX_LINE_BYTES
    seen: list = []
    try:
        for _, raw in read_lines(path, "tournament records", PositionError, MAX_LINE_BYTES):
            if not raw.strip():
                continue
            line = decode_text(raw, f"tournament records {path_text(path)}", PositionError)
            number = _game_number(line)
            if number == game:
                return line, seen
            if isinstance(number, int):
                seen = [min([number, *seen]), max([number, *seen])]
    except FileNotFoundError as e:
        raise PositionError(f"cannot read tournament records {path_text(path)}: {e.strerror}") from None
    return None, seen


def _game_number(line: str):
    try:
        d = json.loads(line)
    except (ValueError, RecursionError):      # not a record: its game number is none
        return None
    return d.get("game") if isinstance(d, dict) else None


def _ranges(numbers) -> str:
    ok = sorted(n for n in numbers if isinstance(n, int))
    return f"{ok[0]}-{ok[-1]}" if ok else "none"
