"""Playing one game between bots, and game records (JSON lines) that replay exactly.

A record holds the seed, the rules, the bot specs and every move in notation; the game's chance
generator is seeded with the record's seed, so applying the moves to new_game(seed) reproduces it.
"""
from __future__ import annotations

import copy
import json
import os
import random
from dataclasses import dataclass, field
from functools import partial
from collections.abc import Callable, Iterator
from typing import NamedTuple, Protocol

from .._core import GameState
from ..bots.base import Bot, Observation
from ..errors import BotFailure, PositionError, ThurnError
from ..fileio import loads_json, path_text, read_text, short_repr
from ..game.notation import illegal_move_error
from ..game.officials import OFFICIALS, STAGES, game_stage, official_of
from ..game.rules import Rules
from ..game.state import CloseAward, CloseLog, new_game


def derive_seed(*parts) -> int:
    """A 63-bit seed derived from parts (stable across runs and platforms)."""
    r = random.Random(repr(parts))
    return r.getrandbits(63)


@dataclass
class GameRecord:
    """The record of one game, as play_game returns it and `play --record` / a tournament's records.jsonl
    save it (one JSON line: to_json / from_json).

    Attributes:
        seed: the game's seed (chance and the bots' seeds derive from it).
        rules: the Rules it was played under.
        bots: each seat's bot spec, in seat order.
        moves: every move in notation, in order (`thurn-ai replay` replays them).
        scores: each seat's final score.
        ranking: the seats from first to last, with the rules' tie-break.
        winner: the winning seat (-1: none recorded).
        turns: the number of turns played.
        truncated: the game was cut by the rules' max_turns safeguard (docs/rules.md, section 7).
        official_uses: per seat, {official: {stage: count}} for the officials its bot chose to use.
        details: per seat, the parts of the final score (score_details): carriage and carriage_size,
            tile_<stack> per tile stack, tiles, houses_unplaced, closes, score.
        closes: what each close of a route gave, in order (CloseAward values); empty in records written
            before this field existed (replay_closes() recomputes it from the moves).
    """
    seed: int
    rules: Rules
    bots: list[str]
    moves: list[str] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    ranking: list[int] = field(default_factory=list)
    winner: int = -1
    turns: int = 0
    truncated: bool = False
    official_uses: list[dict] = field(default_factory=list)
    details: list[dict] = field(default_factory=list)
    closes: list[CloseAward] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"seed": self.seed, "rules": self.rules.to_dict(), "bots": self.bots,
                           "moves": self.moves, "scores": self.scores, "ranking": self.ranking,
                           "winner": self.winner, "turns": self.turns, "truncated": self.truncated,
                           "official_uses": self.official_uses, "details": self.details,
                           "closes": [c.to_dict() for c in self.closes]},
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str, board_file=None) -> "GameRecord":
        """A record from its JSON line; PositionError ("not a game record: ...") for anything malformed.
        A record names only a packaged board (south, north); `board_file` (a path the user gave, the
        command line's --board-file) replaces it."""
        try:
            d = loads_json(line, "the line", PositionError)
            return cls._from_data(d, board_file)
        except _RulesProblem as e:
            raise PositionError(str(e)) from None
        except ThurnError as e:
            raise PositionError(f"not a game record: {e}") from None

    @classmethod
    def _from_data(cls, d, board_file) -> "GameRecord":
        if not isinstance(d, dict):
            raise PositionError("a record is a JSON object")
        missing = [k for k in ("seed", "rules", "bots", "moves") if k not in d]
        if missing:
            raise PositionError(f"missing field {', '.join(map(repr, missing))}")
        seed = d["seed"]
        if not _is_int(seed) or not -2 ** 63 <= seed < 2 ** 64:
            raise PositionError(f"seed must be a 64-bit integer, not {short_repr(seed)}")
        try:
            rules = Rules.from_dict(d["rules"], packaged_only=True, board_file=board_file)
        except ThurnError as e:
            raise _RulesProblem(f"rules: {e}") from None
        n = rules.players
        bots = _list_of(d["bots"], "bots", str, n)
        moves = _list_of(d["moves"], "moves", str)
        scores = _list_of(d.get("scores", []), "scores", int, n, empty_ok=True)
        ranking = _list_of(d.get("ranking", []), "ranking", int, n, empty_ok=True)
        if ranking and sorted(ranking) != list(range(n)):
            raise PositionError(f"ranking must list each seat 0-{n - 1} once, not {short_repr(ranking)}")
        winner, turns, truncated = d.get("winner", -1), d.get("turns", 0), d.get("truncated", False)
        if not _is_int(winner) or not -1 <= winner < n:
            raise PositionError(f"winner must be a seat 0-{n - 1} (or -1), not {short_repr(winner)}")
        if not _is_int(turns) or not 0 <= turns <= rules.max_turns * n:
            raise PositionError(f"turns must be a whole number 0-{rules.max_turns * n}, not {short_repr(turns)}")
        if not isinstance(truncated, bool):
            raise PositionError(f"truncated must be true or false, not {short_repr(truncated)}")
        official_uses = _list_of(d.get("official_uses", []), "official_uses", dict, n, empty_ok=True)
        details = _list_of(d.get("details", []), "details", dict, n, empty_ok=True)
        closes = []
        for i, c in enumerate(_list_of(d.get("closes", []), "closes", dict)):
            try:
                closes.append(CloseAward.from_dict(c, n))
            except PositionError as e:
                raise PositionError(f"closes[{i}]: {e}") from None
            if c["move"] >= len(moves):
                raise PositionError(f"closes[{i}]: move {c['move']} is past the record's {len(moves)} moves")
        return cls(seed=seed, rules=rules, bots=bots, moves=moves, scores=scores, ranking=ranking,
                   winner=winner, turns=turns, truncated=truncated, official_uses=official_uses,
                   details=details, closes=closes)


