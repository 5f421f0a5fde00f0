"""Value at the moment of choice (thurn_ai/studies/officials/choice.py), the strong study's tooling
(experiments/officials.py) and the CLI's --part choice, on tiny budgets."""
import json
import math
import subprocess
from pathlib import Path

from thurn_ai.bots.spec import BotSpec

import pandas as pd
import pytest

from thurn_ai.studies.officials.findings import StudyFindings
from thurn_ai.play.match import use_column
from thurn_ai.studies import officials as S
from thurn_ai.studies.officials import records, run
from thurn_ai.game.officials import STAGES
from thurn_ai.studies.officials.plan import choice_bots, with_forbid
from thurn_ai.studies.officials.tables import bot_comparison
from thurn_ai.cli import main
from thurn_ai.game.officials import OFFICIALS
from thurn_ai.play.match import position_at
from thurn_ai.studies.officials.choice import (META_FILE, ROWS_FILE, ChoiceSettings, load_choice,
                                             rate_decision, read_game_records, run_choice)
from thurn_ai.position import load_position, position_from_dict
from thurn_ai.play.tournament import run_tournament

from tests.helpers import experiment

ROOT = Path(__file__).resolve().parents[2]
TINY = ChoiceSettings(bot=BotSpec.parse("mcts(iterations=30)"), seed=5)


def official_by_text(phase: str, text: str):
    """The official a move uses, read from its text and the decision phase (independently of official_of)."""
    word = text.split()[0]
    if text in ("administrator", "cartwright"):
        return text
    if phase == "play" and word == "draw":
        return "postmaster"
    if phase == "after_play" and word in ("left", "right", "new", "horse"):
        return "postal_carrier"
    return None


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """Two 2-player games of the heuristic bot, their records, and every decision rated uninterrupted."""
    base = tmp_path_factory.mktemp("choice")
    run_tournament(["heuristic", "heuristic"], players=2, games=2, seed=3, jobs=1, out_dir=base / "t",
                   progress=False)
    records = base / "t" / "records.jsonl"
    rows = run_choice(records, base / "full", TINY, games=2, source="2p_none")
    return {"base": base, "records": records, "rows": rows,
            "recs": {g: rec for g, (_line, rec) in read_game_records(records).items()}}


def test_a_row_exactly_where_an_official_is_on_offer(games):
    expected = set()
    for g, rec in games["recs"].items():
        state = position_at(rec, 0)
        for i, text in enumerate(rec.moves):
            used = {official_by_text(state.phase, state.move_str(m)) for m in state.legal_moves()}
            for o in used - {None}:
                if len(used) > 1:                  # a move without this official exists too
                    expected.add((g, i, o))
            state.apply(text)
    got = set(zip(games["rows"].game, games["rows"].move, games["rows"].official))
    assert got == expected
    assert {o for _g, _i, o in expected} >= {"postmaster", "administrator", "postal_carrier"}


def test_best_with_uses_the_official_and_best_without_does_not(games):
    rows = games["rows"]
    checked = 0
    for r in rows.itertuples():
        state = position_at(games["recs"][r.game], r.move)
        assert state.current_player == r.seat
        for side, uses in (("with", True), ("without", False)):
            text = getattr(r, f"{side}_move")
            m = state.parse_move(text)
            assert state.is_legal(m)
            assert (official_by_text(state.phase, state.move_str(m)) == r.official) is uses, (r.official, side, text)
            # the side's whole budget went to its own moves (a restricted search, not a share of one)
            assert 0 < getattr(r, f"{side}_visits") <= 30
            checked += 1
        # the move the game went on with, and whether it used the official
        assert r.played == games["recs"][r.game].moves[r.move]
        assert r.used == (official_by_text(state.phase, r.played) == r.official)
        assert r.iterations == 30                     # each side searched with the whole budget
        assert r.best_uses == ((r.with_win, r.with_score) > (r.without_win, r.without_score))
        assert r.best == (r.with_move if r.best_uses else r.without_move)
    assert checked == 2 * len(rows)                  # every row has both sides rated
    assert rows.d_win.notna().all()
    assert (rows.d_win == rows.with_win - rows.without_win).all()
    # the Administrator is rated though an unrestricted search hardly tries it
    adm = rows[rows.official == "administrator"]
    assert len(adm) and (adm.with_move == "administrator").all() and (adm.with_visits == 30).all()


