"""The officials study: forbidding officials, counting their use, and the statistics and report built on it."""
import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import thurn_ai
from thurn_ai.studies.officials.findings import StudyFindings
from thurn_ai.bots.spec import BotSpec
from thurn_ai.play.match import use_column
from thurn_ai.studies import officials as S
from thurn_ai.game.officials import STAGES
from thurn_ai.stats.summary import wilson_interval
from thurn_ai.studies.officials.plan import CONTROL, load_ablation, plan, rotation_games, turns_column, with_forbid
from thurn_ai.studies.officials.plots import write_plots
from thurn_ai.studies.officials.report_text import findings
from thurn_ai.studies.officials.tables import control_facts
from thurn_ai.studies.officials.findings import with_primary
from thurn_ai.studies.officials.plan import OFFICIAL_LABEL
from thurn_ai.studies.markdown import pp
from thurn_ai.studies.officials.tables import (ablation_table, pairwise_table, seat_table, substitution_table,
                                               usage_table, wbc_comparison)
from thurn_ai.bots import make_bot, parse_spec
from thurn_ai.game.officials import OFFICIALS
from thurn_ai.cli import main
from thurn_ai.play.match import play_game, replay
from thurn_ai.game.rules import Rules


# ------------------------------------------------------------------ what each official looks like as a move
# Read from the move text and the decision phase, independently of thurn_ai.game.officials.official_of.

def official_by_text(phase: str, text: str):
    word = text.split()[0]
    if text == "administrator":
        return "administrator"
    if text == "cartwright":
        return "cartwright"
    if phase == "play" and word == "draw":          # a second draw after the first = Postmaster
        return "postmaster"
    if phase == "after_play" and word in ("left", "right", "new", "horse"):   # a second card = Postal Carrier
        return "postal_carrier"
    return None


def phase_by_houses(state) -> str:
    placed = max(20 - h for h in state.export()["houses_left"])
    return "early" if placed < 7 else "middle" if placed < 14 else "late"


def random_states(players: int, seed: int, n_games: int):
    """Every decision state of a few random games."""
    for k in range(n_games):
        g = thurn_ai.new_game(players=players, seed=seed + k)
        while not g.is_terminal():
            yield g
            g.apply_random()


# ------------------------------------------------------------------ forbid

@pytest.mark.parametrize("official", OFFICIALS)
def test_forbid_removes_exactly_that_officials_moves(official):
    bot = make_bot(f"random(forbid={official})", seed=0)
    seen_official = 0
    for players in (2, 4):
        for g in random_states(players, seed=40, n_games=3):
            legal = g.legal_moves()
            allowed = bot.allowed_moves(g)
            texts = {m: g.move_str(m) for m in legal}
            using = [m for m in legal if official_by_text(g.phase, texts[m]) == official]
            seen_official += bool(using)
            assert allowed == [m for m in legal if m not in using]
            assert allowed, "a forbidden official never leaves a player without a move"
    # the test is only meaningful if the official was on offer in many positions
    assert seen_official >= 5


def test_forbidden_official_is_never_used_and_the_other_seat_uses_it():
    rules = Rules(players=2)
    totals = {o: [0, 0] for o in OFFICIALS}
    for k, official in enumerate(OFFICIALS * 2):
        bots = [make_bot(f"random(forbid={official})", seed=k), make_bot("random", seed=100 + k)]
        rec = play_game(rules, bots, seed=500 + k)
        for seat in (0, 1):
            totals[official][seat] += sum(rec.official_uses[seat][official].values())
    for official in OFFICIALS:
        assert totals[official][0] == 0
        assert totals[official][1] > 0, official


def test_forbid_in_spec_and_with_forbid():
    assert parse_spec("greedy(forbid=postmaster+carrier)")[1]["forbid"] == {"postmaster", "postal_carrier"}
    spec = with_forbid(BotSpec.parse("random(foo=1)"), "cartwright")
    assert str(spec) == "random(foo=1,forbid=cartwright)"
    assert parse_spec(spec)[1] == {"foo": 1, "forbid": frozenset({"cartwright"})}
    assert str(with_forbid(BotSpec.parse(" random "), "administrator")) == "random(forbid=administrator)"
    assert make_bot(with_forbid(BotSpec.parse("random"), "postmaster")).forbid == {"postmaster"}
    with pytest.raises(S.StudyError):
        with_forbid(BotSpec.parse("random(forbid=postmaster)"), "cartwright")


# ------------------------------------------------------------------ usage counting