class _RulesProblem(PositionError):
    """A record whose rules cannot be played (reported as such, not as "not a game record")."""


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _list_of(v, name: str, kind: type, length: int | None = None, empty_ok: bool = False) -> list:
    """`v` if it is a list of `kind` (of `length` items, or empty if `empty_ok`); else PositionError."""
    word = {str: "strings", int: "whole numbers", dict: "objects"}[kind]
    if not isinstance(v, list) or not all(_is_int(x) if kind is int else isinstance(x, kind) for x in v):
        raise PositionError(f"{name} must be a list of {word}, not {short_repr(v)}")
    if length is not None and len(v) != length and not (empty_ok and not v):
        raise PositionError(f"{name} must list {length} {word} (one per seat), not {len(v)}")
    return list(v)


def score_details(state: GameState) -> list[dict]:
    """Score parts per seat: carriage points, points per tile stack, unplaced houses, total."""
    d = state.export()
    b = state.board
    out = []
    horses = state.rules.resolved_variant == "horses"
    for p in range(state.n_players):
        k = d["carriage"][p]
        carriage = 0 if horses or k < 0 else b.carriages[k][1]
        row = {"carriage": carriage, "carriage_size": 0 if horses or k < 0 else b.carriages[k][0]}
        for t, st in enumerate(b.tiles):
            row[f"tile_{st.id}"] = d["tiles_pts"][p][t]
        row["tiles"] = sum(d["tiles_pts"][p])
        row["houses_unplaced"] = d["houses_left"][p]
        row["closes"] = d["closes"][p]
        row["score"] = state.score(p)
        out.append(row)
    return out


def use_column(official: str, stage: str | None = None) -> str:
    """The result column counting a seat's uses of `official` (in one game stage, or in all)."""
    return f"uses_{official}" + (f"_{stage}" if stage else "")


#: the columns of a record's official_uses, one row per seat (use_counts): each official in all stages,
#: then each official in each stage
STAGE_USE_COLUMNS = [use_column(o, st) for o in OFFICIALS for st in STAGES]
USE_COLUMNS = [use_column(o) for o in OFFICIALS] + STAGE_USE_COLUMNS


def use_counts(uses: dict) -> dict:
    """One seat's official_uses ({official: {stage: count}}) as the USE_COLUMNS."""
    out = {use_column(o): sum(by_stage.values()) for o, by_stage in uses.items()}
    out.update({use_column(o, st): n for o, by_stage in uses.items() for st, n in by_stage.items()})
    return out


class Moved(NamedTuple):
    """What Table.apply did: the move's number in the game (from 0), the turn and seat it was made in,
    its code and notation, the official it used (None for an ordinary move) and what it awarded if it
    closed a route."""
    index: int             # type: ignore[assignment]  # the field hides tuple.index(), on purpose
    turn: int
    player: int
    move: int
    text: str
    official: str | None
    close: CloseAward | None


