"""Playing one game between bots, and game records (JSON lines) that replay exactly.

A record holds the seed, the rules, the bot specs and every move in notation; the game's chance
generator is seeded with the record's seed, so applying the moves to new_game(seed) reproduces it.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from .._core import GameState
from ..bots.base import Bot, Observation
from ..bots.officials import OFFICIALS, official_of
from ..errors import PositionError, ThurnError
from ..fileio import loads_json, path_text, read_text, short_repr
from ..game.state import CloseAward, CloseLog, new_game
from ..game.officials import game_phase
from ..game.rules import Rules


def derive_seed(*parts) -> int:
    """A 63-bit seed derived from parts (stable across runs and platforms)."""
    r = random.Random(repr(parts))
    return r.getrandbits(63)


@dataclass
class GameRecord:
    seed: int
    rules: Rules
    bots: list[str]
    moves: list[str] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    ranking: list[int] = field(default_factory=list)
    winner: int = -1
    turns: int = 0
    truncated: bool = False
    #: per seat: {official: {phase: count}} for the officials a bot chose to use
    official_uses: list[dict] = field(default_factory=list)
    details: list[dict] = field(default_factory=list)
    #: what each close awarded, in order (thurn_ai.game.state.CloseAward); empty in records written before
    #: this field existed (replay_closes() recomputes it from the moves)
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


def play_game(rules: Rules, bots: list[Bot], seed: int, on_move=None) -> GameRecord:
    """Play one game; each bot sees only its own observation. `on_move(state, player, move)` is called
    before each move is applied (for logs)."""
    if len(bots) != rules.players:
        raise ThurnError(f"{rules.players} players need {rules.players} bots, got {len(bots)}")
    state = new_game(rules=rules, seed=seed)
    obs_rng = random.Random(derive_seed("observations", seed))
    rec = GameRecord(seed=seed, rules=rules, bots=[getattr(b, "spec", "?") for b in bots])
    uses = [{o: {"early": 0, "middle": 0, "late": 0} for o in OFFICIALS} for _ in bots]
    log = CloseLog()
    while not state.is_terminal():
        p = state.current_player
        obs = Observation(state, p, obs_rng.getrandbits(64))
        move = bots[p].choose(obs)
        if not state.is_legal(move):
            raise ThurnError(f"bot {rec.bots[p]} chose an illegal move {state.move_str(move)!r}")
        off = official_of(state, move)
        if off:
            uses[p][off][game_phase(state)] += 1
        if on_move:
            on_move(state, p, move)
        rec.moves.append(state.move_str(move))
        log.before(state, move)
        state.apply(move)
        log.after(state)
    rec.closes = log.awards
    rec.scores = state.scores()
    rec.ranking = state.ranking()
    rec.winner = state.winner()
    rec.turns = state.turn
    rec.truncated = bool(state.export()["truncated"])
    rec.official_uses = uses
    rec.details = score_details(state)
    return rec


def replay(record: GameRecord, on_move=None, after_move=None) -> GameState:
    """Apply a record's moves to a new game with its seed; returns the final state. `on_move(state,
    player, move)` is called before each move is applied, `after_move(state)` after it."""
    state = new_game(rules=record.rules, seed=record.seed)
    for i, text in enumerate(record.moves):
        try:
            move = state.parse_move(text)
            if on_move:
                on_move(state, state.current_player, move)
            state.apply(move)
            if after_move:
                after_move(state)
        except ThurnError as e:
            raise PositionError(f"record move {i + 1} ({text!r}) does not replay: {e}") from None
    return state


def replay_closes(record: GameRecord) -> list[CloseAward]:
    """What each close of a recorded game awarded, recomputed by replaying its moves (for records
    written before they carried `closes`)."""
    log = CloseLog()
    replay(record, on_move=lambda state, player, move: log.before(state, move), after_move=log.after)
    return log.awards


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
