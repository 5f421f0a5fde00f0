"""The small MLP move prior (studies/expert/prior_mlp.py): gradients, nesting of the logit, what it can fit
that the logit cannot, the cross-validation's folds by game, reproducibility by seed."""
from __future__ import annotations

import numpy as np
import pytest

from thurn_ai.learned.prior import N_FEATURES
from thurn_ai.studies.expert import fit as F
from thurn_ai.studies.expert import prior_mlp as M


def decisions(score, n=300, seed=0) -> F.Decisions:
    """n synthetic decisions of 2-6 moves with normal features, the target the softmax of score(features)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 7, n)
    feats = rng.normal(size=(sizes.sum(), N_FEATURES))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    target = F.segment_softmax(score(feats), starts)
    best = np.array([int(np.argmax(target[starts[i]:starts[i + 1]])) for i in range(n)])
    return F.Decisions(3, 1, feats, target, target, starts, np.arange(n) // 5, best)


def linear(f):
    return f[:, :6] @ np.array([1.0, -0.8, 0.6, 0.5, -0.4, 0.3])


def interaction(f):
    return 0.5 * f[:, 2] + 2.0 * f[:, 0] * f[:, 1]


def test_the_gradient_is_the_loss_s():
    d = decisions(interaction, n=60)
    hidden, penalty = 3, 0.05
    theta = np.random.default_rng(1).normal(0, 0.3, N_FEATURES * (hidden + 1) + 2 * hidden)
    grad = M.loss_and_grad(theta, d, hidden, penalty)[1]
    fd = np.empty_like(theta)
    for i in range(len(theta)):
        e = np.zeros_like(theta)
        e[i] = 1e-6
        fd[i] = (M.loss_and_grad(theta + e, d, hidden, penalty)[0]
                 - M.loss_and_grad(theta - e, d, hidden, penalty)[0]) / 2e-6
    assert np.allclose(grad, fd, rtol=1e-4, atol=1e-8)


def test_with_no_hidden_output_it_is_the_logit():
    d = decisions(linear, n=80)
    rng = np.random.default_rng(2)
    w = rng.normal(size=N_FEATURES)
    m = M.MLP(w, rng.normal(size=(5, N_FEATURES)), rng.normal(size=5), np.zeros(5))
    assert np.allclose(m.probabilities(d), F.probabilities(w, d), atol=1e-12)
    assert M.cross_entropy(m, d) == pytest.approx(F.cross_entropy(w, d), rel=1e-12)
    # without hidden units the fit is the logit's fit
    assert np.allclose(M.fit_mlp(d, 0, 0.01).w, F.fit_weights(d, 0.01), atol=1e-4)


def test_it_fits_an_interaction_the_logit_cannot_and_a_linear_target_as_well():
    for score, better in ((interaction, True), (linear, False)):
        train, test = decisions(score, n=400, seed=3), decisions(score, n=300, seed=4)
        mlp = M.cross_entropy(M.fit_mlp(train, 4, 1e-3), test)
        logit = F.cross_entropy(F.fit_weights(train, 1e-3), test)
        if better:
            assert mlp < logit - 0.2
        else:
            assert mlp < logit + 0.02


def test_cross_validation_keeps_a_game_s_decisions_in_one_fold(monkeypatch):
    monkeypatch.setattr(M, "MAXITER", 30)      # the folds are under test here, not convergence
    d = decisions(interaction, n=100)
    per_game = np.bincount(d.game)
    seen = []
    fit = M.fit_mlp

    def recording(train, hidden, penalty, seed=0):
        seen.append(train.game)
        return fit(train, hidden, penalty, seed)

    monkeypatch.setattr(M, "fit_mlp", recording)
    hidden, penalty, scores = M.choose(d, hidden_sizes=(1, 2), penalties=(1e-2, 1e-1))
    assert set(scores) == {(1, 1e-2), (1, 1e-1), (2, 1e-2), (2, 1e-1)}
    assert scores[(hidden, penalty)] == min(scores.values())
    assert len(seen) == 4 * F.FOLDS
    for games in seen:      # a game in a training fold brings all its decisions; the rest are all out
        counts = np.bincount(games, minlength=len(per_game))
        assert np.all((counts == 0) | (counts == per_game))
        assert 0 < len(games) < len(d)
    folds = F.game_folds(d.game)
    assert all(len(set(folds[d.game == g])) == 1 for g in np.unique(d.game))


def test_same_seed_same_weights(monkeypatch):
    monkeypatch.setattr(M, "MAXITER", 50)
    d = decisions(interaction, n=80)
    a, b, c = (M.fit_mlp(d, 3, 1e-2, seed=s) for s in (5, 5, 6))
    assert np.array_equal(a.pack(), b.pack())
    assert not np.allclose(a.pack(), c.pack())


def test_per_decision_metrics():
    d = F.Decisions(2, 0, np.zeros((5, N_FEATURES)), np.array([0.5, 0.5, 0.0, 0.2, 0.8]),
                    np.array([0.6, 0.3, 0.1, 0.25, 0.75]), np.array([0, 3, 5]), np.array([7, 8]),
                    np.array([0, 1]))
    p = np.array([0.2, 0.7, 0.1, 0.9, 0.1])
    t = M.per_decision(p, d)
    assert list(t["game"]) == [7, 8]
    assert list(t["top1"]) == [0.0, 0.0] and list(t["share"]) == [0.3, 0.25]
    assert t["xent"][0] == pytest.approx(-0.5 * np.log(0.2) - 0.5 * np.log(0.7))


def test_fit_prior_is_a_playable_prior_with_the_chosen_penalty():
    # one group large enough, one below the floor (no learned prior there, as the logit's fit)
    big, small = decisions(interaction, n=200, seed=4), decisions(linear, n=20, seed=5)
    small = F.Decisions(3, 0, small.features, small.target, small.visits, small.starts, small.game,
                        small.teacher_best)
    model, cv = M.fit_prior({(3, 1): big, (3, 0): small}, hidden=4, penalties=(1e-3, 1.0), min_decisions=50)
    assert model.rows[3][0] is None and model.rows[3][2] is None and model.rows[3][1].hidden == 4
    assert list(cv["penalty"]) == [1e-3, 1.0] and cv["chosen"].sum() == 1
    chosen = float(cv.loc[cv["chosen"], "penalty"].iloc[0])
    assert chosen == float(cv.loc[cv["cv_xent"].idxmin(), "penalty"])
    again = M.fit_mlp(big, 4, chosen)
    p = model.probabilities_features(3, 1, big.features[:big.starts[1]])
    assert np.allclose(p, again.probabilities(big)[:big.starts[1]], rtol=0, atol=1e-12)
