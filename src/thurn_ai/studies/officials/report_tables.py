"""The officials study's report, its tables: one study's detail tables (the ablation with its paired and
Holm-corrected columns, usage, what a restricted player does instead, pairs of officials, the seats), the
value at the moment of choice (method, rating searches, tables, examples), the two studies side by side,
and the terminal text of both (report.py assembles the report from them)."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ...game.officials import OFFICIALS, STAGES
from .choice import SMALL_SAMPLE
from .plan import OFFICIAL_LABEL
from ..markdown import num, p_text, pct, pct_ci, pp, table
from .tables import Analysis

#: the tournaments of the ablation and their pairing, and how its tables are read (the report's Methods)
METHOD = ("Per player count, a control tournament (all seats the full bot) and, per official, a "
          "tournament of one seat with that official forbidden against full bots, the restricted seat "
          "rotating through all seats. Paired deals: the control and every ablation of a player count play "
          "the same game seeds, so game g deals the same cards and gives each seat the same bot seed in all of "
          "them (studies played before this design have a seed per tournament: their paired columns are "
          "empty). Δ win rate = restricted bot's win rate − 1/n (exact baseline; 95% Wilson CI); paired Δ = "
          "mean over games of the restricted seat's win (or score) minus the control game's at the same "
          "seat (t interval). Δ score = restricted bot's mean score − the full bot's per-seat mean in the "
          "control (95% Welch CI), in points. Margin = restricted score − its full opponents' mean score in "
          "the same game. Usage = uses per player per game in the control games by game phase "
          "(early/middle/late = fewer than 7 / 14 / up to 20 houses placed by the leading player); the "
          "forced Postmaster (two cards drawn because the hand was empty: no choice) is counted apart. "
          "Intervals are 95% and each is uncorrected; each table's p-values are also given Holm-adjusted "
          "across that table (family-wise 5%), and game counts were fixed before the games were played. "
          "The primary estimate of each ablation cell is the paired one (Estimators, below).")


#: the declared primary estimator, hypotheses and power (issue 40: declared after the games were played, so a
#: declared convention the report keeps to, not a pre-registration); the report's Questions and Methods
ESTIMATOR = (
    "**Primary estimator** (declared for issue 40, after the games were played: a convention this report "
    "keeps to, not a pre-registration): for the ablation, the **paired** difference -- the restricted seat's "
    "win minus the control game's win at the same seat of the same deal (t interval over the paired games, "
    "its p-value Holm-adjusted across the ablation table). It removes the luck of the deal, which the "
    "exact-1/n estimator (the restricted seat's win rate minus 1/n, Wilson interval, binomial test) leaves in: "
    "for the deterministic heuristic bot the paired games correlate strongly and the paired estimate is the "
    "more precise one; for the search they barely correlate and it is somewhat wider. Every verdict in the "
    "text (\"clearly worse\", \"no change detected\") uses the primary estimate; the exact-1/n column is "
    "shown beside it as secondary. Studies without paired deals fall back to the exact-1/n estimate, and say so.")
HYPOTHESES = (
    "**Primary (confirmatory) hypothesis**: at 2 players, a bot that follows the rating at every offer of "
    "an official wins as often as its control (the same searches choosing as the search does, on the same "
    "deals): the paired rating-minus-control difference, two-sided 5%, Holm across the validation table. "
    "Everything else -- the ablation, the pairs of officials, the advice, the turn question, the seats -- is "
    "**exploratory**: each table's p-values are Holm-adjusted within that table only, and conclusions that "
    "combine tables are not corrected across them.")
POWER = (
    "**Power** is stated as the smallest effect the games detect with 80% power in a two-sided 5% test "
    "(statsmodels: TTestPower for the paired difference, NormalIndPower for a win rate against 1/n), not as "
    "an interval's half-width. P-values below 1e-10 are printed as \"< 1e-10\". The first-seat advantage "
    "is quoted from the control games only (identical bots in every seat); the all-games table mixes in the "
    "ablation games, where one seat is crippled.")


def demote(lines: list[str]) -> list[str]:
    """Markdown lines with every heading one level deeper (a section placed inside another)."""
    return ["#" + x if x.startswith("#") else x for x in lines]


def verdict(r) -> str:
    """The primary estimate's verdict (with_primary row): clearly worse / better, or no change detected."""
    return ("clearly worse" if r.d_primary_hi < 0 else "clearly better" if r.d_primary_lo > 0
            else "no change detected")


