"""Statistical hygiene of the officials report and the learned strength summary (issue 40): a declared
primary estimator and hypotheses at the top, verdicts by the primary (paired) estimate, power as the
detectable effect, no p-value printed below 1e-10, no test of a bot's own take rate against one half, the
first seat from the control games only, and replicated strength cells pooled."""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from thurn_ai.studies.officials.findings import StudyFindings
from thurn_ai.play.match import use_column
from thurn_ai.studies import officials as S
from thurn_ai.game.officials import STAGES
from thurn_ai.studies.officials.plan import CONTROL
from thurn_ai.studies.officials.report import readme_block
from thurn_ai.studies.officials.report_text import ablation_sentences, findings, player_summary
from thurn_ai.studies.officials.findings import detectable_paired, detectable_vs_fair, paired_p, with_primary
from thurn_ai.studies.markdown import p_text
from thurn_ai.stats.summary import mean_ci

OFFICIALS = ("postmaster", "administrator", "postal_carrier", "cartwright")


# ---------------------------------------------------------------- p-values

@pytest.mark.parametrize("p, text", [(1e-11, "< 1e-10"), (0.0, "< 1e-10"), (2.7e-23, "< 1e-10"),
                                     (1e-300, "< 1e-10"), (1e-10, "1e-10"), (3.2e-6, "3.2e-06"),
                                     (0.0284, "0.028"), (1.0, "1"), (math.nan, "–"), (None, "–")])
def test_p_values_below_1e_10_print_as_less_than(p, text):
    assert p_text(p) == text


# ---------------------------------------------------------------- power as the detectable effect

def test_detectable_effect_against_one_over_n_is_the_review_s():
    # research review 4: 9.9 / 6.6 / 8.6 pp at 200 / 402 / 200 games (80% power, two-sided 5%)
    assert 100 * detectable_vs_fair(200, 2) == pytest.approx(9.9, abs=0.05)
    assert 100 * detectable_vs_fair(402, 3) == pytest.approx(6.6, abs=0.05)
    assert 100 * detectable_vs_fair(200, 4) == pytest.approx(8.6, abs=0.05)
    # more games detect less; not the interval's half-width (1.96 se, not 2.8 se)
    assert detectable_vs_fair(800, 2) == pytest.approx(detectable_vs_fair(200, 2) / 2, rel=1e-4)
    assert detectable_vs_fair(200, 2) > 1.96 * math.sqrt(0.25 / 200) * 1.4


def test_detectable_paired_effect_and_paired_p_from_the_t_interval():
    rng = np.random.default_rng(1)
    d = rng.choice([-1.0, 0.0, 0.0, 1.0], size=300) + 0.05
    m, lo, hi = mean_ci(d)
    sd = d.std(ddof=1)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert detectable_paired(len(d), lo, hi) == pytest.approx(z * sd / math.sqrt(len(d)), rel=0.01)
    assert paired_p(m, len(d), lo, hi) == pytest.approx(stats.ttest_1samp(d, 0).pvalue, rel=1e-6)
    assert math.isnan(detectable_paired(1, lo, hi)) and math.isnan(paired_p(m, 0, lo, hi))


# ---------------------------------------------------------------- the primary estimator

def ablation_rows():
    """Three cells whose verdict differs between the paired and the exact-1/n estimate (as in research
    review 4: O2, O4, O5) and one without pairs."""
    return pd.DataFrame([
        {"players": 2, "official": "cartwright", "games": 200, "win_rate": 0.40, "d_win": -0.100,
         "d_win_lo": -0.165, "d_win_hi": -0.031, "p_win": 0.0057, "pairs": 200, "d_win_paired": -0.05,
         "d_win_paired_lo": -0.136, "d_win_paired_hi": 0.036},
        {"players": 3, "official": "administrator", "games": 180, "win_rate": 0.361, "d_win": 0.028,
         "d_win_lo": -0.039, "d_win_hi": 0.100, "p_win": 0.43, "pairs": 180, "d_win_paired": -0.044,
         "d_win_paired_lo": -0.079, "d_win_paired_hi": -0.010},
        {"players": 3, "official": "cartwright", "games": 180, "win_rate": 0.433, "d_win": 0.100,
         "d_win_lo": 0.030, "d_win_hi": 0.173, "p_win": 0.0055, "pairs": 180, "d_win_paired": 0.028,
         "d_win_paired_lo": -0.065, "d_win_paired_hi": 0.120},
        {"players": 4, "official": "postmaster", "games": 200, "win_rate": 0.0, "d_win": -0.25,
         "d_win_lo": -0.25, "d_win_hi": -0.231, "p_win": 1e-30, "pairs": math.nan, "d_win_paired": math.nan,
         "d_win_paired_lo": math.nan, "d_win_paired_hi": math.nan}])


