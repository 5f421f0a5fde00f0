"""Every example of the base-game rulebooks (German and English) and of the online manual, and every
restriction of the base game, played through the public API on the South board.

Expected values come from the rules as docs/rules.md states them (quoted in the test names and comments), never
from the engine: e.g. the carriage points 2/3/5/7/10, the tile stacks' values, the roads of the board.
Positions are built with tests/helpers.py (new_game → export → edit → load); moves are given in notation.
"""
from itertools import combinations

import pytest

import thurn_ai
from tests.helpers import (build, downward_closure, finish_turn, house_names, legal, legal_of_kind, phase_outcomes,
                     play, reachable_house_sets, route_names, stack, total_cards)
from thurn_ai.errors import IllegalMoveError, NotationError, ThurnError

BAIERN = {"Augsburg", "Ingolstadt", "Kempten", "München", "Nürnberg", "Passau", "Regensburg", "Würzburg"}
CARRIAGE_POINTS = [2, 3, 5, 7, 10]        # sizes 3, 4, 5, 6, 7 (south-board.md, online manual)
POSTMASTER, ADMINISTRATOR, POSTAL_CARRIER, CARTWRIGHT = range(4)   # columns of export()["official_uses"]

# Routes along real roads, used where only the length matters (Basel–Freiburg–Carlsruhe–Mannheim–
# Würzburg–Nürnberg–Regensburg–Passau: every step is a road of the South board).
LONG_ROUTE = ["Basel", "Freiburg", "Carlsruhe", "Mannheim", "Würzburg", "Nürnberg", "Regensburg", "Passau"]


# ------------------------------------------------------------------ the board the examples rely on

# Degrees of every city, as docs/rules.md §12 lists them (45 roads).
DEGREES = {"Stuttgart": 7, "Ingolstadt": 6, "München": 6, "Augsburg": 5, "Kempten": 5, "Nürnberg": 5,
           "Regensburg": 5, "Sigmaringen": 5, "Ulm": 5, "Freiburg": 4, "Innsbruck": 4, "Passau": 4,
           "Pilsen": 4, "Salzburg": 4, "Zürich": 4, "Carlsruhe": 3, "Linz": 3, "Mannheim": 3, "Würzburg": 3,
           "Basel": 2, "Budweis": 2, "Lodz": 1}


def test_south_board_matches_the_rules_text():
    b = thurn_ai.load_board("south")
    assert len(b.roads) == 45 and b.n_cards == 66
    degree = {c: 0 for c in b.cities}
    for x, y in b.roads:
        degree[b.cities[x]] += 1
        degree[b.cities[y]] += 1
    assert degree == DEGREES
    assert {c for c in b.cities if b.provinces[b.city_province[b.city_index(c)]] == "Baiern"} == BAIERN
    assert b.carriages == ((3, 2), (4, 3), (5, 5), (6, 7), (7, 10))
    values = {t.id: t.values for t in b.tiles}
    assert values == {"route7": (4, 3, 2, 1), "route6": (3, 2, 1), "route5": (2, 1),
                      "outside_baiern": (6, 5, 4, 3), "baiern": (5, 4, 3, 2), "boehmen_salzburg": (4, 3, 2),
                      "baden": (3, 2, 1), "wuerttemberg_hohenzollern": (3, 2, 1), "schweiz_tyrol": (3, 2, 1),
                      "game_end": (1,)}
    assert sum(len(v) for v in values.values()) == 30          # "30 Bonusplättchen"


def close_route(route, *, seat=0, hand=(), players=2, **kw):
    """A position where `seat` has played route[:-1], plays route[-1] at the right end and closes;
    returns the state in the houses phase (or later, if no house can be placed)."""
    g = build(players, current=seat, routes={seat: route[:-1]}, hands={seat: [route[-1], *hand]}, **kw)
    play(g, f"right {route[-1]}", "close")
    return g


def tiles(g, seat, tile_id):
    d = g.export()
    t = stack(g, tile_id)
    return d["tiles_n"][seat][t], d["tiles_pts"][seat][t]


# ------------------------------------------------------------------ route building (rulebook example)

def test_extension_example_carlsruhe_stuttgart_nuernberg_regensburg():
    """Route Carlsruhe, Stuttgart, Nürnberg, Regensburg: Innsbruck fits neither end, Würzburg may not be
    inserted between Stuttgart and Nürnberg, Stuttgart may not be added again although it borders
    Carlsruhe. Only neighbours of an end city that are not yet in the route may be added."""
    g = build(hands={0: list(thurn_ai.load_board("south").cities)},    # one card of every city
              routes={0: ["Carlsruhe", "Stuttgart", "Nürnberg", "Regensburg"]})
    # roads of the South board: Carlsruhe–Freiburg/Mannheim/Stuttgart; Regensburg–Ingolstadt/München/
    # Nürnberg/Passau/Pilsen
    assert legal_of_kind(g, "left") == {"Freiburg", "Mannheim"}
    assert legal_of_kind(g, "right") == {"Ingolstadt", "München", "Passau", "Pilsen"}
    before = g.export()
    for bad in ("right Innsbruck", "left Innsbruck", "left Würzburg", "right Würzburg",
                "left Stuttgart", "right Stuttgart"):
        with pytest.raises(IllegalMoveError):
            g.apply(bad)
        assert g.export() == before
    # Nothing can go between existing cards: adding at an end keeps the route's order.
    g.apply("right Pilsen")
    assert route_names(g, 0) == ["Carlsruhe", "Stuttgart", "Nürnberg", "Regensburg", "Pilsen"]


