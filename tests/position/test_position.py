"""JSON positions: exact round trips, viewer positions that hide what they must, one message per problem,
and the `thurn-ai validate` command."""
import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

import thurn_ai
from thurn_ai.cli import main
from thurn_ai.errors import PositionError
from thurn_ai.position import (FIELDS, SEAT_PARTS, ProblemKind as K, check_position, check_state, dumps_position,
                               load_position, position_from_dict, problems_of, save_position)

GAMES = [("south", None), ("north", None), ("north", "classic")]  # classic, horses, North classic


def sampled_positions(players, board, variant, seed, count=6):
    """A few states visited by a random game (its start, its end and some in between), as clones."""
    g = thurn_ai.new_game(players=players, seed=seed, board=board, variant=variant)
    visited = [g.clone()]
    while not g.is_terminal():
        g.apply_random()
        if g.turn % 97 == 0:  # a sparse, deterministic sample of the thousands of states
            visited.append(g.clone())
    rnd = random.Random(seed)
    return [visited[0]] + rnd.sample(visited[1:], min(count, len(visited) - 1)) + [g]


game_params = dict(players=st.sampled_from([2, 3, 4]), game=st.sampled_from(GAMES),
                   seed=st.integers(0, 2 ** 32 - 1))


@given(**game_params)
def test_complete_positions_round_trip_exactly(players, game, seed):
    for g in sampled_positions(players, *game, seed):
        d = g.to_dict()
        assert json.loads(dumps_position(d)) == d          # the saved text holds the same data
        h = position_from_dict(d)
        assert h.export() == g.export()
        assert h.to_dict() == d
        # the loaded state plays on exactly like the original
        if not g.is_terminal():
            assert h.legal_moves() == g.legal_moves()


def unseen_cards(d: dict, viewer: int) -> list:
    """Per city, the cards `viewer` cannot place (the deck and the opponents' cards it has not seen), from
    an export(): what a re-deal may move around."""
    return [d["deck"][x] + sum(d["hand"][p][x] - d["known"][p][x] for p in range(len(d["hand"])) if p != viewer)
            for x in range(len(d["deck"]))]


@given(**game_params)
def test_viewer_positions_hide_what_the_viewer_cannot_know(players, game, seed):
    for g in sampled_positions(players, *game, seed, count=3):
        for viewer in range(players):
            dv = g.to_dict(viewer)
            assert "deck" not in dv and "rng" not in dv
            for p, row in enumerate(dv["players"]):
                assert ("hand" in row) == (p == viewer) and ("hand_size" in row) == (p != viewer)
            # A state that differs only in what the viewer cannot see gives the same view.
            other = g.determinize(viewer, seed + viewer + 1)
            assert other.to_dict(viewer) == dv
            # ... and the re-deal only moved the unseen cards: the same cards, the same hand sizes
            mine, theirs = other.export(), g.export()
            assert unseen_cards(mine, viewer) == unseen_cards(theirs, viewer)
            assert [sum(h) for h in mine["hand"]] == [sum(h) for h in theirs["hand"]]
            assert mine["known"] == theirs["known"] and mine["hand"][viewer] == theirs["hand"][viewer]


def test_a_re_deal_does_change_the_cards_the_viewer_cannot_see():
    # the equality of views above is a real test: re-deals do move hidden cards (a position can also have
    # none to move, e.g. an empty deck at 2 players, which is why this is not asserted per random game)
    g = thurn_ai.new_game(players=3, seed=7)
    for _ in range(60):
        g.apply_random()
    assert sum(unseen_cards(g.export(), 0)) > 0
    redealt = [g.determinize(0, s) for s in range(5)]
    assert all(h.to_dict(0) == g.to_dict(0) for h in redealt)
    assert any(h.to_dict()["players"] != g.to_dict()["players"] for h in redealt)


def test_viewer_dict_ignores_a_swapped_hidden_card():
    g = thurn_ai.new_game(players=2, seed=4)
    while True:  # play until seat 1 holds a card it drew from the deck
        g.apply_random()
        d = g.export()
        hidden = [x for x in range(len(d["hand"][1])) if d["hand"][1][x] > d["known"][1][x]]
        swap_in = [x for x in range(len(d["deck"])) if d["deck"][x] and x not in hidden]
        if hidden and swap_in:
            break
    x, y = hidden[0], swap_in[0]
    d["hand"][1][x] -= 1
    d["hand"][1][y] += 1
    d["deck"][x] += 1
    d["deck"][y] -= 1
    h = g.clone()
    h.load(d)
    assert h.to_dict(0) == g.to_dict(0)
    assert h.to_dict(1) != g.to_dict(1) and h.to_dict() != g.to_dict()


