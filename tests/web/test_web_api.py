"""The web server's logic (thurn_ai/web), through its HTTP API with Starlette's TestClient: games, moves,
bots, hints, replays, the position editor's checks, and bad input (always a 4xx JSON answer).

The page itself is tested in a real browser in tests/web/test_web_browser.py.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # Starlette's note about httpx's successor
    from starlette.testclient import TestClient

from thurn_ai.bots.spec import BotSpec
import thurn_ai
from thurn_ai.play.analysis import analyse
from thurn_ai.bots import make_bot
from thurn_ai.render.board import board_layout
from thurn_ai.play.match import GameRecord, derive_seed, play_game, replay
from thurn_ai.position import FIELDS, SEAT_PARTS, ProblemKind as K, check_position, describe, position_from_dict
from thurn_ai.web import create_app
from thurn_ai.web.board_data import board_geometry, province_codes
from thurn_ai.web.server import allowed_hosts_for, bind, is_loopback

from tests.helpers import free_turn_start

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client():
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


def new_game(client, seats="human,random", seed=3, **kw):
    r = client.post("/api/games", json={"seats": seats, "seed": seed, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def wait_hint(client, job, timeout=60.0):
    deadline = time.monotonic() + timeout
    while job["status"] == "running":
        assert time.monotonic() < deadline, "the hint search did not finish"
        time.sleep(0.05)
        r = client.get(f"/api/hints/{job['id']}")
        assert r.status_code == 200
        job = r.json()
    return job


def assert_clean_error(r, status):
    """A 4xx answer: JSON with one message, no traceback."""
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert isinstance(body["error"], str) and body["error"]
    assert "Traceback" not in r.text and 'File "' not in r.text
    return body["error"]


# ---------------------------------------------------------------- the page and the board

def test_the_page_and_every_file_it_loads_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    refs = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
    scripts = {p.name for p in (ROOT / "src/thurn_ai/web/static").glob("*.js")}
    assert "/static/app.js" in refs and "/static/style.css" in refs
    for ref in refs:
        assert client.get(ref).status_code == 200, ref
    # every module the scripts import is served too (no build step, no CDN: only local files)
    for name in scripts:
        text = client.get(f"/static/{name}").text
        for dep in re.findall(r'from "\./([\w.]+)"|import\("\./([\w.]+)"\)', text):
            dep = dep[0] or dep[1]
            assert dep in scripts, f"{name} imports {dep}, which is not in static/"
        assert "http://" not in text.replace('"http://www.w3.org/2000/svg"', "") and "https://" not in text


@pytest.mark.parametrize("name", ["south", "north"])
def test_the_board_comes_from_the_board_and_layout_files(client, name):
    r = client.get(f"/api/board/{name}")
    assert r.status_code == 200
    geo = r.json()
    rules = thurn_ai.Rules(board=name)
    b = rules.load_board()
    assert [c["name"] for c in geo["cities"]] == list(b.cities)
    assert len(geo["roads"]) == len(b.roads)
    assert len({p["code"] for p in geo["provinces"]}) == len(b.provinces)   # codes tell provinces apart
    # the same layout as the --png drawing: east is right, north is up, distances to scale
    layout = board_layout(b)
    xs = {c["name"]: c["x"] for c in geo["cities"]}
    ys = {c["name"]: c["y"] for c in geo["cities"]}
    names = list(b.cities)
    for i, a in enumerate(names):
        for j, c in enumerate(names):
            if layout[i][0] < layout[j][0] - 1e-9:
                assert xs[a] < xs[c]
            if layout[i][1] < layout[j][1] - 1e-9:
                assert ys[a] > ys[c]
    # one scale for every distance: x grows with the layout's x, y with its y, by the same factor
    lx = [layout[k][0] for k in range(len(names))]
    scale = (max(xs.values()) - min(xs.values())) / (max(lx) - min(lx))
    for k, c in enumerate(names):
        assert xs[c] - xs[names[0]] == pytest.approx(scale * (layout[k][0] - layout[0][0]), abs=0.5)
        assert ys[names[0]] - ys[c] == pytest.approx(scale * (layout[k][1] - layout[0][1]), abs=0.5)
    for c in geo["cities"]:
        assert 0 <= c["x"] <= geo["width"] and 0 <= c["y"] <= geo["height"]


def test_province_codes_are_unique_even_for_names_alike():
    south = thurn_ai.Rules().load_board()
    codes = province_codes(south)
    assert len(set(codes)) == len(codes) and all(south.provinces[k].startswith(c[:3]) for k, c in enumerate(codes))
    from dataclasses import replace
    alike = replace(south, provinces=("Baden", "Baden-Baden", "Badenia") + south.provinces[3:])
    codes = province_codes(alike)
    assert len(set(codes)) == len(codes)


def test_an_unknown_board_is_a_404_or_400_with_a_message(client):
    assert "unknown board" in assert_clean_error(client.get("/api/board/moon"), 400)
    assert board_geometry("south")["name"] == "south"


# ---------------------------------------------------------------- playing

def test_a_new_game_offers_exactly_the_legal_moves_in_notation_and_hides_the_other_hands(client):
    g = new_game(client, "human,random", seed=3)
    ref = thurn_ai.new_game(players=2, seed=3)
    assert [m["move"] for m in g["legal"]] == [ref.move_str(m) for m in ref.legal_moves()]
    assert g["viewer"] == 0 and g["waiting_for"] == "person"
    p0, p1 = g["position"]["players"]
    assert "hand" in p0 and "hand" not in p1 and "hand_size" in p1
    assert "deck" not in g["position"] and "rng" not in g["position"]
    assert g["position"] == ref.to_dict(viewer=0)
    draws = [m for m in g["legal"] if m["kind"] == "draw"]
    assert {m["city"] for m in draws} == set(ref.display())


def test_moves_bots_and_whose_turn_it_is(client):
    g = new_game(client, "human,random", seed=5)
    gid = g["id"]
    # a bot step on the person's turn is refused
    assert "person" in assert_clean_error(client.post(f"/api/games/{gid}/step"), 409)
    ref = thurn_ai.new_game(players=2, seed=5)
    while ref.current_player == 0:
        move = ref.move_str(ref.legal_moves()[-1])
        r = client.post(f"/api/games/{gid}/move", json={"move": move})
        assert r.status_code == 200, r.text
        assert r.json()["moved"]["move"] == move and r.json()["moved"]["seat"] == 0
        ref.apply(move)
    view = r.json()["view"]
    assert view["waiting_for"] == "bot" and view["legal"] == []
    # now a person's move is refused, and the bot moves
    assert "not a person" in assert_clean_error(client.post(f"/api/games/{gid}/move", json={"move": "draw deck"}), 409)
    r = client.post(f"/api/games/{gid}/step")
    assert r.status_code == 200
    moved = r.json()["moved"]
    assert moved["seat"] == 1 and moved["by"] == "random"
    assert r.json()["view"]["log"][-1] == moved


def test_an_illegal_move_is_a_400_with_the_reason_and_the_game_is_unchanged(client):
    g = new_game(client, "human,random", seed=3)
    gid = g["id"]
    not_shown = next(c for c in thurn_ai.Rules().load_board().cities if c not in g["position"]["display"])
    err = assert_clean_error(client.post(f"/api/games/{gid}/move", json={"move": f"draw {not_shown}"}), 400)
    assert "not in the display" in err and "possible now" in err
    move = f"/api/games/{gid}/move"
    assert "cannot read move" in assert_clean_error(client.post(move, json={"move": "fly to Ulm"}), 400)
    assert "unknown city" in assert_clean_error(client.post(move, json={"move": "draw Atlantis"}), 400)
    assert_clean_error(client.post(f"/api/games/{gid}/move", json={"move": 12}), 400)
    assert_clean_error(client.post(f"/api/games/{gid}/move", json={}), 400)
    assert client.get(f"/api/games/{gid}").json() == g


def test_a_game_of_bots_played_through_the_server_is_the_game_thurn_ai_play_plays(client):
    seats = ["greedy", "heuristic"]
    g = new_game(client, seats, seed=11)
    assert g["viewer"] is None and g["waiting_for"] == "bot"    # nobody plays in person: all is shown
    while g["waiting_for"] == "bot":
        r = client.post(f"/api/games/{g['id']}/step")
        assert r.status_code == 200, r.text
        g = r.json()["view"]
    assert g["over"] and g["waiting_for"] == "nobody"
    assert_clean_error(client.post(f"/api/games/{g['id']}/step"), 409)
    expected = play_game(thurn_ai.Rules(players=2),
                         [make_bot(s, derive_seed("bot", 11, i)) for i, s in enumerate(seats)], 11)
    assert [e["move"] for e in g["log"]] == expected.moves
    assert g["scores"] == expected.scores and g["winner"] == expected.winner
    closes = [e["close"] for e in g["log"] if "close" in e]
    assert closes == [c.to_dict() for c in expected.closes]
    # the record it gives replays with the library to the same end
    r = client.get(f"/api/games/{g['id']}/record")
    assert r.status_code == 200
    rec = GameRecord.from_json(r.text.strip())
    assert rec.moves == expected.moves and replay(rec).scores() == expected.scores and rec.scores == expected.scores


def test_a_game_can_start_from_a_position(client):
    ref = thurn_ai.new_game(players=2, seed=9)
    for _ in range(12):
        ref.apply(ref.legal_moves()[0])
    view = ref.to_dict(viewer=ref.current_player)
    seats = ["random", "random"]
    seats[ref.current_player] = "human"
    g = new_game(client, seats, seed=1, position=view)
    assert g["from_position"] and g["viewer"] == ref.current_player
    assert g["position"] == view
    assert [m["move"] for m in g["legal"]] == [ref.move_str(m) for m in ref.legal_moves()]
    assert "position" in assert_clean_error(client.get(f"/api/games/{g['id']}/record"), 409)
    # the view's seat must be the person: the other hands were dealt at random
    other = ["human", "human"]
    other[ref.current_player] = "random"
    assert "must be played by 'human'" in assert_clean_error(
        client.post("/api/games", json={"seats": other, "position": view}), 400)
    # the page can take the position of a game to the set-up view
    assert client.get(f"/api/games/{g['id']}/position").json() == view


# ---------------------------------------------------------------- hints

def test_a_hint_ranks_the_options_as_thurn_ai_hint_does_from_the_players_view_only(client):
    g = new_game(client, "human,random", seed=4)
    gid = g["id"]
    ref = thurn_ai.new_game(players=2, seed=4)
    for move in ("draw deck",):
        client.post(f"/api/games/{gid}/move", json={"move": move})
        ref.apply(move)
    r = client.post(f"/api/games/{gid}/hint", json={"iterations": 300})
    assert r.status_code == 202
    job = wait_hint(client, r.json())
    assert job["status"] == "done" and job["progress"] == 1.0
    res = job["result"]
    visits = [o["visits"] for o in res["options"]]
    assert visits == sorted(visits, reverse=True) and sum(visits) == res["iterations"]
    assert sum(o["share"] for o in res["options"]) == pytest.approx(1.0)
    assert all(0.0 <= o["win_prob"] <= 1.0 for o in res["options"])
    legal = {ref.move_str(m) for m in ref.legal_moves()}
    assert {o["move"] for o in res["options"]} <= legal
    assert res["recommended_turn"]["moves"][0] == res["best"]["move"] == res["options"][0]["move"]
    assert len(res["recommended_turn"]["cities"]) == len(res["recommended_turn"]["moves"])
    # the same as the library's analysis of the seat's view (what `thurn-ai hint` prints): the search
    # never saw the opponent's hidden cards
    seen_by_seat = position_from_dict(ref.to_dict(viewer=0), seed=123)
    expected = analyse(seen_by_seat, iterations=300, seed=0).to_dict()
    assert [o["move"] for o in res["options"]] == [o["move"] for o in expected["options"]]
    assert [o["visits"] for o in res["options"]] == [o["visits"] for o in expected["options"]]


def test_a_hint_reports_progress_and_only_on_the_persons_turn(client):
    g = new_game(client, "human,random", seed=4)
    gid = g["id"]
    r = client.post(f"/api/games/{gid}/hint", json={"seconds": 0.6})
    job = r.json()
    assert r.status_code == 202 and job["status"] == "running" and 0.0 <= job["progress"] < 1.0
    done = wait_hint(client, job)
    assert done["status"] == "done" and done["elapsed"] >= 0.5
    # not on a bot's turn
    client.post(f"/api/games/{gid}/move", json={"move": "draw deck"})
    client.post(f"/api/games/{gid}/move", json={"move": "draw deck"})
    view = client.get(f"/api/games/{gid}").json()
    while view["waiting_for"] == "person":
        view = client.post(f"/api/games/{gid}/move", json={"move": view["legal"][0]["move"]}).json()["view"]
    assert "own turn" in assert_clean_error(client.post(f"/api/games/{gid}/hint", json={"iterations": 50}), 409)


@pytest.mark.parametrize("budget, words", [
    ({"seconds": -1}, "seconds must be"), ({"seconds": 1e9}, "seconds must be"), ({"seconds": "x"}, "seconds must be"),
    ({"iterations": 0}, "iterations must be"), ({"iterations": 1.5}, "iterations must be"),
    ({"iterations": 10, "seconds": 1}, "not both"), ({"bot": "random", "iterations": 10}, "cannot analyse"),
    ({"bot": "nonsense((", "iterations": 10}, "bot spec"),
])
def test_bad_hint_budgets_are_400(client, budget, words):
    g = new_game(client, "human,random", seed=4)
    assert words in assert_clean_error(client.post(f"/api/games/{g['id']}/hint", json=budget), 400)


def test_too_many_searches_at_once_are_refused_with_429():
    with TestClient(create_app(max_searches=1), raise_server_exceptions=False) as c:
        g = new_game(c, "human,random", seed=4)
        first = c.post(f"/api/games/{g['id']}/hint", json={"seconds": 1.0})
        assert first.status_code == 202
        assert "wait" in assert_clean_error(c.post(f"/api/games/{g['id']}/hint", json={"seconds": 1.0}), 429)
        wait_hint(c, first.json())
        assert c.post(f"/api/games/{g['id']}/hint", json={"iterations": 20}).status_code == 202


def test_which_official_rates_each_open_choice_as_the_library_does_sharing_the_budget(client):
    from thurn_ai.play.turn_options import which_official
    ref = free_turn_start()
    me = ref.current_player
    view = ref.to_dict(viewer=me)
    seats = ["random", "random"]
    seats[me] = "human"
    g = new_game(client, seats, seed=1, position=view)
    r = client.post(f"/api/games/{g['id']}/hint", json={"iterations": 1200, "question": "which_official"})
    assert r.status_code == 202 and r.json()["question"] == "which_official"
    job = wait_hint(client, r.json())
    assert job["status"] == "done" and job["progress"] == 1.0
    res = job["result"]
    n = len(res["choices"])
    # the page's budget is the whole question's: each of the 2 searches a choice gets its share
    assert res["each_search"]["iterations"] == -(-1200 // (2 * n))
    expected = which_official(position_from_dict(view, seed=5), bot=BotSpec.parse("mcts"),
                              iterations=res["each_search"]["iterations"], seed=0)
    assert [c["option"] for c in res["choices"]] == [c.option for c in expected]
    assert [c["move"] for c in res["choices"]] == [c.move for c in expected]
    assert [c["win_prob"] for c in res["choices"]] == pytest.approx([c.win_prob for c in expected], nan_ok=True)
    assert "none" in [c["option"] for c in res["choices"]]
    assert res["recommended_turn"]["moves"] == res["choices"][0]["recommended_turn"]["moves"]
    assert len(res["recommended_turn"]["cities"]) == len(res["recommended_turn"]["moves"])
    # an ordinary hint still answers the moves question
    plain = wait_hint(client, client.post(f"/api/games/{g['id']}/hint", json={"iterations": 50}).json())
    assert plain["result"]["question"] == "moves" and "options" in plain["result"]


def test_a_value_the_re_rating_never_reached_is_null_in_the_json():
    # the re-rating may never try the first search's move: nan, which JSON (and so the page) cannot carry
    import math
    from thurn_ai.play.turn_options import which_official
    from thurn_ai.web.hints import Budget, official_choices_result
    g = free_turn_start()
    choices = which_official(g, bot=BotSpec.parse("mcts(iterations=30)"), seed=1)
    lost = choices[0].__class__(**{**choices[0].__dict__, "win_prob": math.nan, "mean_score": math.nan})
    res = official_choices_result(g, [lost, *choices[1:]], Budget(iterations=30))
    text = json.dumps(res, allow_nan=False)                    # as the server's JSONResponse writes it
    assert json.loads(text)["choices"][0]["win_prob"] is None


def test_which_official_is_refused_with_its_reason_when_there_is_no_choice(client):
    g = new_game(client, "human,random", seed=4)            # the first turn: an empty hand forces the Postmaster
    ask = {"iterations": 40, "question": "which_official"}
    assert "forces the Postmaster" in assert_clean_error(client.post(f"/api/games/{g['id']}/hint", json=ask), 400)
    assert "question must be" in assert_clean_error(
        client.post(f"/api/games/{g['id']}/hint", json={"iterations": 40, "question": "../etc/passwd"}), 400)


# ---------------------------------------------------------------- replays

def record_lines(n=2):
    recs = []
    for k in range(n):
        bots = [make_bot("greedy", k), make_bot("random", k + 1)]
        recs.append(play_game(thurn_ai.Rules(players=2), bots, seed=20 + k))
    return recs, "".join(r.to_json() + "\n" for r in recs)


def test_a_record_opens_and_every_move_shows_the_position_after_it(client):
    recs, text = record_lines(2)
    r = client.post("/api/replays", json={"text": text, "game": 2, "name": "records.jsonl"})
    assert r.status_code == 201, r.text
    s = r.json()
    rec = recs[1]
    assert s["n_moves"] == len(rec.moves) and s["games"] == 2 and s["bots"] == rec.bots
    assert [e["move"] for e in s["log"]] == rec.moves
    state = thurn_ai.new_game(rules=rec.rules, seed=rec.seed)
    for at in range(len(rec.moves) + 1):
        if at in (0, 1, 7, len(rec.moves)):
            v = client.get(f"/api/replays/{s['id']}/view?at={at}").json()
            assert v["position"] == state.to_dict() and v["at"] == at
            assert v["next_move"] == (s["log"][at] if at < len(rec.moves) else None)
        if at < len(rec.moves):
            state.apply(rec.moves[at])
    last = client.get(f"/api/replays/{s['id']}/view?at={len(rec.moves)}").json()
    assert last["over"] and last["scores"] == rec.scores
    seen = client.get(f"/api/replays/{s['id']}/view?at=5&viewer=1").json()
    assert "hand" not in seen["position"]["players"][0] and "hand" in seen["position"]["players"][1]
    assert_clean_error(client.get(f"/api/replays/{s['id']}/view?at={len(rec.moves) + 1}"), 400)
    assert_clean_error(client.get(f"/api/replays/{s['id']}/view?at=x"), 400)
    assert_clean_error(client.get(f"/api/replays/{s['id']}/view?at=3&viewer=5"), 400)


def test_a_hint_at_any_move_of_a_replay(client):
    recs, text = record_lines(1)
    s = client.post("/api/replays", json={"text": text}).json()
    state = thurn_ai.new_game(rules=recs[0].rules, seed=recs[0].seed)
    for m in recs[0].moves[:9]:
        state.apply(m)
    job = wait_hint(client, client.post(f"/api/replays/{s['id']}/hint", json={"at": 9, "iterations": 200}).json())
    assert job["status"] == "done" and job["player"] == state.current_player
    expected = analyse(state, iterations=200, seed=0).to_dict()
    assert [o["move"] for o in job["result"]["options"]] == [o["move"] for o in expected["options"]]
    end = len(recs[0].moves)
    assert "game is over" in assert_clean_error(
        client.post(f"/api/replays/{s['id']}/hint", json={"at": end, "iterations": 10}), 400)


def test_which_official_at_a_move_of_a_replay(client):
    from thurn_ai.play.turn_options import open_choices, which_official
    recs, text = record_lines(1)
    s = client.post("/api/replays", json={"text": text}).json()
    state = thurn_ai.new_game(rules=recs[0].rules, seed=recs[0].seed)
    at = 0
    for m in recs[0].moves:                    # the first turn start with a free choice of official
        t = state.turn_state()
        if at >= 6 and t.phase == 0 and t.draws == 0 and not t.forced_pm and not t.official:
            break
        state.apply(m)
        at += 1
    ask = {"at": at, "iterations": 200, "question": "which_official"}
    job = wait_hint(client, client.post(f"/api/replays/{s['id']}/hint", json=ask).json())
    assert job["status"] == "done" and job["question"] == "which_official"
    each = job["result"]["each_search"]["iterations"]
    assert each == -(-200 // (2 * len(open_choices(state))))
    expected = which_official(state, iterations=each, seed=0)
    assert [c["option"] for c in job["result"]["choices"]] == [c.option for c in expected]
    # one move into the turn the official may be used already, or still open: the answer says which
    state.apply(recs[0].moves[at])
    r = client.post(f"/api/replays/{s['id']}/hint", json={**ask, "at": at + 1})
    if state.turn_state().official:
        assert "already used this turn" in assert_clean_error(r, 400)
    else:
        assert r.status_code == 202
        wait_hint(client, r.json())


@pytest.mark.parametrize("text, game, words", [
    ("{broken", 1, "not valid JSON"),
    ('{"seed": 1}', 1, "missing field"),
    ("", 1, "holds no game record"),
    ("\n\n", 1, "holds no game record"),
    (None, 1, "is text"),
    ('{"seed": 1, "rules": {"players": 2}, "bots": ["a", "b"], "moves": ["draw Atlantis"]}', 1, "does not replay"),
    ('{"seed": 1, "rules": {"players": 2}, "bots": ["a", "b"], "moves": ["close"]}', 1, "does not replay"),
    ('{"seed": 1, "rules": {"players": 2, "board": "/etc/passwd"}, "bots": ["a", "b"], "moves": []}', 1, "board"),
    ('{"seed": 1, "rules": {"players": 2}, "bots": ["a", "b"], "moves": []}', 2, "out of range"),
    ('{"seed": 1, "rules": {"players": 2}, "bots": ["a", "b"], "moves": []}', "1", "game must be a whole number"),
])
def test_a_broken_record_is_a_400_naming_the_problem(client, text, game, words):
    r = client.post("/api/replays", json={"text": text, "game": game})
    err = assert_clean_error(r, 400)
    assert words in err
    assert client.get("/api/startup").status_code == 200      # the server goes on


# ---------------------------------------------------------------- setting up positions

HAND_WRITTEN = {
    "rules": {"players": 2, "board": "south"}, "phase": "play", "to_move": 0,
    "display": ["Ulm", "Basel", "Zürich", "Linz", "Pilsen", "Lodz"],
    "players": [{"hand": ["München", "Augsburg", "Kempten"], "route": ["Ingolstadt", "Regensburg"],
                 "houses": ["Carlsruhe", "Freiburg", "Mannheim"], "tiles": {"baden": [3]}},
                {"hand": ["Stuttgart", "Muenchen"], "carriage": 4}],
}


def check(client, position):
    r = client.post("/api/positions/check", json={"position": position})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_valid_position_exports_text_that_validates_and_reads_back_the_same(client):
    res = check(client, HAND_WRITTEN)
    assert res["ok"] and res["problems"] == []
    exported = json.loads(res["text"])
    assert check_position(exported) == []
    state = position_from_dict(exported, seed=5)
    assert res["view"]["summary"] == describe(state, None)
    again = client.post("/api/positions/check", json={"text": res["text"]}).json()
    assert again["ok"] and json.loads(again["text"]) == exported and again["input"] == exported


def test_a_view_round_trips_unchanged(client):
    ref = thurn_ai.new_game(players=3, seed=2)
    for _ in range(30):
        ref.apply(ref.legal_moves()[-1])
    view = ref.to_dict(viewer=1)
    res = check(client, view)
    assert res["ok"] and res["position"] == view and json.loads(res["text"]) == view
    assert res["view"]["viewer"] == 1


@pytest.mark.parametrize("change, kind, field, words", [
    (lambda d: d.update(display=["Ulm"]), K.DISPLAY_NOT_REFILLED, "display", "display holds 1 cards"),
    (lambda d: d["players"][0].update(route=["Ulm", "Lodz"]), K.ROUTE_NOT_JOINED, "seat0.route", "not joined"),
    (lambda d: d["players"][0].update(hand=["Atlantis"]), K.UNKNOWN_CITY, "seat0.hand", "unknown city"),
    (lambda d: d["players"][1].update(known=["Ulm"]), K.KNOWN_NOT_IN_HAND, "seat1.known", "not in the hand"),
    (lambda d: d["players"][0].update(houses=["Ulm", "Ulm"]), K.HOUSE_TWICE, "seat0.houses", "listed 2 times"),
    (lambda d: d["players"][1].update(carriage=9), K.NO_SUCH_CARRIAGE, "seat1.carriage", "not on the board"),
    (lambda d: d["players"][1].update(tiles={"baiern": [5]}), K.TILE_WITHOUT_HOUSES, "seat1.tiles", "without a house"),
    (lambda d: d.update(phase="houses"), K.CLOSE_IMPOSSIBLE, "turn", "a route needs 3"),
    (lambda d: d.update(display=["Ulm"] * 4 + ["Basel", "Lodz"]), K.TOO_MANY_CARDS, "cards", "4 cards in play"),
    (lambda d: d.update(tile_stacks={"route5": [9]}), K.STACK_REMAINDER, "tiles", "not what can remain"),
    (lambda d: d.update(rules={"players": 5}), K.BAD_RULES, "rules", "players must be"),
    (lambda d: d.update(colour="red"), K.UNKNOWN_FIELD, "position", "unknown field"),
])
def test_problems_come_named_with_the_field_they_are_about_as_validate_reports_them(client, change, kind, field,
                                                                                     words):
    d = json.loads(json.dumps(HAND_WRITTEN))
    change(d)
    res = check(client, d)
    assert not res["ok"]
    # the same checker as validate, each problem as its kind, field and message
    assert res["problems"] == [p.to_json() for p in check_position(d)]
    assert any(p["kind"] == kind.value and p["field"] == field and words in p["message"]
               for p in res["problems"]), res["problems"]


def test_a_game_from_an_impossible_position_is_a_400_naming_each_problem(client):
    d = json.loads(json.dumps(HAND_WRITTEN))
    d["players"][1]["route"] = ["Ulm", "Lodz"]
    d["colour"] = "red"
    r = client.post("/api/games", json={"seats": "human,random", "position": d})
    assert_clean_error(r, 400)
    assert r.json()["problems"] == [p.to_json() for p in check_position(d)]
    assert [p["kind"] for p in r.json()["problems"]] == ["unknown_field", "route_not_joined"]


def test_the_page_has_a_place_for_every_field_a_problem_names():
    """The page shows a problem next to the element whose data-problems-for is the problem's field (any
    other field: in the general list, "position"): every field the checker uses has its place."""
    static = ROOT / "src" / "thurn_ai" / "web" / "static"
    page = set(re.findall(r'data-problems-for="([^"]+)"', (static / "index.html").read_text(encoding="utf-8")))
    seat = set(re.findall(r"problemsBox\(`\$\{f\}\.(\w+)`\)", (static / "setup.js").read_text(encoding="utf-8")))
    assert set(FIELDS) <= page
    # a seat's counters are typed in no field of the page: their problems go to the general list
    assert seat == set(SEAT_PARTS) - {"official_uses", "closes"}
    assert "boxes[p.field] || boxes.position" in (static / "setup.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("body, words", [
    ({"text": "{not json"}, "not valid JSON"),
    ({"text": "[1, 2]"}, "JSON object"),
    ({"text": 5}, "JSON text"),
    ({}, "give"),
])
def test_a_position_that_cannot_be_read_is_a_400(client, body, words):
    assert words in assert_clean_error(client.post("/api/positions/check", json=body), 400)


def test_a_position_of_the_wrong_shape_is_reported_not_crashed_on(client):
    for bad in ([1, 2], "text", {"players": "x"}, {"players": [{"hand": {"Ulm": "many"}}] * 2}):
        res = check(client, bad)
        assert not res["ok"] and res["problems"]


# ---------------------------------------------------------------- bad requests

JSON = {"content-type": "application/json"}


def test_bad_requests_get_one_json_message_and_the_server_goes_on(client):
    cases = [
        (client.post("/api/games", content=b"{bad", headers=JSON), 400),
        (client.post("/api/games", content=b"[1]", headers=JSON), 400),
        (client.post("/api/games", content=b"\xff\xfe", headers=JSON), 400),
        (client.post("/api/games", json={"seats": ["human"]}), 400),
        (client.post("/api/games", json={"seats": "human,robot"}), 400),
        (client.post("/api/games", json={"seats": 7}), 400),
        (client.post("/api/games", json={"seats": "human,random", "board": "moon"}), 400),
        (client.post("/api/games", json={"seats": "human,random", "seed": -1}), 400),
        (client.post("/api/games", json={"seats": "human,random", "position": []}), 400),
        (client.post("/api/games", content=b"[" * 100000, headers=JSON), 400),
        (client.get("/api/games/nope"), 404),
        (client.post("/api/games/nope/move", json={"move": "close"}), 404),
        (client.get("/api/replays/nope"), 404),
        (client.get("/api/hints/nope"), 404),
        (client.get("/api/nothing/here"), 404),
        (client.get("/api/games"), 405),
        (client.post("/api/games", content=b"x" * 10, headers={**JSON, "content-length": str(2 ** 40)}), 413),
    ]
    for r, status in cases:
        assert_clean_error(r, status)
    assert client.get("/api/startup").status_code == 200
    assert new_game(client)["waiting_for"] == "person"


def test_an_unexpected_failure_is_a_500_json_message_without_a_traceback(client, monkeypatch):
    from thurn_ai.web import sessions

    def broken(*a, **k):
        raise KeyError("a bug")
    monkeypatch.setattr(sessions.GameSession, "view", broken)
    r = client.post("/api/games", json={"seats": "human,random"})
    assert r.status_code == 500 and "internal error" in r.json()["error"] and "Traceback" not in r.text


def test_a_server_bound_to_loopback_answers_only_loopback_host_names():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7") and not is_loopback("example.org")
    assert allowed_hosts_for("0.0.0.0") is None
    app = create_app(allowed_hosts=allowed_hosts_for("127.0.0.1"))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get("/api/startup").status_code == 200
        assert c.get("/api/startup", headers={"host": "attacker.example"}).status_code == 400


def test_a_startup_record_and_position_are_offered_to_the_page():
    recs, text = record_lines(1)
    app = create_app(record_text=text, record_source="game.jsonl", position=HAND_WRITTEN, hint_seconds=1.5)
    with TestClient(app) as c:
        s = c.get("/api/startup").json()
    assert s["replay"]["n_moves"] == len(recs[0].moves) and s["replay"]["source"] == "game.jsonl"
    assert s["position"] == HAND_WRITTEN and s["hint_seconds"] == 1.5
    assert "human" in s["bots"] and "mcts" in s["bots"]


# ---------------------------------------------------------------- the command

def run_cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "thurn_ai.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_serve_listens_on_loopback_on_a_free_port_and_prints_it(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "thurn_ai.cli", "serve"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line + proc.stderr.read()
        port = int(m.group(1))
        import urllib.request
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/startup", timeout=5) as r:
                    assert json.load(r)["boards"] == ["south", "north"]
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        # the port is taken now: a second server on it says so in one line
        busy = run_cli("serve", "--port", str(port))
        assert busy.returncode == 2 and busy.stderr.startswith("error: cannot listen on 127.0.0.1")
        assert "Traceback" not in busy.stderr
    finally:
        proc.terminate()
        proc.wait(10)


def test_serve_refuses_a_broken_record_or_position_before_starting(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seed": 1, "rules": {"players": 2}, "bots": ["a", "b"], "moves": ["close"]}\n')
    r = run_cli("serve", "--record", str(bad))
    assert r.returncode == 2 and "does not replay" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("serve", "--record", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 2 and "cannot read record file" in r.stderr
    pos = tmp_path / "p.json"
    pos.write_text("[1,")
    r = run_cli("serve", "--position", str(pos))
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    r = run_cli("serve", "--port", "70000")
    assert r.returncode == 2 and "70000" in r.stderr


def test_bind_says_why_it_cannot_listen():
    sock = bind("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        with pytest.raises(thurn_ai.ThurnError, match="cannot listen"):
            bind("127.0.0.1", port)
    finally:
        sock.close()
    with pytest.raises(thurn_ai.ThurnError, match="cannot listen"):
        bind("no-such-host.invalid", 0)