def test_every_hand_card_may_start_a_new_route_abandoning_the_current_one():
    g = build(hands={0: ["Innsbruck", "Würzburg", "Lodz"]}, routes={0: ["Carlsruhe", "Stuttgart"]})
    assert legal_of_kind(g, "new") == {"Innsbruck", "Würzburg", "Lodz"}


def test_online_manual_muenchen_salzburg_linz_with_innsbruck_and_kempten():
    """Route München–Salzburg–Linz, hand Innsbruck and Kempten: Kempten fits neither end; Innsbruck only
    at München. Once Innsbruck lies there, the Postal Carrier may add Kempten next to it."""
    g = build(routes={0: ["München", "Salzburg", "Linz"]}, hands={0: ["Innsbruck", "Kempten"]})
    assert legal_of_kind(g, "left") == {"Innsbruck"}
    assert legal_of_kind(g, "right") == set()
    g.apply("left Innsbruck")
    assert g.phase == "after_play"
    assert legal_of_kind(g, "left") == {"Kempten"} and legal_of_kind(g, "right") == set()
    g.apply("left Kempten")
    assert route_names(g, 0) == ["Kempten", "Innsbruck", "München", "Salzburg", "Linz"]
    assert g.export()["official_uses"][0][POSTAL_CARRIER] == 1


def test_online_manual_no_fitting_card_means_abandoning_the_route():
    """Route Carlsruhe–Mannheim–Würzburg, hand Linz and Salzburg: neither fits, so the route is torn down
    (to the discard pile, unscored) and a new one is started."""
    g = build(routes={0: ["Carlsruhe", "Mannheim", "Würzburg"]}, hands={0: ["Linz", "Salzburg"]})
    plays = {m for m in legal(g) if m.split()[0] in ("left", "right", "new")}
    assert plays == {"new Linz", "new Salzburg"}
    before = g.export()
    g.apply("new Linz")
    d = g.export()
    assert route_names(g, 0) == ["Linz"]
    assert d["discard_n"] == before["discard_n"] + 3
    for city in ("Carlsruhe", "Mannheim", "Würzburg"):
        x = g.board.city_index(city)
        assert d["discard"][x] == before["discard"][x] + 1
    assert d["houses"][0] == [] and d["carriage"][0] == -1 and sum(d["tiles_n"][0]) == 0
    assert total_cards(d) == 66


# ------------------------------------------------------------------ closing and houses

def test_closing_needs_at_least_three_cards():
    g = build(routes={0: ["Ulm"]}, hands={0: ["Stuttgart", "Augsburg"]})
    g.apply("right Stuttgart")
    assert "close" not in legal(g) and "stop" in legal(g)
    with pytest.raises(IllegalMoveError):
        g.apply("close")
    g.apply("left Augsburg")                  # Postal Carrier: now three cards
    assert "close" in legal(g)


def test_house_example_sigmaringen_to_augsburg_both_options():
    """Route Sigmaringen, Stuttgart, Nürnberg, Regensburg, Ingolstadt, Augsburg: option 1 one house per
    province (Sigmaringen, Stuttgart and one of the four Baiern cities), option 2 every route city of one
    province (the four Baiern cities, then neither Sigmaringen nor Stuttgart). Each house is optional."""
    route = ["Sigmaringen", "Stuttgart", "Nürnberg", "Regensburg", "Ingolstadt", "Augsburg"]
    g = close_route(route)
    baiern = ["Nürnberg", "Regensburg", "Ingolstadt", "Augsburg"]
    option_a = [{"Sigmaringen", "Stuttgart", b} for b in baiern]
    option_b = [set(baiern)]
    assert reachable_house_sets(g) == downward_closure(option_a + option_b)

    a = g.clone()
    a.apply("house Ingolstadt")          # still open: option A or option B
    assert legal_of_kind(a, "house") == {"Nürnberg", "Regensburg", "Stuttgart", "Sigmaringen"}
    a.apply("house Stuttgart")           # option A now: no other Baiern city
    assert legal_of_kind(a, "house") == {"Sigmaringen"}
    a.apply("house Sigmaringen")
    assert house_names(a, 0) == {"Sigmaringen", "Stuttgart", "Ingolstadt"}
    assert a.export()["houses_left"][0] == 17

    b = g.clone()
    play(b, "house Augsburg", "house Ingolstadt")
    assert legal_of_kind(b, "house") == {"Nürnberg", "Regensburg"}      # not Sigmaringen/Stuttgart
    play(b, "house Nürnberg", "house Regensburg")
    assert house_names(b, 0) == set(baiern)
    assert b.export()["houses_left"][0] == 16