def study_facts(m: dict, a: Analysis) -> str:
    """One sentence of a study's facts: games, seeds, budget, code, wall time, game length."""
    facts = []
    if isinstance(m.get("games"), dict):
        per = ", ".join(f"{g} with {n} players" for n, g in sorted(m["games"].items()))
        facts.append(f"games per tournament (control and each official): {per}")
    elif m.get("games"):
        facts.append(f"{m['games']} games per tournament (rounded up to a multiple of the player count)")
    if m.get("seed") is not None:
        facts.append(f"base seed {m['seed']} (tournament seed = base + 100·players for the control and every "
                     "ablation: paired deals)")
    if m.get("budget"):
        facts.append(f"bot budget: {m['budget']}")
    if m.get("played_with"):
        facts.append(f"games played with commit {m['played_with']}")
    if m.get("wall_minutes"):
        # runs.json adds a run's time when the run ends: one stopped before (a session's end) is not counted
        facts.append(f"wall time of the runs that ran to their end {m['wall_minutes']:.0f} min (a run stopped "
                     "and resumed counts only its last part)")
    total = int(a.seats.groupby("players").games.first().sum()) if len(a.seats) else 0
    facts.append(f"{total} games in all")
    if "game_length" in m:
        facts.append("full bot in the control games: " + ", ".join(
            f"{n} players {t:.0f} turns each, mean score {sc:.1f}" for n, (t, sc) in sorted(m["game_length"].items())))
    return "; ".join(facts) + "."


def plot_lines(plots: list[str]) -> list[str]:
    L = []
    for img in [p for p in plots if Path(p).stem.endswith("summary")]:
        L += [f"![{Path(img).stem}]({img})", ""]
    others = [p for p in plots if not Path(p).stem.endswith("summary")]
    if others:
        L += ["Single plots: " + ", ".join(f"[{Path(p).stem}]({p})" for p in others) + ".", ""]
    return L


def ablation_lines(a: Analysis) -> list[str]:
    t = a.primary
    L = ["### Taking one official away", "",
         "Primary estimate (bold): the paired Δ win where the control dealt the same games, else Δ win rate "
         "against 1/n (see Methods, Estimators). Detectable: the smallest Δ win these games detect with 80% power "
         "(two-sided 5%; statsmodels), paired / against 1/n.", ""]
    rows = []
    for r in t.itertuples():
        paired_win = pp(getattr(r, "d_win_paired", math.nan), getattr(r, "d_win_paired_lo", math.nan),
                        getattr(r, "d_win_paired_hi", math.nan))
        unpaired = pp(r.d_win, r.d_win_lo, r.d_win_hi)
        if r.primary == "paired":
            paired_win = f"**{paired_win}**"
            p_paired = f"{p_text(r.p_primary)} ({p_text(r.p_primary_holm)})"
        else:
            unpaired = f"**{unpaired}**"
            p_paired = "–"
        paired_score = num(getattr(r, "d_score_paired", math.nan), getattr(r, "d_score_paired_lo", math.nan),
                           getattr(r, "d_score_paired_hi", math.nan))
        det = (f"{'–' if math.isnan(r.detectable_paired) else f'{100 * r.detectable_paired:.1f}'} / "
               f"{100 * r.detectable_fair:.1f} pp")
        rows.append([r.players, OFFICIAL_LABEL[r.official], r.games,
                     f"{pct(r.win_rate)} (fair {pct(1 / r.players)})", paired_win, p_paired, unpaired,
                     f"{p_text(r.p_win)} ({p_text(getattr(r, 'p_win_holm', math.nan))})",
                     det, num(r.d_score, r.d_score_lo, r.d_score_hi), paired_score,
                     num(r.margin, r.margin_lo, r.margin_hi)])
    L += table(["players", "official", "games", "restricted wins", "paired Δ win [95% CI]", "p paired (Holm)",
                "Δ win rate vs 1/n [95% CI]", "p vs 1/n (Holm)", "detectable: paired / vs 1/n",
                "Δ mean score, points [95% CI]", "paired Δ score", "margin vs opponents [95% CI]"], rows)
    return L