@given(**game_params)
def test_viewer_positions_load_into_consistent_states(players, game, seed):
    for g in sampled_positions(players, *game, seed, count=3):
        viewer = seed % players
        dv = g.to_dict(viewer)
        h = position_from_dict(dv, seed=seed)
        assert h.to_dict(viewer) == dv
        mine, theirs = h.export(), g.export()
        assert mine["hand"][viewer] == theirs["hand"][viewer]
        assert sum(mine["deck"]) == sum(theirs["deck"])
        if g.current_player == viewer and not g.is_terminal():
            assert h.legal_moves() == g.legal_moves()


def test_viewer_completion_is_seeded_and_varies():
    g = thurn_ai.new_game(players=3, seed=9)
    for _ in range(400):
        g.apply_random()
    dv = g.to_dict(0)
    a, b = position_from_dict(dv, seed=1), position_from_dict(dv, seed=1)
    assert a.export() == b.export()
    deals = {json.dumps(position_from_dict(dv, seed=s).export()["hand"]) for s in range(10)}
    assert len(deals) > 1


def test_save_and_load_files(tmp_path):
    g = thurn_ai.new_game(players=3, seed=2)
    for _ in range(500):
        g.apply_random()
    save_position(g, tmp_path / "full.json")
    save_position(g, tmp_path / "view.json", viewer=2)
    h, viewer = load_position(tmp_path / "full.json")
    assert viewer is None and h.export() == g.export()
    h, viewer = load_position(tmp_path / "view.json", seed=3)
    assert viewer == 2 and h.to_dict(2) == g.to_dict(2)
    with pytest.raises(PositionError, match="viewer must be a seat"):
        g.to_dict(3)


# ---------------------------------------------------------------- validation: one message per problem

# A position written by hand: only what matters, everything else takes its default.
HAND_WRITTEN = {
    "rules": {"players": 2, "board": "south"},
    "phase": "play",
    "to_move": 0,
    "display": ["Ulm", "Basel", "Zürich", "Linz", "Pilsen", "Lodz"],
    "players": [
        {"hand": ["München", "Augsburg", "Kempten"], "route": ["Ingolstadt", "Regensburg"],
         "houses": ["Carlsruhe", "Freiburg", "Mannheim"], "tiles": {"baden": [3]}},
        {"hand": ["Stuttgart", "Muenchen"], "carriage": 4},
    ],
}


def test_a_hand_written_position_loads():
    g = position_from_dict(HAND_WRITTEN, seed=1)
    assert g.phase == "play" and g.current_player == 0
    assert "right München" in [g.move_str(m) for m in g.legal_moves()]
    d = g.to_dict()
    assert d["players"][0]["houses_left"] == 17 and d["players"][1]["hand"] == ["München", "Stuttgart"]
    assert d["tile_stacks"]["baden"] == [2, 1]
    assert d["deck_size"] == 66 - 6 - 5 - 2


def edit(**changes):
    """A copy of HAND_WRITTEN with changes: keys are paths like 'players.0.hand' or 'phase'."""
    d = copy.deepcopy(HAND_WRITTEN)
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = d
        for k in parents:
            node = node[int(k)] if isinstance(node, list) else node[k]
        key = int(last) if isinstance(node, list) else last
        if value is DELETE:
            del node[key]
        else:
            node[key] = value
    return d


DELETE = object()
# HAND_WRITTEN moved to the North board (horses variant)
NORTH = {"rules.board": "north", "display": ["Berlin", "Halle", "Kassel", "Weimar", "Bremen", "Dresden"],
         "players.0": {"hand": ["Hamburg"]}}

