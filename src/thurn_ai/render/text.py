"""Text of the game for people: a player's view of a position, what each phase asks, one line per move
of a game log, the end of a game. Used by the human bot, `thurn-ai play / replay / show`, the web app, the
Gymnasium and PettingZoo adapters' text render, and the PNG board (render/board.py) for its panel."""
from __future__ import annotations

from ..game.officials import OFFICIAL_LABEL, official_of

PHASE_HELP = {
    "draw": "take a card (face up or from the deck)",
    "play": "play a card to your route (or draw a second card with the Postmaster)",
    "after_play": "play a second card (Postal Carrier), close the route, or stop",
    "houses": "place houses in the cities of the closed route, then done",
    "cartwright": "take the next carriage with the Cartwright or not",
    "discard": "discard down to 3 cards",
}


def cards(board, counts) -> str:
    names = [board.cities[x] + (f" x{k}" if k > 1 else "") for x, k in enumerate(counts) if k]
    return ", ".join(names) if names else "-"


def render_view(state, viewer: int | None = None) -> str:
    """The position as `viewer` may know it (all of it when viewer is None), as lines of text.

    Reads only what the viewer may know: their own hand, and of the others the hand size and the cards
    known to be in it (taken face up) — so it is safe on a determinized state."""
    d = state.export()
    b = state.board
    n = state.n_players
    horses = state.rules.resolved_variant == "horses"
    english = state.rules.all_provinces_tile == "english"
    lines = [f"{b.title} ({state.rules.resolved_variant}), {n} players, turn {d['turn'] + 1}, "
             f"seat {d['current']} to move ({state.phase})"]
    lines.append(f"display: {cards(b, d['display'])}    deck: {count(d['deck_n'], 'card')}    "
                 f"discard pile: {count(d['discard_n'], 'card')}")
    scores = state.scores()
    for p in range(n):
        me = viewer is None or viewer == p
        tag = " (you)" if viewer == p else ""
        lines.append(f"seat {p}{tag}: score {scores[p]}, houses left {d['houses_left'][p]}"
                     + ("" if horses else f", carriage {carriage(b, d['carriage'][p])}")
                     + (f", tiles {tiles(b, d, p, english)}" if any(d['tiles_n'][p]) else ""))
        if me:
            lines.append(f"    hand: {cards(b, d['hand'][p])}")
        else:
            known = cards(b, d["known"][p])
            lines.append(f"    hand: {count(sum(d['hand'][p]), 'card')}"
                         + (f" (known: {known})" if known != "-" else ""))
        route = " - ".join(b.cities[x] for x in d["route"][p]) or "-"
        lines.append(f"    route: {route}")
        if horses:
            cap = state.rules.base_horses + sum(k * b.horses[x] for x, k in enumerate(d["horse_cards"][p]))
            lines.append(f"    horses: {cap} (horse cards: {cards(b, d['horse_cards'][p])})")
        houses = [b.cities[x] for x in d["houses"][p]]
        lines.append(f"    houses: {', '.join(houses) if houses else '-'}")
    left = [f"{tile_name(b, st, english)} {'/'.join(map(str, st.values[d['stack_pos'][t]:]))}"
            for t, st in enumerate(b.tiles) if d["stack_pos"][t] < len(st.values)]
    lines.append("tiles left: " + ("; ".join(left) if left else "-"))
    lines.append(f"scores so far: {'' if horses else 'carriage + '}tiles - 1 for each house not yet placed "
                 f"(so every score starts at -{state.rules.houses})")
    if d["end_triggered"]:
        lines.append(f"the game ends after this round (triggered by seat {d['end_player']})")
    return "\n".join(lines)