def usage_lines(a: Analysis) -> list[str]:
    rates = "early_share_of_turns" in a.usage
    L = ["", "### How often and when the full bot uses each official", "",
         "Uses per player per game [95% CI] in each phase; share = fraction of the player's turns on "
         "which it was used" + (" (overall, and within each phase: the phases differ in length)"
                                if rates else "") + ".", ""]
    rows = []
    for r in a.usage.itertuples():
        cells = [f"{getattr(r, ph):.2f} [{getattr(r, ph + '_lo'):.2f}, {getattr(r, ph + '_hi'):.2f}]"
                 for ph in (*STAGES, "total")]
        by_phase = [" / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in STAGES)] if rates else []
        rows.append([r.players, OFFICIAL_LABEL[r.official], *cells, pct(r.share_of_turns), *by_phase])
    return L + table(["players", "official", "early", "middle", "late", "total", "share of turns"]
                     + (["share early / middle / late"] if rates else []), rows)


def substitution_lines(a: Analysis) -> list[str]:
    forced = "forced_postmaster" in a.substitution
    L = ["", "What the bot does instead (uses per game of each official by the restricted seat; "
         "first row per player count = the full bot)" + ("; forced = the Postmaster an empty hand forces "
                                                         "(per game, and the share of the player's turns), which "
                                                         "no restriction can stop" if forced else "") + ":", ""]
    rows = ([r.players, OFFICIAL_LABEL[r.forbidden], *(f"{getattr(r, o):.2f}" for o in OFFICIALS)]
            + ([f"{r.forced_postmaster:.2f} ({pct(r.forced_share_of_turns)} of turns)"] if forced else [])
            for r in a.substitution.itertuples())
    return L + table(["players", "forbidden", *(OFFICIAL_LABEL[o] for o in OFFICIALS)]
                     + (["forced Postmaster"] if forced else []), rows)


def pairs_lines(a: Analysis) -> list[str]:
    if not len(a.pairs):
        return []
    holm = "win_separated_holm" in a.pairs
    L = ["", "Pairs of officials (restricted bot without A minus without B; separated = CI excludes 0"
         + ("; after Holm = the Holm-adjusted p-value across this table is below 5%" if holm else "") + "):", ""]
    rows = []
    for r in a.pairs.itertuples():
        sep = ", ".join(x for x, s in (("win", r.win_separated), ("score", r.score_separated)) if s)
        after = [", ".join(x for x, s in (("win", r.win_separated_holm), ("score", r.score_separated_holm)) if s)
                 or "no"] if holm else []
        rows.append([r.players, OFFICIAL_LABEL[r.a], OFFICIAL_LABEL[r.b], pp(r.d_win, r.d_win_lo, r.d_win_hi),
                     num(r.d_score, r.d_score_lo, r.d_score_hi), sep or "no", *after])
    return L + table(["players", "A", "B", "Δ win rate [95% CI]", "Δ score [95% CI]", "separated"]
                     + (["after Holm"] if holm else []), rows)


def seat_lines(a: Analysis) -> list[str]:
    L = ["", "### Seat advantage", "",
         "The control games (identical bots in every seat) are the measure of the seats; all games of the "
         "study (seats rotate, so each seat meets the same mix of bots) are beside them, but they mix in the "
         "ablation games, where one seat is crippled. Seat 0 is the start player.", ""]
    alls = a.seats.set_index(["players", "seat"])
    rows = []
    for r in a.seats_control.itertuples():
        c = alls.loc[(r.players, r.seat)] if (r.players, r.seat) in alls.index else None
        cc = f"{pct_ci(c.win_rate, c.lo, c.hi)} of {int(c.games)}" if c is not None else "–"
        rows.append([r.players, r.seat, r.games, pct_ci(r.win_rate, r.lo, r.hi),
                     p_text(r.p_equal_seats), pct(r.expected), cc])
    return L + table(["players", "seat", "control: games", "control: win rate [95% CI]", "control: equal seats p",
                      "fair", "all games: win rate [95% CI] of games"], rows) + ["", wbc_sentence(control_wbc(a)), ""]


def control_wbc(a: Analysis) -> dict:
    """The WBC comparison with the study's 4-player first seat from the control games only."""
    from .tables import wbc_comparison
    return wbc_comparison(a.seats_control) if len(a.seats_control) else a.wbc


def study_detail(title: str, a: Analysis, m: dict, plots: list[str]) -> list[str]:
    """The detail tables of one study (the report's appendix): links to its single plots, the ablation, usage,
    what a restricted player does instead, pairs of officials and the seats (the summary plot is shown with
    the results)."""
    L = [f"### {title}" + (f" (`{m['bot']}`)" if m.get("bot") else ""), ""]
    L += plot_lines([p for p in plots if not Path(p).stem.endswith("summary")])
    return L + demote(ablation_lines(a) + usage_lines(a) + substitution_lines(a) + pairs_lines(a)
                      + seat_lines(a))



def format_choice_text(t: pd.DataFrame) -> str:
    """The choice table in a few terminal lines: per player count and official, all phases."""
    L = ["value at the moment of choice (search estimate; Δ win = best with − best without)"]
    for r in t[t.phase == "all"].itertuples():
        if r.rated == 0:
            L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} on offer {r.decisions:>5}, none rated")
            continue
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} on offer {r.decisions:>5}  rated {r.rated:>5}  "
                 f"Δwin {100 * r.d_win_mean:+5.1f} pp  right {pct(r.right):>6}  taken {pct(r.used):>6}"
                 + ("  (small sample)" if r.small_sample else ""))
    if len(t) == 0:
        L.append("  no decision with an official on offer")
    return "\n".join(L)