def test_recorded_uses_match_a_recount_from_the_moves():
    rules = Rules(players=3)
    bots = [make_bot("random", seed=1), make_bot("random(forbid=postal_carrier)", seed=2), make_bot("random", seed=3)]
    rec = play_game(rules, bots, seed=77)
    counted = [{o: {ph: 0 for ph in STAGES} for o in OFFICIALS} for _ in range(3)]

    def count(state, player, move):
        off = official_by_text(state.phase, state.move_str(move))
        if off:
            counted[player][off][phase_by_houses(state)] += 1

    replay(rec, on_move=count)
    assert rec.official_uses == counted
    assert sum(counted[0]["postmaster"].values()) > 0 and sum(counted[1]["postal_carrier"].values()) == 0


def test_run_ablation_records_usage_per_phase(tmp_path):
    df = S.run_ablation(BotSpec.parse("random"), players=(2,), games=2, seed=3, officials=("administrator",), jobs=1,
                        out_dir=tmp_path, progress=False, log=None)
    assert set(df.official) == {CONTROL, "administrator"}
    assert len(df) == 2 * 2 * 2 and df.restricted.sum() == 2
    admin = sum(df[use_column("administrator", ph)] for ph in STAGES)
    assert (admin[df.restricted] == 0).all()
    assert admin[~df.restricted].sum() > 0
    # the restricted bot sat in both seats
    assert sorted(df[df.restricted].seat) == [0, 1]
    # turns per phase (replayed from the records) add up to the game's turns
    turns = df[[turns_column(ph) for ph in STAGES]].sum(axis=1).groupby([df.official, df.game]).sum()
    assert (turns.to_numpy() == df.groupby(["official", "game"]).turns.first().to_numpy()).all()
    assert (df[turns_column("early")] > 0).all()
    # the usage table's means are the per-player means of the recorded counts
    u = usage_table(df).set_index(["players", "official"])
    ctrl = df[df.official == CONTROL]
    for ph in STAGES:
        assert u.loc[(2, "postmaster"), ph] == pytest.approx(ctrl[use_column("postmaster", ph)].mean())
        assert u.loc[(2, "postmaster"), f"{ph}_share_of_turns"] == pytest.approx(
            ctrl[use_column("postmaster", ph)].sum() / ctrl[turns_column(ph)].sum())
    # resuming a finished study plays nothing new and returns the same rows
    again = S.run_ablation(BotSpec.parse("random"), players=(2,), games=2, seed=3, officials=("administrator",), jobs=1,
                           out_dir=tmp_path, resume=True, progress=False, log=None)
    pd.testing.assert_frame_equal(df, again)


def test_cli_study_on_a_board_file_replays_its_records(tmp_path, capsys):
    # the tournaments' records name only packaged boards: counting turns per phase must replay them on
    # the --board-file the study was played on
    mini = str(Path(__file__).parents[1] / "data" / "mini.json")
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        main(["officials", "--board-file", mini, "--bot", "random", "--games", "2", "--players", "2",
              "--officials", "administrator", "--jobs", "1", "--quiet", "--out", str(out)])
    assert e.value.code == 0, capsys.readouterr().err
    df = pd.read_parquet(out / "games.parquet")
    assert set(df.official) == {CONTROL, "administrator"} and len(df) == 2 * 2 * 2
    turns = df[[turns_column(ph) for ph in STAGES]].sum(axis=1).groupby([df.official, df.game]).sum()
    assert (turns.to_numpy() == df.groupby(["official", "game"]).turns.first().to_numpy()).all()
    # the saved study reads back with the same board file
    again = load_ablation(out / "raw", "random", (2,), ("administrator",), board_file=mini)
    assert len(again) == len(df)


# ------------------------------------------------------------------ statistics and report on synthetic data