# name: (changes to HAND_WRITTEN, the one problem's kind and field, words of its message)
BAD_POSITIONS = {
    "unknown city": ({"players.0.hand": ["Ulmm"]},
                     K.UNKNOWN_CITY, "seat0.hand", ["unknown city 'Ulmm'", "seat 0 hand"]),
    "unknown tile stack held": ({"players.0.tiles": {"route9": [1]}},
                                K.UNKNOWN_TILE_STACK, "seat0.tiles", ["unknown tile stack 'route9'"]),
    "unknown tile stack left": ({"tile_stacks": {"baiernn": [5]}},
                                K.UNKNOWN_TILE_STACK, "tiles", ["unknown tile stack 'baiernn'"]),
    "unknown official": ({"players.1.official_uses": {"amtmann": 1}},
                         K.UNKNOWN_OFFICIAL, "seat1.official_uses", ["unknown official 'amtmann'"]),
    "unknown field": ({"hnad": []}, K.UNKNOWN_FIELD, "position", ["unknown field 'hnad'"]),
    "unknown phase": ({"phase": "flying"}, K.UNKNOWN_PHASE, "turn", ["unknown phase 'flying'"]),
    "too many cards of a city": ({"players.1.hand": ["Ulm", "Ulm", "Ulm"]},
                                 K.TOO_MANY_CARDS, "cards", ["city Ulm: 4 cards", "hands 3", "display 1"]),
    "too many cards, discard counted": ({"discard": {"Lodz": 2}, "players.1.hand": ["Lodz"]},
                                        K.TOO_MANY_CARDS, "cards",
                                        ["city Lodz: 4 cards", "hands 1, display 1, discard 2"]),
    "route not a road path": ({"players.1.route": ["Ulm", "Lodz"]},
                              K.ROUTE_NOT_JOINED, "seat1.route", ["Ulm and Lodz are not joined by a road"]),
    "route repeats a city": ({"players.1.route": ["Ulm", "Augsburg", "Ulm"]},
                             K.ROUTE_REPEATS_CITY, "seat1.route", ["Ulm appears 2 times"]),
    "more than 20 houses": ({"players.1.houses": ["Augsburg", "Ingolstadt", "Kempten", "München", "Nürnberg",
                                                  "Passau", "Regensburg", "Würzburg", "Carlsruhe", "Freiburg",
                                                  "Mannheim", "Stuttgart", "Ulm", "Sigmaringen", "Basel",
                                                  "Zürich", "Innsbruck", "Salzburg", "Linz", "Pilsen",
                                                  "Budweis"]},
                            K.HOUSE_COUNT, "seat1.houses", ["seat 1", "21 houses on the board", "only 20"]),
    "house count inconsistent": ({"players.0.houses_left": 18},
                                 K.HOUSE_COUNT, "seat0.houses", ["seat 0", "3 houses", "18 left", "20"]),
    "house listed twice": ({"players.1.houses": ["Ulm", "Ulm"]},
                           K.HOUSE_TWICE, "seat1.houses", ["Ulm is listed 2 times"]),
    "stack values not what remains": ({"tile_stacks": {"route7": [4, 2, 1]}},
                                      K.STACK_REMAINDER, "tiles", ["tile_stacks route7", "[4, 2, 1]", "[4, 3, 2, 1]"]),
    "more tiles held than taken": ({"players.1.tiles": {"route5": [2, 1]}, "tile_stacks": {"route5": [1]}},
                                   K.TILES_NOT_CONSERVED, "tiles", ["route5", "hold 2 tiles", "1 tile was taken"]),
    "tile worth a value not taken": ({"players.1.tiles": {"route5": [1]}, "tile_stacks": {"route5": [1]}},
                                     K.TILES_NOT_CONSERVED, "tiles", ["route5", "worth 1", "worth 2"]),
    "two tiles of a province stack": ({"players.0.tiles": {"baden": [3, 2]}},
                                      K.TILE_TAKEN_TWICE, "seat0.tiles",
                                      ["seat 0 holds 2 tiles of stack baden", "only once"]),
    "province tile without the houses": ({"players.0.houses": ["Carlsruhe"]},
                                         K.TILE_WITHOUT_HOUSES, "seat0.tiles",
                                         ["seat 0 holds tile baden without a house in Freiburg, Mannheim"]),
    "negative hand size": ({"players.1.hand": DELETE, "players.1.hand_size": -1},
                           K.OUT_OF_RANGE, "seat1.hand", ["seat 1 hand_size must be at least 0"]),
    "known cards exceed hand size": ({"players.1.hand": DELETE, "players.1.hand_size": 1,
                                      "players.1.known": ["Ulm", "Linz"]},
                                     K.KNOWN_NOT_IN_HAND, "seat1.known", ["seat 1", "2 known cards", "holds only 1"]),
    "known card not in hand": ({"players.1.known": ["Ulm"]},
                               K.KNOWN_NOT_IN_HAND, "seat1.known", ["seat 1", "known card Ulm is not in the hand"]),
    "hand and hand_size": ({"players.1.hand_size": 2}, K.HAND_TWICE, "seat1.hand", ["either hand or hand_size"]),
    "display larger than 6": ({"display": ["Ulm", "Basel", "Zürich", "Linz", "Pilsen", "Lodz", "Passau"]},
                              K.DISPLAY_OVERFULL, "display", ["display holds 7 cards", "6"]),
    "display short while the deck has cards": ({"display": ["Ulm"]},
                                               K.DISPLAY_NOT_REFILLED, "display",
                                               ["display holds 1 cards", "deck holds"]),
    "wrong player count": ({"rules.players": 3},
                           K.PLAYER_COUNT, "rules", ["rules are for 3 players but 2 players are listed"]),
    "bad rules": ({"rules.board": "east"}, K.BAD_RULES, "rules", ["rules", "unknown board 'east'"]),
    "max_turns beyond the engine": ({"rules.max_turns": 10 ** 12},
                                    K.OUT_OF_RANGE, "rules", ["rules max_turns must be from 1 to"]),
    "turn beyond the turn limit": ({"turn": 10 ** 12}, K.OUT_OF_RANGE, "turn", ["turn must be from 0 to 10000"]),
    "counter beyond the engine": ({"players.0.closes": 10 ** 6},
                                  K.OUT_OF_RANGE, "seat0.closes", ["seat 0 closes must be from 0 to 32767"]),
    "carriage not on the board": ({"players.1.carriage": 8},
                                  K.NO_SUCH_CARRIAGE, "seat1.carriage", ["carriage 8 is not on the board"]),
    "carriage in the horses variant": ({**NORTH, "players.1": {"carriage": 5}},
                                       K.NO_SUCH_CARRIAGE, "seat1.carriage", ["carriage 5", "horses variant"]),
    "horse cards in the classic variant": ({"players.1.horse_cards": ["Ulm"]},
                                           K.HORSE_CARDS_OUTSIDE_VARIANT, "seat1.horse_cards",
                                           ["horse cards are only laid in the horses variant"]),
    "deck given but cards missing": ({"deck": {"Ulm": 1}},
                                     K.CARDS_UNACCOUNTED, "cards", ["with the deck given", "missing"]),
    "deck size wrong": ({"deck_size": 3}, K.DECK_SIZE, "cards", ["deck_size is 3", "53"]),
    "hidden cards more than unaccounted": ({"players.1.hand": DELETE, "players.1.hand_size": 60},
                                           K.CARDS_UNACCOUNTED, "cards", ["hide 60 cards", "only 55"]),
    "viewer hand not listed": ({"viewer": 1, "players.1.hand": DELETE, "players.1.hand_size": 2},
                               K.VIEWER_HAND_HIDDEN, "seat1.hand", ["seat 1 is the viewer", "hand must be listed"]),
    "viewer out of range": ({"viewer": 2}, K.OUT_OF_RANGE, "rules", ["viewer must be from 0 to 1"]),
    "to_move out of range": ({"to_move": 5}, K.OUT_OF_RANGE, "turn", ["to_move must be from 0 to 1"]),
    "game-end tile without the end": ({"players.0.tiles": {"baden": [3], "game_end": [1]}},
                                      K.GAME_END_TILE, "seat0.tiles",
                                      ["seat 0 holds the game-end tile", "triggered by nobody"]),
    "end triggered, game-end tile not taken": ({"end_triggered_by": 1, "players.1.carriage": 7}, K.GAME_END_TILE,
                                               "tiles", ["triggered by seat 1", "game-end tile", "must be taken"]),
    "end triggered without a cause": ({"end_triggered_by": 1, "players.1.tiles": {"game_end": [1]}},
                                      K.END_WITHOUT_CAUSE, "turn",
                                      ["triggered by seat 1", "neither placed all 20 houses nor taken the 7-carriage"]),
    "seat misnumbered": ({"players.1.seat": 0}, K.SEAT_MISNUMBERED, "seat1", ["says seat 0 but is number 1"]),
    "format": ({"format": "chess"}, K.WRONG_FORMAT, "position", ["format must be 'thurn-ai position'"]),
    "counter that could wrap": ({"players.0.closes": 32000}, K.COUNTER_OVERFLOW, "seat0.closes",
                                ["closes is 32000", "could pass 32767"]),
    "seven horse cards": ({**NORTH, "players.1": {"horse_cards": ["Berlin", "Halle", "Magdeburg", "Stettin",
                                                                 "Münster", "Cöln", "Coblenz"]}},
                          K.TOO_MANY_HORSE_CARDS, "seat1.horse_cards", ["7 horse cards", "at most 6"]),
    "free city built, its tile not taken": ({**NORTH, "players.1": {"houses": ["Lübeck"]}}, K.FREE_CITY_TILE,
                                            "seat1.houses", ["house in Lübeck", "free_luebeck must have been taken"]),
    "no deal leaves a move": ({"phase": "discard", "players.0.route": [], "players.0.hand": DELETE,
                               "players.0.hand_size": 5, "players.0.known": ["Augsburg", "Kempten", "München", "Ulm",
                                                                             "Basel"],
                               "turn_state": {"last_discard": "Zürich"}},
                              K.NO_DEAL, "turn", ["no way of dealing", "seat 0", "discard phase"]),
    "all houses placed without the end": ({"players.1.houses_left": 0, "players.1.houses": [
        "Augsburg", "Ingolstadt", "Kempten", "München", "Nürnberg", "Passau", "Regensburg", "Würzburg",
        "Carlsruhe", "Freiburg", "Mannheim", "Stuttgart", "Ulm", "Sigmaringen", "Basel", "Zürich",
        "Innsbruck", "Salzburg", "Linz", "Pilsen"]},
        K.END_NOT_TRIGGERED, "seat1.houses", ["seat 1 has placed all 20 houses", "end"]),
    "largest carriage without the end": ({"players.1.carriage": 7},
                                         K.END_NOT_TRIGGERED, "seat1.carriage", ["seat 1 has the 7-carriage", "end"]),
    "houses phase with a short route": ({"phase": "houses"},
                                        K.CLOSE_IMPOSSIBLE, "turn", ["phase houses", "route of 2 cards", "needs 3"]),
    "close houses outside the route": ({"phase": "houses", "players.0.route": ["Ingolstadt", "Regensburg",
                                                                               "Passau"],
                                        "turn_state": {"close_houses": ["Carlsruhe"]}},
                                       K.HOUSE_PLACEMENT, "turn", ["close_houses", "only in cities of the route"]),
    "cartwright phase with a short route": ({"phase": "cartwright"},
                                            K.CLOSE_IMPOSSIBLE, "turn", ["phase cartwright", "route of 2 cards"]),
    "cartwright phase without a reachable carriage": ({"phase": "cartwright", "players.0.carriage": 5,
                                                       "players.0.route": ["Ingolstadt", "Regensburg", "Passau"]},
                                                      K.CLOSE_IMPOSSIBLE, "turn",
                                                      ["phase cartwright", "cannot", "6-carriage"]),
    "forced postmaster without the official": ({"phase": "draw", "turn_state": {"forced_postmaster": True,
                                                                                "official_used": None}},
                                               K.TURN_STATE, "turn",
                                               ["forced_postmaster needs official_used postmaster"]),
    "discard order impossible": ({"phase": "discard", "players.0.route": [],
                                  "players.0.hand": ["Augsburg", "Kempten", "München", "Ulm", "Basel"],
                                  "turn_state": {"last_discard": "Zürich"}},
                                 K.DISCARD_ORDER, "turn",
                                 ["last_discard", "city order", "fewer than 2 cards from Zürich on"]),
    "play phase before a draw": ({"turn_state": {"draws": 0}}, K.TURN_STATE, "turn", ["play phase", "draws 1 or 2"]),
    "draws out of range": ({"turn_state": {"draws": 5}},
                           K.OUT_OF_RANGE, "turn", ["turn_state draws must be from 0 to 2, not 5"]),
    "unsupported version": ({"version": 7}, K.UNSUPPORTED_VERSION, "position", ["version 7 is not supported"]),
    "version true": ({"version": True},
                     K.UNSUPPORTED_VERSION, "position", ["version True is not supported"]),     # True == 1 in Python
    "version 1.0": ({"version": 1.0}, K.UNSUPPORTED_VERSION, "position", ["version 1.0 is not supported"]),
    "bad generator": ({"rng": {"chance": "zz"}}, K.WRONG_TYPE, "position", ["rng.chance", "64-bit"]),
    "truncated game not over": ({"truncated": True}, K.TRUNCATED_NOT_OVER, "turn", ["truncated", "finished game"]),
    "not an object": ({"players.1.tiles": [3]}, K.WRONG_TYPE, "seat1.tiles", ["seat 1 tiles must be an object"]),
}


