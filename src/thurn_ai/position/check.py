"""JSON positions, checking: the problems of a readable position that describes something impossible
(cards that do not add up, tiles, houses, a turn state no game reaches), one Problem each. The same rules
check an engine state (check_state): what the tests and the soak run assert after every move.
"""
from __future__ import annotations

from typing import Callable

from .._core import OFFICIALS, PHASES, GameState, valid_house_set
from ..game.board import Board
from ..game.rules import BASE_HORSES, DISPLAY_SIZE, HAND_LIMIT, HOUSES, MAX_HORSE_CARDS, MIN_CLOSE
from .problems import Problem, ProblemKind as K, seat_field
from .read import Parsed, Reader, plural

SINGLE_TILE_KINDS = ("each_province", "all_cities", "free_city", "game_end")  # one per player at most

Report = Callable[[K, str, str], None]     # kind, field, message


def read_and_check(data, board_file=None) -> tuple[Parsed | None, list[Problem]]:
    problems: list[Problem] = []
    parsed = Reader(problems, board_file).read(data)
    if parsed is not None:
        check_parsed(parsed, problems)
    return parsed, problems


def check_state(state: GameState) -> list[Problem]:
    """The problems of an engine state, by the rules a position is checked with (an empty list: no rule
    is broken), plus the engine's own bookkeeping (card counts, the end's flag, carriage and stack indices)
    that a position does not write. The tests call it after every move (and the soak run through them)."""
    raw, b, n = state.export(), state.board, state.n_players
    problems: list[Problem] = []

    def bad(kind: K, field: str, msg: str) -> None:
        problems.append(Problem(kind, field, msg))
    for place, field in (("display", "display"), ("deck", "cards"), ("discard", "discard")):
        if raw[f"{place}_n"] != sum(raw[place]):
            bad(K.BOOKKEEPING, field, f"{place}_n is {raw[f'{place}_n']}, but the {place} holds {sum(raw[place])}")
    if raw["end_triggered"] != (raw["end_player"] >= 0):
        bad(K.BOOKKEEPING, "turn", f"end_triggered is {raw['end_triggered']}, but end_player is {raw['end_player']}")
    for p in range(n):
        if not -1 <= raw["carriage"][p] < len(b.carriages) or (
                raw["carriage"][p] >= 0 and state.rules.resolved_variant == "horses"):
            bad(K.NO_SUCH_CARRIAGE, seat_field(p, "carriage"), f"seat {p}: carriage index {raw['carriage'][p]}")
    for t, st in enumerate(b.tiles):
        if not 0 <= raw["stack_pos"][t] <= len(st.values):
            bad(K.STACK_REMAINDER, "tiles",
                f"tile stack {st.id}: {raw['stack_pos'][t]} tiles taken of {len(st.values)}")
    if problems:
        return problems        # the rules below read these fields
    parsed = Parsed(state.rules, b, None, raw, [None] * n, None, True, [[None] * len(b.tiles) for _ in range(n)],
                    set())
    check_parsed(parsed, problems)
    return problems


