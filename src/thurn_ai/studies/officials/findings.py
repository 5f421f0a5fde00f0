"""The officials study's numbers, computed in its data layer (the report modules only format them): the
primary estimate of the ablation (`with_primary`: paired where the deals are paired, else against 1/n, Holm
across the table), the power of its games (`detectable_vs_fair`, `detectable_paired`: from the observed
spread of the paired differences), the paired test, and the study's published numbers as `Number` values
(`study_numbers`: what results/officials/findings.json holds, read off the saved tables), and everything the
report says as one value (`StudyFindings`), which the report modules only format."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ...game.officials import OFFICIALS
from ..findings import Number, share_rows
from .design import holm


def detectable_vs_fair(games: int, players: int, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest difference from the fair win rate 1/players that `games` games detect with `power` in a
    two-sided `alpha` test, as a share (statsmodels NormalIndPower, one sample: ratio=0; the effect size is
    Δ / sqrt(p (1 - p)) at p = 1/players)."""
    from statsmodels.stats.power import NormalIndPower
    if not games or games < 2:
        return math.nan
    p = 1 / players
    es = NormalIndPower().solve_power(effect_size=None, nobs1=games, alpha=alpha, power=power, ratio=0)
    return float(es * math.sqrt(p * (1 - p)))


def _paired_se(pairs: int, lo: float, hi: float) -> float:
    """The standard error of a paired mean difference from its 95% t interval (mean_ci)."""
    from scipy.stats import t
    if not pairs or pairs < 2 or any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
        return math.nan
    return (hi - lo) / (2 * t.ppf(0.975, pairs - 1))


