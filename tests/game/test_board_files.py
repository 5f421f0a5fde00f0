"""Board files: loading, validation (each bad file gives one clear BoardError), provenance and the notice,
correcting the North board without touching code, and --board-file on the command line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import thurn_ai
from thurn_ai import BoardError, Rules, RulesError
from thurn_ai.game.board import BOARD_DIR, parse_board

DATA = Path(__file__).parents[1] / "data"
MINI = DATA / "mini.json"


def mini() -> dict:
    return json.loads(MINI.read_text(encoding="utf-8"))


def write(tmp_path, data, name="board.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "thurn_ai.cli", *args], capture_output=True, text=True,
                          timeout=120)


# ------------------------------------------------------------------ loading

def test_builtin_boards_load_and_the_south_board_is_not_reconstructed():
    south = thurn_ai.load_board("south")
    assert south.n_cities == 22 and not south.reconstructed and south.notice == ""
    assert south.free_cities == () and south.default_variant == "classic"
    assert thurn_ai.load_board("north").reconstructed


def test_a_synthetic_board_file_loads_with_every_field():
    b = thurn_ai.load_board(str(MINI))
    assert b.name == "mini" and b.n_cities == 8 and b.n_cards == 24
    assert b.provinces == ("Nordmark", "Südland", "Westgau")
    assert [b.cities[x] for x in b.free_cities] == ["Hafenstadt", "Messestadt"]
    assert b.city_index("MESSESTADT") == b.city_index("Messestadt")
    assert b.adjacent(b.city_index("Hafenstadt"), b.city_index("Cranz"))
    assert not b.adjacent(b.city_index("Altdorf"), b.city_index("Cranz"))
    assert len(b.roads) == 10 and b.horses == (1, 2, 3, 1, 2, 3, 1, 2)
    assert b.carriages == ((3, 1), (4, 2), (5, 4))
    nordmark = b.tiles[b.tile_index("nordmark")]
    assert nordmark.kind == "all_cities" and {b.cities[x] for x in nordmark.cities} == {"Altdorf", "Burgheim",
                                                                                        "Cranz"}
    assert {t.id: t.length for t in b.tiles if t.kind == "route"} == {"route4": 4, "route3": 3}
    free = b.tiles[b.tile_index("free_messestadt")]
    assert free.kind == "free_city" and free.cities == {b.city_index("Messestadt")}
    assert not b.reconstructed and b.notice == ""


def test_a_game_on_a_synthetic_board_uses_its_data():
    g = thurn_ai.new_game(rules=Rules(players=2, board=str(MINI)), seed=3)
    assert g.board.name == "mini"
    drawn = {g.move_str(m) for m in g.legal_moves()}
    assert drawn <= {f"draw {c}" for c in g.board.cities} | {"draw deck", "administrator"}
    g.playout()
    d = g.export()
    assert g.is_terminal() and not d["truncated"]
    assert sum(map(sum, d["hand"])) + d["deck_n"] + d["discard_n"] + d["display_n"] + \
        sum(map(len, d["route"])) == 24


# ------------------------------------------------------------------ provenance and the notice

def test_reconstructed_markers_make_a_one_line_notice(tmp_path):
    data = mini()
    data["roads"][0] = {"cities": data["roads"][0], "provenance": "reconstructed"}
    data["cities"][2]["horses_provenance"] = "reconstructed"
    b = thurn_ai.load_board(write(tmp_path, data))
    assert b.reconstructed
    assert b.provenance["roads"] == ("Altdorf–Burgheim",) and b.provenance["horses"] == ("Cranz",)
    assert "\n" not in b.notice and "1 of 10 roads" in b.notice and "1 of 8 horse counts" in b.notice
    data["notice"] = "my own words"
    assert thurn_ai.load_board(write(tmp_path, data, "b2.json")).notice == "my own words"


def test_correcting_the_north_board_needs_no_code(tmp_path):
    data = json.loads((BOARD_DIR / "north.json").read_text(encoding="utf-8"))
    # the owner of the printed game found that Lübeck's cards show 3 horses, and verifies everything
    for part in ("provinces", "cities", "roads", "tiles", "carriages"):
        for e in data[part]:
            for key in [k for k in e if k.endswith("provenance")]:
                e[key] = "verified"
    luebeck = next(c for c in data["cities"] if c["name"] == "Lübeck")
    luebeck["horses"] = 3
    path = write(tmp_path, data, "north-corrected.json")
    b = thurn_ai.load_board(path)
    assert not b.reconstructed and b.notice == ""
    assert b.horses[b.city_index("Lübeck")] == 3
    # the engine plays with the corrected count: 2 + 3 horses draw a 5-card route
    rules = Rules(players=2, board=path)
    g = thurn_ai.new_game(rules=rules, seed=1)
    d = g.export()
    route = [b.city_index(c) for c in ("Halle", "Berlin", "Hannover", "Hamburg", "Bremen")]
    for x in route + [b.city_index("Lübeck")]:
        d["deck"][x] -= 1
    d["deck_n"] -= 6
    d["route"][0] = route
    d["horse_cards"][0][b.city_index("Lübeck")] = 1
    d.update(phase=2, plays=1, draws=1, official=0, forced_pm=0)
    g.load(d)
    assert "close" in [g.move_str(m) for m in g.legal_moves()]
    out = cli("play", "--board-file", path, "--quiet", "--seed", "2")
    assert out.returncode == 0 and "note:" not in out.stderr


# ------------------------------------------------------------------ bad board files

def _set(path, value):
    def f(d):
        *head, last = path
        for k in head:
            d = d[k]
        if value is _DELETE:
            del d[last]
        else:
            d[last] = value
    return f


_DELETE = object()


def _add(key, entry):
    return lambda d: d[key].append(entry)


BAD = [
    ("no name", _set(["name"], _DELETE), "missing key 'name'"),
    ("cities not a list", _set(["cities"], {"a": 1}), "'cities' must be a list"),
    ("unknown top-level key", _set(["citys"], []), "unknown key 'citys'"),
    ("province typo", _set(["provinces", 0], {"nam": "Nordmark"}), "unknown key 'nam'"),
    ("province twice", _add("provinces", "Nordmark"), "province 'Nordmark' listed twice"),
    ("province without city", _add("provinces", "Ostgau"), "province 'Ostgau' has no city"),
    ("city with unknown province", _set(["cities", 0, "province"], "Ostgau"), "unknown province 'Ostgau'"),
    ("city without province key", _set(["cities", 0, "province"], _DELETE), "missing key 'province'"),
    ("city twice, other spelling", _add("cities", {"name": "ALTDORF", "province": "Westgau"}),
     "city 'ALTDORF' listed twice"),
    ("city key typo", _set(["cities", 1, "horse"], 2), "unknown key 'horse'"),
    ("horses out of range", _set(["cities", 1, "horses"], 4), "horses must be 1-3"),
    ("horses as text", _set(["cities", 1, "horses"], "2"), "horses must be 1-3"),
    ("bad provenance", _set(["cities", 1, "provenance"], "guessed"), "'verified' or 'reconstructed'"),
    ("city called deck", _add("cities", {"name": "Deck", "province": "Westgau"}), "'deck'"),
    ("city without road", _add("cities", {"name": "Insel", "province": "Westgau"}), "'Insel' has no road"),
    ("road to unknown city", _set(["roads", 0], ["Altdorf", "Nowhere"]), "unknown city 'Nowhere'"),
    ("road with three cities", _set(["roads", 0], ["Altdorf", "Burgheim", "Cranz"]), "exactly two cities"),
    ("road to itself", _set(["roads", 0], ["Altdorf", "Altdorf"]), "to itself"),
    ("road twice", _add("roads", ["Burgheim", "Altdorf"]), "road Burgheim–Altdorf listed twice"),
    ("unknown tile kind", _set(["tiles", 0, "kind"], "bonus"), "kind must be one of"),
    ("no tile values", _set(["tiles", 0, "values"], []), "values must be"),
    ("negative tile value", _set(["tiles", 0, "values"], [3, -1]), "values must be"),
    ("too many tile values", _set(["tiles", 0, "values"], [1] * 9), "values must be"),
    ("tile id twice", _add("tiles", {"id": "route3", "kind": "route", "length": 5, "values": [1]}),
     "'route3' listed twice"),
    ("route tile without length", _set(["tiles", 0, "length"], _DELETE), "missing key 'length'"),
    ("route tile too short", _set(["tiles", 0, "length"], 2), "length must be"),
    ("two stacks for one length", _set(["tiles", 0, "length"], 3), "two route tile stacks for length 3"),
    ("free-city tile on a province city", _set(["tiles", 4, "city"], "Cranz"), "Cranz is not a free city"),
    ("province tile, unknown province", _set(["tiles", 3, "provinces"], ["Ostgau"]),
     "unknown province 'Ostgau'"),
    ("province tile, not a list", _set(["tiles", 3, "provinces"], "Nordmark"), "must be a list"),
    ("no game-end tile", lambda d: d["tiles"].pop(), "exactly one game_end"),
    ("two game-end tiles", _add("tiles", {"id": "end2", "kind": "game_end", "values": [1]}),
     "exactly one game_end"),
    ("too many tile stacks", lambda d: d["tiles"].extend(
        {"id": f"r{n}", "kind": "route", "length": n, "values": [1]} for n in range(5, 23)), "at most 24"),
    ("carriages out of order", lambda d: d["carriages"].reverse(), "smallest first"),
    ("classic board without carriages", _set(["carriages"], []), "needs carriages"),
    ("cards per city", _set(["cards_per_city"], 0), "cards_per_city"),
    ("unknown default variant", _set(["default_variant"], "fast"), "default_variant"),
    ("horses default, a city without horses", lambda d: (d.update(default_variant="horses"),
                                                         d["cities"][0].pop("horses")), "needs horses"),
    ("top level a list", lambda d: None, "top level must be a JSON object"),
]


@pytest.mark.parametrize("label, mutate, message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_board_file_gives_one_clear_board_error(tmp_path, label, mutate, message):
    data = mini()
    if label == "top level a list":
        data = [data]
    else:
        mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(BoardError) as e:
        thurn_ai.load_board(path)
    assert message in str(e.value) and path in str(e.value)


def test_too_many_cities_is_refused(tmp_path):
    data = mini()
    for i in range(25):
        data["cities"].append({"name": f"Dorf {i}", "province": "Westgau"})
        data["roads"].append(["Fichtel", f"Dorf {i}"])
    with pytest.raises(BoardError, match="2 to 32 cities"):
        thurn_ai.load_board(write(tmp_path, data))


@pytest.mark.parametrize("content, message", [
    ("{not json", "is not valid JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_unreadable_board_files(tmp_path, content, message):
    path = tmp_path / "broken.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(BoardError, match=message):
        thurn_ai.load_board(str(path))


def test_missing_board_file_and_unknown_board_name(tmp_path):
    with pytest.raises(BoardError, match="does not exist"):
        thurn_ai.load_board(str(tmp_path / "nope.json"))
    with pytest.raises(BoardError, match="use south, north or the path"):
        thurn_ai.load_board("east")
    with pytest.raises(BoardError, match="cannot read board file"):
        thurn_ai.load_board(str(tmp_path))


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


_MINI_PATHS = [p for p in _paths(mini()) if p]
_JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 40) | st.text(max_size=12),
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8),
                                                                                         inner, max_size=3),
                            max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(_MINI_PATHS), value=_JSON_VALUES | st.just(_DELETE))
def test_any_damaged_board_file_is_a_board_error_or_a_playable_board(path, value):
    data = mini()
    try:
        _set(list(path), value)(data)
    except (KeyError, IndexError, TypeError):
        return
    try:
        board = parse_board(data, "fuzz.json")
    except BoardError as e:
        assert str(e).startswith("board file fuzz.json: ")
        return
    try:
        rules = Rules(players=3, board=board)
    except RulesError:
        return
    g = thurn_ai.new_game(rules=rules, seed=1)
    for _ in range(300):
        if g.is_terminal():
            break
        assert g.legal_moves()
        g.apply_random()


# ------------------------------------------------------------------ rules that a board cannot support

def test_rules_refuse_boards_they_cannot_play(tmp_path):
    with pytest.raises(RulesError, match="needs horses on every card"):
        Rules(board="south", variant="horses")
    with pytest.raises(RulesError, match="could never end"):
        Rules(board=str(MINI), variant="horses")       # 8 cities: nobody can place 20 houses
    data = mini()
    data["carriages"].append({"size": 9, "points": 9})
    with pytest.raises(RulesError, match="could never end"):
        Rules(board=write(tmp_path, data))              # no route of 9 cards on 8 cities


# ------------------------------------------------------------------ the command line

def test_cli_plays_on_a_board_file():
    out = cli("play", "--board-file", str(MINI), "--quiet", "--seed", "4")
    assert out.returncode == 0, out.stderr
    assert "winner: seat" in out.stdout and "note:" not in out.stderr


def test_cli_prints_the_notice_for_a_reconstructed_board_file(tmp_path):
    data = mini()
    data["tiles"][0]["provenance"] = "reconstructed"
    out = cli("play", "--board-file", write(tmp_path, data), "--quiet")
    assert out.returncode == 0
    notes = [ln for ln in out.stderr.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1 and "1 of 7 tile-stack values" in notes[0]


def test_cli_bad_board_file_is_one_error_line_and_exit_2(tmp_path):
    data = mini()
    data["roads"].append(["Altdorf", "Atlantis"])
    out = cli("play", "--board-file", write(tmp_path, data), "--quiet")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        f"error: board file {tmp_path / 'board.json'}: road: unknown city 'Atlantis'"]
    out = cli("play", "--board-file", str(tmp_path / "missing.json"))
    assert out.returncode == 2 and "does not exist" in out.stderr and "Traceback" not in out.stderr


def test_cli_record_of_a_board_file_game_replays(tmp_path):
    rec = tmp_path / "games.jsonl"
    out = cli("play", "--board-file", str(MINI), "--quiet", "--seed", "9", "--record", str(rec))
    assert out.returncode == 0, out.stderr
    again = cli("replay", str(rec), "--board-file", str(MINI), "--quiet")
    assert again.returncode == 0, again.stderr

    def result(text):
        block = text.split("final scores:")[1]
        return block[:block.index("\n", block.index("winner:"))]

    assert result(out.stdout) == result(again.stdout)