def check_parsed(pp: Parsed, problems: list[Problem]) -> None:
    """Problems of a readable position that describes something impossible. Entries that could not be
    read were left out, so checks that need every card or tile run only when all was read (one problem,
    one message)."""
    all_read = not problems

    def bad(kind: K, field: str, msg: str) -> None:
        problems.append(Problem(kind, field, msg))
    r, b, rules = pp.raw, pp.board, pp.rules
    n, nc = rules.players, b.n_cities
    cities = b.cities
    horses = rules.resolved_variant == "horses"

    for p in range(n):
        w = f"seat {p}"
        # routes: a road path without repeats
        route = r["route"][p]
        for x in sorted(set(route)):
            if route.count(x) > 1:
                bad(K.ROUTE_REPEATS_CITY, seat_field(p, "route"),
                    f"{w} route: {cities[x]} appears {route.count(x)} times (a route visits a city once)")
        for a, c in zip(route, route[1:]):
            if not b.adjacent(a, c) and f"{w} route" not in pp.partial:
                bad(K.ROUTE_NOT_JOINED, seat_field(p, "route"),
                    f"{w} route: {cities[a]} and {cities[c]} are not joined by a road")
        # hands and known cards
        known_n = sum(r["known"][p])
        if pp.hand_size[p] is None:
            for x in range(nc):
                if r["known"][p][x] > r["hand"][p][x]:
                    bad(K.KNOWN_NOT_IN_HAND, seat_field(p, "known"), f"{w}: known card {cities[x]} is not in the hand")
        elif known_n > pp.hand_size[p]:
            bad(K.KNOWN_NOT_IN_HAND, seat_field(p, "known"),
                f"{w}: {plural(known_n, 'known card')}, but the hand holds only {pp.hand_size[p]}")
        # houses: the supply of HOUSES, placed or left
        placed, left = len(r["houses"][p]), r["houses_left"][p]
        if placed + left != HOUSES and f"{w} houses" not in pp.partial:
            bad(K.HOUSE_COUNT, seat_field(p, "houses"), f"{w}: {plural(placed, 'house')} on the board and "
                f"{left} left make {placed + left}, but every player has {HOUSES}")
        # horse cards and carriages
        h = sum(r["horse_cards"][p])
        if h and not horses:
            bad(K.HORSE_CARDS_OUTSIDE_VARIANT, seat_field(p, "horse_cards"),
                f"{w}: horse cards are only laid in the horses variant")
        elif h > MAX_HORSE_CARDS:
            bad(K.TOO_MANY_HORSE_CARDS, seat_field(p, "horse_cards"),
                f"{w}: {h} horse cards, but at most {MAX_HORSE_CARDS} may be laid")
        k = r["carriage"][p]
        if k >= 0 and k == len(b.carriages) - 1 and r["end_player"] < 0:
            bad(K.END_NOT_TRIGGERED, seat_field(p, "carriage"),
                f"{w} has the {b.carriages[k][0]}-carriage, so the end of the game must have been triggered")
        if left == 0 and r["end_player"] < 0 and f"{w} houses" not in pp.partial:
            bad(K.END_NOT_TRIGGERED, seat_field(p, "houses"),
                f"{w} has placed all {HOUSES} houses, so the end of the game must have been triggered")
    e = r["end_player"]
    if e >= 0 and r["houses_left"][e] and f"seat {e} houses" not in pp.partial and (
            horses or r["carriage"][e] != len(b.carriages) - 1):
        cause = (f"not placed all {HOUSES} houses" if horses else
                 f"neither placed all {HOUSES} houses nor taken the {b.carriages[-1][0]}-carriage")
        bad(K.END_WITHOUT_CAUSE, "turn", f"the end was triggered by seat {e}, but it has {cause}")

    _check_cards(pp, bad, all_read)
    if all_read:
        _check_tiles(pp, bad)
    _check_turn(pp, bad)
    if sum(r["display"]) > DISPLAY_SIZE:
        bad(K.DISPLAY_OVERFULL, "display",
            f"the display holds {sum(r['display'])} cards, but only {DISPLAY_SIZE} lie face up")
    if pp.viewer is not None and pp.hand_size[pp.viewer] is not None:
        bad(K.VIEWER_HAND_HIDDEN, seat_field(pp.viewer, "hand"),
            f"seat {pp.viewer} is the viewer, so its hand must be listed card by card (hand, not hand_size)")


def _check_cards(pp: Parsed, bad: Report, all_read: bool) -> None:
    """Every city has exactly cards_per_city cards: in hands, display, discard, routes, horse cards and the
    deck; what is not accounted for must fit the hands given by size and the deck."""
    r, b = pp.raw, pp.board
    cpc, nc, n = b.cards_per_city, b.n_cities, pp.rules.players
    places = {"hands": [sum(r["hand"][p][x] for p in range(n)) for x in range(nc)],
              "display": r["display"], "discard": r["discard"],
              "routes": [sum(row.count(x) for row in r["route"]) for x in range(nc)],
              "horse cards": [sum(r["horse_cards"][p][x] for p in range(n)) for x in range(nc)]}
    if r["deck"] is not None:
        places["deck"] = r["deck"]
    missing = 0
    for x in range(nc):
        total = sum(v[x] for v in places.values())
        if total > cpc:
            where = ", ".join(f"{k} {v[x]}" for k, v in places.items() if v[x])
            bad(K.TOO_MANY_CARDS, "cards",
                f"city {b.cities[x]}: {total} cards in play ({where}), but the game has {cpc}")
        missing += max(0, cpc - total)
    if not all_read:
        return
    hidden = sum(s - sum(r["known"][p]) for p, s in enumerate(pp.hand_size) if s is not None)
    hidden = max(hidden, 0)
    deck_n = sum(r["deck"]) if r["deck"] is not None else missing - hidden
    if r["deck"] is not None and missing != hidden:
        if hidden:
            bad(K.CARDS_UNACCOUNTED, "cards",
                f"{missing} cards are not accounted for, but the hands given by size hide {hidden}")
        else:
            short = [f"{b.cities[x]} {cpc - sum(v[x] for v in places.values())}"
                     for x in range(nc) if sum(v[x] for v in places.values()) < cpc]
            bad(K.CARDS_UNACCOUNTED, "cards",
                f"with the deck given every card must be somewhere, but {plural(missing, 'card')} are "
                f"missing: {', '.join(short)}")
    elif deck_n < 0:
        bad(K.CARDS_UNACCOUNTED, "cards",
            f"the hands given by size hide {hidden} cards, but only {missing} cards are not accounted for")
    if pp.deck_size is not None and deck_n >= 0 and pp.deck_size != deck_n:
        what = "the deck listed holds" if r["deck"] is not None else "the cards not accounted for leave"
        bad(K.DECK_SIZE, "cards", f"deck_size is {pp.deck_size}, but {what} {deck_n}")
    if sum(r["display"]) < DISPLAY_SIZE and deck_n > 0:
        bad(K.DISPLAY_NOT_REFILLED, "display",
            f"the display holds {sum(r['display'])} cards while the deck holds {deck_n}: "
            f"the display is refilled to {DISPLAY_SIZE} at once")