@pytest.mark.parametrize("name", list(BAD_POSITIONS))
def test_each_problem_gets_one_message_naming_it(name):
    changes, kind, field, words = BAD_POSITIONS[name]
    problems = check_position(edit(**changes))
    assert [(p.kind, p.field) for p in problems] == [(kind, field)], problems
    assert known_field(field)
    for w in words:
        assert w in problems[0].message, (w, problems[0])
    with pytest.raises(PositionError) as e:
        position_from_dict(edit(**changes))
    assert list(e.value.problems) == problems


def test_a_problem_of_an_unreadable_file_or_state_is_named_too(tmp_path):
    assert [p.kind for p in check_position([1, 2])] == [K.NOT_AN_OBJECT]
    assert [(p.kind, p.field) for p in check_position({"players": "x"})] == [(K.NOT_AN_OBJECT, "rules")]
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(PositionError) as e:
        load_position(broken)
    assert e.value.problems == ()                     # not a position at all: the error is its one problem
    [p] = problems_of(e.value)
    assert (p.kind, p.field) == (K.UNREADABLE, "position") and "not valid JSON" in p.message


def test_check_state_names_what_an_engine_state_gets_wrong():
    g = thurn_ai.new_game(players=2, seed=3)
    for _ in range(40):
        g.apply_random()
    assert check_state(g) == []
    def put(key, i, value):
        return lambda d: d[key].__setitem__(i, value)
    cases = [(lambda d: d.update(display_n=d["display_n"] + 1), K.BOOKKEEPING, "display"),
             (put("carriage", 1, 9), K.NO_SUCH_CARRIAGE, "seat1.carriage"),
             (put("stack_pos", 0, 99), K.STACK_REMAINDER, "tiles"),
             (put("houses_left", 0, 3), K.HOUSE_COUNT, "seat0.houses"),
             (lambda d: d["hand"][0].__setitem__(5, d["hand"][0][5] + 1), K.TOO_MANY_CARDS, "cards")]
    for change, kind, field in cases:
        d = g.export()
        change(d)
        h = g.clone()
        h.load(d)
        assert [(p.kind, p.field) for p in check_state(h)] == [(kind, field)]