def test_online_manual_house_example_kempten_already_occupied():
    """Route Kempten, Innsbruck, München, Salzburg, Linz with an own house already in Kempten: Kempten is
    out; option A Innsbruck + München + Salzburg (then not Linz), option B Salzburg + Linz."""
    g = close_route(["Kempten", "Innsbruck", "München", "Salzburg", "Linz"], houses={0: ["Kempten"]})
    assert "Kempten" not in legal_of_kind(g, "house")
    assert reachable_house_sets(g) == downward_closure(
        [{"Innsbruck", "München", "Salzburg"}, {"Innsbruck", "München", "Linz"}, {"Salzburg", "Linz"}])
    play(g, "house München", "house Innsbruck", "house Salzburg")
    assert house_names(g, 0) == {"Kempten", "München", "Innsbruck", "Salzburg"}


def test_house_example_without_an_own_house_kempten_is_a_candidate():
    g = close_route(["Kempten", "Innsbruck", "München", "Salzburg", "Linz"])
    assert reachable_house_sets(g) == downward_closure(
        [{"Innsbruck", b, s} for b in ("Kempten", "München") for s in ("Salzburg", "Linz")]
        + [{"Kempten", "München"}, {"Salzburg", "Linz"}])


def test_houses_are_placed_in_city_order_so_each_set_is_one_sequence():
    g = close_route(["Sigmaringen", "Stuttgart", "Nürnberg", "Regensburg", "Ingolstadt", "Augsburg"])
    sequences = []

    def walk(h, placed):
        if h.phase != "houses":
            sequences.append(placed)
            return
        for m in h.legal_moves():
            nxt = h.clone()
            nxt.apply(m)
            walk(nxt, placed + [h.move_str(m)] if h.move_str(m) != "done" else placed)

    walk(g, [])
    assert len(sequences) == len({frozenset(s) for s in sequences})     # no set reachable twice
    index = g.board.city_index
    assert all([index(m[6:]) for m in s] == sorted(index(m[6:]) for m in s) for s in sequences)


def test_other_players_houses_do_not_matter():
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], houses={1: ["Zürich", "Sigmaringen", "Ulm"]})
    assert legal_of_kind(g, "house") == {"Zürich", "Sigmaringen", "Ulm"}


def test_houses_are_optional_city_by_city():
    g = close_route(["Zürich", "Sigmaringen", "Ulm"])
    assert "done" in legal(g)
    g.apply("done")
    d = g.export()
    assert d["houses"][0] == [] and d["houses_left"][0] == 20
    assert d["carriage"][0] == 0                 # the carriage depends on cards, not houses
    assert d["closes"][0] == 1 and d["route"][0] == []


def test_cannot_place_more_houses_than_left_and_the_last_house_ends_the_game():
    """Two houses left, three possible: at most two go in; the last one triggers the end and takes the
    game-end tile; the round is completed."""
    route = ["Zürich", "Sigmaringen", "Ulm"]
    others = [c for c in thurn_ai.load_board("south").cities if c not in route][:18]
    g = close_route(route, players=3, houses={0: others})
    assert g.export()["houses_left"][0] == 2
    assert reachable_house_sets(g) == downward_closure([set(p) for p in combinations(route, 2)])
    play(g, "house Ulm", "house Sigmaringen")
    d = g.export()
    assert d["houses_left"][0] == 0 and len(d["houses"][0]) == 20
    assert d["end_triggered"] == 1 and d["end_player"] == 0
    assert tiles(g, 0, "game_end") == (1, 1)
    assert g.current_player == 1 and not g.is_terminal()
    finish_turn(g)
    assert g.current_player == 2 and not g.is_terminal()
    finish_turn(g)                                # seat 2, right of the start player, takes the last turn
    assert g.is_terminal()


# ------------------------------------------------------------------ carriages and the Cartwright

def test_carriage_example_3_then_4_then_none():
    """First route 3 cards: 3-carriage. Second route 5 cards: the 4-carriage (no skipping). Third route
    4 cards: no new carriage."""
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = close_route(["Ulm", "Stuttgart", "Sigmaringen"])
    g.apply("done")
    first = g.export()["carriage"][0]
    assert sizes[first] == 3
    g = close_route(["Sigmaringen", "Stuttgart", "Nürnberg", "Regensburg", "Ingolstadt"],
                    carriage={0: first})
    g.apply("done")
    second = g.export()["carriage"][0]
    assert sizes[second] == 4
    g = close_route(["Carlsruhe", "Stuttgart", "Nürnberg", "Regensburg"], carriage={0: second})
    g.apply("done")
    # The Cartwright could help here (4 cards, 5 needed); the example's player does without it.
    assert legal(g) == {"cartwright", "no cartwright"}
    g.apply("no cartwright")
    assert g.export()["carriage"][0] == second


