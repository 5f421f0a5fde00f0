"""The halving root's adoption verdict: settled once the paired cells fail condition (1)."""
from pathlib import Path

from thurn_ai.studies import search_root as S
from thurn_ai.studies.search_root_report import verdict

RESULTS = Path(__file__).resolve().parents[2] / "results" / "search_root"


def test_a_failed_first_condition_settles_the_verdict_before_the_head_to_head():
    assert "pending" in verdict({"adopt": False, "complete": False, "first_fails": False})
    said = verdict({"adopt": False, "complete": False, "first_fails": True})
    assert "not adopted" in said and "condition (1) fails" in said
    assert "**adopted**" in verdict({"adopt": True, "complete": True, "first_fails": False})
    # every cell in, (1) holds, the head to head's interval reaches zero: the second condition is named
    said = verdict({"adopt": False, "complete": True, "first_fails": False,
                    "h2h_pooled": {"excess": 0.026, "low": -0.001, "high": 0.052}})
    assert "not adopted" in said and "condition (2) fails" in said and "+2.6 [-0.1, +5.2]" in said


def test_the_committed_cells_give_the_verdict_the_docs_state():
    data = S.summary(RESULTS / "runs")
    paired = [c for c in S.CELLS if c.name.startswith(("base_", "halving_"))]
    assert all(data["cells"][c.name]["games"] == c.games for c in paired)
    assert data["first_fails"] == (data["pooled"]["low"] <= 0) and not data["adopt"]
    docs = (RESULTS.parents[1] / "docs" / "results.md").read_text(encoding="utf-8")
    assert ("(not adopted)" in docs) == data["first_fails"]


def paired_with_the_anchors_cells(spec: str, prefix: str, file_option: str) -> tuple[dict, dict]:
    """Check a candidate's cells (prefix_p{n} against heuristic, prefix_h2h_p{n} against anchor-1k) play the
    anchor's cells' deals; return the search identities of anchor-1k and of the candidate (its weights file
    read from the repository's root, as the experiment runs)."""
    from thurn_ai.bots.default_search import search_identity
    from thurn_ai.bots.spec import BotSpec
    mine = [c for c in S.CELLS if c.spec == spec and c.seed == S.SEED]
    assert {c.name for c in mine} == {f"{prefix}_p{n}" for n in S.GAMES} | {f"{prefix}_h2h_p{n}" for n in S.GAMES}
    for c in mine:
        base = S.BY_NAME[f"base_p{c.players}"]
        assert (c.seed, c.games, c.board) == (base.seed, base.games, base.board)
        assert c.others == ("anchor-1k" if "h2h" in c.name else "heuristic")
    parsed = BotSpec.parse(spec)
    here = parsed.with_(**{file_option: str(RESULTS.parents[1] / parsed.option(file_option))})
    return search_identity(BotSpec.parse("anchor-1k")), search_identity(here)


def test_generation_3_is_paired_with_the_anchors_cells_on_their_deals():
    # the candidate is the frozen default but for the prior's weights file
    anchor, gen3 = paired_with_the_anchors_cells(S.GEN3, "gen3", "pmodel")
    assert gen3["options"] == anchor["options"]
    assert gen3["files"]["value"] == anchor["files"]["value"] and gen3["files"]["prior"] != anchor["files"]["prior"]


def test_the_route_tiles_candidate_is_the_anchor_but_for_its_evaluation_and_playout_on_the_anchors_deals():
    anchor, tiles = paired_with_the_anchors_cells(S.TILES, "tiles", "model")
    differ = {k for k in set(anchor["options"]) | set(tiles["options"])
              if anchor["options"].get(k) != tiles["options"].get(k)}
    assert differ == {"playout"} and tiles["options"]["playout"] == "heuristic-tiles"
    assert tiles["files"]["prior"] == anchor["files"]["prior"] and tiles["files"]["value"] != anchor["files"]["value"]


