"""JSON positions, writing: a game state as a position dict, complete or as one player sees it.

GameState.to_dict() / observation() call position_to_dict (installed into the compiled core by
thurn_ai/__init__.py), so it reads the state through a few compiled accessors, not export().
"""
from __future__ import annotations

from dataclasses import dataclass

from .._core import OFFICIALS, PHASES, GameState
from ..errors import PositionError
from .read import FORMAT, VERSION


def position_to_dict(state: GameState, viewer: int | None = None) -> dict:
    """The position as JSON-ready data. With `viewer` (a seat), only what that player may know: the other
    players' hands as sizes plus the cards known to be in them (taken face up), the deck as its size, and
    no generator state."""
    n = state.n_players
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise PositionError(f"viewer must be a seat from 0 to {n - 1}, not {viewer!r}")
    # A few compiled reads (GameState.turn_state, _cards, _player_parts, ...) instead of export(): ~10 µs.
    t = state.turn_state()
    current, phase, last_discard = t.current, t.phase, t.last_discard
    const = _constants(state)
    cities = const.cities
    rules = const.rules
    out = {"format": FORMAT, "version": VERSION,
           "rules": dict(rules) if const.flat_rules else state.rules.to_dict(), "viewer": viewer, "turn": t.turn,
           "to_move": current, "phase": PHASES[phase]}
    out["turn_state"] = {
        "official_used": OFFICIALS[t.official - 1] if t.official else None,
        "draws": t.draws, "plays": t.plays, "forced_postmaster": bool(t.forced_pm),
        "close_houses": state._city_names(t.placed_now) if t.placed_now else [],
        # 0 means "no restriction yet" (the engine compares discards with it in city order); a view of
        # another seat's discards drops it: the city order is the engine's way of making one set of
        # discards one sequence, and for a hidden hand it would constrain the cards (as determinize()).
        "last_discard": (cities[last_discard] if last_discard and not
                         (viewer is not None and phase == DISCARD_PHASE and current != viewer) else None)}
    out["display"] = state._cards(3)
    out["discard"] = state._pile_counts(1)
    out["deck_size"] = t.deck_n
    if viewer is None:
        out["deck"] = state._pile_counts(0)
    players = []
    carriages, stack_ids = const.carriages, const.stack_ids
    for p in range(n):
        (hand_n, known, route, horses, houses, houses_left, k, tiles, uses, closes) = state._player_parts(p)
        if viewer is None or viewer == p:
            row = {"seat": p, "hand": state._cards(0, p)}
        else:
            row = {"seat": p, "hand_size": hand_n}
        row.update(known=known, route=route, horse_cards=horses, houses=houses, houses_left=houses_left,
                   carriage=carriages[k][0] if k >= 0 else None,
                   tiles={stack_ids[t]: [pts] if count == 1 else {"count": count, "points": pts}
                          for t, (count, pts) in tiles.items()} if tiles else {},
                   official_uses=dict(zip(OFFICIALS, uses)), closes=closes)
        players.append(row)
    out["players"] = players
    out["tile_stacks"] = dict(zip(stack_ids, state._stack_tails()))
    out["end_triggered_by"] = t.end_player if t.end_triggered else None
    out["truncated"] = bool(t.truncated)
    if viewer is None:
        out["rng"] = {"chance": hex(t.rng), "moves": hex(t.prng)}
    return out


DISCARD_PHASE = PHASES.index("discard")


@dataclass(frozen=True)
class _Constants:
    """What a position dict takes from the board and rules, once per compiled configuration."""
    cities: tuple
    carriages: tuple
    stack_ids: tuple
    rules: dict
    flat_rules: bool         # the rules dict holds only plain values, so a shallow copy is a copy


_CONSTANTS: dict = {}


def _constants(state: GameState) -> _Constants:
    cfg = state.config
    const = _CONSTANTS.get(cfg)
    if const is None:
        if len(_CONSTANTS) > 256:
            _CONSTANTS.clear()
        b = state.board
        rules = state.rules.to_dict()
        const = _Constants(tuple(b.cities), tuple(b.carriages), tuple(st.id for st in b.tiles), rules,
                           all(v is None or isinstance(v, (str, int, float)) for v in rules.values()))
        _CONSTANTS[cfg] = const
    return const
