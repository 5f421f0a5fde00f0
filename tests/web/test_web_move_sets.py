"""POST /api/games/{id}/moves (issue 42): a person's houses or discards, picked in any order, played in the
engine's board order as one decision; all or nothing; refused from another site like every state change."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from thurn_ai.web import create_app

from tests.web.test_web_browser_game import reproduction_position

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client():
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


def at_houses(client):
    r = client.post("/api/games", json={"seats": ["human", "random", "random"], "position": reproduction_position()})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    for move in ("draw Ulm", "right Innsbruck", "left Ulm", "close"):
        assert client.post(f"/api/games/{gid}/move", json={"move": move}).status_code == 200
    return gid


def test_houses_in_any_order_are_played_in_board_order_and_undone_as_one(client):
    gid = at_houses(client)
    view = client.get(f"/api/games/{gid}").json()
    sets = view["house_choice"]["sets"]
    assert {"Augsburg", "Ulm", "Innsbruck", "Salzburg"} == set(sets[0]["cities"]) and sets[0]["kind"] == "each"
    assert any(s["kind"] == "province" and s["province"] == "Baiern" and set(s["cities"]) == {"Augsburg", "München"}
               for s in sets)
    n = len(view["log"])
    r = client.post(f"/api/games/{gid}/moves",
                    json={"moves": ["house Salzburg", "house Ulm", "house Augsburg", "house Innsbruck"]})
    assert r.status_code == 200, r.text
    log = [e["move"] for e in r.json()["view"]["log"][n:] if e["seat"] == 0]
    assert log[:4] == ["house Augsburg", "house Ulm", "house Innsbruck", "house Salzburg"]


def test_a_set_the_rules_do_not_allow_changes_nothing(client):
    gid = at_houses(client)
    before = client.get(f"/api/games/{gid}").json()
    # two Baiern cities and one elsewhere: neither one house a province nor one province only
    r = client.post(f"/api/games/{gid}/moves", json={"moves": ["house Ulm", "house München", "house Augsburg"]})
    assert r.status_code in (400, 409) and "error" in r.json()
    after = client.get(f"/api/games/{gid}").json()
    assert after["log"] == before["log"] and after["position"] == before["position"]
    for bad in ({"moves": "house Ulm"}, {"moves": ["draw deck"]}, {"moves": [1]}, {}):
        r = client.post(f"/api/games/{gid}/moves", json=bad)
        assert 400 <= r.status_code < 500 and "error" in r.json(), (bad, r.text)
    assert client.get(f"/api/games/{gid}").json()["log"] == before["log"]


def test_a_set_from_another_site_is_refused(client):
    gid = at_houses(client)
    r = client.post(f"/api/games/{gid}/moves", json={"moves": ["house Ulm"]},
                    headers={"origin": "https://elsewhere.example", "sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    assert client.get(f"/api/games/{gid}").json()["phase"] == "houses"


def test_one_undo_takes_the_houses_back_while_the_turn_goes_on(client):
    d = reproduction_position()
    d["players"][0]["hand"] = ["Passau", "Innsbruck", "Lodz", "Basel", "Zürich", "Kempten"]
    d["deck_size"] -= 4
    r = client.post("/api/games", json={"seats": ["human", "random", "random"], "position": d})
    gid = r.json()["id"]
    for move in ("draw Ulm", "right Innsbruck", "left Ulm", "close"):
        assert client.post(f"/api/games/{gid}/move", json={"move": move}).status_code == 200
    before = client.get(f"/api/games/{gid}").json()
    r = client.post(f"/api/games/{gid}/moves", json={"moves": ["house Innsbruck", "house Augsburg"]})
    assert r.status_code == 200 and r.json()["view"]["phase"] == "discard"      # 5 cards: the discards come next
    r = client.post(f"/api/games/{gid}/undo", json={})
    assert r.status_code == 200
    back = r.json()["view"]
    assert back["phase"] == "houses" and back["log"] == before["log"] and back["position"] == before["position"]
    # discards in any order, likewise in board order
    client.post(f"/api/games/{gid}/moves", json={"moves": []})                     # no house
    r = client.post(f"/api/games/{gid}/moves", json={"moves": ["discard Zürich", "discard Kempten"]})
    assert r.status_code == 200, r.text
    mine = [e["move"] for e in r.json()["view"]["log"] if e["kind"] == "discard"]
    assert mine == ["discard Kempten", "discard Zürich"]