def test_the_format_documentation_lists_every_problem_kind_and_field():
    doc = next(p / "docs" / "position-format.md" for p in Path(__file__).resolve().parents
               if (p / "docs" / "position-format.md").exists())
    text = doc.read_text(encoding="utf-8")
    table = text[text.index("### Problems are named"):]
    assert [k.value for k in K if f"`{k.value}`" not in table] == []
    assert [f for f in (*FIELDS, *SEAT_PARTS) if f"`{f}`" not in table] == []


def test_every_problem_kind_has_a_minimal_bad_position_above():
    named = {kind for _, kind, _, _ in BAD_POSITIONS.values()}
    # the other two tests above: not an object, unreadable, and the engine's own bookkeeping
    assert set(K) - named == {K.NOT_AN_OBJECT, K.UNREADABLE, K.BOOKKEEPING}


def test_the_hand_written_base_is_valid():
    # the parametrized cases above each break exactly one thing of this position
    assert check_position(HAND_WRITTEN) == []


def test_all_problems_are_collected():
    d = edit(**{"players.0.hand": ["Ulmm"], "players.1.route": ["Ulm", "Lodz"],
                "display": ["Ulm", "Basel", "Zürich", "Linz", "Pilsen", "Lodz", "Passau"]})
    with pytest.raises(PositionError) as e:
        position_from_dict(d)
    assert len(e.value.problems) == 3
    text = str(e.value)
    assert "3 problems" in text and "Ulmm" in text and "not joined by a road" in text and "7 cards" in text