def test_the_route_tiles_verdict_waits_for_its_cells_and_is_settled_by_a_failed_first_condition(tmp_path,
                                                                                              monkeypatch):
    import dataclasses
    small = [dataclasses.replace(c, games=6) for c in S.CELLS]      # six games a cell stand for a full one
    monkeypatch.setattr(S, "CELLS", small)
    monkeypatch.setattr(S, "BY_NAME", {c.name: c for c in small})
    data = S.summary(tmp_path)
    assert not data["tiles"]["complete"] and not data["tiles"]["adopt"] and not data["tiles"]["first_fails"]
    # every paired cell in, the candidate no better than the anchor: (1) fails and settles the verdict
    for n in S.GAMES:
        for name, spec in ((f"base_p{n}", "anchor-1k"), (f"tiles_p{n}", S.TILES)):
            others = {f"heuristic #{k}" if k > 1 else "heuristic": [20] * 6 for k in range(1, n)}
            _cell_results(tmp_path, S.BY_NAME[name], {spec: [20, 10] * 3, **others})
    data = S.summary(tmp_path)
    assert data["tiles"]["first_fails"] and not data["tiles"]["adopt"]
    assert "condition (1) fails" in verdict(data["tiles"])


def _cell_results(folder: Path, cell, scores: dict[str, list[int]]) -> None:
    """A played cell's results.csv: game g seats the bots in `scores` in order, with scores[bot][g]."""
    import pandas as pd
    from thurn_ai.play.tournament import store
    strategy = [c for cols in S.STRATEGY.values() for c in cols]
    blank = dict.fromkeys(store.ID_COLUMNS + store.RESULT_COLUMNS + store.AFTER_TILES + store.USE_COLUMNS
                          + strategy, 0)
    games = range(len(next(iter(scores.values()))))
    best = [max(s[g] for s in scores.values()) for g in games]
    tied = [sum(s[g] == best[g] for s in scores.values()) for g in games]
    rows = [{**blank, "game": g + 1, "seat": seat, "bot": bot + (f" #{seat}" if seat else ""), "spec": bot,
             "players": len(scores), "score": s[g], "win": int(s[g] == best[g]),
             "win_share": (s[g] == best[g]) / tied[g], "truncated": False}
            for g in games for seat, (bot, s) in enumerate(scores.items())]
    (folder / cell.name).mkdir(parents=True)
    pd.DataFrame(rows).to_csv(folder / cell.name / "results.csv", index=False)


def test_the_population_rating_orders_the_bots_by_how_their_games_ended(tmp_path):
    # anchor-1k always outscores heuristic, gen3 always outscores anchor-1k: a chain the rating must follow
    # though gen3 never met heuristic; a count with no cell played is left out
    _cell_results(tmp_path, S.BY_NAME["base_p2"], {"anchor-1k": [20] * 30, "heuristic": [10] * 30})
    _cell_results(tmp_path, S.BY_NAME["gen3_h2h_p2"], {S.GEN3: [25] * 30, "anchor-1k": [15] * 30})
    rated = S.ratings(tmp_path)
    assert set(rated) == {2}
    table = rated[2]
    assert list(table.sort_values("mu", ascending=False).index) == [S.GEN3, "anchor-1k", "heuristic"]
    assert table.loc["anchor-1k", "games"] == 60 and table.loc["heuristic", "games"] == 30
    # the summary keys them by their short names, as the findings do
    assert set(S.summary(tmp_path)["ratings"][2]) == {"gen3", "anchor-1k", "heuristic"}