def test_the_primary_estimate_is_the_paired_one_where_the_deals_are_paired():
    t = with_primary(ablation_rows())
    assert list(t.primary) == ["paired", "paired", "paired", "vs 1/n"]
    assert list(t.d_primary) == pytest.approx([-0.05, -0.044, 0.028, -0.25])
    assert t.p_primary_holm.notna().all() and (t.p_primary_holm >= t.p_primary).all()
    assert t.detectable_paired.iloc[:3].notna().all() and math.isnan(t.detectable_paired.iloc[3])


def test_the_three_cells_that_change_verdict_are_said_by_the_paired_estimate():
    text = "\n".join(ablation_sentences(type("A", (), {"primary": with_primary(ablation_rows())})()))
    assert "(-5.0 pp [-13.6, +3.6] paired with the same deals, no change detected)" in text
    assert "(-4.4 pp [-7.9, -1.0] paired with the same deals, clearly worse)" in text
    assert "(+2.8 pp [-6.5, +12.0] paired with the same deals, no change detected)" in text
    assert "(-25.0 pp [-25.0, -23.1] against 1/n, clearly worse)" in text      # no pairs: the fallback, said
    assert "-10.0 pp" not in text and "+10.0 pp" not in text


def synthetic_study(games=48, players=(2, 4), seed=0):
    """A paired study (as tests/studies/test_officials.synthetic): the Postmaster-less bot never wins; in the control
    games seat 1 wins two thirds at 2 players, while the ablation games rotate the winner."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in players:
        for off in (CONTROL, *OFFICIALS):
            for g in range(games):
                restricted = None if off == CONTROL else g % n
                base = list(rng.integers(10, 31, n).astype(float))
                if off == "postmaster":
                    winner = (restricted + 1) % n
                elif off == CONTROL and n == 2:
                    winner = 0 if g % 3 else 1
                else:
                    winner = g // n % n if restricted is not None else g % n
                base[winner] = max(base) + 1
                for s in range(n):
                    r = {"players": n, "official": off, "game": g + 1, "seed": 1000 + g, "seat": s,
                         "bot": "x", "restricted": s == restricted, "score": base[s], "win": int(s == winner),
                         "rank": 1 if s == winner else 2, "turns": 30 * n}
                    for o in OFFICIALS:
                        for i, ph in enumerate(STAGES):
                            r[use_column(o, ph)] = 0 if (o == off and s == restricted) else i + 1
                    rows.append(r)
    return pd.DataFrame(rows)


def test_the_report_takes_a_papers_order_and_states_its_primary_estimator_and_hypotheses():
    a = S.analyse(synthetic_study())
    md = S.build_report(StudyFindings({"toy": a}, commit="abc1234", command="python x.py"))
    heads = ["## Summary", "## Questions", "## Methods", "## Results", "## Threats to validity", "## Appendix"]
    at = [md.index(f"\n{h}\n") for h in heads]
    assert at == sorted(at), at                                     # summary, questions, ..., appendix
    questions = md[at[1]:at[2]]
    assert "**Primary (confirmatory) hypothesis**" in questions and "**exploratory**" in questions
    assert "1. (exploratory) What is each official worth" in questions          # no validation: none primary
    methods = md[at[2]:at[3]]
    assert "**Primary estimator**" in methods and "**paired** difference" in methods
    assert "80% power" in methods and "< 1e-10" in methods and "### Multiple comparisons" in methods
    # each numbered question has its result, under the same number
    assert "### 1. Never using an official, against players who do" in md[at[3]:at[4]]
    assert "**Declared after the games.**" in md[at[4]:at[5]]
    appendix = md[at[5]:]
    assert "#### Taking one official away" in appendix and "Report built at commit `abc1234`" in appendix
    # the table marks the primary estimate and gives the detectable effect, not a half-width
    assert "| paired Δ win [95% CI] | p paired (Holm) | Δ win rate vs 1/n" in md and "detectable: paired / vs 1/n" in md
    assert "no change the CIs can detect" not in md


def test_no_p_value_below_1e_10_is_printed_in_a_built_report():
    a = S.analyse(synthetic_study(games=200))
    md = S.build_report(StudyFindings({"toy": a}, commit="abc1234"))
    assert "< 1e-10" in md          # the Postmaster-less bot never wins: p far below the floor
    tiny = [m for m in re.findall(r"\d(?:\.\d+)?e-(\d+)", md) if int(m) > 10]
    assert not tiny, tiny
    assert "1e-300" not in md


# ---------------------------------------------------------------- the first seat

def test_the_first_seat_is_quoted_from_the_control_games_only():
    a = S.analyse(synthetic_study())
    control = a.seats_control[(a.seats_control.players == 2) & (a.seats_control.seat == 0)].iloc[0]
    pooled = a.seats[(a.seats.players == 2) & (a.seats.seat == 0)].iloc[0]
    assert control.win_rate != pytest.approx(pooled.win_rate)       # the fixture makes them differ
    said = "\n".join(findings(a))
    assert f"2 players, control games only (identical bots): the first seat wins {100 * control.win_rate:.1f}%" in said
    assert f"the first seat wins {100 * pooled.win_rate:.1f}%" not in said
    summary = "\n".join(player_summary({"toy": a}, "toy"))
    assert f"First seat at 2 players: wins {100 * control.win_rate:.1f}%" in summary and "control games" in summary
    block = "\n".join(readme_block(StudyFindings({"toy": a}, main_study="toy", commit="abc")))
    assert "**First seat** among identical bots (control games)" in block
    first = block.split("**First seat**")[1]
    assert f"{100 * pooled.win_rate:.1f}%" not in first
    off = control.lo > control.expected or control.hi < control.expected
    assert (f"{100 * control.win_rate:.1f}%" in first) if off else ("within its interval" in first)


# ---------------------------------------------------------------- the advice: no test of a bot's own rate

def test_the_search_s_own_take_rate_is_not_tested_against_one_half():
    from thurn_ai.studies.officials.advice import advice_lines, advice_table
    rows = pd.DataFrame([{"players": 2, "source": "s", "game": g, "move": 0, "official": "postmaster",
                          "phase": "early", "hand_size": 2 + g % 4, "route_len": g % 3, "d_win_fresh": 0.1,
                          "d_win": 0.0, "used": g % 5 != 0} for g in range(300)])
    t = advice_table(rows, "player")
    assert t.p.isna().all() and t.p_holm.isna().all()
    text = "\n".join(advice_lines(t))
    assert "p (Holm)" not in text and " Holm)" not in text and "no test is made" in text
    # the rating's share (whether using it is the better move) is still tested
    rated = advice_table(rows, "rating")
    assert rated.p.notna().any() and "p (Holm)" in "\n".join(advice_lines(rated))


# ---------------------------------------------------------------- replicated strength cells, pooled

def test_pooling_the_paired_strength_cells():
    from tests.helpers import experiment
    mod = experiment("learned_strength")
    # equal standard errors: the plain mean, the interval narrower by sqrt(k)
    p = mod.pooled([(0.02, -0.02, 0.06), (0.06, 0.02, 0.10)])
    assert p["mean"] == pytest.approx(0.04) and p["high"] - p["low"] == pytest.approx(0.08 / math.sqrt(2))
    # the committed L - H cells: +3.4 pp [-1.2, +8.0]; with research review 4's replication +3.7 [+0.5, +6.9]
    cells = [(0.038, -0.041, 0.116), (0.067, -0.013, 0.147), (-0.001, -0.080, 0.077)]
    p = mod.pooled(cells)
    # (from the printed, rounded cells; the README's own from the games says [-1.2, +8.0])
    assert [100 * p[k] for k in ("mean", "low", "high")] == pytest.approx([3.4, -1.2, 8.0], abs=0.1)
    outside = [(m, m - 0.079, m + 0.079) for m in (0.037, 0.042, 0.040)]
    q = mod.pooled(cells + outside)
    assert round(100 * q["mean"], 1) == 3.7 and q["low"] > 0
    assert 100 * mod.detectable(p["se"]) == pytest.approx(6.5, abs=0.1)


def test_the_strength_readme_pools_the_paired_cells(tmp_path):
    from tests.helpers import experiment
    mod = experiment("learned_strength")
    rng = np.random.default_rng(0)
    for players in (2, 3, 4):
        seeds = rng.integers(0, 2 ** 40, 100)
        for cell, bias in ((f"L_p{players}_it1000", 0.1), (f"H_p{players}_it1000", 0.0)):
            folder = tmp_path / "runs" / cell
            folder.mkdir(parents=True)
            pd.DataFrame({"game": np.arange(100), "game_seed": seeds, "spec": "mcts(iterations=1000)",
                          "win_share": (rng.random(100) < 0.4 + bias).astype(float),
                          "score": rng.normal(20, 3, 100)}).to_csv(folder / "results.csv", index=False)
    lines = mod.paired_lines(tmp_path)
    text = "\n".join(lines)
    assert "| pooled | 300 | **" in text and "detectable" in text and "Cochran's Q" in text
    assert "G2 - L" not in text                    # no generation-2 cells: no table
