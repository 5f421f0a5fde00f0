"""The improved-policy target of generation 3 (thurn_ai/studies/expert/improved.py): a distribution, the prior
where the values say nothing, more mass on a better value, the completed value for moves the teacher hardly
visited, the teacher's own root prior, and a fit that records which target it used; and the equal-budget
labels of its offline gate (equal_budget.py): seeded, resumable, a candidate's label by value."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thurn_ai import _search
from thurn_ai.game.state import new_game
from thurn_ai.learned.prior import N_FEATURES, PHASES, PhasePrior, PriorModel
from thurn_ai.studies.expert import equal_budget as E
from thurn_ai.studies.expert import fit as F
from thurn_ai.studies.expert import improved as I
from thurn_ai.studies.expert import teacher as T

LOG_PRIOR = np.log(np.array([0.6, 0.25, 0.1, 0.05]))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(-8, 0), st.integers(0, 5000), st.floats(0, 1)), min_size=1, max_size=12))
def test_the_improved_policy_is_a_distribution(moves):
    logits, visits, value = (np.array(x, dtype=float) for x in zip(*moves))
    p = I.improved_policy(logits, visits, value)
    assert np.all(p >= 0) and p.sum() == pytest.approx(1.0)


def test_with_equal_values_it_is_the_prior():
    p = I.improved_policy(LOG_PRIOR, [4000, 3000, 2000, 1000], [0.4] * 4)
    assert p == pytest.approx(np.exp(LOG_PRIOR))


def test_a_better_value_gets_more_mass():
    equal = [0.40, 0.40, 0.40, 0.39]
    better = [0.40, 0.41, 0.40, 0.39]
    p, q = (I.improved_policy(LOG_PRIOR, [4000, 3000, 2000, 1000], v) for v in (equal, better))
    assert q[1] > p[1] and q[1] > q[0]      # the better value overtakes the prior's favourite
    # the value's weight grows with the visits, as sigma's (50 + max visits) x 0.1: fewer, less mass moves
    few = I.improved_policy(LOG_PRIOR, [40, 30, 30, 30], better, min_visits=1)
    assert np.exp(LOG_PRIOR[1]) < few[1] < q[1]


def test_moves_the_teacher_hardly_visited_get_the_completed_value():
    visits = np.array([5000, 3000, 10, 0])
    value = np.array([0.40, 0.44, 0.90, 0.0])        # the 10-visit mean is noise; the unvisited one has none
    q = I.completed_values(LOG_PRIOR, visits, value, min_visits=30)
    root = visits @ value / visits.sum()
    seen = np.exp(LOG_PRIOR[:2])
    mixed = (root + visits.sum() * (seen @ value[:2]) / seen.sum()) / (1 + visits.sum())
    assert q[:2] == pytest.approx(value[:2]) and q[2] == pytest.approx(mixed) and q[3] == pytest.approx(mixed)
    # the policy reads the completed value, not the stored mean of a barely visited move
    p = I.improved_policy(LOG_PRIOR, visits, value, min_visits=30)
    assert p == pytest.approx(I.improved_policy(LOG_PRIOR, visits, [0.40, 0.44, 0.0, 0.7], min_visits=30))
    assert np.argmax(p) == 1
    lo, hi, most = q.min(), q.max(), visits.max()
    score = np.array([_search.root_score(x, v, lo, hi, most) for x, v in zip(LOG_PRIOR, q)])
    assert p == pytest.approx(np.exp(score - score.max()) / np.exp(score - score.max()).sum())


def test_without_a_well_visited_move_every_move_gets_the_roots_value():
    q = I.completed_values(LOG_PRIOR, [10, 5, 0, 0], [0.5, 0.2, 0.0, 0.0], min_visits=30)
    assert q == pytest.approx([0.4] * 4)
    assert I.improved_policy(LOG_PRIOR, [10, 5, 0, 0], [0.5, 0.2, 0, 0]) == pytest.approx(np.exp(LOG_PRIOR))


def test_root_logits_are_the_teachers_prior():
    state = new_game(players=3, seed=4)
    moves = state.legal_moves()
    handset = I.root_logits("mcts(iterations=100,policy=handset)", state, 1)
    learned = I.root_logits("mcts(iterations=100,policy=learned,mix=0)", state, 1)
    for prior in (handset, learned):
        assert set(prior) <= set(moves) and len(prior) > 1
        assert sum(np.exp(list(prior.values()))) == pytest.approx(1.0)
    # the hand-set prior puts 0.8 on the planner's move, the learned one does not
    plan = _search.plan_policy_choice(state)
    assert np.exp(handset[plan]) >= 0.8 and handset != pytest.approx(learned)
    assert list(I.logits_in_order(handset, [plan, 9999])) == [handset[plan], min(handset.values()) - 1]


SMALL = dict(play="mcts(iterations=20)", strong="mcts(iterations=20)", teacher="mcts(iterations=300)", sample=0.2)


def test_the_fit_takes_the_improved_target_and_records_it(tmp_path):
    out = tmp_path / "data"
    T.generate(out, T.plan_chunks(players=[2], games=2, seed=2, **SMALL))
    visits, _ = F.load_groups(out, [2])
    improved, _ = F.load_groups(out, [2], target="improved")
    assert any(not np.allclose(visits[k].target, improved[k].target) for k in visits if len(visits[k]))
    for d in improved.values():
        sums = np.add.reduceat(d.target, d.starts[:-1]) if len(d) else np.zeros(0)
        assert sums == pytest.approx(np.ones(len(d)))
    assert F.fit_prior(visits, min_decisions=1)[0].meta["target"] == "visits"
    assert F.fit_prior(improved, min_decisions=1, meta={"generation": 3})[0].meta == {"generation": 3,
                                                                                      "target": "improved"}
    with pytest.raises(ValueError, match="unknown target"):
        F.load_groups(out, [2], target="shares")


# ---------------------------------------------------------------- equal-budget labels (the offline gate)


def random_priors() -> dict:
    rng = np.random.default_rng(5)
    return {name: PriorModel(rows={n: [PhasePrior(rng.normal(0, 2, N_FEATURES)) for _ in PHASES] for n in (2, 3)})
            for name in ("a", "b")}


def test_equal_budget_labels_are_seeded_resume_and_pick_a_candidate(tmp_path):
    data = tmp_path / "data"
    T.generate(data, T.plan_chunks(players=[2, 3], games=6, seed=2, **SMALL))
    chunks = E.plan_chunks({"g": str(data)}, (2, 3), budget=40, worlds=2, seed=1)
    # the held-out games only (0 and 5 of 0-5), interleaved over the counts
    assert [(c.players, c.game) for c in chunks] == [(2, 0), (3, 0), (2, 5), (3, 5)]
    priors = random_priors()
    assert E.generate(tmp_path / "labels", chunks[:1], priors) == 1
    assert E.generate(tmp_path / "labels", chunks, priors) == 3           # resumes: only the missing games
    assert E.generate(tmp_path / "labels", chunks, priors) == 0
    again = E.generate(tmp_path / "again", chunks, priors)
    a, b = E.load(tmp_path / "labels"), E.load(tmp_path / "again")
    assert again == 4 and a.equals(b)                                      # same seed, same labels
    done = a[a.labelled]
    assert len(done) > 0
    for r in done.itertuples():
        favs = {r.fav_a, r.fav_b, r.fav_planner}
        assert len(favs) > 1 and r.label in favs
        best = max(("a", "b", "planner"), key=lambda k: getattr(r, f"value_{k}"))
        assert getattr(r, f"fav_{best}") == r.label
        assert len(r.world_a) == 2
    # decisions where every favourite is the same move are kept, unlabelled
    assert ((a.fav_a == a.fav_b) & (a.fav_b == a.fav_planner) <= ~a.labelled).all()
    diff, lo, hi, n = E.agreement(a, "a", "b")
    share = (done.fav_b == done.label).mean() - (done.fav_a == done.label).mean()
    assert n == len(done) and diff == pytest.approx(share) and lo <= diff <= hi
    with pytest.raises(E.LabelError, match="another"):
        E.generate(tmp_path / "labels", E.plan_chunks({"g": str(data)}, (2,), 80, 2, 1), priors)
    # a script's run: a time limit stops it after the game in progress; the same call finishes the rest
    lines = []
    run = dict(folders={"g": data}, players=(2, 3), budget=40, worlds=2, seed=1, priors=priors, log=lines.append)
    assert E.label_run(tmp_path / "timed", limit_minutes=1e-9, **run) is False
    assert len(lines) == 1 and lines[0].startswith("g-p2-00000.parquet")
    assert E.label_run(tmp_path / "timed", **run) is True and len(lines) == 4
    assert E.load(tmp_path / "timed").equals(a)
    # the gate's tables: per count and pooled, each pair b - a as agreement() says
    rows, diffs, phases = E.gate_tables(a, ("a", "b", "planner"), [("a", "b")], players=(2, 3))
    assert [r["players"] for r in rows] == ["2", "3", "pooled"] and rows[-1]["decisions"] == len(done)
    assert rows[-1]["b"] == pytest.approx((done.fav_b == done.label).mean())
    pooled = next(r for r in diffs if r["players"] == "pooled" and r["measure"] == "agreement")
    assert (pooled["diff"], pooled["low"], pooled["high"]) == pytest.approx((diff, lo, hi))
    assert all(r["base"] == "a" and r["versus"] == "b" for r in diffs + phases)


def test_a_child_search_is_the_movers_only_when_the_mover_moves_again():
    state = new_game(players=2, seed=3)
    moves = state.legal_moves()
    values = E.child_values(state, moves[:2], budget=30, worlds=2, seed=4, search="mcts")
    # a first draw leaves the mover to move: both candidates get a value in each world
    assert values is not None and all(len(v) == 2 and all(0 <= x <= 1 for x in v) for v in values.values())
    assert values == E.child_values(state, moves[:2], budget=30, worlds=2, seed=4, search="mcts")