def test_the_second_replicate_plays_new_deals_and_looks_at_half_the_level(tmp_path):
    second = [c for c in S.CELLS if c.seed == S.SEED_R2]
    assert {c.name for c in second} == {f"gen3_h2h_r2_p{n}" for n in S.GAMES}
    assert all(c.spec == S.GEN3 and c.others == "anchor-1k" and c.games == S.GAMES[c.players] for c in second)
    assert S.SEED_R2 not in {c.seed for c in S.CELLS if c not in second}
    # generation 3 wins 60% of the first replicate's 2-player games and 70% of the second's
    win = {"first": [25, 15, 25, 15, 25] * 6, "second": [25, 25, 15, 25, 25, 25, 15, 25, 15, 25] * 3}
    for name, key in (("gen3_h2h_p2", "first"), ("gen3_h2h_r2_p2", "second")):
        _cell_results(tmp_path, S.BY_NAME[name], {S.GEN3: win[key], "anchor-1k": [20] * 30})
    data = S.summary(tmp_path)
    r = data["gen3"]["replicate"]
    assert r["h2h"][2]["games"] == 30 and abs(r["h2h"][2]["excess"] - 0.2) < 1e-9
    assert r["both"]["games"] == 60 and abs(r["both"]["excess"] - 0.15) < 1e-9
    # the second look's interval is the 97.5% one: wider than the 95% interval of the same games
    wide = S.excess(tmp_path, [S.BY_NAME["gen3_h2h_p2"], S.BY_NAME["gen3_h2h_r2_p2"]])
    assert r["both"]["low"] < wide["low"] and r["both"]["high"] > wide["high"]
    # cells of 3 and 4 players missing: no verdict yet, whatever the interval
    assert not r["complete"] and not r["adopt"]
    from thurn_ai.studies.search_root_report import second_look_verdict
    assert "pending" in second_look_verdict(r)
    assert "**adopted**" in second_look_verdict({**r, "complete": True, "adopt": True})
    said = second_look_verdict({**r, "complete": True, "adopt": False,
                                "both": {"excess": 0.02, "low": -0.004, "high": 0.044}})
    assert "not adopted" in said and "+2.0 [-0.4, +4.4]" in said


def test_the_paired_comparison_measures_both_sides_scores_and_the_route_tile_points_game_by_game(tmp_path):
    import pandas as pd
    from thurn_ai.studies.pages import _candidate_numbers
    _cell_results(tmp_path, S.BY_NAME["base_p2"], {"anchor-1k": [20, 10] * 5, "heuristic": [15] * 10})
    _cell_results(tmp_path, S.BY_NAME["tiles_p2"], {S.TILES: [23, 12] * 5, "heuristic": [16, 18] * 5})
    # the candidate's seat closes a 7-city route (7 points of route tiles) in every other game, the anchor never
    path = tmp_path / "tiles_p2" / "results.csv"
    df = pd.read_csv(path)
    df.loc[(df["spec"] == S.TILES) & (df["game"] % 2 == 1), "tile_route7"] = 7
    df.to_csv(path, index=False)
    d = S.summary(tmp_path)["tiles"]["paired"][2]
    assert d["games"] == 10 and d["win_share"] == 0
    assert abs(d["score"] - 2.5) < 1e-9 and abs(d["others_score"] - 2) < 1e-9 and abs(d["route_tiles"] - 3.5) < 1e-9
    assert d["route_tiles_low"] < 3.5 < d["route_tiles_high"]
    numbers = _candidate_numbers("tiles.", "route tiles", {"paired": {2: d}, "pooled": None, "h2h_pooled": None})
    assert numbers["tiles.route_tiles.p2"].text().startswith("+3.50 [")
    assert numbers["tiles.others_score.p2"].value == d["others_score"] and numbers["tiles.score.p2"].games == 10


def test_games_played_counts_a_cells_complete_games_only(tmp_path):
    import pandas as pd
    from thurn_ai.studies.expert.measure import games_played
    cell = S.BY_NAME["base_p2"]
    assert games_played(tmp_path, cell) == 0
    _cell_results(tmp_path, cell, {"anchor-1k": [20, 10, 15], "heuristic": [10, 20, 15]})
    assert games_played(tmp_path, cell) == 3
    # a game cut off after its first seat's row is not complete
    path = tmp_path / cell.name / "results.csv"
    df = pd.read_csv(path)
    pd.concat([df, df.iloc[[0]].assign(game=4)]).to_csv(path, index=False)
    assert games_played(tmp_path, cell) == 3