def synthetic(games=48, players=(2, 4), seed=0):
    """A study in which the Postmaster-less bot never wins and scores 10 less than its opponents, every other
    restricted bot wins exactly its fair share with the same scores, and seat 1 wins twice as often."""
    rng = random.Random(seed)
    rows = []
    for n in players:
        for off in (CONTROL, *OFFICIALS):
            for g in range(games):
                restricted_seat = None if off == CONTROL else g % n
                base = [rng.randint(10, 30) for _ in range(n)]
                if off == "postmaster":
                    winner = (restricted_seat + 1) % n
                    base[restricted_seat] = min(base) - 10
                elif off == CONTROL and n == 2:
                    winner = 0 if g % 3 else 1                       # seat 1 wins 2/3 of control games
                else:
                    winner = g // n % n if restricted_seat is not None else g % n
                base[winner] = max(base) + 1
                for s in range(n):
                    r = {"players": n, "official": off, "game": g + 1, "seed": 1000 + g, "seat": s,
                         "bot": "x" if s != restricted_seat else f"x(forbid={off})",
                         "restricted": s == restricted_seat, "score": float(base[s]), "win": int(s == winner),
                         "rank": 1 if s == winner else 2, "turns": 30 * n}
                    for o in OFFICIALS:
                        for i, ph in enumerate(STAGES):
                            r[use_column(o, ph)] = 0 if (o == off and s == restricted_seat) else i + 1
                    rows.append(r)
    return pd.DataFrame(rows)