def test_cartwright_example_6_to_7_with_five_cards_not_counting_for_route_tiles():
    """With the 6-carriage, a 5-card route and the Cartwright give the 7-carriage (which ends the game);
    the Cartwright's two extra cards do not count for the route-length tiles (online manual)."""
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = close_route(LONG_ROUTE[:5], carriage={0: sizes.index(6)})
    g.apply("done")
    assert g.phase == "cartwright"
    g.apply("cartwright")
    d = g.export()
    assert sizes[d["carriage"][0]] == 7
    assert d["official_uses"][0][CARTWRIGHT] == 1
    assert tiles(g, 0, "route5") == (1, 2)
    assert tiles(g, 0, "route6") == (0, 0) and tiles(g, 0, "route7") == (0, 0)
    assert d["end_triggered"] == 1 and d["end_player"] == 0 and tiles(g, 0, "game_end") == (1, 1)


def test_cartwright_cannot_help_three_cards_short():
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = close_route(LONG_ROUTE[:4], carriage={0: sizes.index(6)})
    g.apply("done")
    assert g.phase != "cartwright" and g.export()["carriage"][0] == sizes.index(6)


def test_cartwright_not_offered_when_the_route_is_long_enough():
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = close_route(LONG_ROUTE[:4], carriage={0: sizes.index(3)})
    g.apply("done")
    assert g.phase != "cartwright" and sizes[g.export()["carriage"][0]] == 4
    assert g.export()["official_uses"][0][CARTWRIGHT] == 0


def test_carriage_never_skips_a_size():
    g = close_route(LONG_ROUTE[:7])               # a 7-card first route gives the 3-carriage only
    g.apply("done")
    d = g.export()
    assert thurn_ai.load_board("south").carriages[d["carriage"][0]][0] == 3
    assert d["end_triggered"] == 0


# ------------------------------------------------------------------ bonus tiles

def test_wuerttemberg_hohenzollern_example_houses_from_several_routes():
    """Red already has a house in Stuttgart; closing a route he adds Sigmaringen and Ulm and so takes the
    top Württemberg/Hohenzollern tile (3)."""
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], houses={0: ["Stuttgart"]})
    play(g, "house Ulm", "house Sigmaringen", "done")
    assert tiles(g, 0, "wuerttemberg_hohenzollern") == (1, 3)
    assert g.export()["stack_pos"][stack(g, "wuerttemberg_hohenzollern")] == 1


def test_province_tile_needs_every_city_really_occupied():
    g = close_route(["Zürich", "Sigmaringen", "Ulm"])          # no house in Stuttgart
    play(g, "house Ulm", "house Sigmaringen", "done")
    assert tiles(g, 0, "wuerttemberg_hohenzollern") == (0, 0)
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], houses={0: ["Stuttgart"]})
    play(g, "house Ulm", "done")                                # Sigmaringen left out
    assert tiles(g, 0, "wuerttemberg_hohenzollern") == (0, 0)


def test_province_tiles_are_taken_top_first_by_successive_players():
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], houses={0: ["Stuttgart"]},
                    stack_pos={"wuerttemberg_hohenzollern": 1}, tiles={1: {"wuerttemberg_hohenzollern": [3]}})
    play(g, "house Ulm", "house Sigmaringen", "done")
    assert tiles(g, 0, "wuerttemberg_hohenzollern") == (1, 2)


def test_province_tile_at_most_once_per_player():
    """Having taken the Baden tile, the same player closing another route does not take a second one."""
    g = build(routes={0: ["Stuttgart", "Ulm"]}, houses={0: ["Carlsruhe", "Freiburg"]},
              hands={0: ["Mannheim", "Basel", "Zürich", "Sigmaringen"]})
    play(g, "left Mannheim", "close", "house Mannheim", "done")
    assert tiles(g, 0, "baden") == (1, 3)
    assert g.current_player == 1
    finish_turn(g)                               # seat 1
    play(g, "draw deck", "new Basel", "right Zürich")         # two cards: the turn ends by itself
    finish_turn(g)
    play(g, "draw deck", "right Sigmaringen", "close", "done")
    assert tiles(g, 0, "baden") == (1, 3)
    assert g.export()["stack_pos"][stack(g, "baden")] == 1


def test_province_tile_only_while_the_stack_has_tiles():
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], houses={0: ["Stuttgart"]},
                    stack_pos={"wuerttemberg_hohenzollern": 3})
    play(g, "house Ulm", "house Sigmaringen", "done")
    assert tiles(g, 0, "wuerttemberg_hohenzollern") == (0, 0)
    assert g.export()["stack_pos"][stack(g, "wuerttemberg_hohenzollern")] == 3


# One house in one city of every province but Polen; the route adds Lodz (Polen), optionally Regensburg.
OUTSIDE = ["Carlsruhe", "Stuttgart", "Sigmaringen", "Basel", "Innsbruck", "Salzburg", "Pilsen"]