def test_no_information_leak_hidden_cards_do_not_change_the_rating(games):
    # a decision at which the opponent holds cards the player to move has not seen: complete positions
    # consistent with that player's view, dealt with other seeds, give the opponent other cards
    for row in games["rows"][games["rows"].official == "postmaster"].itertuples():
        state = position_at(games["recs"][row.game], row.move)
        p = state.current_player
        view = state.to_dict(viewer=p)
        other = [position_from_dict(view, seed=s) for s in (11, 12)]
        hands = [json.dumps(g.hand(1 - p), sort_keys=True) for g in (state, *other)]
        if len(set(hands)) == 3:
            break
    else:
        pytest.fail("no decision with hidden opponent cards")
    ratings = [rate_decision(g, TINY, seed=77) for g in (state, *other)]
    assert ratings[0] == ratings[1] == ratings[2]
    # ... while another seed of the search gives another rating (the comparison can fail)
    assert rate_decision(state, TINY, seed=78) != ratings[0]


def test_resume_gives_the_same_rows_as_an_uninterrupted_run(games, tmp_path):
    out = tmp_path / "resumed"
    first = run_choice(games["records"], out, TINY, games=1, source="2p_none")
    assert set(first.game) == {1}
    # a kill while game 2 was being written: some of its rows, no 'done' line, a cut last line
    part = games["rows"][games["rows"].game == 2].head(3)
    with open(out / ROWS_FILE, "a", encoding="utf-8") as f:
        for r in part.to_dict("records"):
            f.write(json.dumps({"row": {k: (None if isinstance(v, float) and math.isnan(v) else v)
                                        for k, v in r.items()}}, default=int) + "\n")
        f.write('{"row": {"players": 2, "ga')
    again = run_choice(games["records"], out, TINY, games=2, source="2p_none", resume=True)
    pd.testing.assert_frame_equal(again, games["rows"])
    assert (out / ROWS_FILE).read_text(encoding="utf-8").endswith('"rows": %d}\n' % (games["rows"].game == 2).sum())
    pd.testing.assert_frame_equal(load_choice(out), games["rows"])     # read back without rating anything
    # other settings in the same folder are refused, and so is a second run without resume
    with pytest.raises(S.StudyError, match="other settings"):
        other = ChoiceSettings(bot=BotSpec.parse("mcts(iterations=31)"))
        run_choice(games["records"], out, other, games=2, source="2p_none", resume=True)
    with pytest.raises(S.StudyError, match="already holds"):
        run_choice(games["records"], out, TINY, games=2, source="2p_none")


def test_example_positions_open_in_hint(games, tmp_path, capsys):
    saved = S.save_choice(games["rows"], tmp_path, {(2, "2p_none"): games["recs"]}, prefix="t_")
    ex = saved["examples"]
    assert len(ex) >= 3 and set(ex.official) <= set(OFFICIALS)
    assert (ex.groupby("official").size() <= 3).all()
    for r in ex.itertuples():
        path = tmp_path / r.file
        state, viewer = load_position(path)
        assert viewer == r.seat == state.current_player        # the view of the player to move
        assert r.with_move in [state.move_str(m) for m in state.legal_moves()]
    with pytest.raises(SystemExit) as e:
        main(["hint", str(tmp_path / ex.file.iloc[0]), "--iterations", "20"])
    assert e.value.code == 0
    assert f"seat {ex.seat.iloc[0]}'s view" in capsys.readouterr().out
    md = S.build_report(StudyFindings({"toy": S.analyse(_tiny_ablation())}, main_study="toy",
                                      choice={"toy": {**saved, "search": {2: "mcts(iterations=30)"},
                                                      "games": {2: 2}}}))
    assert "Value at the moment of choice" in md and "## Summary" in md and "## Appendix" in md
    assert f"]({ex.file.iloc[0]})" in md
    assert "too small" in md          # two games: some cells are too small to rely on, and the report says so
    assert saved["plots"] and all((tmp_path / p).stat().st_size > 1000 for p in saved["plots"])