class ReplayError(PositionError):
    """A move of a record that does not replay: `index` (from 0), its `text` and the `reason`."""

    def __init__(self, index: int, text: str, reason: Exception):
        super().__init__(f"record move {index + 1} ({text!r}) does not replay: {reason}")
        self.index, self.text, self.reason = index, text, reason


class Decision(NamedTuple):
    """A bot's decision at a Table, as an Observer is told of it: the true state before the move (the
    table's own: read it, or clone it to keep it), the seat to move, its bot, the observation the bot chose
    from and the move it chose."""
    state: GameState
    player: int
    bot: Bot
    observation: Observation
    move: int


class Observer(Protocol):
    """What watches a game played at a Table (Table.play, play_game's `observer`): told of each decision
    after the bot chose and before its move is applied (`len(table.moves)` is then the move's number). The
    studies' data generators are observers: they read the positions and ask their own searches while the
    one play loop plays and records the game."""

    def decided(self, table: Table, decision: Decision) -> None:
        ...


class Table:
    """One game being played (or replayed) and recorded: the state, the moves so far in notation, what
    each close awarded and the officials each seat used. The one play loop: play() (play_game) drives it
    to the end, the web's game session steps it a move at a time, replay() feeds it a record's moves.

    `seats` names who plays each seat (bot specs). Each bot sees an Observation drawn from the table's
    own generator, seeded from `seed`, so the same seed and bots play the same game; `observation_seeds`
    (a function giving the next seed) replaces that generator, for data sets whose games were seeded
    their own way before they were played here (studies/learned/data.py, studies/expert/teacher.py)."""

    def __init__(self, state: GameState, seed: int, seats: list[str],
                 observation_seeds: Callable[[], int] | None = None):
        self.state = state
        self.seed = seed
        self.seats = list(seats)
        self.moves: list[str] = []
        self.closes = CloseLog()
        self.uses = [{o: dict.fromkeys(STAGES, 0) for o in OFFICIALS} for _ in self.seats]
        if observation_seeds is None:
            observation_seeds = partial(random.Random(derive_seed("observations", seed)).getrandbits, 64)
        self._observation_seed = observation_seeds
        # the seeds of the observations that tell bots of the other players' moves (inform): a stream of
        # their own, so the observations the bots choose from are the same whether any bot is informed
        self._inform_seed = partial(random.Random(derive_seed("inform", seed)).getrandbits, 64)

    @classmethod
    def new(cls, rules: Rules, seed: int, seats: list[str],
            observation_seeds: Callable[[], int] | None = None) -> "Table":
        return cls(new_game(rules=rules, seed=seed), seed, seats, observation_seeds)

    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    @property
    def to_move(self) -> int:
        return self.state.current_player

    def observation(self) -> Observation:
        """What the seat to move sees (its own draw of the hidden cards)."""
        return Observation(self.state, self.to_move, self._observation_seed())

    def news(self, bots, move: int) -> list[tuple[Bot, Observation, int, int]]:
        """What inform() tells of `move`, about to be made by the seat to move: (bot, its seat's own
        Observation of the position before the move, the mover, the move) for each other seat whose bot asks
        (Bot.informed; None: a person). A move code shows nothing hidden (the deck draw is one code); the
        observation is dealt by its own stream, from public facts only (tests/core/test_search_infer.py)."""
        p = self.to_move
        return [(bot, Observation(self.state, seat, self._inform_seed()), p, move)
                for seat, bot in enumerate(bots) if seat != p and getattr(bot, "informed", False)]

    def inform(self, bots, move: int) -> None:
        """Tell the other seats' bots that ask of `move` (news), before it is applied."""
        for bot, obs, player, m in self.news(bots, move):
            bot.inform(obs, player, m)

    def check_bot_move(self, move: int) -> None:
        """ThurnError naming the bot if the move it chose is not legal."""
        if not self.state.is_legal(move):
            raise ThurnError(f"bot {self.seats[self.to_move]} chose an illegal move {self.state.move_str(move)!r}")

    def apply(self, move: int, text: str | None = None) -> Moved:
        """Apply a legal move and record it. `text`: its notation as the caller has it already (a
        record's move, which parses to `move`), so a replay does not write every move again."""
        s = self.state
        p = s.current_player
        official = official_of(s, move)
        if official:
            self.uses[p][official][game_stage(s)] += 1
        index, turn = len(self.moves), s.turn
        if text is None:
            text = s.move_str(move)
        self.moves.append(text)
        self.closes.before(s, move)
        s.apply(move)
        return Moved(index, turn, p, move, text, official, self.closes.after(s))

    def play(self, bots: list[Bot], on_move=None, observer: Observer | None = None) -> GameRecord:
        """Play the game to its end with `bots` (one a seat, in seat order) and return its record. Each bot
        sees only its own observation; `on_move(state, player, move)` is called before each move is applied
        (for logs), `observer.decided(table, Decision)` too (after on_move)."""
        while not self.over:
            p = self.to_move
            obs = self.observation()
            move = _checked_move(bots[p], _choose(bots[p], obs))
            self.check_bot_move(move)
            if on_move:
                on_move(self.state, p, move)
            if observer is not None:
                observer.decided(self, Decision(self.state, p, bots[p], obs, move))
            self.inform(bots, move)
            self.apply(move)
        return self.record()

    def replay(self, texts, on_move=None):
        """Apply moves given in notation (a record's), yielding what each did (Moved); `on_move(state,
        player, move)` is called before each is applied. ReplayError for a move that does not replay
        (nothing of it applied)."""
        for i, text in enumerate(texts):
            try:
                move = self.state.parse_move(text)
                if not self.state.is_legal(move):
                    raise illegal_move_error(self.state, move)
                if on_move:
                    on_move(self.state, self.to_move, move)
            except ThurnError as e:
                raise ReplayError(i, text, e) from None
            yield self.apply(move, text)

    def snapshot(self) -> tuple:
        """The game and its record as they are now, for restore()."""
        return self.state.clone(), len(self.moves), copy.deepcopy(self.closes), copy.deepcopy(self.uses)

    def restore(self, snapshot: tuple) -> None:
        """Back to a snapshot() taken earlier in this game."""
        self.state, n_moves, self.closes, self.uses = snapshot
        del self.moves[n_moves:]

    def record(self) -> GameRecord:
        """The game record so far; with the result once the game is over."""
        s = self.state
        rec = GameRecord(seed=self.seed, rules=s.rules, bots=list(self.seats), moves=list(self.moves),
                         turns=s.turn, official_uses=self.uses, closes=list(self.closes.awards))
        if s.is_terminal():
            rec.scores, rec.ranking, rec.winner = s.scores(), s.ranking(), s.winner()
            rec.truncated = bool(s.export()["truncated"])
            rec.details = score_details(s)
        return rec


