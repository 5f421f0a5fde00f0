"""experiments/learning_baseline.py: the agent's gradients, returns to go, and a tiny run that writes every
file and repeats with its seed."""
import csv
import json

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="Gymnasium comes with the optional extra: pip install 'thurn-ai[pettingzoo]'")

from tests.helpers import experiment  # noqa: E402

lb = experiment("learning_baseline")


def test_the_gradients_are_those_of_the_loss():
    rng = np.random.default_rng(0)
    agent = lb.Agent(6, 5, 4, rng)
    for k in agent.p:                       # away from the zero start, so every term is exercised
        agent.p[k] = agent.p[k] + rng.normal(0, 0.5, agent.p[k].shape)
    X = rng.random((7, 6))
    M = (rng.random((7, 5)) < 0.6).astype(np.int8)
    M[np.arange(7), rng.integers(0, 5, 7)] = 1
    A = np.array([int(rng.choice(np.flatnonzero(m))) for m in M])
    G = rng.normal(size=7)
    adv = rng.normal(size=7)
    _, grads, _ = agent.loss_and_gradients(X, M, A, G, adv, entropy=0.3)
    for name, g in grads.items():
        w = agent.p[name]
        for i in range(w.size):
            old = w.flat[i]
            w.flat[i] = old + 1e-6
            up = agent.loss_and_gradients(X, M, A, G, adv, entropy=0.3)[0]
            w.flat[i] = old - 1e-6
            down = agent.loss_and_gradients(X, M, A, G, adv, entropy=0.3)[0]
            w.flat[i] = old
            assert g.flat[i] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-7), name


def test_the_agent_never_picks_a_masked_action():
    rng = np.random.default_rng(1)
    agent = lb.Agent(3, 6, 4, rng)
    agent.p["W2"] = rng.normal(0, 3, agent.p["W2"].shape)
    mask = np.array([0, 1, 0, 0, 1, 0], np.int8)
    picks = {agent.act(rng.random(3), mask, rng) for _ in range(200)} | {agent.act(rng.random(3), mask, None)}
    assert picks <= {1, 4} and len(picks) == 2


def test_returns_to_go():
    assert lb.returns_to_go([1.0, 0.0, 2.0], 0.5).tolist() == [1.5, 1.0, 2.0]
    assert lb.returns_to_go([1.0, 1.0], 1.0).tolist() == [2.0, 1.0]


def test_a_tiny_run_writes_everything_and_repeats_with_its_seed(tmp_path):
    args = ["--games", "4", "--batch", "2", "--eval-every", "2", "--eval-games", "1", "--final-games", "2",
            "--max-turns", "15", "--hidden", "8"]
    for out in ("a", "b"):
        assert lb.main(args + ["--out", str(tmp_path / out)]) == 0
    a, b = tmp_path / "a", tmp_path / "b"
    for name in ("curve.csv", "curve.png", "training.csv", "agent.npz", "run.json", "report.md"):
        assert (a / name).stat().st_size > 0
    curve = list(csv.DictReader(open(a / "curve.csv", encoding="utf-8")))
    assert [(r["training_games"], r["opponent"], r["games"]) for r in curve] == [
        (k, o, g) for k, g in (("0", "1"), ("2", "1"), ("4", "2")) for o in ("random", "greedy", "heuristic")]
    assert (a / "curve.csv").read_text() == (b / "curve.csv").read_text()
    assert (a / "training.csv").read_text() == (b / "training.csv").read_text()
    run = json.loads((a / "run.json").read_text())
    assert run["seed"] == lb.SEED and run["command"].startswith("python experiments/learning_baseline.py --games 4")
    # the study's text is its report.md; a folder of results/ gets its front page (README.md) from the findings
    assert "python experiments/learning_baseline.py --games 4" in (a / "report.md").read_text()
    assert not (a / "README.md").exists()


def test_bad_arguments_exit_with_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as e:
        lb.main(["--train-opponents", "mcts", "--out", str(tmp_path)])
    assert e.value.code == 2