def wilson_by_formula(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_wilson_interval_of_the_wbc_record():
    lo, hi = wilson_interval(71, 226)
    elo, ehi = wilson_by_formula(71, 226)
    assert lo == pytest.approx(elo, abs=1e-9) and hi == pytest.approx(ehi, abs=1e-9)
    assert lo > 0.25          # the WBC first seat won significantly more than a quarter


def test_ablation_statistics_on_synthetic_study():
    df = synthetic()
    t = ablation_table(df).set_index(["players", "official"])
    for n in (2, 4):
        pm = t.loc[(n, "postmaster")]
        assert pm.wins == 0 and pm.d_win == pytest.approx(-1 / n)
        assert pm.d_win_hi < 0 and pm.margin_hi < 0
        for off in ("administrator", "postal_carrier", "cartwright"):
            r = t.loc[(n, off)]
            assert r.win_rate == pytest.approx(1 / n)
            assert r.d_win_lo < 0 < r.d_win_hi
    # Δ score: the restricted seat's mean minus the control games' per-seat mean, computed directly
    ctrl = df[(df.players == 4) & (df.official == CONTROL)].score.mean()
    r = df[(df.players == 4) & (df.official == "cartwright") & df.restricted].score.mean()
    assert t.loc[(4, "cartwright")].d_score == pytest.approx(r - ctrl)
    pairs = pairwise_table(df).set_index(["players", "a", "b"])
    assert pairs.loc[(4, "postmaster", "administrator")].win_separated
    assert not pairs.loc[(4, "administrator", "cartwright")].win_separated


def test_usage_and_substitution_on_synthetic_study():
    df = synthetic()
    u = usage_table(df).set_index(["players", "official"])
    row = u.loc[(4, "administrator")]
    assert (row.early, row.middle, row.late, row.total) == (1, 2, 3, 6)
    assert row.share_of_turns == pytest.approx(6 / 30)     # 6 uses in 120 / 4 own turns
    assert "early_share_of_turns" not in u                 # no turns per phase in these data
    df[turns_column("early")], df[turns_column("middle")], df[turns_column("late")] = 5, 10, 15
    row = usage_table(df).set_index(["players", "official"]).loc[(4, "administrator")]
    assert (row.early_share_of_turns, row.middle_share_of_turns, row.late_share_of_turns) == (0.2, 0.2, 0.2)
    assert "(share of its turns early / middle / late)" in "\n".join(findings(S.analyse(df)))
    sub = substitution_table(df).set_index(["players", "forbidden"])
    assert sub.loc[(2, "cartwright"), "cartwright"] == 0
    assert sub.loc[(2, "cartwright"), "postmaster"] == 6
    assert sub.loc[(2, CONTROL), "cartwright"] == 6


def test_seat_advantage_on_synthetic_study():
    df = synthetic()
    seats = seat_table(df, control_only=True).set_index(["players", "seat"])
    first = seats.loc[(2, 0)]
    assert first.games == 48 and first.wins == sum(1 for g in range(48) if g % 3)
    assert first.p_equal_seats < 0.05
    assert seats.loc[(4, 1)].win_rate == pytest.approx(0.25) and seats.loc[(4, 1)].p_equal_seats == 1
    all_games = seat_table(df)
    assert (all_games.groupby("players").wins.sum() == all_games.groupby("players").games.first()).all()
    w = wbc_comparison(seat_table(df))
    assert w["ours_rate"] == pytest.approx(0.25) and w["wbc_rate"] == pytest.approx(71 / 226)
    lo, hi = w["diff_ci"]
    assert lo < 0.25 - 71 / 226 < hi


def test_report_builder_on_synthetic_study(tmp_path):
    a = S.analyse(synthetic())
    md = S.build_report(StudyFindings(
        {"toy": a}, command="python experiments/officials.py --games 40", commit="abc1234",
        notes=("a note on the method",),
        studies={"toy": {"bot": "x", "games": 48, "seed": 9, "budget": "none",
                         "game_length": control_facts(synthetic())}},
        plots=(plots := {"toy": write_plots(a, tmp_path, prefix="toy_")})))
    assert "python experiments/officials.py --games 40" in md and "abc1234" in md and "base seed 9" in md
    # the primary (paired) estimate first and in bold, then the estimate against 1/n (issue 40)
    assert "| 2 | Postmaster | 48 | 0.0% (fair 50.0%) | **-50.0 pp [" in md and "| -50.0 pp [-50.0, -42.6] |" in md
    assert "71 of 226" in md and "31.4%" in md and "34.0% in 2024" in md
    assert "- a note on the method" in md
    # synthetic control games: 30 turns per player, mean score = the mean of the control rows
    ctrl = synthetic().query("official == 'none' and players == 4")
    assert f"4 players 30 turns each, mean score {ctrl.score.mean():.1f}" in md
    found = "\n".join(findings(a))
    assert "Win rate lower without: Postmaster; no change detected: Administrator (+0.0 pp [-20.7, +20.7]; the " \
           "smallest effect these games detect with 80% power is 29.5 pp)" in found
    assert "2 players, control games only (identical bots): the first seat wins" in found
    for name in plots["toy"]:
        assert (tmp_path / name).stat().st_size > 1000
        assert f"]({name})" in md          # the summary embedded, the others linked
    text = S.format_text(a)
    assert "Postmaster" in text and "seat 1" in text


# ------------------------------------------------------------------ bad input

def test_bad_study_input_is_a_clear_error():
    with pytest.raises(S.StudyError, match="unknown official"):
        plan(officials="postmaster,baker")
    with pytest.raises(S.StudyError, match="2, 3 or 4"):
        plan(players="2,5")
    with pytest.raises(S.StudyError, match="lacks columns"):
        S.analyse(pd.DataFrame({"players": [2]}))
    assert [c.name for c in plan(players="3", officials="cartwright")] == ["3p_none", "3p_cartwright"]
    assert rotation_games(10, 4) == 12 and rotation_games(10, 2) == 10


@pytest.mark.parametrize("args, message", [
    (["--players", "2,5"], "2, 3 or 4"),
    (["--bot", "nosuchbot"], "unknown bot"),
    (["--officials", "baker"], "unknown official"),
    (["--bot", "random(forbid=postmaster)"], "already forbids"),
])
def test_cli_rejects_bad_input(capsys, args, message):
    with pytest.raises(SystemExit) as e:
        main(["officials", "--games", "2", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and message in err


def test_cli_reanalyses_saved_data(tmp_path, capsys):
    path = tmp_path / "games.parquet"
    synthetic(games=8).to_parquet(path)
    with pytest.raises(SystemExit) as e:
        main(["officials", "--from", str(path), "--out", str(tmp_path / "out")])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "Postmaster" in out and "WBC" in out
    assert (tmp_path / "out" / "report.md").exists() and (tmp_path / "out" / "summary.png").exists()
    assert np.isclose(pd.read_csv(tmp_path / "out" / "ablation.csv").query("official == 'postmaster'").d_win,
                      [-0.5, -0.25]).all()


def test_terminal_text_shows_the_findings_estimate_and_no_nan_power():
    """Issue 57: `thurn-ai officials --bot heuristic --games 12 --players 2` printed "... detect with 80% power
    is nan pp" (paired differences that never vary) and a table of Δ win against 1/n beside findings of the
    paired estimate, without saying why."""
    df = synthetic(players=(2,))
    control = df[df.official == CONTROL].set_index(["game", "seat"]).win
    same = df.official == "administrator"          # every administrator game ends as its control game did
    df.loc[same, "win"] = [control[(g, s)] for g, s in zip(df[same].game, df[same].seat)]
    a = S.analyse(df)
    text = S.format_text(a)
    assert "nan" not in text
    assert "no power can be given: the paired differences do not vary" in text
    rows = with_primary(a.ablation)
    assert (rows.primary == "paired").all()
    for r in rows.itertuples():
        line = next(x for x in text.splitlines() if f"2p {OFFICIAL_LABEL[r.official]} " in x)
        assert f"Δwin paired {pp(r.d_primary, r.d_primary_lo, r.d_primary_hi)}" in line