def _check_tiles(pp: Parsed, bad: Report) -> None:
    r, b, rules = pp.raw, pp.board, pp.rules
    n = rules.players
    for t, st in enumerate(b.tiles):
        taken = list(st.values[:r["stack_pos"][t]])
        held = [r["tiles_n"][p][t] for p in range(n)]
        if st.kind in SINGLE_TILE_KINDS:
            for p in range(n):
                if held[p] > 1:
                    bad(K.TILE_TAKEN_TWICE, seat_field(p, "tiles"),
                        f"seat {p} holds {held[p]} tiles of stack {st.id}; a player takes this tile only once")
        if sum(held) != len(taken):
            bad(K.TILES_NOT_CONSERVED, "tiles", f"tile stack {st.id}: players hold {plural(sum(held), 'tile')}, but "
                f"{plural(len(taken), 'tile')} {'was' if len(taken) == 1 else 'were'} taken from it "
                "(tiles are never returned)")
            continue
        points = sum(r["tiles_pts"][p][t] for p in range(n))
        listed = [v for p in range(n) for v in (pp.tile_values[p][t] or [])]
        not_taken = _not_in(listed, taken)
        if not_taken:
            bad(K.TILES_NOT_CONSERVED, "tiles",
                f"tile stack {st.id}: a tile worth {not_taken} is held, but the tiles taken are worth "
                f"{', '.join(map(str, taken)) or 'nothing (none taken)'}")
        elif points != sum(taken):
            bad(K.TILES_NOT_CONSERVED, "tiles",
                f"tile stack {st.id}: the tiles held are worth {points} in all, the tiles taken {sum(taken)}")
        for p in range(n):
            lacking = _houses_lacking(pp, st, set(r["houses"][p])) if held[p] else []
            if lacking:
                bad(K.TILE_WITHOUT_HOUSES, seat_field(p, "tiles"),
                    f"seat {p} holds tile {st.id} without a house in {', '.join(lacking)}")
            if held[p] and st.kind == "game_end" and p != r["end_player"]:
                who = "nobody" if r["end_player"] < 0 else f"seat {r['end_player']}"
                bad(K.GAME_END_TILE, seat_field(p, "tiles"),
                    f"seat {p} holds the game-end tile, but the end was triggered by {who}")
        builders = [p for p in range(n) if st.kind == "free_city" and set(st.cities) & set(r["houses"][p])]
        if builders and not taken and PHASES[r["phase"]] != "houses":   # the tile goes at the end of placing
            bad(K.FREE_CITY_TILE, seat_field(builders[0], "houses"),
                f"seat {builders[0]} has a house in {b.cities[min(st.cities)]}, so the tile of stack {st.id} must "
                "have been taken (the first player to build there takes it)")
        if st.kind == "game_end" and r["end_player"] >= 0 and not taken:
            bad(K.GAME_END_TILE, "tiles",
                f"the end was triggered by seat {r['end_player']}, so the game-end tile ({st.id}) must be taken")


def _not_in(values: list, pool: list):
    """The first of `values` left over when each is matched with an equal member of `pool`, else None."""
    left = list(pool)
    for v in values:
        if v not in left:
            return v
        left.remove(v)
    return None


def _houses_lacking(pp: Parsed, st, houses: set) -> list[str]:
    """What a holder of tile `st` lacks: cities (city tiles) or provinces (the each-province tile)."""
    b = pp.board
    if st.kind in ("all_cities", "free_city"):
        return [b.cities[x] for x in sorted(set(st.cities) - houses)]
    if st.kind == "each_province":
        return [b.provinces[q] for q in pp.rules.tile_provinces(st)
                if not any(b.city_province[x] == q for x in houses)]
    return []


def _valid_placement(b: Board, houses: set) -> bool:
    """Option A (at most one city per province, at most one free city) or option B (one province): the
    engine's own rule (houses_valid in the compiled core)."""
    return valid_house_set(b, sum(1 << x for x in houses))