@pytest.mark.parametrize("reading, placed, expected", [
    ("german", ["Lodz"], (1, 6)),                    # German: every province outside Baiern suffices
    ("german", ["Regensburg", "Lodz"], (1, 6)),
    ("english", ["Lodz"], (0, 0)),                   # English "all provinces": Baiern needed too
    ("english", ["Regensburg", "Lodz"], (1, 6)),
])
def test_outside_baiern_tile_readings(reading, placed, expected):
    rules = thurn_ai.Rules(players=2, all_provinces_tile=reading)
    g = close_route(["Regensburg", "Pilsen", "Lodz"], houses={0: OUTSIDE}, rules=rules)
    play(g, *[f"house {c}" for c in placed])
    if g.phase == "houses":
        g.apply("done")
    assert tiles(g, 0, "outside_baiern") == expected


def test_outside_baiern_tile_needs_every_other_province():
    g = close_route(["Regensburg", "Pilsen", "Lodz"], houses={0: OUTSIDE[1:]})     # no Baden house
    g.apply("house Lodz")                      # the last city in board order: the houses phase ends
    assert tiles(g, 0, "outside_baiern") == (0, 0)


@pytest.mark.parametrize("length, taken_before, got", [
    (5, {}, ("route5", 2)),
    (6, {}, ("route6", 3)),
    (7, {}, ("route7", 4)),
    (8, {}, ("route7", 4)),                               # 8 or more cards: the 7 stack
    (7, {"route7": 4}, ("route6", 3)),                    # 7 → 6 → 5 when stacks are empty
    (7, {"route7": 4, "route6": 3}, ("route5", 2)),
    (8, {"route7": 4, "route6": 3}, ("route5", 2)),
    (7, {"route7": 4, "route6": 3, "route5": 2}, None),
    (6, {"route6": 3}, ("route5", 2)),
    (6, {"route6": 1}, ("route6", 2)),                    # the stack's next tile
    (5, {"route5": 2}, None),                             # nothing shorter than 5
    (4, {}, None),
])
def test_route_tile_and_fallback_to_shorter_stacks(length, taken_before, got):
    g = close_route(LONG_ROUTE[:length], stack_pos=taken_before)
    g.apply("done")
    taken = {t: tiles(g, 0, t) for t in ("route5", "route6", "route7")}
    expected = {t: (0, 0) for t in taken}
    if got:
        expected[got[0]] = (1, got[1])
    assert taken == expected


def test_a_player_may_hold_several_route_tiles():
    g = close_route(LONG_ROUTE[:7], tiles={0: {"route7": [4], "route6": [3]}},
                    stack_pos={"route7": 1, "route6": 1})
    g.apply("done")
    assert tiles(g, 0, "route7") == (2, 7)


# ------------------------------------------------------------------ drawing

def test_draw_from_display_refills_it_from_the_deck():
    g = build(phase="draw", hands={0: ["Lodz"]}, display=["Ulm", "Ulm", "Basel", "Passau", "Linz", "Kempten"])
    before = g.export()
    g.apply("draw Ulm")
    d = g.export()
    ulm = g.board.city_index("Ulm")
    assert d["hand"][0][ulm] == 1 and d["known"][0][ulm] == 1
    assert d["display_n"] == 6 and d["deck_n"] == before["deck_n"] - 1
    assert total_cards(d) == 66 and g.phase == "play"


def test_draw_from_deck():
    g = build(phase="draw", hands={0: ["Lodz"]})
    before = g.export()
    g.apply("draw deck")
    d = g.export()
    assert sum(d["hand"][0]) == 2 and d["deck_n"] == before["deck_n"] - 1
    assert d["display"] == before["display"] and sum(d["known"][0]) == 0


def test_empty_deck_is_refilled_by_shuffling_the_discard_pile():
    g = build(phase="draw", hands={0: ["Lodz"]}, deck=[], rest="discard")
    before = g.export()
    assert before["deck_n"] == 0 and before["discard_n"] > 0
    g.apply("draw deck")
    d = g.export()
    assert d["discard_n"] == 0 and d["deck_n"] == before["discard_n"] - 1
    drawn = [b - a for a, b in zip(before["hand"][0], d["hand"][0])]
    assert [a - b for a, b in zip(before["discard"], d["deck"])] == drawn


def test_display_refill_uses_the_discard_pile_when_the_deck_is_empty():
    g = build(phase="draw", hands={0: ["Lodz"]}, deck=[], rest="discard")
    g.apply("draw Budweis")
    d = g.export()
    assert d["display_n"] == 6 and d["discard_n"] == 0 and total_cards(d) == 66


def test_display_not_refilled_when_deck_and_discard_are_empty():
    g = build(phase="draw", hands={0: ["Lodz"]}, deck=[], rest=("hand", 1))
    assert "draw deck" not in legal(g)
    g.apply("draw Budweis")
    assert g.export()["display_n"] == 5 and g.phase == "play"


