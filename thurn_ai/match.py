"""Playing one game between bots, and game records (JSON lines) that replay exactly.

A record holds the seed, the rules, the bot specs and every move in notation; the game's chance
generator is seeded with the record's seed, so applying the moves to new_game(seed) reproduces it.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from ._core import GameState
from .bots.base import Bot, Observation
from .bots.officials import OFFICIALS, official_of
from .errors import PositionError, ThurnError
from .game import new_game
from .rules import Rules


def derive_seed(*parts) -> int:
    """A 63-bit seed derived from parts (stable across runs and platforms)."""
    r = random.Random(repr(parts))
    return r.getrandbits(63)


def game_phase(state: GameState) -> str:
    """early / middle / late, by the houses already placed (a third of the supply each)."""
    placed = max(20 - state.export()["houses_left"][p] for p in range(state.n_players))
    return "early" if placed < 7 else ("middle" if placed < 14 else "late")


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

    def to_json(self) -> str:
        return json.dumps({"seed": self.seed, "rules": self.rules.to_dict(), "bots": self.bots,
                           "moves": self.moves, "scores": self.scores, "ranking": self.ranking,
                           "winner": self.winner, "turns": self.turns, "truncated": self.truncated,
                           "official_uses": self.official_uses, "details": self.details},
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> "GameRecord":
        try:
            d = json.loads(line)
            if not isinstance(d, dict):
                raise PositionError("a record is a JSON object")
            missing = [k for k in ("seed", "rules", "bots", "moves") if k not in d]
            if missing:
                raise PositionError(f"missing field {', '.join(map(repr, missing))}")
            return cls(seed=int(d["seed"]), rules=Rules.from_dict(d["rules"]), bots=list(d["bots"]),
                       moves=list(d["moves"]), scores=d.get("scores", []), ranking=d.get("ranking", []),
                       winner=d.get("winner", -1), turns=d.get("turns", 0),
                       truncated=d.get("truncated", False), official_uses=d.get("official_uses", []),
                       details=d.get("details", []))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise PositionError(f"not a game record: {e}") from None


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
        state.apply(move)
    rec.scores = state.scores()
    rec.ranking = state.ranking()
    rec.winner = state.winner()
    rec.turns = state.turn
    rec.truncated = bool(state.export()["truncated"])
    rec.official_uses = uses
    rec.details = score_details(state)
    return rec


def replay(record: GameRecord, on_move=None) -> GameState:
    """Apply a record's moves to a new game with its seed; returns the final state."""
    state = new_game(rules=record.rules, seed=record.seed)
    for i, text in enumerate(record.moves):
        try:
            move = state.parse_move(text)
            if on_move:
                on_move(state, state.current_player, move)
            state.apply(move)
        except ThurnError as e:
            raise PositionError(f"record move {i + 1} ({text!r}) does not replay: {e}") from None
    return state


def read_records(path: str) -> list[GameRecord]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip()]
    except OSError as e:
        raise PositionError(f"cannot read record file {path}: {e.strerror}") from None
    out = []
    for i, ln in enumerate(lines):
        try:
            out.append(GameRecord.from_json(ln))
        except PositionError as e:
            raise PositionError(f"{path} line {i + 1}: {e}") from None
    if not out:
        raise PositionError(f"{path} holds no game record")
    return out