def _tiny_ablation():
    rows = []
    for off in ("none", *OFFICIALS):
        for g in (1, 2):
            for seat in (0, 1):
                r = {"players": 2, "official": off, "game": g, "seed": g, "seat": seat,
                     "bot": "x" if off == "none" or seat != g - 1 else f"x(forbid={off})",
                     "restricted": off != "none" and seat == g - 1, "score": 20.0 + seat + g,
                     "win": int(seat == g - 1), "rank": 1 if seat == g - 1 else 2, "turns": 40}
                r.update({use_column(o, ph): 1 for o in OFFICIALS for ph in STAGES})
                rows.append(r)
    return pd.DataFrame(rows)


def test_given_away_counts_only_clear_wrong_choices():
    base = {"source": "s", "players": 2, "phase": "early"}
    rows = pd.DataFrame([
        {**base, "game": 1, "official": "postmaster", "used": False, "d_win": 0.30, "se_win": 0.05},   # clear miss
        {**base, "game": 1, "official": "postmaster", "used": True, "d_win": -0.20, "se_win": 0.05},   # clear misuse
        {**base, "game": 1, "official": "postmaster", "used": False, "d_win": 0.05, "se_win": 0.05},   # noise
        {**base, "game": 1, "official": "postmaster", "used": True, "d_win": 0.40, "se_win": 0.05},    # right
        {**base, "game": 1, "official": "postmaster", "used": True, "d_win": math.nan, "se_win": math.nan},
    ])
    usage = pd.DataFrame([{"players": 2, "official": "postmaster", "total": 3.0, "share_of_turns": 0.5}])
    t = bot_comparison({"h": usage}, {}, {"h": rows}).iloc[0]
    assert t.h_given_away == pytest.approx((0.30 + 0.20) / 2)     # per player-game: 1 game x 2 players
    assert t.h_offered == pytest.approx(5 / 2) and t.h_rated == 4
    assert t.h_agree == pytest.approx(1 / 4) and t.h_taken == pytest.approx(3 / 5)   # only the last agrees


# ------------------------------------------------------------------ the CLI

def test_cli_part_choice_smoke(tmp_path, capsys):
    out = tmp_path / "study"
    with pytest.raises(SystemExit) as e:
        main(["officials", "--bot", "heuristic", "--part", "choice", "--games", "2", "--players", "2",
              "--choice-games", "1", "--choice-iterations", "20", "--jobs", "1", "--quiet", "--out", str(out)])
    assert e.value.code == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    assert "value at the moment of choice" in text and "Postmaster" in text
    rows = pd.read_parquet(out / "choices.parquet")
    assert set(rows.game) == {1} and (rows.iterations <= 20).all()
    assert "iterations=20" in rows.search.iloc[0]
    assert json.loads((out / "raw" / "choice_2p" / META_FILE).read_text())["settings"]["bot"].startswith("mcts(")
    md = (out / "report.md").read_text()
    assert "## Value at the moment of choice" in md and "## Summary" in md