def _check_turn(pp: Parsed, bad: Report) -> None:
    r, b, rules = pp.raw, pp.board, pp.rules
    phase, p = PHASES[r["phase"]], r["current"]
    official = OFFICIALS[r["official"] - 1] if r["official"] else None
    route = r["route"][p]
    placed = {x for x in range(b.n_cities) if r["placed_now"] >> x & 1}
    if "turn_state close_houses" in pp.partial:
        placed = set()  # an unreadable entry was reported already; checks of the set would repeat it
    if r["forced_pm"] and official != "postmaster":
        bad(K.TURN_STATE, "turn", "turn_state: forced_postmaster needs official_used postmaster")
    if r["plays"] == 2 and official != "postal_carrier":
        bad(K.TURN_STATE, "turn", "turn_state: two cards played need official_used postal_carrier")
    if phase == "draw" and (r["plays"] or r["draws"] > int(bool(r["forced_pm"]))):
        bad(K.TURN_STATE, "turn", "turn_state: in the draw phase no card has been played and nothing drawn yet "
            "(except the first draw of the forced Postmaster)")
    if phase == "play" and (r["plays"] or not r["draws"]):
        bad(K.TURN_STATE, "turn",
            "turn_state: in the play phase a card has been drawn (draws 1 or 2) and none played (plays 0)")
    closing = phase in ("houses", "cartwright")
    if closing and len(route) < MIN_CLOSE:
        bad(K.CLOSE_IMPOSSIBLE, "turn",
            f"phase {phase}: seat {p} is closing a route of {len(route)} cards; a route needs {MIN_CLOSE}")
    elif closing and rules.resolved_variant == "horses":
        pulling = BASE_HORSES + sum(b.horses[x] * k for x, k in enumerate(r["horse_cards"][p]))
        if pulling < len(route):
            bad(K.CLOSE_IMPOSSIBLE, "turn",
                f"phase {phase}: seat {p} is closing a route of {len(route)} cards with only {pulling} horses")
    if phase == "houses":
        if not placed <= set(route):
            bad(K.HOUSE_PLACEMENT, "turn",
                "turn_state close_houses: houses are placed only in cities of the route being closed")
    if placed and not any(placed <= set(r["houses"][q]) for q in range(rules.players)):
        bad(K.HOUSE_PLACEMENT, "turn", "turn_state close_houses: no player has houses in all of "
            + ", ".join(b.cities[x] for x in sorted(placed)))
    elif placed and not _valid_placement(b, placed):
        bad(K.HOUSE_PLACEMENT, "turn", "turn_state close_houses: " + ", ".join(b.cities[x] for x in sorted(placed))
            + " is not one placement (one city per province, or the cities of one province)")
    if phase == "cartwright" and len(route) >= MIN_CLOSE:
        nxt = r["carriage"][p] + 1
        if rules.resolved_variant == "horses" or nxt >= len(b.carriages):
            bad(K.CLOSE_IMPOSSIBLE, "turn", f"phase cartwright: seat {p} has no next carriage to take")
        elif not len(route) < b.carriages[nxt][0] <= len(route) + 2:
            bad(K.CLOSE_IMPOSSIBLE, "turn",
                f"phase cartwright: with a route of {len(route)} cards the Cartwright cannot be what takes "
                f"the {b.carriages[nxt][0]}-carriage")
        elif official is not None:
            bad(K.CLOSE_IMPOSSIBLE, "turn",
                f"phase cartwright: the Cartwright is not offered after the {official} in the same turn")
    if phase == "discard" and (route or sum(r["horse_cards"][p])):
        bad(K.TURN_STATE, "turn",
            f"phase discard: seat {p} has closed, so its route and horse cards are already discarded")
    if phase == "discard" and pp.hand_size[p] is None and r["last_discard"]:
        # discards come in city order: enough cards must remain at or after the last one
        excess = sum(r["hand"][p]) - HAND_LIMIT
        if excess > 0 and sum(r["hand"][p][r["last_discard"]:]) < excess:
            bad(K.DISCARD_ORDER, "turn",
                f"turn_state last_discard: discards come in city order, but seat {p} holds fewer than "
                f"{excess} cards from {b.cities[r['last_discard']]} on")
    if phase == "over" and r["end_player"] < 0 and not r["truncated"]:
        bad(K.END_NOT_TRIGGERED, "turn", "phase over: the end of the game was not triggered (end_triggered_by is null)")
    if r["truncated"] and phase != "over":
        bad(K.TRUNCATED_NOT_OVER, "turn", "truncated: only a finished game can have been stopped by the turn limit")
