"""The learned evaluation: its features, the compiled inference against numpy, the fit, the calibration
measures, the data generator, and the search that uses it."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from tests.helpers import build

from thurn_ai.bots.spec import BotSpec
import thurn_ai
from thurn_ai import _policy
from thurn_ai.bots import make_bot
from thurn_ai.learned import FEATURES, ValueModel, position_features
from thurn_ai.studies.learned import calibration as C
from thurn_ai.studies.learned import data as D
from thurn_ai.play.match import position_at
from thurn_ai.studies.learned import fit as F
from thurn_ai.learned.features import N_FEATURES, N_TERMS, terms
from thurn_ai.learned.model import ModelError
from thurn_ai.play.match import play_game


def random_model(seed: int, players=(2, 3, 4)) -> ValueModel:
    rng = np.random.default_rng(seed)
    return ValueModel(win={n: rng.normal(0, 0.2, N_TERMS) for n in players},
                      score={n: rng.normal(0, 0.5, N_TERMS + 2) for n in players})


def played(players: int, seed: int, moves: int, board: str = "south"):
    g = thurn_ai.new_game(players=players, seed=seed, board=board)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if g.is_terminal():
            break
        legal = g.legal_moves()
        g.apply(legal[int(rng.integers(len(legal)))])
    return g


# ---------------------------------------------------------------- features


def test_features_of_a_hand_computed_position():
    # seat 0: carriage of size 4 (3 points), houses in Carlsruhe and Freiburg (18 left), route
    # Stuttgart-Ulm, three cards; seat 1 to move
    kw = dict(players=3, current=1, phase="play", hands={0: ["Augsburg", "Linz", "Basel"], 1: ["Passau"]},
              routes={0: ["Stuttgart", "Ulm"]}, houses={0: ["Carlsruhe", "Freiburg"]}, houses_left={0: 18},
              carriage={0: 1})
    progress, f = position_features(build(**kw))
    row = dict(zip(FEATURES, f[0]))
    assert row["score"] == 3 - 18
    assert row["route_promise"] == pytest.approx(0.2 * 2)          # a route too short to close: 0.2 a card
    # Baden (3 cities, top tile 3): 2 of 3 held; outside Baiern (8 provinces, top 6): 1 province held
    assert row["tile_potential"] == pytest.approx(3 * (2 / 3) ** 2 + 6 * (1 / 8) ** 2)
    assert (row["route_length"], row["hand"], row["houses_left"], row["carriages"]) == (2, 3, 18, 2)
    # South's route tiles: 5 cards 2, 6 cards 3, 7 cards 4 on top; the best of value x (2 / length)^2
    assert row["route_tiles"] == pytest.approx(max(2 * (2 / 5) ** 2, 3 * (2 / 6) ** 2, 4 * (2 / 7) ** 2))
    assert row["plan_promise"] > 0                                  # cards that extend the route
    assert [list(r[8:11]) for r in f] == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]   # to move, yet to move, done
    assert f[1][0] == f[2][0] == -20 and f[2][2] == 0               # nothing placed, no cards
    # progress: the furthest player's share of the houses (2/20) or of the carriages (2 of 5)
    assert progress == pytest.approx(2 / 5)
    # the final round (seat 2 ended the game): seat 0 has had its last turn; progress is 1
    progress, f = position_features(build(**kw, end_player=2))
    assert progress == 1.0 and [r[10] for r in f] == [1, 0, 0]


def test_the_route_tile_feature_follows_the_stacks_left():
    five = ["Freiburg", "Basel", "Zürich", "Sigmaringen", "Stuttgart"]
    feature = FEATURES.index("route_tiles")
    # closable now for the 5-card tile (2), or two cards from 7 (4 x (5/7)^2) or one from 6 (3 x (5/6)^2)
    f = position_features(build(routes={0: five}))[1]
    assert f[0][feature] == pytest.approx(3 * (5 / 6) ** 2) and f[1][feature] == 0      # no route: nothing
    # the 5- and 6-card stacks empty: a 5- or 6-card route earns nothing, only the 7-card tile is left
    f = position_features(build(routes={0: five}, stack_pos={"route5": 2, "route6": 3}))[1]
    assert f[0][feature] == pytest.approx(4 * (5 / 7) ** 2)
    # the 7-card stack empty: a 7-card route takes the 6-card tile (the next shorter with tiles)
    f = position_features(build(routes={0: five}, stack_pos={"route7": 4, "route6": 2}))[1]
    assert f[0][feature] == pytest.approx(max(2, 1 * (5 / 6) ** 2, 1 * (5 / 7) ** 2))


def test_terms_interleave_start_and_end_weights():
    f = np.arange(2 * N_FEATURES, dtype=float).reshape(2, N_FEATURES)
    z = terms(f, 0.25)
    assert z.shape == (2, N_TERMS)
    assert np.allclose(z[:, 0::2], 0.75 * f) and np.allclose(z[:, 1::2], 0.25 * f)


# ---------------------------------------------------------------- the model


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_inference_matches_numpy(players):
    model = random_model(players)
    w, s = model.weights_for(players)
    for seed in range(6):
        g = played(players, seed, 40 * seed)
        if g.is_terminal():
            continue
        win_c, score_c, reward = _policy.learned_value(g, w, s, 2, 8.0)
        win_n, score_n = model.predict(g)
        assert np.allclose(win_c, win_n, atol=1e-12) and np.allclose(score_c, score_n, atol=1e-9)
        assert sum(win_c) == pytest.approx(1.0)
        # the search's reward: half the win chance, half 0.5 + 0.5 tanh(expected margin / 8)
        for p in range(players):
            margin = score_n[p] - max(np.delete(score_n, p))
            assert reward[p] == pytest.approx(0.5 * win_n[p] + 0.5 * (0.5 + 0.5 * np.tanh(margin / 8)))


def test_the_model_file_round_trips_and_bad_files_are_refused(tmp_path):
    model = random_model(1)
    path = tmp_path / "m.json"
    model.save(path)
    back = ValueModel.load(path)
    assert all(np.array_equal(back.win[n], model.win[n]) and np.array_equal(back.score[n], model.score[n])
               for n in (2, 3, 4))
    d = json.loads(path.read_text())
    cases = {
        "not a thurn-ai value model": {"format": "other"},
        "other features": {**d, "features": list(FEATURES)[::-1]},
        f"needs {N_TERMS} win": {**d, "models": {"2": {"win": [0.0] * 3, "score": [0.0] * (N_TERMS + 2)}}},
        "NaN": {**d, "models": {"2": {"win": [float("nan")] * N_TERMS, "score": [0.0] * (N_TERMS + 2)}}},
        "malformed weights": {**d, "models": {"2": {"win": "x"}}},
        "holds no weights": {**d, "models": {}},
    }
    for message, bad in cases.items():
        path.write_text(json.dumps(bad, allow_nan=True))
        with pytest.raises(ModelError, match=message):
            ValueModel.load(path)
    with pytest.raises(ModelError, match="finite"):
        ValueModel.from_dict({**d, "models": {"2": {"win": [float("inf")] * N_TERMS,
                                                   "score": [0.0] * (N_TERMS + 2)}}})
    with pytest.raises(ModelError, match="no weights for 4 players"):
        random_model(1, players=(2,)).weights_for(4)
    with pytest.raises(ModelError, match="cannot read"):
        ValueModel.load(tmp_path / "missing.json")


def test_a_model_fitted_before_a_feature_was_added_reads_it_with_weight_zero(tmp_path):
    model = random_model(2)
    d = model.to_dict()
    old = {**d, "features": list(FEATURES[:-1]),
           "models": {k: {"win": m["win"][:-2], "score": m["score"][:-2]} for k, m in d["models"].items()}}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    back = ValueModel.load(path)
    for n in (2, 3, 4):
        assert np.array_equal(back.win[n][:-2], model.win[n][:-2]) and not back.win[n][-2:].any()
        assert np.array_equal(back.score[n][:-2], model.score[n][:-2]) and not back.score[n][-2:].any()
    # so it evaluates as if the last feature were not there
    state = thurn_ai.new_game(players=3, seed=4)
    for _ in range(60):
        state.apply(state.legal_moves()[0])
    progress, f = position_features(state)
    g = f.copy()
    g[:, -1] += 5.0
    assert np.array_equal(back.predict_features(progress, f)[0], back.predict_features(progress, g)[0])


def test_the_shipped_model_loads_for_every_player_count():
    model = thurn_ai.learned.default_model()
    for n in (2, 3, 4):
        win, score = model.predict(thurn_ai.new_game(players=n, seed=3))
        assert win.sum() == pytest.approx(1.0) and np.all((win > 0) & (win < 1))
        assert np.all(np.isfinite(score))


# ---------------------------------------------------------------- the fit


def synthetic(players: int, positions: int, w: np.ndarray, seed: int) -> pd.DataFrame:
    """Positions in data.py's form whose winner is drawn from the conditional logit with weights w, and
    whose final scores are a known linear map of the terms plus noise."""
    rng = np.random.default_rng(seed)
    f = rng.normal(0, 1, (positions, players, N_FEATURES))
    t = rng.uniform(0, 1, positions)
    p = F.predict_win(w, terms(f, t))
    winner = np.array([rng.choice(players, p=row) for row in p])
    final = 20 + 3 * t[:, None] + terms(f, t) @ (w * 4) + rng.normal(0, 0.1, (positions, players))
    rows = []
    for k in range(positions):
        for i in range(players):
            rows.append({"game": k // 10, "turn": k % 10, "player": i, "players": players, "progress": t[k],
                         "won": int(i == winner[k]), "final_score": final[k, i],
                         **{f"f_{name}": f[k, i, j] for j, name in enumerate(FEATURES)}})
    return pd.DataFrame(rows)


def test_the_fit_recovers_a_known_model():
    w = np.random.default_rng(7).normal(0, 0.6, N_TERMS)
    frame = synthetic(3, 6000, w, seed=1)
    model, cv = F.fit_model(frame, penalties=(1e-4, 1e-1), folds=3)
    assert set(cv["players"]) == {3} and cv["chosen"].sum() == 1
    assert cv.loc[cv["chosen"], "penalty"].item() == 1e-4          # little data noise: the weak penalty
    test = synthetic(3, 500, w, seed=2)
    data = F.positions(test)
    said = F.predict_win(model.win[3], data.z)
    assert np.abs(said - F.predict_win(w, data.z)).mean() < 0.03
    s = model.score[3]
    assert s[0] == pytest.approx(20, abs=0.2) and np.allclose(s[2:], 4 * w, atol=0.05)


def test_positions_must_be_of_one_player_count():
    frame = pd.concat([synthetic(2, 10, np.zeros(N_TERMS), 1), synthetic(3, 10, np.zeros(N_TERMS), 1)])
    with pytest.raises(ValueError, match="one player count"):
        F.positions(frame)


def test_folds_keep_a_game_together():
    games = np.repeat(np.arange(20), 7)
    fold = F.folds_of(games, 5)
    assert all(len(set(fold[games == g])) == 1 for g in range(20))
    assert sorted(np.bincount(fold)) == [28] * 5


# ---------------------------------------------------------------- calibration measures


def test_calibration_measures():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, 20000)
    y = rng.uniform(0, 1, 20000) < p
    assert C.ece(p, y) < 0.02                         # chances that match the outcomes
    assert C.ece(np.full(1000, 0.9), np.zeros(1000)) == pytest.approx(0.9)
    assert C.brier([1, 0, 0.5], [1, 1, 0]) == pytest.approx((0 + 1 + 0.25) / 3)
    r = C.reliability(p, y)
    assert r["n"].sum() == 20000 and len(r) == C.BINS
    movers = pd.DataFrame({"players": 2, "phase": np.where(p < 0.5, "early", "late"), "game": np.arange(20000) // 20,
                           "won": y.astype(int), "said": p})
    t = C.calibration_table(movers)
    row = t[t["phase"] == "all"].iloc[0]
    assert row["brier_skill"] > 0.3 and row["positions"] == 20000 and row["brier_base"] == pytest.approx(0.25)
    lo, hi = C.game_bootstrap(movers.head(2000), lambda f: f["won"].mean(), reps=50)
    assert lo < movers.head(2000)["won"].mean() < hi


# ---------------------------------------------------------------- the data generator


def test_the_data_generator_is_seeded_and_resumes(tmp_path):
    chunks = D.plan_chunks(players=(2,), games=2, seed=5, search="mcts(iterations=4)", strong="mcts(iterations=4)")
    assert [(c.players, c.first, c.count) for c in chunks] == [(2, 0, 2)]
    assert D.generate(tmp_path / "a", chunks) == 1
    assert D.generate(tmp_path / "a", chunks) == 0                   # resumed: nothing left to play
    D.generate(tmp_path / "b", chunks)
    a, b = D.load(tmp_path / "a"), D.load(tmp_path / "b")
    pd.testing.assert_frame_equal(a, b)
    assert set(a["game"]) == {0, 1} and (a.groupby(["game", "turn"])["won"].sum() == 1).all()
    # the player to move's row says what its search reported (Bot.last_search); the others' rows say nothing
    said = a.loc[a["mover"], "search_win"]
    assert said.notna().mean() > 0.5 and said.dropna().between(0, 1).all()
    assert a.loc[~a["mover"], ["search_win", "search_score"]].isna().all().all()
    # every row's features are those of the position its record sets up again
    recs = D.records(tmp_path / "a", 2, [0, 1])
    for row in a.sample(8, random_state=0).itertuples():
        _, f = position_features(position_at(recs[row.game], row.move))
        assert np.allclose(f[row.player], [getattr(row, f"f_{x}") for x in FEATURES])
    with pytest.raises(D.DataError, match="another data set"):
        D.generate(tmp_path / "a", D.plan_chunks(players=(2,), games=2, seed=6, search="mcts(iterations=4)",
                                                 strong="mcts(iterations=4)"))


def test_a_bad_bot_spec_fails_before_any_game():
    with pytest.raises(thurn_ai.errors.BotSpecError):
        D.plan_chunks(players=(2,), games=2, search="mcts(nonsense=1)")


# ---------------------------------------------------------------- the search with it


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_search_with_the_learned_evaluation_plays_legal_reproducible_games(players):
    rules = thurn_ai.Rules(players=players)
    spec = "mcts(iterations=40,eval=learned)"
    recs = [play_game(rules, [make_bot(spec, 10 + i) for i in range(players)], seed=4) for _ in range(2)]
    assert recs[0].moves == recs[1].moves and not recs[0].truncated   # play_game refuses an illegal move


def test_the_learned_search_reports_model_chances():
    bot = make_bot("mcts(iterations=300,eval=learned,horizon=1)", 1)
    g = thurn_ai.new_game(players=4, seed=2)
    from thurn_ai.bots.base import Observation
    rows = bot.analyse(Observation(g, 0, 5))
    # every playout stops at the horizon and is scored by the model: shares, near an even 1/4 at the start
    assert all(0 < r.win_prob < 1 for r in rows)
    assert 0.1 < rows[0].win_prob < 0.45


def test_a_search_reads_the_weights_file_its_spec_names(tmp_path, monkeypatch):
    # a copy of the shipped weights searches exactly as the shipped model; other weights search otherwise
    from thurn_ai.bots.base import Observation
    from thurn_ai.learned.model import DEFAULT_PATH
    copy, other = tmp_path / "copy.json", tmp_path / "sub" / "other.json"
    copy.write_text(DEFAULT_PATH.read_text())
    other.parent.mkdir()
    random_model(7).save(other)
    g = thurn_ai.new_game(players=3, seed=5)

    def said(spec):
        return [(r.move, r.visits, round(r.win_prob, 12))
                for r in make_bot(spec, 3).analyse(Observation(g, 0, 5))]
    base = "mcts(iterations=200,eval=learned,horizon=1"
    assert said(base + f",model={copy})") == said(base + ")")
    assert said(base + f",model={other})") != said(base + ")")
    monkeypatch.chdir(tmp_path)                                     # a path relative to where one runs
    assert said(base + ",model=sub/other.json)") == said(base + f",model={other})")
    # the win map was fitted to the shipped weights' search: other weights' shares are not calibrated
    from thurn_ai.play.analysis import analyse
    shipped = BotSpec.parse(f"mcts(eval=learned,model={DEFAULT_PATH})")
    assert analyse(g, iterations=60, bot=shipped).calibrated
    elsewhere = BotSpec.parse("mcts(eval=learned,model=sub/other.json)")
    assert not analyse(g, iterations=60, bot=elsewhere).calibrated


@pytest.mark.parametrize("spec, message", [
    ("mcts(eval=learned,model=no/such/file.json)", "model=no/such/file.json"),
    ("mcts(eval=simple,model=value.json)", "needs eval=learned"),   # (mcts defaults to eval=learned)
    ("mcts(eval=learned,model=a;b)", "not a file path"),
])
def test_a_bad_weights_file_in_a_spec_is_one_clear_error(spec, message):
    with pytest.raises(thurn_ai.errors.BotSpecError, match=message.replace(".", r"\.")):
        make_bot(spec, 1)


# ---------------------------------------------------------------- the experiment scripts


def test_held_out_games_are_every_fifth_and_every_tenth_north_game():
    held = D.held_out(np.arange(30))
    assert list(np.flatnonzero(held)) == [0, 5, 9, 10, 15, 19, 20, 25, 29]
    # the North games (number % 5 == 4) held out are those ending in 9
    assert all(D.game_setup(2, g, 1, "a", "b")[0].board == "north" for g in (9, 19, 29))


def test_the_paired_strength_difference(tmp_path):
    from tests.helpers import experiment
    mod = experiment("learned_strength")
    for cell, wins in (("L_p2_it1000", [1, 1, 0, 1]), ("H_p2_it1000", [0, 1, 0, 0])):
        folder = tmp_path / "runs" / cell
        folder.mkdir(parents=True)
        rows = []
        for g, w in enumerate(wins):
            for seat, spec in enumerate(("mcts(iterations=1000)", "heuristic")):
                me = spec.startswith("mcts")
                rows.append({"game": g, "game_seed": 100 + g, "seat": seat, "bot": spec, "spec": spec,
                             "players": 2, "score": 20 + (w if me else 1 - w), "rank": 1, "win": int(w == me),
                             "win_share": float(w == me), "turns": 40, "truncated": False})
        pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    r = mod.paired(tmp_path, "L_p2_it1000", "H_p2_it1000")
    assert r["games"] == 4 and r["win_share"][0] == pytest.approx(0.5) and r["score"][0] == pytest.approx(0.5)
    assert r["win_share"][1] < 0.5 < r["win_share"][2]
    assert any("+50.0 pp" in line for line in mod.paired_lines(tmp_path))


def test_a_cell_the_summary_holds_in_full_is_not_played_again(tmp_path, monkeypatch):
    from tests.helpers import experiment
    mod = experiment("learned_strength")
    played = []
    row = dict.fromkeys(("wins", "games", "win_rate", "ci_low", "ci_high", "mcts_score", "heuristic_scores"), 0)
    monkeypatch.setattr(mod, "run_cell", lambda cell, *a, **k: played.append(cell) or row)
    monkeypatch.setattr(mod, "CELLS", [("A", 2, "mcts", 4, "south", "heuristic"),
                                       ("B", 2, "mcts", 4, "south", "heuristic")])
    monkeypatch.setattr(mod, "write_summary", lambda *a, **k: None)
    monkeypatch.setattr(mod, "write_readme", lambda *a, **k: None)
    monkeypatch.setattr(mod, "pct", lambda v: "")
    (tmp_path / "summary.csv").write_text("cell,games\nA,4\nB,2\n")
    monkeypatch.chdir(tmp_path)            # main() moves to the checkout; monkeypatch moves back after
    mod.main(["--out", str(tmp_path)])
    assert played == ["B"]
    assert not mod.complete(None, 4) and mod.complete({"games": "201"}, 201)


def test_a_later_generation_is_fitted_beside_the_earlier_and_compared_on_held_out_games(tmp_path):
    from tests.helpers import experiment
    generation = experiment("learned_generation")
    for name, seed in (("a", 5), ("b", 6)):
        D.generate(tmp_path / name, D.plan_chunks(players=(2,), games=7, seed=seed, search="mcts(iterations=4)",
                                                  strong="mcts(iterations=4)"))
    a, b = D.load(tmp_path / "a"), D.load(tmp_path / "b")
    train = D.training_games([tmp_path / "a", tmp_path / "b"], (2,))
    # each folder's held-out games (0 and 5) stay out; the second folder's games get numbers of their own
    assert sorted(train["game"].unique()) == [1, 2, 3, 4, 6, 1_000_001, 1_000_002, 1_000_003, 1_000_004, 1_000_006]
    assert len(train) == (~D.held_out(a["game"])).sum() + (~D.held_out(b["game"])).sum()
    other = tmp_path / "other.json"
    random_model(3, players=(2,)).save(other)
    from thurn_ai.learned.model import DEFAULT_PATH
    table = generation.compare({"a": tmp_path / "a", "b": tmp_path / "b"}, {"shipped": DEFAULT_PATH, "other": other})
    whole = table[table["phase"] == "all"].set_index(["data", "model"])
    assert len(whole) == 4
    assert whole.loc["a", "positions"].nunique() == 1          # both models judged on the same positions
    # the log loss of the held-out movers, by hand, for one data set and model
    test = a[D.held_out(a["game"])]
    p = generation.model_said(test, ValueModel.load(other))[test["mover"]].to_numpy()
    y = test[test["mover"]]["won"].to_numpy(float)
    assert whole.loc[("a", "other"), "log_loss"] == pytest.approx(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    assert whole.loc[("a", "other"), "brier"] != whole.loc[("a", "shipped"), "brier"]
    assert len(p) == whole.loc[("a", "other"), "positions"]


# ---------------------------------------------------------------- the win map (the hint's number)

def test_the_win_map_fit_recovers_a_known_map():
    from thurn_ai.learned.win_map import WinMap
    rng = np.random.default_rng(5)
    n = 40000
    share, t = rng.uniform(0.05, 0.95, n), rng.uniform(0, 1, n)
    truth = WinMap(params={3: (-0.3, 0.7, 0.8)})
    won = rng.random(n) < truth.chance(share, t, 3)
    got = WinMap.fit(share, won, t, np.full(n, 3))
    assert np.allclose(got.params[3], truth.params[3], atol=0.08)
    # monotone in the share, and a logit of 0 at a = 0, b = 1 is the identity
    assert WinMap(params={2: (0.0, 1.0, 0.0)}).chance(0.3, 0.5, 2) == pytest.approx(0.3)
    assert np.all(np.diff(got.chance(np.linspace(0.01, 0.99, 50), 0.5, 3)) > 0)


def test_the_win_map_file_round_trips_and_bad_files_are_refused(tmp_path):
    from thurn_ai.learned.win_map import WinMap, WinMapError
    m = WinMap(params={2: (0.1, 0.9, 0.2), 4: (-0.2, 1.1, 0.0)}, meta={"spec": "mcts"})
    m.save(tmp_path / "m.json")
    back = WinMap.load(tmp_path / "m.json")
    assert back.params == m.params and back.meta == m.meta
    for bad in ({"format": "x"}, {"format": "thurn-ai win map", "params": {}},
                {"format": "thurn-ai win map", "params": {"2": [1, 2]}},
                {"format": "thurn-ai win map", "params": {"2": ["a", 1, 2]}}):
        (tmp_path / "bad.json").write_text(json.dumps(bad))
        with pytest.raises(WinMapError):
            WinMap.load(tmp_path / "bad.json")
    with pytest.raises(WinMapError, match="3 players"):
        m.chance(0.5, 0.5, 3)


def test_analyse_shows_the_mapped_win_share_only_for_the_learned_evaluation(monkeypatch):
    from thurn_ai.play import analysis as A
    from thurn_ai.play import win_chance as W
    from thurn_ai.bots.default_search import search_identity
    from thurn_ai.learned.win_map import WinMap
    win_map = WinMap(params={3: (-0.5, 0.5, 0.0)},       # far from the identity: the map must show
                     meta={"identity": search_identity("mcts(eval=learned)")})
    monkeypatch.setattr(W, "win_map_for", lambda opponents="equal": win_map)
    g = thurn_ai.new_game(players=3, seed=4)
    a = A.analyse(g, bot=BotSpec.parse("mcts(eval=learned)"), iterations=200, seed=1)
    assert a.calibrated and a.to_dict()["win_prob_calibrated"] is True
    t = position_features(g)[0]
    for o in a.options:
        assert o.win_prob == pytest.approx(win_map.chance(o.search_win, t, 3))
    raw = A.analyse(g, bot=BotSpec.parse("mcts(eval=simple)"), iterations=200, seed=1)
    assert not raw.calibrated and all(o.win_prob == o.search_win for o in raw.options)
    # a player count the map was not fitted for is reported raw, and said to be
    four = A.analyse(thurn_ai.new_game(players=4, seed=4), bot=BotSpec.parse("mcts(eval=learned)"), iterations=100,
                     seed=1)
    assert not four.calibrated and all(o.win_prob == o.search_win for o in four.options)


def test_the_report_measures_the_win_map_out_of_fold(monkeypatch):
    from thurn_ai.studies.learned import report as mod
    rng = np.random.default_rng(0)
    movers = pd.DataFrame({"players": 2, "game": np.repeat(np.arange(0, 100, 5), 10),
                           "hint": rng.uniform(0.1, 0.9, 200), "progress": rng.uniform(0, 1, 200)})
    movers["won"] = (rng.random(200) < movers["hint"]).astype(int)
    movers.loc[3, "hint"] = np.nan                      # a position with one legal move: not searched
    fitted_on = []
    real_fit = mod.fit_win_map
    monkeypatch.setattr(mod, "fit_win_map", lambda m, meta=None: fitted_on.append(set(m["game"])) or real_fit(m))
    mapped = mod.out_of_fold(movers, folds=5)
    assert len(fitted_on) == 5 and np.isnan(mapped[3]) and mapped.drop(3).notna().all()
    # every game is mapped by a fit that did not see it, and each fit saw the four other folds
    seen_by = {g: sum(g in s for s in fitted_on) for g in movers["game"].unique()}
    assert set(seen_by.values()) == {4}