#: how the value at the moment of choice is measured (the report's Methods)
CHOICE_METHOD = (
    "At every decision of the rated games where the player to move could use an official (and could also "
    "do without), the search — the analysis `thurn-ai hint` runs, from that player's information only — "
    "rates the best move that uses the official and the best that does not, each with a search whose root "
    "may only take that side. Δ win = the first's win rating minus the second's: a calibrated win chance "
    "where the search's win share went through the win map (a search with the learned evaluation), "
    "else the evaluation's own units (Δ evaluation, not a probability); Δ score alike in points. First "
    "rating: each side's most visited move by its own mean, which selection biases upward (the best of "
    "several noisy means), the more so for the side with more moves. Fresh re-rating: that same move "
    "rated again by an independent search of the side (its own seed and budget), which no selection "
    "has biased. Using it is *right* when Δ win > 0; *clearly* right or wrong when Δ exceeds two of "
    "its approximate standard errors. The four officials are offered at different steps of a turn "
    "against different alternatives (the Cartwright at the close, where it costs nothing), so their "
    "shares are not comparable with each other: each answers its own question. These are a search's "
    "estimates, not measured outcomes: read them next to the ablation.")


def choice_section(choice: dict) -> list[str]:
    """The markdown section "Value at the moment of choice": how it is measured, then per study its search,
    games, plots, table and examples. choice: {study: {'table': choice_table, 'examples': choice_examples
    with a 'file' column (relative link), 'plots': [names], 'search': {players: spec}, 'games': {players:
    games rated}}}."""
    L = ["## Value at the moment of choice", "", CHOICE_METHOD, ""]
    for name, c in choice.items():
        L += [f"### {name}", ""]
        said = choice_search_lines(c)
        L += [x for line in said for x in (line, "")]
        if not c["table"].empty:
            for img in c.get("plots", []):
                L += [f"![{Path(img).stem}]({img})", ""]
        L += choice_study_lines(c)
    return L


def choice_search_lines(c: dict) -> list[str]:
    """One study's rating searches and games rated (sentences)."""
    L = []
    if c.get("search"):
        L.append("Search: " + "; ".join(f"{n} players `{s}`" for n, s in sorted(c["search"].items())) + ".")
    if c.get("games"):
        L.append("Games rated: " + ", ".join(f"{g} with {n} players" for n, g in sorted(c["games"].items())) + ".")
    return L


def choice_detail(choice: dict) -> list[str]:
    """The value at the moment of choice per study, its tables and examples only (the report's appendix;
    how it is measured and the plots are in Methods and Results)."""
    L = []
    for name, c in choice.items():
        L += [f"#### {name}", ""] + choice_study_lines(c)
    return L