def test_cli_parts_turns_and_validation(tmp_path, capsys):
    out = tmp_path / "study"
    base = ["officials", "--bot", "mcts(iterations=8)", "--players", "2", "--jobs", "1", "--quiet", "--out", str(out)]
    with pytest.raises(SystemExit) as e:                 # the turn question needs the control games
        main([*base, "--part", "turns"])
    assert e.value.code == 2 and "play the control games first" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main([*base, "--part", "ablation", "--games", "2", "--officials", "postmaster"])
    assert e.value.code == 0, capsys.readouterr().err
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main([*base, "--part", "turns", "--choice-games", "1", "--choice-iterations", "8"])
    assert e.value.code == 0, capsys.readouterr().err
    assert "Which official this turn" in capsys.readouterr().out
    table = pd.read_csv(out / "turns.csv")
    assert "none" in set(table.option) and (out / "turns.md").read_text().startswith("## Which official")
    with pytest.raises(SystemExit) as e:
        main([*base, "--part", "validation", "--validation-games", "2"])
    assert e.value.code == 0, capsys.readouterr().err
    assert "## Validation by play" in capsys.readouterr().out
    v = pd.read_csv(out / "validation.csv")
    assert sorted(v.rating) == ["first", "fresh"] and (v.games == 2).all()
    with pytest.raises(SystemExit) as e:                 # --controls adds each rating's control, resuming the rest
        main([*base, "--part", "validation", "--validation-games", "2", "--controls"])
    assert e.value.code == 0, capsys.readouterr().err
    assert "rating − its control, paired" in capsys.readouterr().out
    v = pd.read_csv(out / "validation.csv")
    assert sorted(v.rating) == ["control-first", "control-fresh", "first", "fresh"]
    assert (v[v.rating.isin(["first", "fresh"])].pairs == 2).all()
    # the rated bot follows the search's rating: a bot without one is one error line, before any game
    with pytest.raises(SystemExit) as e:
        main(["officials", "--bot", "heuristic", "--part", "validation", "--validation-games", "2", "--players",
              "2", "--quiet"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith("error:") and "mcts" in err and "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["--part", "choice"], "needs --out"),
    (["--part", "turns"], "needs --out"),
    (["--part", "bogus", "--out", "x"], "bogus"),
    (["--budget", "300"], "for a bot that searches"),
    (["--bot", "mcts", "--budget", "5=300"], "2, 3 or 4"),
    (["--bot", "mcts", "--budget", "2=lots"], "expected iterations"),
    (["--choice-iterations", "0", "--part", "choice", "--out", "x"], "0"),
    (["--from", "x.parquet", "--part", "choice"], "--part ablation"),
    # an option the part does not read is refused, not ignored (--games does not size the validation)
    (["--part", "validation", "--games", "4"], "--games is not read by --part validation"),
    (["--part", "turns", "--games", "4", "--out", "x"], "--games is not read by --part turns"),
    (["--part", "ablation", "--controls"], "--controls is not read by --part ablation"),
    (["--part", "choice", "--validation-games", "4", "--out", "x"], "--validation-games is not read"),
    (["--part", "validation", "--choice-games", "4"], "--choice-games is not read"),
    (["--part", "turns", "--officials", "postmaster", "--out", "x"], "--officials is not read"),
])
def test_cli_bad_choice_input_is_one_error_line(capsys, args, message):
    with pytest.raises(SystemExit) as e:
        main(["officials", "--players", "2", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and message in err and "Traceback" not in err


def test_study_specs_per_player_count():
    bots = S.study_bots(BotSpec.parse("mcts"), (2, 4), "2=1000,4=3000")
    assert bots[2].option("iterations") == 1000 and bots[4].option("iterations") == 3000 and "prior=" in str(bots[2])
    assert str(with_forbid(bots[4], "cartwright")).endswith(",forbid=cartwright)")
    assert S.study_bots(BotSpec.parse("heuristic"), (3,)) == {3: BotSpec("heuristic", {})}
    assert str(choice_bots({3: BotSpec.parse("heuristic")}, None)[3]).startswith("mcts(")
    assert choice_bots(bots, 77)[2].option("iterations") == 77


# ------------------------------------------------------------------ the experiment script

def _experiment():
    return experiment("officials")


def test_the_experiment_refuses_a_dirty_tree(tmp_path, monkeypatch, capsys):
    exp = _experiment()
    repo = tmp_path / "repo"
    (repo / "src" / "thurn_ai").mkdir(parents=True)
    (repo / "src" / "thurn_ai" / "x.py").write_text("A = 1\n")
    (repo / "results").mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], cwd=repo, check=True)
    assert exp.check_clean(repo) == []
    (repo / "results" / "data.csv").write_text("not code\n")       # results are not code
    assert exp.check_clean(repo) == []
    (repo / "src" / "thurn_ai" / "x.py").write_text("A = 2\n")
    (repo / "src" / "thurn_ai" / "new.py").write_text("B = 1\n")
    with pytest.raises(exp.DirtyTree, match="src/thurn_ai/new.py, src/thurn_ai/x.py"):
        exp.check_clean(repo)
    assert exp.check_clean(repo, allow_dirty=True) == ["src/thurn_ai/new.py", "src/thurn_ai/x.py"]
    monkeypatch.setattr(exp, "ROOT", repo)
    assert exp.main(["--part", "report", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: uncommitted changes") and "--allow-dirty" in err
    assert not (tmp_path / "out").exists()
    # with --allow-dirty the report says it is not reproducible
    md = S.build_report(StudyFindings({"toy": S.analyse(_tiny_ablation())}, dirty="thurn_ai/x.py", commit="abc"))
    assert "Not a reproducible result" in md and "thurn_ai/x.py" in md


def test_the_experiment_runs_a_subset_of_player_counts(monkeypatch, capsys):
    exp = _experiment()
    heuristic, search = run.studies(run.SEARCH_BUDGET, run.SEARCH_GAMES, None, players=(2, 3))
    assert search.players == (2, 3) and set(search.choice_games) == {2, 3} and set(search.bots()) == {2, 3}
    assert "4 players" not in search.budget_text
    assert heuristic.players == (2, 3, 4) and set(heuristic.choice_games) == {2, 3}
    # the report shows rated decisions of every count saved, so it needs each count's rating search
    only4 = run.studies(run.SEARCH_BUDGET, run.SEARCH_GAMES, None, players=(4,))[1]
    rating = run.rating_searches(only4)
    assert set(rating) == {2, 3, 4} and all(rating[n].option("iterations") == run.SEARCH_BUDGET[n] for n in (2, 3, 4))
    assert set(run.rating_searches(only4, every_count=False)) == {4}
    monkeypatch.setattr(exp, "check_clean", lambda root, allow_dirty=False: [])
    for bad in ("5", "2,x", ""):
        with pytest.raises(SystemExit) as e:
            exp.main(["--players", bad, "--part", "report"])
        assert e.value.code == 2
        assert "--players" in capsys.readouterr().err


def test_every_part_of_a_run_records_the_code_it_started_with(monkeypatch, tmp_path):
    """A long run loads its code once; a commit or an edit made while it goes on must not be written into
    runs.json as the code a later part played with."""
    exp = _experiment()
    states = iter(["abc1234", "def5678 with uncommitted changes to thurn_ai/stats.py"])
    monkeypatch.setattr(exp, "check_clean", lambda root, allow_dirty=False: [])
    monkeypatch.setattr(exp, "code_state", lambda root=exp.ROOT: next(states))
    seen = []
    # every part is run through run.timed, which keeps the code it played with in runs.json
    monkeypatch.setattr(run, "timed", lambda out, key, played_with, part, *a, **k:
                        seen.append((part.__name__.removeprefix("play_"), played_with)))
    monkeypatch.setattr(run, "print_costs", lambda *a: seen.append(("cost", None)))
    monkeypatch.setattr(run, "report", lambda *a, **k: None)
    assert exp.main(["--out", str(tmp_path), "--players", "2"]) == 0
    assert [p for p, _ in seen] == ["cost"] + ["ablation"] * 2 + ["choice"] * 2 + ["validation", "turns"]
    assert {w for _, w in seen[1:]} == {"abc1234"}


def test_the_report_names_what_the_search_study_still_lacks():
    done = {"search": dict(run.SEARCH_CHOICE_GAMES), "heuristic": dict(run.HEURISTIC_CHOICE_GAMES)}
    full = {n: run.rotation_games(run.SEARCH_GAMES, n) for n in (2, 3, 4)}
    assert run.unfinished_note(full, done) == []
    # 4 players: half the ablation, no rated decisions; 3 players: one heuristic game short
    short = {**done, "search": {2: 100, 3: 100}, "heuristic": {2: 50, 3: 49}}
    note, = run.unfinished_note({**full, 4: 100}, short)
    assert "at 4 players the ablation has 100 of its 200 games a tournament" in note
    assert "rated 0 of 100 search control games and 0 of 50 heuristic control games" in note
    assert "at 3 players the value at the moment of choice has rated 49 of 50 heuristic" in note
    assert "at 2 players" not in note and "python experiments/officials.py" in note
    note, = run.unfinished_note({2: 200, 3: 201}, done)
    assert ("at 4 players the ablation is not played yet (200 games a tournament, "
            f"{run.SEARCH_BUDGET[4]} iterations") in note


def test_played_per_tournament_counts_only_complete_designs():
    rows = [{"players": 4, "official": o, "game": g} for o in ("none",) + run.OFFICIALS for g in range(1, 4)]
    rows = [r for r in rows if not (r["official"] == "cartwright" and r["game"] == 3)]
    rows += [{"players": 2, "official": "none", "game": 1}]          # 2 players: only the control so far
    got = run.played_per_tournament(pd.DataFrame(rows))
    assert got == {4: 2, 2: 0}
    assert run.played_per_tournament(None) == {}


def test_the_replay_check_finds_a_game_that_differs(monkeypatch):
    from thurn_ai.bots import make_bot
    from thurn_ai.play.match import play_game
    from thurn_ai.game.rules import Rules
    rows = []
    for game, seed in ((1, 11), (2, 12)):
        rec = play_game(Rules(players=2),
                        [make_bot("heuristic(forbid=cartwright)", seed=0), make_bot("heuristic", seed=0)], seed=seed)
        rows += [{"players": 2, "official": "cartwright", "game": game, "seed": seed, "seat": k,
                  "restricted": k == 0, "score": rec.scores[k], "turns": rec.turns} for k in range(2)]
    df = pd.DataFrame(rows)
    assert records.replay(df, 1)[:2] == (2, 0)
    df.loc[3, "score"] += 1                              # game 2, seat 1: recorded one point more
    same, differ, notes = records.replay(df, 1)
    assert (same, differ) == (1, 1) and "game 2" in notes[0]
    assert records.replay(df, 2)[:2] == (1, 0)               # every 2nd game: only game 1
    # the report's note says what the check found
    monkeypatch.setattr(run, "replay", lambda games, every: (1, 1, []))
    assert "2 games, 1 differ, so these results do not reproduce" in run.replay_note(df, "abc1234")
    monkeypatch.setattr(run, "replay", lambda games, every: (2, 0, []))
    assert "commit abc1234: 2 games, all gave the same scores" in run.replay_note(df, "abc1234")


def test_the_players_summary_says_when_using_an_official_now_costs_in_every_phase():
    from thurn_ai.studies.officials.report_text import choice_sentences
    rows = []
    for phase, d in (("early", -0.01), ("middle", -0.03), ("late", -0.02), ("all", -0.02)):
        rows.append({"players": 2, "official": "postmaster", "phase": phase, "rated": 100, "decisions": 100,
                     "right": 0.4, "d_win_mean": d, "d_win_median": d / 2, "unit": "Δ evaluation"})
        rows.append({"players": 2, "official": "cartwright", "phase": phase, "rated": 100, "decisions": 100,
                     "right": 0.9, "d_win_mean": -d, "d_win_median": -d / 2, "unit": "Δ evaluation"})
    text = " ".join(choice_sentences(pd.DataFrame(rows)))
    assert "against the best move without it at the same decision" in text          # what it is compared with
    assert "worse in every phase, least in the early game (Δ evaluation -1.0 pp on average there, median -0.5" \
        in text
    assert "worth most in the middle game (Δ evaluation +3.0 pp on average there, median +1.5" in text
    assert "re-rating" not in text                                    # no fresh rating in these rows
    # with the independent re-rating, its share and its Δ speak (the first rating's share is said beside it)
    fresh = pd.DataFrame(rows).assign(fresh_rated=100, fresh_right=0.55, fresh_d_win_mean=lambda r: -r.d_win_mean,
                                      fresh_d_win_median=0.002, unit="Δ win chance (calibrated)")
    text = " ".join(choice_sentences(fresh))
    assert "the better move in 40.0% of the 100 positions the search rated by the first rating, 55.0% by the " \
        "independent re-rating" in text
    assert "Postmaster** when it is on offer" in text and "worth most in the middle game (Δ win chance " \
        "(calibrated) +3.0 pp on average there, median +0.2" in text
    # where play found the search's own choices better, its take rate leads and the rating is said not to be
    # followed
    by_phase = fresh.assign(used=fresh.phase.map({"early": 0.8, "middle": 0.6, "late": 0.4, "all": 0.7}))
    player = " ".join(choice_sentences(by_phase, "player"))
    assert "Postmaster** when it is on offer: the search uses it at 70.0% of its offers" in player
    assert "The rating, not to be followed" in player and "40.0% of the 100 positions" in player
    # ... and by phase the search's own use, not the rejected rating's Δ (which would read as advice)
    assert "the search uses it 80.0% in the early game, 60.0% in the middle game, 40.0% in the late game" in player
    assert "worth most" not in player and "worse in every phase" not in player
    assert "not to be followed" not in text


def test_a_saved_tournament_replays_move_by_move_and_a_changed_move_is_found(tmp_path, capsys):
    mod = experiment("officials_replay")
    from thurn_ai.play.tournament import run_tournament
    folder = tmp_path / "t"
    run_tournament(["mcts(iterations=15)", "heuristic"], players=2, games=4, seed=3, jobs=1, out_dir=str(folder),
                   progress=False)
    assert records.replay_tournament(folder, 1)[:2] == (4, 0)
    assert records.replay_tournament(folder, 3)[:2] == (2, 0)          # games 1 and 4
    lines = (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[1])
    rec["moves"][5] = "draw deck" if rec["moves"][5] != "draw deck" else "close"
    lines[1] = json.dumps(rec)
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    same, differ, notes = records.replay_tournament(folder, 1)
    assert (same, differ) == (3, 1) and f"game {rec['game']}: first differs at move 6" in notes[0]
    assert mod.main(["--tournament", str(folder), "--every", "1"]) == 1
    assert "3 of 4 sampled games replay move by move" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        mod.main(["--tournament", str(tmp_path)])              # not a tournament folder
    assert "not a tournament folder" in capsys.readouterr().err


def test_the_report_replays_two_games_of_each_search_tournament(tmp_path):
    from thurn_ai.play.tournament import run_tournament
    assert run.search_replay_note(tmp_path, "abc1234") is None           # nothing saved: no note
    for name, games in (("2p_none", 4), ("2p_cartwright", 3)):
        run_tournament(["mcts(iterations=10)", "mcts(iterations=10,forbid=cartwright)"], players=2, games=games,
                       seed=len(name), jobs=1, out_dir=str(tmp_path / name), progress=False)
    note = run.search_replay_note(tmp_path, "abc1234")
    assert "commit abc1234: 4 games, all gave the same games" in note     # games 1 and 3, games 1 and 3
    path = tmp_path / "2p_cartwright" / "records.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[0])
    rec["moves"][3] = "draw deck" if rec["moves"][3] != "draw deck" else "close"
    path.write_text("\n".join([json.dumps(rec)] + lines[1:]) + "\n", encoding="utf-8")
    assert "4 games, 1 differ, so these results do not reproduce" in run.search_replay_note(tmp_path, "abc1234")


def test_the_search_study_can_search_with_another_mcts_configuration(monkeypatch, capsys):
    """--search-bot: the study's bot and its rating searches take the given options over the default
    search's (the hand-set move prior, say); a spec that is not a plain mcts is one error line."""
    from thurn_ai.bots.default_search import DEFAULT_SEARCH
    plan = run.run_plan(run.RunOptions(Path("out"), players=(2, 3), search_bot=BotSpec.parse("mcts(policy=handset)")))
    for spec in (*plan.search.bots().values(), *plan.searchers.values()):
        assert spec.option("policy") == "handset" and "mix" not in spec.options and spec.option("eval") == "learned"
    default = run.run_plan(run.RunOptions(Path("out"), players=(2,)))
    for spec in (default.search.bots()[2], default.searchers[2]):      # the default search, at the study's budget
        assert spec.without("iterations") == DEFAULT_SEARCH.without("iterations")
    exp = _experiment()
    monkeypatch.setattr(exp, "check_clean", lambda root, allow_dirty=False: [])
    for bad, says in (("heuristic", "not 'heuristic'"), ("mcts(iterations=50)", "--budget"),
                      ("mcts(forbid=cartwright)", "forbid"), ("mcts(nonsense=1)", "nonsense")):
        with pytest.raises(SystemExit) as e:
            exp.main(["--search-bot", bad, "--part", "report"])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "--search-bot" in err and says in err