def test_draw_skipped_when_nothing_can_be_drawn():
    g = build(phase="draw", hands={0: ["Lodz"]}, display=[], deck=[], rest=("hand", 1))
    assert g.phase == "play" and g.current_player == 0
    assert legal(g) == {"new Lodz"}


def test_empty_hand_and_nothing_to_draw_skips_the_turn():
    g = build(players=3, phase="draw", forced_pm=True, display=[], deck=[], rest=("hand", 1))
    assert g.current_player == 1                  # seat 0 could neither draw nor play


def test_a_player_who_could_neither_draw_nor_play_may_still_close():
    # engine choice (no rule covers it): the play step is skipped, the route of 3 may be closed
    g = build(phase="draw", forced_pm=True, routes={0: ["Zürich", "Sigmaringen", "Ulm"]}, display=[], deck=[],
              rest=("hand", 1))
    assert g.current_player == 0 and legal(g) == {"close", "stop"}


def test_a_card_taken_face_up_stays_known_until_a_copy_leaves_the_hand():
    g = build(phase="draw", hands={0: ["Ulm", "Lodz"]}, routes={0: ["Stuttgart"]},
              display=["Ulm", "Basel", "Passau", "Linz", "Kempten", "Budweis"])
    ulm = g.board.city_index("Ulm")
    g.apply("draw Ulm")
    assert g.export()["known"][0][ulm] == 1 and g.export()["hand"][0][ulm] == 2
    g.apply("right Ulm")                       # one of two Ulm cards left: which one is not known
    assert g.export()["known"][0][ulm] == 0 and g.export()["hand"][0][ulm] == 1
    assert sum(g.export()["known"][1]) == 0


# ------------------------------------------------------------------ officials

def test_first_round_everybody_must_use_the_postmaster():
    g = thurn_ai.new_game(players=3, seed=5)
    for seat in range(3):
        assert g.current_player == seat and g.phase == "draw"
        assert "administrator" not in legal(g)
        g.apply("draw deck")
        assert g.phase == "draw" and g.current_player == seat     # the second draw is compulsory
        assert not any(m.split()[0] in ("new", "left", "right") for m in legal(g))
        g.apply("draw deck")
        assert g.phase == "play"
        assert not any(m.startswith("draw") for m in legal(g))     # no third card
        first = sorted(legal_of_kind(g, "new"))[0]
        g.apply(f"new {first}")
        # no Postal Carrier after the Postmaster, and a one-card route cannot be closed: turn over
        assert g.current_player == (seat + 1) % 3
        assert g.export()["official_uses"][seat] == [1, 0, 0, 0]
    # second round: a card in hand, so the Postmaster is a free choice and the Administrator allowed
    assert "administrator" in legal(g)
    g.apply("draw deck")
    assert g.phase == "play" and any(m.startswith("draw") for m in legal(g))


def test_postmaster_compulsory_again_when_the_hand_runs_empty():
    g = build(routes={0: ["Ulm", "Stuttgart"]}, hands={0: ["Sigmaringen"]})
    play(g, "right Sigmaringen", "close", "done")
    assert g.export()["hand"][0] == [0] * 22
    finish_turn(g)                                 # seat 1
    assert g.current_player == 0 and "administrator" not in legal(g)
    g.apply("draw deck")
    assert g.phase == "draw"
    g.apply("draw deck")
    assert g.export()["official_uses"][0][POSTMASTER] == 1


def test_optional_postmaster_draws_a_second_card_in_place_of_playing():
    g = build(phase="draw", hands={0: ["Lodz"]})
    g.apply("draw deck")
    g.apply("draw deck")                           # Postmaster
    d = g.export()
    assert sum(d["hand"][0]) == 3 and d["official_uses"][0][POSTMASTER] == 1
    assert not any(m.startswith("draw") for m in legal(g))
    g.apply("new Lodz")
    assert g.current_player == 1                   # no Postal Carrier after the Postmaster


def test_postmaster_display_is_refilled_between_the_two_draws():
    g = build(phase="draw", hands={0: ["Lodz"]}, display=["Ulm", "Basel", "Passau", "Linz", "Kempten", "Budweis"])
    g.apply("draw Ulm")
    assert g.export()["display_n"] == 6
    g.apply("draw Basel")
    d = g.export()
    assert d["display_n"] == 6 and d["official_uses"][0][POSTMASTER] == 1
    assert d["known"][0][g.board.city_index("Basel")] == 1


def test_administrator_replaces_the_display_only_before_the_draw():
    display = ["Ulm", "Ulm", "Basel", "Passau", "Linz", "Kempten"]
    g = build(phase="draw", hands={0: ["Lodz"]}, display=display)
    before = g.export()
    g.apply("administrator")
    d = g.export()
    assert d["discard"] == before["display"] and d["discard_n"] == 6
    assert d["display_n"] == 6 and d["deck_n"] == before["deck_n"] - 6
    assert d["official_uses"][0][ADMINISTRATOR] == 1
    assert g.phase == "draw" and "administrator" not in legal(g)
    g.apply("draw deck")
    assert not any(m.startswith("draw") for m in legal(g))     # no Postmaster as well
    g.apply("new Lodz")
    assert g.current_player == 1                                # no Postal Carrier as well


