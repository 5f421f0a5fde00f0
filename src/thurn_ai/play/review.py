"""Reviewing a whole game: where each player lost their chances (what `thurn-ai review` and the board's
"Review this game" show), as data.

    >>> from thurn_ai.play.review import load_record, review
    >>> record, name = load_record("examples/review_game.jsonl")      # or a tournament folder and game number
    >>> r = review(record, seats=[0])                                 # a Review: frozen, the same each time
    >>> [(d.index, d.played, d.best, d.loss_win, d.label) for d in r.labelled]
    >>> r.summary(0).mean_loss_win, r.summary(0).counts, r.summary(0).turning_points

Every decision of the chosen seats (a move with more than one legal option) is searched from THAT player's
information only: the decision's state is first reduced to the seat's view and the hidden cards re-dealt
(`seat_view`, as `thurn-ai hint` does), so the review never peeks at cards the player could not see.

How the played move is rated. The search (`analyse`, hint's configuration: PUCT with a prior) spends its
budget on the promising moves and may not visit the played one at all. When it visited the played move at
least MIN_VISITS times, it rates it; otherwise the decision is searched again by the same search with UCB
selection (`select=ucb`, c=RESEARCH_C): that search tries every move of the decision, and the
played and the best move are both rated by it, so their difference is in one search's units (`rated_by`:
'search' or 're-search'). A move outside the moves the tree considers (house placements other than the
next city of a complete set) is 'unrated'.

How a decision is labelled (a re-search decides). When the played move is not the search's best, the
decision is rated by two independent searches (other seeds; the first is the main search when it rated the
played move): the loss is the mean of their losses -- the best move's win chance minus the played move's
(calibrated among equal players, as in a hint), and the same in expected final points -- and the
uncertainty half their difference. The label -- inaccuracy, mistake, blunder at THRESHOLDS of lost win
chance -- is the one the SMALLER of the two losses earns: a label is given only where both searches find
the loss, so a loss within the searches' own disagreement is not labelled.
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
from .analysis import DEFAULT_SPEC, Analysis, Option, analyse, bot_spec
from .match import GameRecord, Table, derive_seed
from .workers import run_each

__all__ = ["review", "review_decision", "Review", "DecisionReview", "PlayerSummary", "decisions_of",
           "seat_view", "DEFAULT_BUDGET", "THRESHOLDS", "LABELS", "MIN_VISITS",
           "cache_path", "default_cache_dir", "load_record", "ReviewCancelled"]

#: iterations per search at the default budget: a 3-player game, all seats, in under 2 minutes on 2 cores
#: (results/review/README.md)
DEFAULT_BUDGET = 3000
#: lost win chance (0-1) from which a decision is an inaccuracy, a mistake, a blunder
THRESHOLDS = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}
LABELS = tuple(THRESHOLDS)
#: fewer visits of the played move than this: rate the decision by the UCB re-search
MIN_VISITS = 30
#: the re-search's exploration constant: on planted throw-aways its values came closer to PUCT's than at c=1.0
RESEARCH_C = 0.5
#: bumped when a review's numbers would change for the same record, budget and spec (the cache's key)
REVIEW_VERSION = 1
UNCERTAINTY = ("re-search: two independent searches rate each decision whose played move is not the best; "
               "the label is the one the smaller of their two losses earns (uncertainty: half their difference)")


@dataclass(frozen=True)
class DecisionReview:
    """One decision of a reviewed seat. index: the move's number in the game (from 0); turn (from 0), seat,
    phase; played / best: the moves (notation); *_win: the seat's win chance after each, *_points: its
    expected final points; loss_win / loss_points: best minus played (0 when the best was played; None when
    unrated); uncertainty: half the difference of the two searches' losses of win chance; label: 'inaccuracy',
    'mistake', 'blunder' or None; rated_by: 'search', 're-search' or 'unrated'; win: the seat's win chance
    at this decision with the best move (the graph's value); options: the legal moves."""
    index: int
    turn: int
    seat: int
    phase: str
    played: str
    best: str
    played_win: float | None
    best_win: float
    played_points: float | None
    best_points: float
    loss_win: float | None
    loss_points: float | None
    uncertainty: float | None
    label: str | None
    rated_by: str
    options: int

    @property
    def win(self) -> float:
        return self.best_win


@dataclass(frozen=True)
class PlayerSummary:
    """One reviewed seat: decisions reviewed (rated), mean loss of win chance and of points over the rated
    ones, counts of each label, and the turning points (the indexes of its largest labelled losses, largest
    first, at most 3)."""
    seat: int
    bot: str
    decisions: int
    rated: int
    mean_loss_win: float
    mean_loss_points: float
    counts: dict = field(default_factory=dict)
    turning_points: tuple = ()


@dataclass(frozen=True)
class Review:
    """The review of one game record: the settings (seats, budget, the two searches' specs, seed), every
    reviewed decision in game order and a summary per seat. `labelled`: the decisions with a label."""
    players: int
    bots: tuple
    seats: tuple
    budget: int
    spec: str
    research_spec: str
    seed: int
    calibrated: bool
    decisions: tuple
    summaries: tuple
    scores: tuple = ()
    thresholds: dict = field(default_factory=lambda: dict(THRESHOLDS))
    uncertainty: str = UNCERTAINTY

    @property
    def labelled(self) -> tuple:
        return tuple(d for d in self.decisions if d.label)

    def summary(self, seat: int) -> PlayerSummary:
        return next(s for s in self.summaries if s.seat == seat)

    def to_dict(self) -> dict:
        """JSON-ready: the settings, `decisions` (each a dict of DecisionReview's fields) and `summaries`."""
        d = asdict(self)
        d["bots"], d["seats"], d["scores"] = list(self.bots), list(self.seats), list(self.scores)
        d["decisions"] = [asdict(x) for x in self.decisions]
        d["summaries"] = [{**asdict(s), "turning_points": list(s.turning_points)} for s in self.summaries]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Review":
        """The Review of a to_dict() (a cache file); KeyError / TypeError for anything else."""
        decisions = tuple(DecisionReview(**x) for x in d["decisions"])
        summaries = tuple(PlayerSummary(**{**s, "turning_points": tuple(s["turning_points"])})
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


def seat_view(state: GameState, seat: int, seed: int) -> GameState:
    """What `seat` knew at `state`, with everything it could not see re-dealt (seeded): the state a review
    searches. Two states the seat cannot tell apart give the same seat_view."""
    from ..position import position_from_dict
    return position_from_dict(state.to_dict(viewer=seat), seed=seed)


# ---------------------------------------------------------------- one decision

def research_spec(spec: BotSpec) -> BotSpec:
    """The re-search's spec: the same search with UCB selection at every node (it tries every move of the
    decision; a learned prior is PUCT's and is dropped)."""
    out = spec.with_(select="ucb", c=RESEARCH_C)
    return out.without("policy", "mix") if spec.option("policy") == "learned" else out


def _label(loss: float) -> str | None:
    """The label a loss of win chance earns (None below the first threshold)."""
    out = None
    for name, threshold in THRESHOLDS.items():
        if loss >= threshold:
            out = name
    return out


def review_decision(state: GameState, seat: int, played: int, index: int, spec: BotSpec, seed: int,
                    budget: int) -> DecisionReview:
    """Review one decision: `state` the position (the true one or any the seat cannot tell from it: only
    seat_view(state) is searched), `played` the move's code. See the module's text for the method."""
    view = seat_view(state, seat, derive_seed("review-view", seed, index))
    seeds = [derive_seed("review-search", seed, index, k) for k in range(2)]
    main = analyse(view, bot=spec, iterations=budget, seed=seeds[0])
    best = main.best
    base = DecisionReview(index=index, turn=view.turn, seat=seat, phase=view.phase, played=view.move_str(played),
                          best=best.notation, played_win=best.win_prob, best_win=best.win_prob,
                          played_points=best.mean_score, best_points=best.mean_score, loss_win=0.0, loss_points=0.0,
                          uncertainty=0.0, label=None, rated_by="search", options=len(view.legal_moves()))
    if played == best.move:
        return base
    got = _option(main, played)
    if got is not None and got.visits >= MIN_VISITS:
        rated_by, raters = "search", [main, analyse(view, bot=spec, iterations=budget, seed=seeds[1])]
    else:
        rated_by, raters = "re-search", [analyse(view, bot=research_spec(spec), iterations=budget, seed=s)
                                         for s in seeds]
    losses = [_loss(a, best.move, played) for a in raters]
    if any(x is None for x in losses):
        return replace(base, played_win=None, played_points=None, loss_win=None, loss_points=None,
                       uncertainty=None, rated_by="unrated")
    wins, points = zip(*[x for x in losses if x is not None])
    # a second search may rate the played move above the best: that counts as no loss, not as a gain
    loss_win, loss_points = max(sum(wins) / 2, 0.0), sum(points) / 2
    return replace(base, played_win=best.win_prob - loss_win, played_points=best.mean_score - loss_points,
                   loss_win=loss_win, loss_points=loss_points, uncertainty=abs(wins[0] - wins[1]) / 2,
                   label=_label(min(wins)), rated_by=rated_by)


def _loss(a: Analysis, best: int, played: int) -> tuple[float, float] | None:
    """(win chance, points) of `best` minus those of `played` in one search (None: it rated only one)."""
    top, got = _option(a, best), _option(a, played)
    if top is None or got is None:
        return None
    return top.win_prob - got.win_prob, top.mean_score - got.mean_score


def _option(a: Analysis, move: int) -> Option | None:
    return next((o for o in a.options if o.move == move), None)


def _review_task(task: tuple) -> DecisionReview:
    """A worker's task (module level: picklable): (state, seat, move, index, spec, seed, budget)."""
    return review_decision(*task)


# ---------------------------------------------------------------- the whole game

def review(record: GameRecord, seats=None, budget: int = DEFAULT_BUDGET, bot: BotSpec = DEFAULT_SPEC,
           seed: int = 0, jobs: int = 1, client=None, progress: Callable[[int, int], None] | None = None,
           cache_dir=None, cancelled: Callable[[], bool] | None = None, moves=None) -> Review:
    """Review `record` for `seats` (None: every seat) with searches of `budget` iterations of `bot` (hint's
    configuration of it: analysis.bot_spec); `moves`: only the decisions with these move numbers (from 0;
    None: all). jobs > 1 searches decisions in a process pool, `client` on a
    Dask cluster (play/workers.run_each). progress(done, total) after each decision. cache_dir: read the
    review from there if it was made before, else write it there (cache_path). cancelled(): checked after
    each decision; True stops the review (ReviewCancelled). The same arguments give the same
    Review. PositionError for a record that does not replay or seats that are not the game's."""
    n = record.rules.players
    seats = tuple(sorted(set(range(n) if seats is None else seats)))
    if not seats or any(not isinstance(s, int) or not 0 <= s < n for s in seats):
        raise PositionError(f"seats must be seats of this {n}-player game (0-{n - 1}), not {list(seats)}")
    if not isinstance(make_bot(bot), Analyst):
        raise BotSpecError(f"bot {str(bot)!r} cannot analyse a position; review with a search bot such as mcts")
    spec = bot_spec(bot, budget, None, n)
    if isinstance(moves, range):        # bounded by the game: --moves 1-10**20 is never a set of 10**20
        moves = frozenset(i for i in range(len(record.moves)) if i in moves)
    elif moves is not None:
        moves = frozenset(moves)
    path = cache_path(record, seats, budget, spec, seed, cache_dir, moves) if cache_dir is not None else None
    cached = _read_cache(path)
    if cached is not None:
        if progress:
            progress(len(cached.decisions), len(cached.decisions))
        return cached
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
                 research_spec=str(research_spec(spec)), seed=seed, calibrated=_calibrated(spec, n),
                 decisions=tuple(done), summaries=tuple(_summary(s, record.bots[s], done) for s in seats),
                 scores=tuple(record.scores))
    if path is not None:
        _write_cache(path, out)
    return out


def _calibrated(spec: BotSpec, players: int) -> bool:
    from .win_chance import win_chance_for
    return win_chance_for(spec, players).calibrated


def _summary(seat: int, bot: str, decisions: list[DecisionReview]) -> PlayerSummary:
    mine = [d for d in decisions if d.seat == seat]
    rated = [d for d in mine if d.loss_win is not None]
    labelled = sorted((d for d in mine if d.label), key=lambda d: -(d.loss_win or 0.0))
    return PlayerSummary(
        seat=seat, bot=bot, decisions=len(mine), rated=len(rated),
        mean_loss_win=sum(d.loss_win or 0.0 for d in rated) / len(rated) if rated else 0.0,
        mean_loss_points=sum(d.loss_points or 0.0 for d in rated) / len(rated) if rated else 0.0,
        counts={name: sum(d.label == name for d in mine) for name in LABELS},
        turning_points=tuple(d.index for d in labelled[:3]))


# ---------------------------------------------------------------- the cache

def default_cache_dir() -> Path:
    """Where reviews are cached: $THURN_AI_CACHE/reviews, else $XDG_CACHE_HOME/thurn-ai/reviews, else
    ~/.cache/thurn-ai/reviews."""
    import os
    if os.environ.get("THURN_AI_CACHE"):
        return Path(os.environ["THURN_AI_CACHE"]) / "reviews"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "thurn-ai" / "reviews"


def cache_path(record: GameRecord, seats, budget: int, spec: BotSpec, seed: int, cache_dir, moves=None) -> Path:
    """The cache file of a review: named by a hash of the record (its JSON line), the seats, the budget,
    the search's spec, the seed, the moves asked for and REVIEW_VERSION."""
    key = json.dumps([REVIEW_VERSION, json.loads(record.to_json()), list(seats), budget, str(spec), seed,
                      None if moves is None else sorted(moves)],
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