def test_not_an_object_and_bad_json(tmp_path):
    assert [p.message for p in check_position([1, 2])] == ["a position must be a JSON object"]
    f = tmp_path / "broken.json"
    f.write_text('{\n  "rules": {"players": 2},\n  "players": [\n    {"hand": ["Ulm"]}\n    {"hand": []}\n  ]\n}\n')
    with pytest.raises(PositionError, match=r"broken.json is not valid JSON: .* at line 5"):
        load_position(f)


# ---------------------------------------------------------------- thurn-ai validate

def run_cli(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_validate_ok_and_problems(tmp_path, capsys):
    g = thurn_ai.new_game(players=3, seed=5)
    for _ in range(300):
        g.apply_random()
    good, view, bad = tmp_path / "good.json", tmp_path / "view.json", tmp_path / "bad.json"
    save_position(g, good)
    save_position(g, view, viewer=1)
    d = g.to_dict()
    d["players"][0]["houses_left"] = 3
    d["display"].append("Atlantis")
    bad.write_text(json.dumps(d))

    code, out, err = run_cli(["validate", str(good)], capsys)
    assert code == 0 and out.startswith("ok: complete position") and "3 players" in out
    code, out, err = run_cli(["validate", str(view)], capsys)
    assert code == 0 and out.startswith("ok: seat 1's view")
    code, out, err = run_cli(["validate", str(bad)], capsys)
    assert code == 2 and "2 problems" in err and "Atlantis" in err and "houses" in err
    assert "Traceback" not in err + out
    code, out, err = run_cli(["validate", "--json", str(bad)], capsys)
    report = json.loads(out)
    assert code == 2 and report["ok"] is False and len(report["problems"]) == 2
    code, out, err = run_cli(["validate", "--json", str(good)], capsys)
    assert code == 0 and json.loads(out)["ok"] is True


def test_validate_bad_files(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text('{"rules": {"players": 2},,}')
    code, out, err = run_cli(["validate", str(broken)], capsys)
    assert code == 2 and "not valid JSON" in err and "line 1" in err and "Traceback" not in err
    code, out, err = run_cli(["validate", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and "cannot read position file" in err and "Traceback" not in err


def test_validate_through_the_real_entry_point(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(edit(**{"players.1.route": ["Ulm", "Lodz"]})))
    run = subprocess.run([sys.executable, "-m", "thurn_ai.cli", "validate", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.startswith("error: ") and "Ulm and Lodz are not joined by a road" in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


def test_the_examples_in_the_format_document_are_valid_and_agree():
    text = (Path(__file__).parents[2] / "docs" / "position-format.md").read_text(encoding="utf-8")
    hand_written, complete, view = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    for d in (hand_written, complete, view):
        assert check_position(d) == []
    assert position_from_dict(complete).to_dict(viewer=view["viewer"]) == view


FUZZ_BASES = []


def fuzz_bases():
    if not FUZZ_BASES:
        for players, (board, variant) in zip((2, 3, 4), GAMES):
            g = thurn_ai.new_game(players=players, seed=1, board=board, variant=variant)
            for _ in range(700):
                g.apply_random()
            FUZZ_BASES.extend([g.to_dict(), g.to_dict(viewer=1)])
    return FUZZ_BASES


def json_leaf_paths(d, prefix=()):
    if prefix:
        yield prefix
    if isinstance(d, dict):
        for k, v in d.items():
            yield from json_leaf_paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from json_leaf_paths(v, prefix + (i,))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=False)
    | st.sampled_from(["", "Ulm", "Berlin", "München", "route5", "postmaster", "draw", "0x10"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["Ulm", "count", "points", "x"]),
                                                                inner, max_size=3),
    max_leaves=6)


def known_field(field: str) -> bool:
    """A field the documentation lists (and the web editor has a place for, or shows in its general list)."""
    seat, _, part = field.partition(".")
    return field in FIELDS or (re.fullmatch(r"seat\d+", seat) is not None and part in ("", *SEAT_PARTS))


@given(base=st.integers(0, 5), where=st.integers(0, 10 ** 6), value=json_values, delete=st.booleans())
def test_any_edit_gives_a_state_or_a_position_error(base, where, value, delete):
    d = copy.deepcopy(fuzz_bases()[base])
    paths = list(json_leaf_paths(d))
    *parents, last = paths[where % len(paths)]
    node = d
    for k in parents:
        node = node[k]
    if delete and isinstance(node, dict):
        del node[last]
    else:
        node[last] = value
    try:
        g = position_from_dict(d, seed=where)
    except PositionError as e:
        assert e.problems and all(p.message and known_field(p.field) for p in e.problems), e.problems
        return
    # accepted: a usable state that saves and loads again exactly
    assert g.is_terminal() or g.legal_moves()
    assert position_from_dict(g.to_dict()).export() == g.export()