def choice_study_lines(c: dict) -> list[str]:
    """One study's choice table with its note, and the examples where it matters most."""
    t, ex = c["table"], c.get("examples")
    if t.empty:
        return ["No decision with an official on offer was rated yet.", ""]
    L = choice_table_lines(t)
    L += ["", "Decisions of one game are not independent, so the interval of \"using it right\" resamples whole "
          "games (bootstrap, widened to cover the Wilson interval over decisions); "
          "\"rated\" counts decisions with both sides rated.", ""]
    if ex is not None and len(ex):
        L += ["Where it matters most (open a position with `thurn-ai hint FILE`; each is the view of the player "
              "to move):", ""]
        L += table(["official", "position", "players", "phase, turn", "with", "without", "Δ win [± 2 se]", "Δ score",
                    "played"],
                   ([OFFICIAL_LABEL[r.official], f"[{Path(r.file).name}]({r.file})" if getattr(r, "file", None)
                     else "–", r.players, f"{r.phase}, turn {r.turn + 1}", f"`{r.with_move}`", f"`{r.without_move}`",
                     f"{100 * r.d_win:+.1f} pp [± {200 * r.se_win:.1f}]", f"{r.d_score:+.2f}", f"`{r.played}`"]
                    for r in ex.itertuples())) + [""]
    return L


def _unit(t: pd.DataFrame) -> str:
    units = set(t["unit"]) if "unit" in t else {"Δ evaluation"}
    return units.pop() if len(units) == 1 else "Δ win chance (calibrated) or Δ evaluation, per row"


def choice_table_lines(t: pd.DataFrame) -> list[str]:
    """The choice table in markdown: Δ win (its unit said: win_unit) as mean, median and 10%-trimmed mean
    with quartiles, the share where using it is right by the first rating and by the independent
    re-rating, without the last round's decisions, and how often each player took it."""
    unit = _unit(t)
    L = [f"Unit of Δ win: {unit} (percentage points). *last round*: decisions made in the round the game "
         "ended in (a game-ending Cartwright, the last houses), which a few large Δ come from; *right "
         "without them* leaves them out.", ""]
    rows = []
    for r in t.itertuples():
        if r.rated == 0:
            cells = ["–"] * 6
        else:
            fresh = (pct_ci(r.fresh_right, r.fresh_right_lo, r.fresh_right_hi)
                     if getattr(r, "fresh_rated", 0) else "–")
            cells = [f"{100 * r.d_win_mean:+.1f} / {100 * r.d_win_median:+.1f} / "
                     f"{100 * getattr(r, 'd_win_trimmed', math.nan):+.1f} pp [{100 * r.d_win_q25:+.1f}, "
                     f"{100 * r.d_win_q75:+.1f}]", f"{r.d_score_mean:+.2f}",
                     pct_ci(r.right, r.right_lo, r.right_hi)
                     + (" (small sample)" if r.small_sample else ""),
                     pct(getattr(r, "right_open", math.nan)), fresh,
                     f"{pct(r.clearly_right)} / {pct(r.clearly_wrong)}"]
        rows.append([r.players, OFFICIAL_LABEL[r.official], r.phase, r.decisions, r.rated, getattr(r, "endgame", 0),
                     *cells, pct(r.used), pct(r.search_uses)])
    return L + table(["players", "official", "phase", "on offer", "rated", "last round",
                      f"{unit}: mean / median / trimmed [q25, q75]", "Δ score mean, points",
                      "using it right, first rating [95% CI]", "right without the last round",
                      "right, fresh re-rating [95% CI]", "clearly right / wrong", "taken by the player",
                      "search's top move"], rows)