def render_map(state, viewer: int | None = None) -> str:
    """A compact text map: every province's cities, each marked with the seats that have a house there
    ([0,2]) and whose route runs through it (<1>), * when its card is in the display; then each route with
    the cities its ends reach by road (where a card fits). Only what every player sees: safe on a
    determinized state."""
    d = state.export()
    b = state.board
    n = state.n_players

    def marked(c: int) -> str:
        houses = [str(p) for p in range(n) if c in d["houses"][p]]
        routes = [str(p) for p in range(n) if c in d["route"][p]]
        return (b.cities[c] + ("*" if d["display"][c] else "") + (f"[{','.join(houses)}]" if houses else "")
                + (f"<{','.join(routes)}>" if routes else ""))

    groups = [(name, b.province_cities(k)) for k, name in enumerate(b.provinces)]
    if b.free_cities:
        groups.append(("free cities", b.free_cities))
    width = max(len(name) for name, _ in groups)
    lines = ["map: * in the display, [0] a house of seat 0, <1> on seat 1's route"]
    lines += [f"  {name:<{width}}  {'  '.join(marked(c) for c in cities)}" for name, cities in groups]
    for p in range(n):
        route = d["route"][p]
        if not route:
            continue
        ends = [route[0]] if len(route) == 1 else [route[0], route[-1]]
        reach = "; ".join(f"{b.cities[e]} to " + (", ".join(b.cities[c] for c in range(b.n_cities)
                                                             if c not in route and b.adjacent(e, c)) or "-")
                          for e in ends)
        who = " (you)" if viewer == p else ""
        lines.append(f"  seat {p}{who} route {' - '.join(b.cities[x] for x in route)}; its ends reach {reach}")
    return "\n".join(lines)


def count(k: int, word: str) -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


def carriage(board, k: int) -> str:
    return f"{board.carriages[k][0]} ({board.carriages[k][1]} points)" if k >= 0 else "none"


def tiles(board, d, p, english: bool = False) -> str:
    return ", ".join(f"{tile_name(board, st, english)} {d['tiles_pts'][p][t]}"
                     for t, st in enumerate(board.tiles) if d["tiles_n"][p][t])


def tile_name(board, stack, english: bool = False) -> str:
    """A tile stack's short name in words, as a player says it: 'route 7+', 'outside Baiern',
    'Württemberg/Hohenzollern', 'free city Bremen', 'game end' (english: the all-provinces reading of
    an 'outside' tile, see Rules.all_provinces_tile)."""
    if stack.kind == "route":
        longest = max(st.length for st in board.tiles if st.kind == "route")
        return f"route {stack.length}" + ("+" if stack.length == longest else "")
    if stack.kind == "each_province":
        but = [board.provinces[k] for k in stack.excluded]
        return f"outside {' and '.join(but)}" if but and not english else "all provinces"
    if stack.kind == "all_cities":
        return "/".join(board.provinces[k] for k in stack.provinces) or stack.id
    if stack.kind == "free_city":
        return "free city " + " and ".join(board.cities[c] for c in sorted(stack.cities))
    if stack.kind == "game_end":
        return "game end"
    return stack.id.replace("_", " ")


def tile_names(board, english: bool = False) -> dict[str, str]:
    """{stack id: tile_name} of a board's stacks."""
    return {st.id: tile_name(board, st, english) for st in board.tiles}


def tile_names_of_ids(ids, english: bool = False) -> dict[str, str]:
    """tile_names of the packaged board whose stacks are exactly `ids` (saved results name only the ids);
    {} if none is."""
    from ..game.board import BUILTIN_BOARDS, packaged_board
    for name in BUILTIN_BOARDS:
        board = packaged_board(name)
        if {st.id for st in board.tiles} == set(ids):
            return tile_names(board, english)
    return {}


def move_line(state, move: int) -> str:
    """A move as the game logs print it: its notation, and the official it uses in brackets."""
    off = official_of(state, move)
    return state.move_str(move) + (f"   [{OFFICIAL_LABEL[off]}]" if off else "")


def describe_end(rec) -> list[str]:
    """The final scores of a game record, best first, and its winner (the horses variant has no carriages)."""
    horses = rec.rules.resolved_variant == "horses"
    lines = ["", "final scores:"]
    for place, p in enumerate(rec.ranking):
        d = rec.details[p]
        lines.append(f"  {place + 1}. seat {p} {rec.bots[p]:<24} {d['score']:>4}  ("
                     + ("" if horses else f"carriage {d['carriage']}, ")
                     + f"tiles {d['tiles']}, minus {count(d['houses_unplaced'], 'house')} not placed)")
    lines.append(f"winner: seat {rec.winner} ({rec.bots[rec.winner]}) after {rec.turns} turns"
                 + ("  [stopped by the turn limit]" if rec.truncated else ""))
    return lines