def play_game(rules: Rules, bots: list[Bot], seed: int, on_move=None, observer: Observer | None = None,
              observation_seeds: Callable[[], int] | None = None) -> GameRecord:
    """Play one game (Table.play); each bot sees only its own observation. `on_move(state, player, move)`
    is called before each move is applied (for logs); `observer` is told of each decision (Observer);
    `observation_seeds`: see Table."""
    if len(bots) != rules.players:
        raise ThurnError(f"{rules.players} players need {rules.players} bots, got {len(bots)}")
    table = Table.new(rules, seed, [getattr(b, "spec", "?") for b in bots], observation_seeds)
    return table.play(bots, on_move, observer)


def _choose(bot: Bot, observation):
    """bot.choose(observation); a plugin bot's exception (or sys.exit) is one BotFailure naming the bot, as
    bad input is, unless THURN_AI_DEBUG is set (the package's own bots keep their traceback: a bug)."""
    try:
        return bot.choose(observation)
    except (Exception, SystemExit) as e:
        from ..bots.spec import is_builtin
        if is_builtin(bot) or os.environ.get("THURN_AI_DEBUG"):
            raise
        what = f"called sys.exit({e.code!r})" if isinstance(e, SystemExit) else \
            f"raised {type(e).__name__}: {' '.join(str(e).split())}"[:400]
        raise BotFailure(f"bot {getattr(bot, 'spec', type(bot).__name__)}: choose() {what} (a bug in that bot; "
                         "THURN_AI_DEBUG=1 shows its traceback)") from None


