"""The board's "Review this game" through the server's API (Starlette's TestClient): a replay's record is
reviewed in the background, its progress polled, the same review as the library's; one review at a time,
bounded budgets, cancellable, and a review cannot be started from another site's page. The page itself:
tests/web/test_web_browser_review.py."""
from __future__ import annotations

import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # Starlette's note about httpx's successor
    from starlette.testclient import TestClient

from thurn_ai.bots import make_bot
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import play_game
from thurn_ai.play.review import review
from thurn_ai.web import create_app
from thurn_ai.web import reviews as W

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
BUDGET = 100


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("THURN_AI_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def client():
    with TestClient(create_app(replay_process=False), raise_server_exceptions=False) as c:
        yield c
        c.app.state.web.reviews.cancel_all()
        c.app.state.web.reviews.wait_all()


def open_replay(client, players=2, seed=8, board="south"):
    rec = play_game(Rules(players=players, board=board), [make_bot("heuristic", i) for i in range(players)], seed=seed)
    r = client.post("/api/replays", json={"text": rec.to_json()})
    assert r.status_code == 201, r.text
    return rec, r.json()


def wait(client, job, timeout=120.0):
    deadline = time.monotonic() + timeout
    while job["status"] == "running":
        assert time.monotonic() < deadline, "the review did not finish"
        time.sleep(0.05)
        r = client.get(f"/api/reviews/{job['id']}")
        assert r.status_code == 200
        job = r.json()
    return job


@pytest.mark.parametrize("board", ["south", "north"])
def test_a_replay_is_reviewed_in_the_background_as_the_library_reviews_it(client, board):
    rec, replay = open_replay(client, board=board)
    r = client.post(f"/api/replays/{replay['id']}/review", json={"budget": BUDGET})
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["status"] == "running" and job["replay"] == replay["id"]
    again = client.post(f"/api/replays/{replay['id']}/review", json={"budget": BUDGET}).json()
    assert again["id"] == job["id"] or again["status"] == "done"       # the running review, not a second one
    job = wait(client, job)
    assert job["status"] == "done", job
    assert job["done"] == job["total"] == len(job["result"]["decisions"]) > 0
    # each decision is reviewed on its own (seeded by its number): the first ones, as the library reviews them
    first = review(rec, budget=BUDGET, moves=range(0, 20)).to_dict()["decisions"]
    assert first and job["result"]["decisions"][:len(first)] == first
    cached = review(rec, budget=BUDGET, cache_dir=W.default_cache_dir())
    assert job["result"]["summaries"] == cached.to_dict()["summaries"]
    # "learn from your mistakes": each mistake or blunder with the legal moves of its position
    learn = job["result"]["learn"]
    wrong = [d for d in job["result"]["decisions"] if d["label"] in ("mistake", "blunder")]
    assert [x["index"] for x in learn] == [d["index"] for d in wrong]
    for x, d in zip(learn, wrong):
        moves = [c["move"] for c in x["choices"]]
        assert x["seat"] == d["seat"] and d["played"] in moves and d["best"] in moves and len(moves) == d["options"]


def test_one_review_at_a_time_cancellable_and_bounded(client):
    _, first = open_replay(client, seed=8)
    _, second = open_replay(client, seed=9)
    job = client.post(f"/api/replays/{first['id']}/review", json={"budget": 3000}).json()
    r = client.post(f"/api/replays/{second['id']}/review", json={"budget": BUDGET})
    assert r.status_code == 429 and "another game is being reviewed" in r.json()["error"]
    r = client.post(f"/api/reviews/{job['id']}/cancel", json={})
    assert r.status_code == 200
    job = wait(client, r.json(), timeout=20)
    assert job["status"] == "cancelled" and job["result"] is None
    for budget in (0, W.MAX_BUDGET + 1, "many", 2.5):
        r = client.post(f"/api/replays/{second['id']}/review", json={"budget": budget})
        assert r.status_code == 400 and "budget" in r.json()["error"]
    assert client.get("/api/reviews/nope").status_code == 404
    assert client.post("/api/replays/nope/review", json={}).status_code == 404


def test_an_abandoned_review_is_called_off(client, monkeypatch):
    monkeypatch.setattr(W, "ABANDON_SECONDS", 0.3)
    _, replay = open_replay(client)
    job = client.post(f"/api/replays/{replay['id']}/review", json={"budget": 3000}).json()
    time.sleep(1.5)                      # nobody polls
    client.app.state.web.reviews.wait_all(timeout=20)
    assert client.get(f"/api/reviews/{job['id']}").json()["status"] == "cancelled"


def test_another_sites_page_cannot_start_or_cancel_a_review(client):
    _, replay = open_replay(client)
    r = client.post(f"/api/replays/{replay['id']}/review", json={"budget": BUDGET},
                    headers={"origin": "http://evil.example", "sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    job = client.post(f"/api/replays/{replay['id']}/review", json={"budget": BUDGET}).json()
    r = client.post(f"/api/reviews/{job['id']}/cancel", json={}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403


def test_a_record_the_board_wrote_is_reviewed(client, tmp_path):
    """The board's "Download the record" (GET /api/games/{id}/record), mid-game, reviewed from the file."""
    from thurn_ai.play.review import load_record
    game = client.post("/api/games", json={"seats": "random,greedy", "seed": 4}).json()
    for _ in range(30):
        assert client.post(f"/api/games/{game['id']}/step").status_code == 200
    path = tmp_path / "board.jsonl"
    path.write_bytes(client.get(f"/api/games/{game['id']}/record").content)
    rec, name = load_record(path)
    assert len(rec.moves) == 30 and not rec.scores
    r = review(rec, budget=BUDGET)
    assert r.decisions and {d.seat for d in r.decisions} == {0, 1} and r.decisions[-1].index < 30