def comparison_section(comparison: pd.DataFrame, names: list[str], plots=()) -> list[str]:
    """The markdown section comparing two players of the officials (e.g. the heuristic bot and the search)."""
    if comparison is None or comparison.empty or len(names) < 2:
        return []
    a, b = names[0], names[1]
    L = [f"## {a.capitalize()} vs {b}: how each uses the officials", "",
         "Uses per game and the share of its turns on which each player used the official (early / middle / "
         "late); Δ win rate when the official is forbidden (ablation); and, at the decisions where it was on "
         "offer in each player's own games, how often it took the official, how often the search rates "
         "taking it right, how often the player agreed with the search, and the search's Δ win the player "
         "gave away per game by its choices (summed over the decisions where the search rates the other "
         "side better by more than two standard errors; a lower bound, as the player may also pick a worse "
         "move within a side; estimates of a search, not measured wins).", ""]
    for img in plots:
        L += [f"![{Path(img).stem}]({img})", ""]

    def cell(r, key, f=pct):
        v = getattr(r, key, math.nan)
        return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f(v)

    rows = []
    for r in comparison.itertuples():
        for name in (a, b):
            shares = " / ".join(cell(r, f"{name}_share_{ph}") for ph in STAGES)
            dwin = ("–" if math.isnan(getattr(r, f"{name}_d_win", math.nan)) else
                    pp(getattr(r, f"{name}_d_win"), getattr(r, f"{name}_d_win_lo"), getattr(r, f"{name}_d_win_hi")))
            rated = getattr(r, f"{name}_rated", math.nan)
            note = " (small sample)" if not math.isnan(rated) and rated < SMALL_SAMPLE else ""
            rows.append([r.players, OFFICIAL_LABEL[r.official], name, cell(r, f"{name}_uses", lambda v: f"{v:.2f}"),
                         f"{cell(r, f'{name}_share')} ({shares})", dwin,
                         cell(r, f"{name}_offered", lambda v: f"{v:.1f}"), cell(r, f"{name}_taken"),
                         cell(r, f"{name}_right") + note, cell(r, f"{name}_agree"),
                         cell(r, f"{name}_given_away", lambda v: f"{100 * v:.1f} pp")])
    return L + table(["players", "official", "player", "uses / game", "share of turns (early / middle / late)",
                      "Δ win when forbidden", "on offer / game", "taken when on offer", "search: right to take",
                      "agrees with search", "given away / game"], rows) + [""]


def seats_section(seats: pd.DataFrame, names: list[str], wbc: dict) -> list[str]:
    """The markdown section: win rate per seat of each study side by side, and the WBC record."""
    if seats is None or seats.empty:
        return []
    L = ["## Seat advantage: " + " and ".join(names), "",
         "Win rate per seat (seat 0 starts) over all games of each study, with 95% Wilson intervals; in brackets "
         "the control games alone (identical players in every seat).", ""]
    rows = []
    for r in seats.itertuples():
        cells = []
        for name in names:
            if math.isnan(getattr(r, f"{name}_all_rate", math.nan)):
                cells.append("–")
                continue
            s = (f"{pct(getattr(r, f'{name}_all_rate'))} [{pct(getattr(r, f'{name}_all_lo'))}, "
                 f"{pct(getattr(r, f'{name}_all_hi'))}] of {getattr(r, f'{name}_all_games')}")
            if not math.isnan(getattr(r, f"{name}_control_rate", math.nan)):
                s += (f" (control {pct(getattr(r, f'{name}_control_rate'))} of "
                      f"{getattr(r, f'{name}_control_games')})")
            cells.append(s)
        rows.append([r.players, r.seat, pct(r.fair), *cells])
    return L + table(["players", "seat", "fair", *names], rows) + ["", wbc_sentence(wbc), ""]


def wbc_sentence(w: dict) -> str:
    lo, hi = w["wbc_ci"]
    s = (f"**Against the real games:** at the World Boardgaming Championships the first seat won "
         f"{w['wbc_wins']} of {w['wbc_games']} 4-player games up to 2013 = {pct(w['wbc_rate'])} "
         f"[{pct(lo)}, {pct(hi)}] (binomial p = {p_text(w['wbc_p_vs_quarter'])} against 25%), and "
         f"{pct(w['wbc_2024_rate'])} in 2024. The WBC's players bid for their seats, so a seat's rate there "
         f"includes what was paid for it: the comparison is a direction, not a test of fair seats.")
    if "ours_rate" in w:
        olo, ohi = w["ours_ci"]
        dlo, dhi = w["diff_ci"]
        same = "consistent with" if dlo <= 0 <= dhi else "different from"
        s += (f" Here the first seat won {w['ours_wins']} of {w['ours_games']} 4-player games = "
              f"{pct_ci(w['ours_rate'], olo, ohi)}; difference to the WBC "
              f"{pp(w['ours_rate'] - w['wbc_rate'], dlo, dhi)}, i.e. {same} the WBC rate.")
    return s