def _checked_move(bot: Bot, move):
    """A bot's choice as a move code: an int (numpy's too); anything else (a string such as "draw deck",
    None, a float) is one BotFailure naming the bot, never a TypeError deep in the engine."""
    import numbers
    if isinstance(move, numbers.Integral) and not isinstance(move, bool):
        return int(move)
    raise BotFailure(f"bot {getattr(bot, 'spec', type(bot).__name__)}: choose() returned {short_repr(move)}, "
                     "not a move code (an int from observation.legal_moves(); a bug in that bot)")


def replay_table(record: GameRecord, on_move=None, after_move=None) -> Table:
    """A record's moves applied to a new game with its seed (the Table at the end: its state, moves,
    closes, uses). `on_move(state, player, move)` is called before each move is applied,
    `after_move(state)` after it. PositionError (a ReplayError) names a move that does not replay."""
    table = Table.new(record.rules, record.seed, record.bots)
    for moved in table.replay(record.moves, on_move):
        if after_move:
            try:
                after_move(table.state)
            except ThurnError as e:
                raise ReplayError(moved.index, record.moves[moved.index], e) from None
    return table


def replay(record: GameRecord, on_move=None, after_move=None) -> GameState:
    """The final state of a record's replay (see replay_table)."""
    return replay_table(record, on_move, after_move).state


def record_walk(record: GameRecord) -> Iterator[tuple[int, GameState, int]]:
    """Each move of a record with the position it was made in: (index, state, move code), the game replayed
    once on the way. The state is the replay's own and moves on when the loop does: read it, or clone it
    to keep it."""
    state = new_game(rules=record.rules, seed=record.seed)
    for i, text in enumerate(record.moves):
        move = state.parse_move(text)
        yield i, state, move
        state.apply(move)


def position_at(record: GameRecord, move: int) -> GameState:
    """The position of a recorded game before its move number `move` (0: the start; len(record.moves): the
    end); PositionError for a number the record has no position for."""
    if isinstance(move, bool) or not 0 <= move <= len(record.moves):
        raise PositionError(f"the record has {len(record.moves)} moves; there is no position before move {move}")
    state = new_game(rules=record.rules, seed=record.seed)
    for text in record.moves[:move]:
        state.apply(state.parse_move(text))
    return state


def state_at_turn(record: GameRecord, turn: int) -> GameState:
    """The state of a recorded game at the start of its turn `turn` (1 = the first, as the game logs
    number turns): every move of the earlier turns applied. PositionError if the record has no such turn
    (or a move of it cannot be applied)."""
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1:
        raise PositionError(f"turn {short_repr(turn)} is not a turn number (1 = the first turn)")
    state = new_game(rules=record.rules, seed=record.seed)
    for i, text in enumerate(record.moves):
        if state.turn >= turn - 1 or state.is_terminal():
            break
        try:
            state.apply(text)
        except ThurnError as e:
            raise PositionError(f"move {i + 1} ({short_repr(text)}): {e}") from None
    if state.turn != turn - 1 or state.is_terminal():
        last = state.turn + (0 if state.is_terminal() else 1)
        raise PositionError(f"the game has no turn {turn}: it has turns 1 to {last}")
    return state


def replay_closes(record: GameRecord) -> list[CloseAward]:
    """What each close of a recorded game awarded, recomputed by replaying its moves (for records
    written before they carried `closes`)."""
    return replay_table(record).closes.awards


def read_records(path, board_file=None) -> list[GameRecord]:
    """The game records of a JSON-lines file (blank lines are skipped). Every problem is one
    PositionError naming the file and the line. A record names only a packaged board; `board_file` (a
    path the user gave) replaces it."""
    out = parse_records(read_text(path, "record file", PositionError), path_text(path), board_file)
    if not out:
        raise PositionError(f"{path_text(path)} holds no game record")
    return out


def parse_records(text: str, source: str, board_file=None) -> list[GameRecord]:
    """The game records of JSON-lines text (blank lines skipped; none: []); a line that is not one is a
    PositionError "<source> line <n>: <problem>"."""
    out = []
    for i, ln in enumerate(text.split("\n")):
        if not ln.strip():
            continue
        try:
            out.append(GameRecord.from_json(ln, board_file))
        except PositionError as e:
            raise PositionError(f"{source} line {i + 1}: {e}") from None
    return out
