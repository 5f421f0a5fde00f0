"""What the page shows of a game state, as JSON-ready data: the position as one seat may know it (or
all of it), the scores, and the legal moves in the project's notation.

Hidden information is removed by the position format itself (thurn_ai.position.position_to_dict with a
viewer), so the page never receives an opponent's unknown cards or the deck's order.
"""
from __future__ import annotations

from ..render.text import PHASE_HELP as HUMAN_PHASE_HELP
from ..game.state import CloseLog, GameState
from ..play.match import score_details
from ..game.notation import CITY_KINDS, move_city, move_kind
from ..game.officials import OFFICIAL_LABEL, official_of
from ..position import describe, position_to_dict

MAX_PREVIEW_STATES = 4096   # a route of 12 cities has at most 2^12 ways of placing its houses

# What the player to move is asked to do, by phase (shown above the moves): the terminal's words.
PHASE_HELP = {**HUMAN_PHASE_HELP, "over": "the game is over"}


def move_row(state: GameState, move: int) -> dict:
    """One move for the page: its notation, kind, city (None for moves without one) and official."""
    return move_fields(state.board, move, state.move_str(move), official_of(state, move))


def move_fields(board, move: int, text: str, official: str | None) -> dict:
    """move_row of a move already known in notation (`text`) with the official it uses."""
    kind = move_kind(move)
    return {"move": text, "kind": kind, "city": board.cities[move_city(move)] if kind in CITY_KINDS else None,
            "official": official, "official_label": OFFICIAL_LABEL.get(official) if official else None}


def legal_rows(state: GameState) -> list[dict]:
    """The legal moves of the player to move (empty when the game is over)."""
    if state.is_terminal():
        return []
    return [move_row(state, m) for m in state.legal_moves()]


def close_preview(state: GameState) -> dict | None:
    """What closing the route now would earn at best (houses placed to score the most, the Cartwright
    not used): a close award as the log shows it (route, houses, tiles, carriage, points), or None when
    the player to move cannot close."""
    if state.is_terminal() or not any(move_kind(m) == "close" for m in state.legal_moves()):
        return None
    p = state.current_player
    best: list = [None, None]    # the score after the close, the moves that reach it
    seen = [0]

    def search(s: GameState, line: list) -> None:
        seen[0] += 1
        if s.is_terminal() or s.current_player != p or s.phase not in ("houses", "cartwright") or \
                seen[0] > MAX_PREVIEW_STATES:
            if best[0] is None or s.score(p) > best[0]:
                best[:] = [s.score(p), line]
            return
        for m in s.legal_moves():
            if official_of(s, m) is None:          # houses and done; 'no cartwright'
                after = s.clone()
                after.apply(m)
                search(after, line + [m])

    close = next(m for m in state.legal_moves() if move_kind(m) == "close")
    start = state.clone()
    start.apply(close)
    search(start, [close])
    log, s, award = CloseLog(), state.clone(), None
    for m in best[1]:
        award = log.apply(s, m) or award
    return award.to_dict() if award is not None else None


def house_choice(state: GameState) -> dict | None:
    """In the houses phase, the houses the player to move may still place, as sets the person picks in any
    order (the engine takes them in board order, notation.py): {"placed": this close's houses so far,
    "sets": the largest placements allowed, each {"cities", "kind", "province", "points"}}. Any part of
    one set is a placement too. None outside the houses phase."""
    if state.is_terminal() or state.phase != "houses":
        return None
    p, b = state.current_player, state.board
    before = set(state.houses(p))
    score0 = state.score(p)
    found: dict = {}
    seen = [0]

    def search(s: GameState, placed: tuple) -> None:
        seen[0] += 1
        houses = [m for m in s.legal_moves() if move_kind(m) == "house"] \
            if s.current_player == p and s.phase == "houses" else []
        if not houses or seen[0] > MAX_PREVIEW_STATES:
            found.setdefault(frozenset(placed), s)
            return
        found.setdefault(frozenset(placed), None)
        for m in houses:
            after = s.clone()
            after.apply(m)
            search(after, placed + (b.cities[move_city(m)],))

    search(state.clone(), ())
    sets = [k for k in found if not any(k < other for other in found)]
    rows = []
    for k in sets:
        s = found[k]
        if s is None or (s.current_player == p and s.phase == "houses"):     # ended by 'done'
            s = state.clone()
            for c in sorted(k, key=b.city_index):
                s.apply(s.parse_move(f"house {c}"))
            if s.current_player == p and s.phase == "houses":
                s.apply(s.parse_move("done"))
        cities = sorted(k, key=b.city_index)
        provs = {b.city_province[b.city_index(c)] for c in cities}
        one = len(cities) > 1 and len(provs) == 1 and -1 not in provs
        rows.append({"cities": cities, "kind": "province" if one else "each",
                     "province": b.provinces[provs.pop()] if one else None, "points": s.score(p) - score0,
                     "ends_game": _ends_game(state, s)})
    rows.sort(key=lambda r: (-r["points"], -len(r["cities"])))
    placed = [c for c in state.houses(p) if c in before and state.export()["placed_now"] >> b.city_index(c) & 1]
    return {"placed": placed, "sets": rows}


def _ends_game(before: GameState, after: GameState) -> bool:
    """Whether the moves from `before` to `after` triggered the end of the game (the last house, the
    largest carriage)."""
    return bool(after.turn_state().end_triggered) and not before.turn_state().end_triggered


def cartwright_choice(state: GameState) -> dict | None:
    """In the Cartwright phase, what each answer gives the player to move: {"carriage": the carriage now,
    "take" and "decline": each {"carriage", "points" (the score's change), "ends_game"}} (a carriage of
    None: none), so the page can say which carriage the Cartwright takes, for how many points, and whether
    the game ends. None outside the Cartwright phase."""
    if state.is_terminal() or state.phase != "cartwright":
        return None
    p = state.current_player
    out: dict = {"carriage": state.carriage(p)}
    for name, text in (("take", "cartwright"), ("decline", "no cartwright")):
        s = state.clone()
        s.apply(s.parse_move(text))
        out[name] = {"carriage": s.carriage(p), "points": s.score(p) - state.score(p),
                     "ends_game": _ends_game(state, s)}
    return out


def state_view(state: GameState, viewer: int | None, legal: bool = False) -> dict:
    """The page's data of `state` as `viewer` may know it (None: everything). With `legal`, the legal
    moves of the player to move are included (only ever for the seat that is to move, or for a spectator
    who sees everything)."""
    over = state.is_terminal()
    position = position_to_dict(state, viewer)
    view = {
        "position": position,
        "viewer": viewer,
        "board": state.board.name,
        "variant": state.rules.resolved_variant,
        "players": state.n_players,
        "turn": state.turn,
        "to_move": None if over else state.current_player,
        "phase": state.phase,
        "phase_help": PHASE_HELP.get(state.phase, state.phase),
        "official_used": position["turn_state"]["official_used"],
        # an empty hand at the start of a turn: the rules give the Postmaster's two draws
        "forced_postmaster": bool(state.export()["forced_pm"]) and not over,
        "scores": state.scores(),          # public: carriage, tiles and houses left are all face up
        "over": over,
        "winner": state.winner() if over else None,
        "ranking": state.ranking() if over else None,
        "summary": describe(state, viewer),
        "legal": legal_rows(state) if legal else [],
        "score_parts": score_details(state),   # carriage, tiles, unplaced houses: public, as the scores
        "close_preview": close_preview(state) if legal else None,
        "house_choice": house_choice(state) if legal else None,
        "cartwright_choice": cartwright_choice(state) if legal else None,
    }
    return view