def test_administrator_needs_a_card_in_hand_and_is_not_allowed_after_drawing():
    g = build(phase="draw", hands={0: ["Lodz"]})
    assert "administrator" in legal(g)
    g.apply("draw deck")
    assert "administrator" not in legal(g)
    with pytest.raises(IllegalMoveError):
        g.apply("administrator")
    g = build(phase="draw", forced_pm=True)        # empty hand
    assert "administrator" not in legal(g)


def test_postal_carrier_second_card_must_fit():
    g = build(routes={0: ["Ulm"]}, hands={0: ["Stuttgart", "Lodz", "Würzburg", "Augsburg"]})
    g.apply("right Stuttgart")
    plays = {m for m in legal(g) if m.split()[0] in ("left", "right", "new")}
    # Stuttgart–Würzburg, Ulm–Augsburg; Lodz fits nowhere; no new route in the same turn
    assert plays == {"right Würzburg", "left Augsburg"}
    g.apply("right Würzburg")
    assert legal(g) == {"close", "stop"}           # at most one extra card


def test_after_postal_carrier_no_cartwright():
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = build(routes={0: LONG_ROUTE[:3]}, hands={0: LONG_ROUTE[3:5]}, carriage={0: sizes.index(6)})
    play(g, "right Mannheim", "right Würzburg", "close", "done")
    assert g.phase != "cartwright" and g.export()["carriage"][0] == sizes.index(6)


@pytest.mark.parametrize("official_move", ["administrator", "postmaster"])
def test_after_administrator_or_postmaster_no_cartwright(official_move):
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = build(phase="draw", routes={0: LONG_ROUTE[:4]}, hands={0: [LONG_ROUTE[4]]},
              carriage={0: sizes.index(6)})
    if official_move == "administrator":
        play(g, "administrator", "draw deck")
    else:
        play(g, "draw deck", "draw deck")
    play(g, "right Würzburg", "close", "done")
    assert g.phase != "cartwright" and g.export()["carriage"][0] == sizes.index(6)


# ------------------------------------------------------------------ after closing: the hand limit

def test_hand_reduced_to_three_of_the_players_choice():
    hand = ["Lodz", "Lodz", "Basel", "Budweis", "Passau", "Kempten"]
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], hand=hand)
    g.apply("done")
    assert g.phase == "discard"
    kept = set()
    paths = 0
    for h in phase_outcomes(g):
        paths += 1
        d = h.export()
        kept.add(tuple(sorted(h.board.cities[x] for x in range(22) for _ in range(d["hand"][0][x]))))
        assert d["discard_n"] == 3 + 3 and total_cards(d) == 66   # route and three hand cards
    assert kept == {tuple(sorted(c)) for c in combinations(hand, 3)}
    assert len(kept) == paths                 # discards in city order: each choice is one sequence


def test_no_discarding_with_three_cards_or_fewer():
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], hand=["Lodz", "Basel", "Passau"])
    g.apply("done")
    assert g.current_player == 1 and sum(g.export()["hand"][0]) == 3


# ------------------------------------------------------------------ end of the game and scoring

@pytest.mark.parametrize("trigger_seat, players", [(1, 3), (0, 4), (2, 3), (1, 2)])
def test_seven_carriage_ends_the_game_after_the_round(trigger_seat, players):
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = close_route(LONG_ROUTE[:7], seat=trigger_seat, players=players, carriage={trigger_seat: sizes.index(6)})
    g.apply("done")
    d = g.export()
    assert sizes[d["carriage"][trigger_seat]] == 7
    assert d["end_triggered"] == 1 and d["end_player"] == trigger_seat
    assert tiles(g, trigger_seat, "game_end") == (1, 1)
    seats_after = []
    while not g.is_terminal():
        seats_after.append(g.current_player)
        finish_turn(g)
    assert seats_after == list(range(trigger_seat + 1, players))   # the last seat takes the last turn


def test_only_the_first_trigger_takes_the_game_end_tile():
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = close_route(LONG_ROUTE[:7], seat=1, players=3, carriage={1: sizes.index(6)}, end_player=0,
                    tiles={0: {"game_end": [1]}}, stack_pos={"game_end": 1})
    g.apply("done")
    d = g.export()
    assert d["end_player"] == 0 and tiles(g, 1, "game_end") == (0, 0)


@pytest.mark.parametrize("carriage, points", [(-1, 0)] + list(enumerate(CARRIAGE_POINTS)))
def test_score_is_highest_carriage_plus_tiles_minus_unplaced_houses(carriage, points):
    g = build(carriage={0: carriage}, houses={0: ["Ulm", "Basel", "Lodz"]},
              tiles={0: {"route7": [4, 3], "baden": [2]}})
    assert g.score(0) == points + 4 + 3 + 2 - 17
    assert g.scores()[1] == -20


