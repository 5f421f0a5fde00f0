"""Expert iteration: the learned move prior's features on a hand-computed position, its compiled inference
against numpy, its weights file, the search that uses it (legal, reproducible), the fit, and the teacher
data generator (seeded, resumable)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from tests.helpers import build

import thurn_ai
from thurn_ai import _policy
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.errors import BotSpecError
from thurn_ai.learned.model import ModelError
from thurn_ai.learned.prior import FEATURES, MAX_HIDDEN, N_FEATURES, PHASES, PhasePrior, PriorModel, prior_from
from thurn_ai.play.match import play_game
from thurn_ai.studies.expert import fit as F
from thurn_ai.studies.expert import teacher as T


def random_prior(seed: int, scale: float = 1.0, hidden: int = 0) -> PriorModel:
    """Random weights for every count and phase; hidden > 0: an MLP with that many tanh units."""
    rng = np.random.default_rng(seed)

    def phase():
        w = rng.normal(0, scale, N_FEATURES)
        if not hidden:
            return PhasePrior(w)
        return PhasePrior(w, rng.normal(0, scale, (hidden, N_FEATURES)), rng.normal(0, scale, hidden),
                          rng.normal(0, scale, hidden))

    return PriorModel(rows={n: [phase() for _ in PHASES] for n in (2, 3, 4)})


def same_phases(a: PriorModel, b: PriorModel) -> bool:
    def arrays(r):
        return [] if r is None else [r.w] + ([] if r.W is None else [r.W, r.b, r.v])

    return a.players() == b.players() and all(
        (x is None) == (y is None) and (x is None or x.hidden == y.hidden)
        and all(np.array_equal(u, v) for u, v in zip(arrays(x), arrays(y)))
        for n in a.players() for x, y in zip(a.rows[n], b.rows[n]))


def feature_rows(state) -> tuple[int, dict]:
    phase, moves, f = _policy.prior_features_of(state)
    return phase, {state.move_str(m): dict(zip(FEATURES, row)) for m, row in zip(moves, f)}


# ---------------------------------------------------------------- features


def test_features_of_a_hand_computed_position():
    # seat 0 to draw, route Stuttgart-Ulm, München in hand; seat 1's route ends in Nürnberg, seat 2's
    # route is Zürich-Basel
    g = build(players=3, current=0, phase="draw", hands={0: ["München"]},
              routes={0: ["Stuttgart", "Ulm"], 1: ["Nürnberg"], 2: ["Zürich", "Basel"]},
              display=["Augsburg", "Kempten", "Würzburg", "Linz", "Lodz", "Passau"])
    phase, rows = feature_rows(g)
    assert PHASES[phase] == "draw"
    aug, kem, wue, linz = rows["draw Augsburg"], rows["draw Kempten"], rows["draw Würzburg"], rows["draw Linz"]
    # Augsburg: fits Ulm, next to München in hand, extends no other route
    assert (aug["fits_route"], aug["hand_neighbours"], aug["denies"]) == (1, pytest.approx(1 / 3), 0)
    # Kempten fits Ulm and extends seat 2's route (Zürich); Würzburg fits Stuttgart and extends seat 1's
    assert (kem["fits_route"], kem["hand_neighbours"], kem["denies"]) == (1, 0, 1)
    assert (wue["fits_route"], wue["denies"]) == (1, 1)
    assert kem["denied_value"] > 0 and aug["denied_value"] == 0
    assert (linz["fits_route"], linz["denies"]) == (0, 0)
    deck = rows["draw deck"]
    assert deck["draw_deck"] == 1 and deck["draw_face_up"] == 0
    assert deck["deck_size"] == pytest.approx(g.export()["deck_n"] / 20)
    for name, r in rows.items():
        kinds = [r[k] for k in ("draw_face_up", "draw_deck", "administrator")]
        assert sum(kinds) == 1, name
        assert r["postmaster"] == r["postal_carrier"] == 0     # the first draw uses no official
    # exactly one move is the planner's, and it is the one plan_policy_choice names
    assert sum(r["plan_move"] for r in rows.values()) == 1
    planned = g.move_str(_policy.plan_policy_choice(g))
    assert rows[planned]["plan_move"] == 1
    # relative features: the best move scores 0, the others below
    assert max(r["rule_of_thumb"] for r in rows.values()) == 0
    assert max(r["plan_gain"] for r in rows.values() if r["has_plan_value"]) == 0
    assert all(-3 <= r["rule_of_thumb"] <= 0 and -5 <= r["plan_gain"] <= 0 for r in rows.values())


def test_features_of_a_play_decision_mark_the_postmaster_and_lengths():
    g = build(players=2, current=0, phase="play", hands={0: ["Augsburg", "Linz"]}, routes={0: ["Stuttgart", "Ulm"]})
    phase, rows = feature_rows(g)
    assert PHASES[phase] == "play"
    ext = [r for name, r in rows.items() if name.startswith(("left", "right")) and "Augsburg" in name]
    assert ext and all(r["extend"] == 1 and r["route_length"] == pytest.approx(3 / 5) for r in ext)
    new = rows["new Linz"]
    assert new["new_route"] == 1 and new["route_length"] == pytest.approx(1 / 5)
    draws = [r for name, r in rows.items() if name.startswith("draw")]
    assert draws and all(r["postmaster"] == 1 for r in draws)        # a draw now is the Postmaster's
    # the interaction features copy the kind only for the planner's move
    for r in rows.values():
        assert r["plan_postmaster"] == r["plan_move"] * r["postmaster"]
        assert r["plan_stop"] == r["plan_move"] * r["stop"]
        assert r["plan_deck"] == r["plan_move"] * r["draw_deck"]


def test_the_route_tile_features_grow_with_the_route_a_card_extends():
    # the draw position above: Kempten extends seat 2's two-card route, Würzburg seat 1's one-card route,
    # Augsburg nobody's; a card brings a longer route nearer to its route-length tile
    g = build(players=3, current=0, phase="draw", hands={0: ["München"]},
              routes={0: ["Stuttgart", "Ulm"], 1: ["Nürnberg"], 2: ["Zürich", "Basel"]},
              display=["Augsburg", "Kempten", "Würzburg", "Linz", "Lodz", "Passau"])
    _phase, rows = feature_rows(g)
    kem, wue, aug = rows["draw Kempten"], rows["draw Würzburg"], rows["draw Augsburg"]
    assert kem["denies_route_tile"] > wue["denies_route_tile"] > 0 and aug["denies_route_tile"] == 0
    assert all(r["route_tile_step"] == 0 for r in rows.values())            # a draw extends nothing yet
    # play: a card on a four-card route steps nearer to the 5-card tile than one on a two-card route
    short = build(players=2, current=0, phase="play", hands={0: ["Augsburg", "Linz"]}, routes={0: ["Stuttgart", "Ulm"]})
    long_ = build(players=2, current=0, phase="play", hands={0: ["Ingolstadt", "Linz"]},
                  routes={0: ["Stuttgart", "Ulm", "Augsburg", "München"]})
    step = {name: max(r["route_tile_step"] for m, r in feature_rows(b)[1].items() if m.startswith(("left", "right")))
            for name, b in (("short", short), ("long", long_))}
    assert step["long"] > step["short"] > 0
    for b in (short, long_):
        for m, r in feature_rows(b)[1].items():
            assert (r["route_tile_step"] != 0) <= m.startswith(("left", "right")), m
            assert r["denies_route_tile"] == 0                              # no opponent route to extend


def test_a_prior_fitted_before_features_were_added_reads_them_with_weight_0(tmp_path):
    import json
    d = random_prior(3).to_dict()
    old = dict(d, features=d["features"][:-2],
               models={n: {ph: (None if w is None else w[:-2]) for ph, w in m.items()} for n, m in d["models"].items()})
    back = PriorModel.from_dict(old)
    for n in back.players():
        for r in back.rows[n]:
            if r is not None:
                assert list(r.w[-2:]) == [0.0, 0.0]
    # the same probabilities as the full model with those two weights set to 0
    g = build(players=2, current=0, phase="play", hands={0: ["Augsburg", "Linz"]}, routes={0: ["Stuttgart", "Ulm"]})
    full = PriorModel.from_dict(dict(d, models={n: {ph: (None if w is None else w[:-2] + [0.0, 0.0])
                                                    for ph, w in m.items()} for n, m in d["models"].items()}))
    assert np.allclose(back.probabilities(g)[1], full.probabilities(g)[1])
    # names that are not the first of this version's features are refused
    with pytest.raises(ModelError):
        PriorModel.from_dict(dict(old, features=list(reversed(old["features"]))))
    # read from a file, as the search reads it
    (tmp_path / "p.json").write_text(json.dumps(old))
    assert np.allclose(prior_from(tmp_path / "p.json").probabilities(g)[1], full.probabilities(g)[1])


def test_no_learned_phase_for_house_placement():
    g = build(players=2, current=0, phase="after_play", hands={0: ["Linz"]},
              routes={0: ["Stuttgart", "Ulm", "Augsburg"]})
    g.apply(g.parse_move("close"))
    assert g.phase == "houses"
    phase, _moves, _f = _policy.prior_features_of(g)
    assert phase == -1
    assert random_prior(0).probabilities(g)[1] is None


# ---------------------------------------------------------------- inference


@pytest.mark.parametrize("hidden", [0, 4, MAX_HIDDEN])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_prior_equals_numpy(players, hidden):
    model = random_prior(players + 10 * hidden, hidden=hidden)
    rng = np.random.default_rng(players)
    g = thurn_ai.new_game(players=players, seed=10 + players)
    compared = 0
    while not g.is_terminal() and compared < 60:
        moves, p = model.probabilities(g)
        c_moves, c_p = _policy.learned_prior_of(g, model.weights_for(players))
        assert c_moves == moves
        if p is not None:
            assert np.allclose(c_p, p, rtol=0, atol=1e-12) and abs(sum(c_p) - 1) < 1e-12
            compared += 1
        legal = g.legal_moves()
        g.apply(legal[int(rng.integers(len(legal)))])
    assert compared > 10


def test_prior_file_round_trip_and_refusals(tmp_path):
    model = random_prior(1)
    path = tmp_path / "prior.json"
    model.save(path)
    back = PriorModel.load(path)
    assert same_phases(back, model)
    good = json.loads(path.read_text())
    assert good["version"] == 1          # logits only: the file older thurn-ai reads
    for change, words in [(lambda d: d.update(version=3), "version"),
                          (lambda d: d.update(features=["x"]), "other features"),
                          (lambda d: d["models"]["2"].update(draw=[1e308] * N_FEATURES), "at most"),
                          (lambda d: d["models"]["2"].update(draw=[1.0] * 3), "list of"),
                          (lambda d: d["models"].update({"5": d["models"]["2"]}), "players"),
                          (lambda d: d.update(models=[]), "models")]:
        bad = json.loads(json.dumps(good))
        change(bad)
        path.write_text(json.dumps(bad))
        with pytest.raises(ModelError, match=words):
            PriorModel.load(path)
    path.write_text("{")
    with pytest.raises(ModelError):
        PriorModel.load(path)


def test_an_mlp_with_zero_output_weights_is_the_logit():
    logit = random_prior(3)
    mlp = PriorModel(rows={n: [PhasePrior(r.w, np.ones((4, N_FEATURES)), np.ones(4), np.zeros(4)) for r in rows]
                           for n, rows in logit.rows.items()})
    rng = np.random.default_rng(3)
    for players in (2, 3, 4):
        g = thurn_ai.new_game(players=players, seed=20 + players)
        for _ in range(25):
            if g.is_terminal():
                break
            p, q = logit.probabilities(g)[1], mlp.probabilities(g)[1]
            assert (p is None and q is None) or np.array_equal(p, q)
            c_logit = _policy.learned_prior_of(g, logit.weights_for(players))
            assert _policy.learned_prior_of(g, mlp.weights_for(players)) == c_logit
            legal = g.legal_moves()
            g.apply(legal[int(rng.integers(len(legal)))])


def test_mlp_prior_file_round_trip_version_1_and_refusals(tmp_path):
    model = random_prior(2, hidden=3)
    model.rows[2][3] = None                      # a phase without a learned prior
    model.rows[3][1] = PhasePrior(model.rows[3][1].w)   # and a logit phase among MLP ones
    path = tmp_path / "mlp.json"
    model.save(path)
    good = json.loads(path.read_text())
    assert good["version"] == 2 and good["models"]["2"]["discard"] is None
    assert isinstance(good["models"]["3"]["play"], list) and set(good["models"]["3"]["draw"]) == set("wWbv")
    back = PriorModel.load(path)
    assert same_phases(back, model) and back.rows[4][0].hidden == 3
    # a version 1 file (the logit) still loads as it did
    v1 = random_prior(5)
    v1.save(tmp_path / "v1.json")
    assert json.loads((tmp_path / "v1.json").read_text())["version"] == 1
    assert same_phases(PriorModel.load(tmp_path / "v1.json"), v1)
    too_many = [[0.5] * N_FEATURES] * (MAX_HIDDEN + 1)
    for change, words in [
            (lambda m: m.update(b=[0.0] * 2), "needs 3 b weights"),                 # H of b != H of W
            (lambda m: m.update(v=[0.0] * 4), "needs 3 v weights"),
            (lambda m: m["W"].__setitem__(1, [1.0] * (N_FEATURES - 1)), "W weights"),  # a short W row
            (lambda m: m.update(W=[]), "1 to"),                                      # no hidden unit
            (lambda m: m.update(W=too_many, b=[0.0] * len(too_many), v=[0.0] * len(too_many)), "1 to"),
            (lambda m: m["W"][0].__setitem__(4, float("nan")), "not a JSON number"),
            (lambda m: m.update(v=[1.0, float("inf"), 0.0]), "not a JSON number"),
            (lambda m: m["W"][2].__setitem__(0, 1e308), "finite"),
            (lambda m: m["b"].__setitem__(1, -1e300), "finite"),
            (lambda m: m["w"].__setitem__(0, "1"), "finite"),
            (lambda m: m.pop("b"), "keys"),
            (lambda m: m.update(W="tanh"), "hidden units")]:
        bad = json.loads(json.dumps(good))
        change(bad["models"]["4"]["draw"])
        path.write_text(json.dumps(bad))
        with pytest.raises(ModelError, match=words):
            PriorModel.load(path)
    bad = json.loads(json.dumps(good))
    bad["version"] = 1                               # a hidden layer needs version 2
    path.write_text(json.dumps(bad))
    with pytest.raises(ModelError, match="version 2"):
        PriorModel.load(path)


def test_the_shipped_prior_loads_and_covers_every_count():
    model = prior_from(None)
    assert set(model.players()) == {2, 3, 4}
    assert any(r is not None for r in model.rows[3])


# ---------------------------------------------------------------- the search with it


def test_search_options_for_the_prior_are_checked(tmp_path):
    with pytest.raises(BotSpecError, match="select=puct"):
        make_bot("mcts(policy=learned,select=ucb)")
    with pytest.raises(BotSpecError, match="policy=learned"):
        make_bot(f"mcts(policy=handset,pmodel={tmp_path}/x.json)")
    with pytest.raises(BotSpecError, match="mix"):
        make_bot("mcts(policy=learned,mix=1.5)")
    with pytest.raises(BotSpecError, match="pmodel"):
        make_bot(f"mcts(policy=learned,pmodel={tmp_path}/missing.json)")
    with pytest.raises(BotSpecError, match="clock"):
        make_bot("mcts(clock=sundial)")


@pytest.mark.parametrize("players,mix", [(2, 0.0), (3, 0.3), (4, 0.0)])
def test_a_game_with_the_learned_prior_plays_only_legal_moves(players, mix, tmp_path):
    # extreme weights too: a prior that is nearly one-hot must still leave every move legal
    path = tmp_path / "sharp.json"
    random_prior(7, scale=30.0).save(path)
    bots = [make_bot(f"mcts(iterations=60,policy=learned,mix={mix})", 1),
            make_bot(f"mcts(iterations=60,policy=learned,pmodel={path})", 2)] + \
        [make_bot("heuristic", 3)] * (players - 2)
    rec = play_game(thurn_ai.Rules(players=players), bots, seed=5)     # play_game refuses an illegal move
    assert rec.winner in range(players) and not rec.truncated


def test_a_game_with_an_mlp_prior_is_legal_and_reproducible(tmp_path):
    path = tmp_path / "mlp.json"
    random_prior(11, scale=0.5, hidden=4).save(path)
    spec = f"mcts(iterations=200,policy=learned,pmodel={path})"

    def game(seed):
        bots = [make_bot(spec, seed), make_bot("heuristic", 2), make_bot(spec, seed + 1)]
        rec = play_game(thurn_ai.Rules(players=3, max_turns=8), bots, seed=8)   # refuses an illegal move
        return rec.moves

    first = game(1)
    assert first and game(1) == first


def test_same_seed_same_search():
    g = build(players=3, current=0, phase="draw", hands={0: ["München"]}, routes={0: ["Stuttgart", "Ulm"]})

    def analysis(seed):
        bot = make_bot("mcts(iterations=400,policy=learned)", seed)
        return [(r.move, r.visits) for r in bot.analyse(Observation(g, 0, 9))]

    assert analysis(3) == analysis(3)
    assert analysis(3) != analysis(4)     # a different seed re-deals differently


def test_the_prior_changes_what_the_search_explores():
    # the same position and seed: a prior that puts its mass on another move than the planner's gives
    # other visit counts (the prior is really read by the tree)
    g = build(players=3, current=0, phase="draw", hands={0: ["München"]}, routes={0: ["Stuttgart", "Ulm"]})
    phase, moves, f = _policy.prior_features_of(g)
    obs = Observation(g, 0, 9)
    hand = {r.move: r.visits for r in make_bot("mcts(iterations=400,policy=handset)", 3).analyse(obs)}
    learned = {r.move: r.visits for r in make_bot("mcts(iterations=400,policy=learned)", 3).analyse(obs)}
    assert hand != learned


def test_cpu_clock_budget_searches():
    g = build(players=2, current=0, phase="draw", hands={0: ["München"]}, routes={0: ["Stuttgart", "Ulm"]})
    bot = make_bot("mcts(time=0.02,clock=cpu,policy=learned)", 1)
    assert bot.search(Observation(g, 0, 1)).iterations > 1


# ---------------------------------------------------------------- the fit


def synthetic_decisions(w_true, decisions=400, seed=0) -> F.Decisions:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 7, decisions)
    feats = rng.normal(size=(sizes.sum(), N_FEATURES))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    target = F.segment_softmax(feats @ w_true, starts)
    best = np.array([int(np.argmax(target[starts[i]:starts[i + 1]])) for i in range(decisions)])
    return F.Decisions(3, 0, feats, target, target, starts, np.arange(decisions) // 4, best)


def test_fit_recovers_the_weights_of_a_known_logit():
    w_true = np.linspace(-1, 1, N_FEATURES)
    d = synthetic_decisions(w_true)
    w = F.fit_weights(d, 1e-6)
    assert np.abs(w - w_true).max() < 0.05
    # the gradient is the loss's: a finite difference agrees
    e = np.zeros(N_FEATURES)
    e[3] = 1e-6
    g = F.loss_and_grad(w_true * 0.5, d, 0.01)[1][3]
    fd = (F.loss_and_grad(w_true * 0.5 + e, d, 0.01)[0] - F.loss_and_grad(w_true * 0.5 - e, d, 0.01)[0]) / 2e-6
    assert g == pytest.approx(fd, rel=1e-4)


def test_soft_target_mixes_visits_and_values():
    visits = np.array([800.0, 150.0, 50.0, 0.0])
    value = np.array([0.50, 0.55, 0.40, 0.0])
    t = F.soft_target(visits, value, q_share=0.5)
    assert t.sum() == pytest.approx(1)
    assert t[3] == 0                       # never visited: no mass
    assert t[1] > visits[1] / 1000         # the better-valued move gains mass from the value part
    assert np.allclose(F.soft_target(visits, value, q_share=0.0), visits / visits.sum())


def test_cross_validation_keeps_a_game_together():
    d = synthetic_decisions(np.ones(N_FEATURES) * 0.3, decisions=200)
    penalty, scores = F.choose_penalty(d)
    assert penalty in F.PENALTIES and set(scores) == set(F.PENALTIES)
    train = d.take(d.game % 2 == 0)
    assert set(train.game) == {g for g in d.game if g % 2 == 0}
    assert len(train.target) == train.starts[-1]


# ---------------------------------------------------------------- teacher data


SMALL = dict(play="mcts(iterations=20)", strong="mcts(iterations=20)", teacher="mcts(iterations=60)", sample=0.1)


def test_teacher_data_is_seeded_and_resumes_without_skipping(tmp_path):
    out = tmp_path / "data"
    first = T.plan_chunks(players=[2], games=3, seed=5, **SMALL)
    assert [(c.first, c.count) for c in first] == [(0, 3)]
    assert T.generate(out, first) == 1
    before = T.load(out)
    assert set(before["game"]) <= {0, 1, 2} and len(before)
    # extended to 7 games: the short chunk is played again in full (same seeds, the same rows), then 5-6
    more = T.plan_chunks(players=[2], games=7, seed=5, **SMALL)
    assert T.generate(out, more) == 2
    after = T.load(out)
    assert set(T.records(out, 2)) == set(range(7))
    old = after[after["game"] <= 2].reset_index(drop=True)
    assert old.equals(before.reset_index(drop=True))
    assert T.generate(out, more) == 0                     # complete: nothing to play
    # each sampled decision's rows: visit shares of a search, one row the teacher's best
    for _k, rows in after.groupby(["game", "decision"]):
        assert rows["teacher_best"].sum() == 1 and rows["share"].sum() == pytest.approx(1)
        assert (rows["iterations"] == 60).all()


def test_teacher_folder_keeps_one_data_set(tmp_path):
    out = tmp_path / "data"
    T.generate(out, T.plan_chunks(players=[2], games=1, seed=5, **SMALL))
    with pytest.raises(T.TeacherError, match="another teacher data set"):
        T.generate(out, T.plan_chunks(players=[2], games=1, seed=6, **SMALL))
    with pytest.raises(T.TeacherError, match="sample"):
        T.plan_chunks(players=[2], games=1, sample=0.0)


def test_teacher_data_on_a_full_disk_is_one_error_and_keeps_what_was_written(tmp_path, monkeypatch):
    import errno
    from thurn_ai.studies import chunked
    out = tmp_path / "data"
    chunks = T.plan_chunks(players=[2], games=1, seed=5, **SMALL)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(chunked, "atomic_to_parquet", full)
    with pytest.raises(T.TeacherError, match="cannot write to .*No space left on device; the chunks written so far"):
        T.generate(out, chunks)
    monkeypatch.undo()
    assert T.generate(out, chunks) == 1          # run again with room: the chunk is played and written


def test_held_out_games():
    games = np.arange(20)
    assert list(games[T.held_out(games)]) == [0, 5, 9, 10, 15, 19]


def test_teacher_rows_rebuild_their_positions_and_features(tmp_path):
    out = tmp_path / "data"
    T.generate(out, T.plan_chunks(players=[3], games=1, seed=2, **SMALL))
    data = T.load(out)
    rows = F.decision_rows(data, T.records(out, 3))
    assert rows
    for r in rows:
        assert r["features"].shape == (len(r["moves"]), N_FEATURES)
        assert r["visits"].sum() > 0


def test_a_later_generation_fits_to_several_folders_keeping_their_games_apart(tmp_path):
    a, b = tmp_path / "gen1", tmp_path / "gen2"
    T.generate(a, T.plan_chunks(players=[2], games=2, seed=2, **SMALL))
    T.generate(b, T.plan_chunks(players=[2], games=2, seed=3, **SMALL))
    one, _ = F.load_groups(a, [2])
    both, held = F.load_groups([a, b], [2])
    games = {g for (n, _ph), d in both.items() for g in d.game}
    own = {g for (n, _ph), d in one.items() for g in d.game}
    # generation 2's game k is not generation 1's game k: shifted, and kept out of the same fold
    assert own <= games and any(g >= F.GAME_OFFSET for g in games)
    assert sum(len(d) for d in both.values()) > sum(len(d) for d in one.values())
    assert all(T.held_out(d.game).all() for d in held.values())    # held out by the original number


def test_each_generation_searches_with_the_previous_generations_weights(monkeypatch):
    from pathlib import Path
    from thurn_ai.studies.expert import report as R
    monkeypatch.chdir(Path(__file__).resolve().parents[2])      # the specs name files from the repository
    assert R.GEN1.teacher == T.DEFAULT_TEACHER and "policy=handset" in R.GEN1.teacher
    for n, gen in R.GENERATIONS.items():
        if n == 1:
            continue
        before = R.GENERATIONS[n - 1].prior
        assert Path(before).is_file()                     # committed with the generation that made it
        for spec in (gen.play, gen.strong, gen.teacher):
            assert f"pmodel={before}" in spec
            assert make_bot(spec, 0).options.pmodel == before
        assert R.GENERATIONS[n - 1].data in gen.fit_on and gen.data in gen.fit_on
        assert len({g.seed for g in R.GENERATIONS.values()}) == len(R.GENERATIONS)   # new deals each time


# ---------------------------------------------------------------- defaults


def test_mcts_defaults_are_the_learned_ones_and_the_old_ones_one_option_away():
    from thurn_ai.bots.mcts import MCTS_DEFAULTS
    from thurn_ai.bots.search_options import SearchOptions
    bot = make_bot("mcts")
    assert bot.options == SearchOptions(**MCTS_DEFAULTS)
    assert (bot.options.eval, bot.options.policy, bot.options.mix) == ("learned", "learned", 0.5)
    # pimc keeps the SearchOptions defaults; the old mcts is the spec that names them
    assert make_bot("pimc").options.eval == "simple"
    assert make_bot("mcts(eval=simple,policy=handset)").options == SearchOptions()
    # select=ucb has no prior: a plain mcts with it searches without the learned one, instead of refusing
    assert make_bot("mcts(select=ucb)").options.policy == "handset"
    with pytest.raises(BotSpecError, match="select=puct"):
        make_bot("mcts(select=ucb,policy=learned)")


# ---------------------------------------------------------------- measures


def test_paired_cells_compare_the_same_deals(tmp_path):
    from thurn_ai.studies.expert import measure as M
    a = M.Cell("a", 2, "greedy", 4, others="random", seed=3)
    b = M.Cell("b", 2, "random", 4, others="random", seed=3)
    other_seed = M.Cell("c", 2, "random", 4, others="random", seed=4)
    for cell in (a, b, other_seed):
        M.run_cell(cell, tmp_path)
    s = M.cell_summary(tmp_path, a)
    assert s["games"] == 4 and 0 <= s["win_low"] <= s["win"] <= s["win_high"] <= 1
    p = M.paired(tmp_path, a, b)
    ra, rb = M.seat_rows(tmp_path, a), M.seat_rows(tmp_path, b)
    assert p["games"] == 4
    assert p["win_share"] == pytest.approx((ra["win_share"] - rb["win_share"]).mean())
    assert p["score"] == pytest.approx((ra["score"] - rb["score"]).mean())
    assert p["score_low"] <= p["score"] <= p["score_high"]
    with pytest.raises(ValueError, match="not paired"):
        M.paired(tmp_path, a, other_seed)
    # pooled over two comparisons: every game weighs the same (a mean of all differences, not of means)
    c = M.Cell("c3", 3, "greedy", 3, others="random", seed=3)
    d = M.Cell("d3", 3, "random", 3, others="random", seed=3)
    for cell in (c, d):
        M.run_cell(cell, tmp_path)
    both = M.pooled(tmp_path, [(a, b), (c, d)])
    diffs = np.concatenate([M.paired_differences(tmp_path, a, b), M.paired_differences(tmp_path, c, d)])
    assert both["games"] == 7 and both["win_share"] == pytest.approx(diffs.mean())
    # power from the observed spread of the differences, not an assumed one
    assert both["sd"] == pytest.approx(diffs.std(ddof=1))
    assert both["detectable"] == pytest.approx(M.detectable_difference(7, diffs.std(ddof=1)))
    d_ab = M.paired_differences(tmp_path, a, b)
    assert p["win_share_sd"] == pytest.approx(d_ab.std(ddof=1))
    assert p["detectable"] == pytest.approx(M.detectable_difference(4, d_ab.std(ddof=1)), nan_ok=True)
    assert M.pooled(tmp_path, [(a, M.Cell("never", 2, "random", 4))]) is None
    with pytest.raises(ValueError, match="not paired"):       # pooled checks the pairing as paired does
        M.pooled(tmp_path, [(a, other_seed)])


def test_the_report_pools_a_comparison_only_once_its_cells_are_played_in_full(tmp_path, monkeypatch):
    from thurn_ai.studies.expert import measure as M, report as R
    done = M.Cell("done", 2, "random", 2, others="random", seed=3)
    M.run_cell(done, tmp_path / "runs")
    M.run_cell(M.Cell("half", 2, "random", 2, others="random", seed=3), tmp_path / "runs")
    half = M.Cell("half", 2, "random", 4, others="random", seed=3)      # planned 4, 2 played
    never = M.Cell("never", 2, "random", 2, others="random", seed=3)     # planned, not played
    monkeypatch.setattr(R, "CELLS", [done, half, never])
    assert R._played_in_full(tmp_path, ["done"])
    assert not R._played_in_full(tmp_path, ["done", "half"])
    assert not R._played_in_full(tmp_path, ["done", "never"])


def test_every_pooled_and_paired_comparison_names_planned_cells_on_the_same_deals():
    from thurn_ai.studies.expert import report as R
    names = [(f"{a}_p{n}_{budget}", f"{b}_p{n}_{budget}") for _what, a, b, budget in R.POOLED for n in (2, 3, 4)]
    for a, b in names + R.PAIRS:
        x, y = R._cell(a), R._cell(b)             # StopIteration: a name no cell has
        assert (x.players, x.seed, x.games) == (y.players, y.seed, y.games), (a, b)
    assert R._budget("cpu0.05") == "CPU s 0.05" and R._budget("it3000") == "3000 it"
    assert R._budget("cpu0.05", long=True) == "0.05 CPU seconds a decision"
    assert R._budget("it1000", long=True) == "1000 iterations"


def test_official_kappa_counts_agreement_at_the_offers():
    import pandas as pd
    from thurn_ai.studies.expert import measure as M
    rows = []
    # 6 decisions with the Postmaster on offer: the search uses it at 0-2, the rule bot at 0-1 and 3
    for d in range(6):
        for spec, uses in (("s", d < 3), ("heuristic", d in (0, 1, 3))):
            rows.append({"players": 3, "game": 1, "decision": d, "spec": spec, "offers": "postmaster",
                         "official": "postmaster" if uses else ""})
    rows.append({"players": 3, "game": 1, "decision": 9, "spec": "s", "offers": "", "official": ""})
    k = M.official_kappa(pd.DataFrame(rows), "s")
    assert len(k) == 1
    r = k.iloc[0]
    assert (r["offers"], r["same"], r["uses"], r["reference_uses"]) == (6, pytest.approx(4 / 6), 0.5, 0.5)
    # kappa = (po - pe) / (1 - pe) with po = 4/6 and pe = 0.5
    assert r["kappa"] == pytest.approx((4 / 6 - 0.5) / 0.5)


def test_detectable_difference_comes_from_the_observed_spread():
    from statsmodels.stats.power import TTestPower

    from thurn_ai.studies.expert import measure as M
    assert M.detectable_difference(400, 0.5) < M.detectable_difference(100, 0.5) < 0.2
    assert M.detectable_difference(400, 0.6) == pytest.approx(1.2 * M.detectable_difference(400, 0.5))
    # the effect a paired t test of 400 differences with sd 0.6 detects with 80% power, two-sided 5%
    es = TTestPower().solve_power(nobs=400, alpha=0.05, power=0.8)
    assert M.detectable_difference(400, 0.6) == pytest.approx(es * 0.6)
    assert np.isnan(M.detectable_difference(1, 0.5))


def test_runs_are_logged_beside_the_results(tmp_path):
    import json
    from thurn_ai.studies.provenance import log_run
    log_run(tmp_path, "data", 12.34, "abc1234", games=5)
    log_run(tmp_path, "fit", 1.0, "abc1234 with uncommitted changes to x")
    runs = json.loads((tmp_path / "runs.json").read_text())
    command = runs[0].pop("command")
    assert command == runs[1].pop("command") and command.startswith("python ")
    assert runs == [{"part": "data", "code": "abc1234", "seconds": 12.3, "games": 5},
                    {"part": "fit", "code": "abc1234 with uncommitted changes to x", "seconds": 1.0}]