def detectable_paired(pairs: int, lo: float, hi: float, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest paired mean difference `pairs` pairs detect with `power` (two-sided `alpha`), given the
    standard deviation of the differences read off their 95% t interval (statsmodels TTestPower)."""
    from statsmodels.stats.power import TTestPower
    se = _paired_se(pairs, lo, hi)
    if math.isnan(se) or se <= 0:
        return math.nan
    es = TTestPower().solve_power(effect_size=None, nobs=pairs, alpha=alpha, power=power)
    return float(es * se * math.sqrt(pairs))


def paired_p(d: float, pairs: int, lo: float, hi: float) -> float:
    """The two-sided paired t test's p-value, from the mean difference and its 95% t interval."""
    from scipy.stats import t
    se = _paired_se(pairs, lo, hi)
    if math.isnan(se) or math.isnan(d):
        return math.nan
    if se == 0:
        return 1.0 if d == 0 else 0.0
    return float(2 * t.sf(abs(d / se), pairs - 1))


def with_primary(ablation):
    """The ablation table with the primary estimate (see ESTIMATOR): columns primary ('paired' or 'vs 1/n'),
    d_primary, d_primary_lo, d_primary_hi, p_primary (paired t test, else the binomial test), p_primary_holm
    (Holm across the table), detectable_paired and detectable_fair (80% power, two-sided 5%)."""
    t = ablation.copy()
    if t.empty:
        return t
    rows = []
    for r in t.itertuples():
        pairs = getattr(r, "pairs", 0)
        pairs = 0 if pairs is None or (isinstance(pairs, float) and math.isnan(pairs)) else int(pairs)
        d, lo, hi = (getattr(r, "d_win_paired", math.nan), getattr(r, "d_win_paired_lo", math.nan),
                     getattr(r, "d_win_paired_hi", math.nan))
        has = pairs >= 2 and not any(isinstance(v, float) and math.isnan(v) for v in (d, lo, hi))
        rows.append({"primary": "paired" if has else "vs 1/n",
                     "d_primary": d if has else r.d_win, "d_primary_lo": lo if has else r.d_win_lo,
                     "d_primary_hi": hi if has else r.d_win_hi,
                     "p_primary": paired_p(d, pairs, lo, hi) if has else getattr(r, "p_win", math.nan),
                     "detectable_paired": detectable_paired(pairs, lo, hi) if has else math.nan,
                     "detectable_fair": detectable_vs_fair(int(r.games), int(r.players))})
    extra = pd.DataFrame(rows, index=t.index)
    t = pd.concat([t, extra], axis=1)
    t["p_primary_holm"] = holm(t["p_primary"])
    return t


def study_numbers(out: Path) -> dict[str, Number]:
    """The study's published numbers, read off the tables saved in OUT (results/officials): the validation's
    ratings minus their controls, the rule card's seat minus the heuristic's, the search study's ablation
    (its primary estimate), the first seat among identical searches; what findings.json holds."""
    numbers = {}
    v = pd.read_csv(out / "validation.csv").dropna(subset=["d_control"])
    for r in v.itertuples():
        numbers[f"validation.p{r.players}.{r.rating}.minus_control"] = Number(
            r.d_control, r.d_control_lo, r.d_control_hi, "pp", games=int(r.pairs),
            says=f"following the {r.rating} rating minus its control, paired")
    for r in pd.read_csv(out / "rulecard_play.csv").itertuples():
        against = "heuristic" if r.opponent == "heuristic" else "search"
        numbers[f"rulecard.{r.cell.replace(' ', '_')}.{against}.p{r.players}.minus_heuristic"] = Number(
            r.d_win, r.d_win_lo, r.d_win_hi, "pp", games=int(r.games),
            says=f"the rule card's seat ({r.cell}) minus the heuristic's against `{r.opponent}`, paired")
    t = with_primary(pd.read_csv(out / "search_ablation.csv"))
    for r in t.itertuples():
        numbers[f"ablation.search.p{r.players}.{r.official}"] = Number(
            r.d_primary, r.d_primary_lo, r.d_primary_hi, "pp", games=int(r.games),
            says=f"never using the {r.official}, minus the control ({r.primary})")
    s = pd.read_csv(out / "search_seats_control.csv")
    numbers |= share_rows(s[s.seat == 0], lambda r: f"first_seat.search.p{r.players}", "win_rate", "lo", "hi",
                           "games", lambda r: "the first seat among identical searches, 95% Wilson")
    return numbers


@dataclass(frozen=True, eq=False)
class StudyFindings:
    """What the officials study found, gathered once from its saved data (run.report; one_bot for the
    command's one bot) and rendered by the report modules (report.build_report, readme_block,
    choice_report), which only format it. Every part is optional: a study without it leaves it out.

    analyses: {study: tables.Analysis} (the ablation); choice: {study: its rated decisions' entry
    (files.save_choice, with the rating searches and the games rated)}; comparison, seats: the two studies
    side by side (tables.bot_comparison, seat_comparison); validation (rated.validation_table),
    validation_cells (validation_cells.comparison_table), agreement (agreement.AGREEMENT_TABLE), turns
    (turn_choice.turn_table): the later parts' tables. Provenance: the title, the command that rebuilds it,
    the commit, what was uncommitted (dirty), the study the summary speaks of (main_study), the two studies
    compared, notes on the method, each study's facts ({study: {'bot', 'games', 'seed', 'budget',
    'wall_minutes', 'played_with', 'game_length'}}) and plots ({study: [relative paths]})."""
    analyses: dict = field(default_factory=dict)
    choice: dict | None = None
    comparison: pd.DataFrame | None = None
    seats: pd.DataFrame | None = None
    validation: pd.DataFrame | None = None
    validation_cells: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    turns: pd.DataFrame | None = None
    title: str = "What the officials are worth"
    command: str = ""
    commit: str = ""
    dirty: str = ""
    main_study: str | None = None
    compare: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    studies: dict = field(default_factory=dict)
    plots: dict = field(default_factory=dict)
    comparison_plots: tuple[str, ...] = ()


# ------------------------------------------------------------------------------------------ the rule card

@dataclass(frozen=True, eq=False)
class RuleCardFindings:
    """The rule card's findings, computed once from its saved tables (rulecard_findings) and formatted by
    rulecard_report: the held-out agreement of every rule (rulecard.agreement_table), each official's agreement
    of the card pooled over the player counts (pooled_agreement), the best single factor per count and
    official (best_single), the whole card's paired games with p-values Holm-adjusted among themselves
    (rulecard.paired_play_table, holm_play) and each line of the card alone (exploratory, not adjusted).
    Provenance: the search of the offers and games ({opponent: {players: games}}, {opponent: seed}), the code
    the report is built with and the commits the games were played at."""
    agreement: pd.DataFrame
    pooled: pd.DataFrame
    best_single: pd.DataFrame
    play: pd.DataFrame
    lines: pd.DataFrame
    search: str = ""
    games: dict = field(default_factory=dict)
    seeds: dict = field(default_factory=dict)
    code: str = ""
    played_at: str = "unknown"


def rulecard_findings(agreement: pd.DataFrame, play: pd.DataFrame, **provenance) -> RuleCardFindings:
    """The rule card's findings from its agreement table and its play table (every cell); provenance: the
    search, games, seeds, code and played_at of RuleCardFindings."""
    from .rulecard import CARD_CELL
    whole = play[play.cell == CARD_CELL] if "cell" in play else play
    lines = play[play.cell != CARD_CELL] if "cell" in play else play.iloc[:0]
    return RuleCardFindings(agreement, pooled_agreement(agreement), best_single(agreement), holm_play(whole), lines,
                            **provenance)


def pooled_agreement(agreement: pd.DataFrame, rule: str | None = None) -> pd.DataFrame:
    """Per official, a rule's held-out agreement over every player count: offers, agreeing, share, Wilson."""
    from ...stats.summary import wilson_interval
    from .rulecard import CARD_RULE

    g = agreement[agreement.rule == (rule or CARD_RULE)].groupby("official", sort=False)[["agree", "test_offers"]].sum()
    out = g.assign(share=g.agree / g.test_offers)
    lohi = [wilson_interval(k, n) for k, n in zip(g.agree, g.test_offers)]
    return out.assign(lo=[x[0] for x in lohi], hi=[x[1] for x in lohi]).reindex(
        [o for o in OFFICIALS if o in out.index])


def holm_play(play: pd.DataFrame) -> pd.DataFrame:
    """The play table with p_win Holm-adjusted across its rows (the card's primary comparisons)."""
    return play.assign(p_holm=holm(play.p_win.to_numpy()))


def best_single(agreement: pd.DataFrame) -> pd.DataFrame:
    """Per count and official, the single-factor rule that did best on the held-out half (for the summary;
    the table shows them all, and which did best on held-out data is itself a look at that half)."""
    from .rulecard import SINGLE_RULES
    s = agreement[agreement.rule.isin(SINGLE_RULES)]
    return s.loc[s.groupby(["players", "official"]).share.idxmax()]