def test_rulebook_score_example_7_plus_16_minus_4():
    # "7 Punkte plus 16 Punkte minus 4 Punkte = 19": the 6-carriage, 16 in tiles, 4 houses unplaced
    sixteen = list(thurn_ai.load_board("south").cities)[:16]
    g = build(carriage={0: 3}, houses={0: sixteen}, tiles={0: {"outside_baiern": [6], "baiern": [5],
                                                               "route7": [4], "game_end": [1]}})
    assert g.score(0) == 19


def _tie_position(players, end_player, carriages, extra=None, max_turns=5000, turn=None):
    """The last seat to move in the final round; scores set by carriages (+ extra tiles)."""
    tiles_ = {p: {"baden": [v]} for p, v in (extra or {}).items()}
    if end_player is not None:
        tiles_.setdefault(end_player, {})["game_end"] = [1]
    last = players - 1
    g = build(players, rules=thurn_ai.Rules(players=players, max_turns=max_turns), current=last,
              hands={last: ["Lodz"]}, carriage=dict(enumerate(carriages)), tiles=tiles_,
              end_player=end_player, stack_pos={"game_end": 1 if end_player is not None else 0}, turn=turn)
    g.apply("new Lodz")
    assert g.is_terminal()
    return g


def test_tie_break_nearest_clockwise_after_the_game_end_holder():
    # seats 0 and 3 lead with 10 - 20; seat 1 holds the game-end tile (7 + 1 - 20): 2, then 3 follow it
    g = _tie_position(4, 1, [4, 3, 3, 4])
    assert g.scores() == [-10, -12, -13, -10]
    assert g.winner() == 3 and g.ranking() == [3, 0, 1, 2]


def test_tie_break_the_game_end_holder_wins_a_tie():
    g = _tie_position(4, 1, [4, 3, 3, 4], extra={1: 2})
    assert g.scores() == [-10, -10, -13, -10]
    assert g.winner() == 1 and g.ranking() == [1, 3, 0, 2]


def test_tie_break_wraps_around_the_table():
    g = _tie_position(3, 2, [4, 4, 3])              # seats 0 and 1 tie; after seat 2 comes seat 0
    assert g.winner() == 0 and g.ranking()[:2] == [0, 1]


def test_tie_break_without_game_end_holder_counts_from_seat_0():
    # a game cut by the max_turns safeguard: nobody holds the game-end tile
    g = _tie_position(3, None, [3, 4, 4], max_turns=1, turn=2)
    assert g.export()["truncated"] == 1
    assert g.winner() == 1 and g.ranking() == [1, 2, 0]


# ------------------------------------------------------------------ illegal input

def _states_in_every_phase():
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    yield thurn_ai.new_game(players=2, seed=3)                                     # draw (forced)
    yield build(routes={0: ["Ulm"]}, hands={0: ["Stuttgart", "Lodz"]})            # play
    yield build(phase="after_play", routes={0: ["Ulm", "Stuttgart", "Carlsruhe"]}, hands={0: ["Lodz"]})
    yield close_route(["Zürich", "Sigmaringen", "Ulm"])                          # houses
    g = close_route(LONG_ROUTE[:5], carriage={0: sizes.index(6)})
    g.apply("done")
    yield g                                                                       # cartwright
    g = close_route(["Zürich", "Sigmaringen", "Ulm"], hand=["Lodz"] * 3 + ["Basel"])
    g.apply("done")
    yield g                                                                       # discard
    yield _tie_position(2, 0, [0, 0])                                             # over


ATTEMPTS = ["draw Lodz", "draw deck", "administrator", "left Innsbruck", "right Lodz", "new Pilsen",
            "close", "stop", "house Innsbruck", "house Ulm", "done", "cartwright", "no cartwright",
            "discard Innsbruck", "horse Ulm"]


def test_illegal_moves_raise_and_leave_the_state_unchanged():
    phases = set()
    for g in _states_in_every_phase():
        phases.add(g.phase)
        legal_now = legal(g)
        for text in ATTEMPTS + [-1, 0, 10**6, 2**40]:
            if text in legal_now:
                continue
            before = g.export()
            with pytest.raises(IllegalMoveError):
                g.apply(text)
            assert g.export() == before, text
    assert phases == {"draw", "play", "after_play", "houses", "cartwright", "discard", "over"}


@pytest.mark.parametrize("bad", ["fly Ulm", "draw Atlantis", "right", "", None, 41.0, [1]])
def test_unreadable_moves_raise_a_thurn_error(bad):
    g = build(phase="draw", hands={0: ["Lodz"]}, display=["Freiburg"] * 3 + ["Ulm"] * 3)
    before = g.export()
    with pytest.raises(ThurnError):
        g.apply(bad)
    assert g.export() == before


def test_notation_errors_name_the_problem():
    g = thurn_ai.new_game()
    with pytest.raises(NotationError, match="Atlantis"):
        g.apply("draw Atlantis")
