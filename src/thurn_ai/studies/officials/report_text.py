"""The officials study's findings in sentences: what forbidding each official does, how often each is used,
the seats, what the rating says at an offer, each read off the findings' tables (for the report's results
and summary, the players' page and the terminal text; report.py places them)."""
from __future__ import annotations

import math

import pandas as pd

from ...game.officials import OFFICIALS, STAGES
from ..markdown import num, p_text, pct, pct_ci, pp
from .advice import follow_of
from .choice import SMALL_SAMPLE
from .plan import OFFICIAL_LABEL
from .rated import RATINGS
from .report_tables import control_wbc, verdict, wbc_sentence
from .tables import Analysis


def weighted(rows: pd.DataFrame, column: str, weights: str) -> float:
    """The mean of `column` over rows weighted by `weights` (nan rows and weights left out)."""
    ok = rows[column].notna() & (rows[weights] > 0)
    return float((rows[column][ok] * rows[weights][ok]).sum() / rows[weights][ok].sum()) if ok.any() else math.nan


def primary_rows(validation: pd.DataFrame | None):
    """(n, the ratings' rows at n): the smallest player count where a rating's control was played (None
    without a control)."""
    if validation is None or validation.empty or "d_control" not in validation:
        return None
    rows = validation[validation.rating.isin(RATINGS) & validation.d_control.notna()]
    if rows.empty:
        return None
    n = int(rows.players.min())
    return n, rows[rows.players == n]


def primary_sentence(validation: pd.DataFrame | None) -> str | None:
    """The primary comparison in one sentence: each rating's paired difference to its control at the
    smallest player count where controls were played (None without a control)."""
    if primary_rows(validation) is None:
        return None
    n, rows = primary_rows(validation)
    said = "; ".join(f"the {r.rating} rating {pp(r.d_control, r.d_control_lo, r.d_control_hi)} of win rate "
                     f"(Holm p {p_text(r.p_control_holm)})" for r in rows.itertuples())
    return (f"The primary test, at {n} players: a bot that follows the search's rating at every offer of an "
            "official, minus its control (the same searches, the side picked by the search's own move, on the "
            f"same deals; paired by deal): {said}.")


def played_counts(t: pd.DataFrame) -> str:
    """'2 / 3 / 4': the player counts of a table."""
    return " / ".join(str(int(n)) for n in sorted(t.players.unique()))


def ablation_brief(t: pd.DataFrame) -> str:
    """Each official's primary estimate (with_primary rows) where its verdict is not "no change detected",
    at every count: "Postmaster -43.5 / -32.3 / -21.0 pp (clearly worse); Administrator no change detected; ..."."""
    said = []
    for o in OFFICIALS:
        r = t[t.official == o].sort_values("players")
        if r.empty:
            continue
        moved = [x for x in r.itertuples() if verdict(x) != "no change detected"]
        if not moved:
            said.append(f"{OFFICIAL_LABEL[o]} no change detected")
        elif len(moved) == len(r) and len({verdict(x) for x in moved}) == 1:
            said.append(f"{OFFICIAL_LABEL[o]} " + " / ".join(f"{100 * x.d_primary:+.1f}" for x in moved)
                        + f" pp ({verdict(moved[0])})")
        else:
            said.append(f"{OFFICIAL_LABEL[o]} " + ", ".join(
                f"{pp(x.d_primary, x.d_primary_lo, x.d_primary_hi)} at {x.players} players ({verdict(x)})"
                for x in moved) + ", elsewhere no change detected")
    return "; ".join(said)


def ablation_estimate(t: pd.DataFrame) -> str:
    """What the ablation's primary estimate compares the restricted seat with."""
    return ("the same seat of the control game on the same deal" if (t.primary == "paired").all()
            else "the fair share 1/n where no control game dealt the same cards")


def ablation_summary(a, main: str | None) -> str | None:
    """What never using each official did to the main study's seat (the primary estimate), by verdict."""
    t = a.primary if a is not None else None
    if t is None or t.empty:
        return None
    return (f"A seat of the {main} that never uses an official, against players who do, minus "
            f"{ablation_estimate(t)}, at {played_counts(t)} players: {ablation_brief(t)}.")


def take_rate_summary(table: pd.DataFrame | None) -> str | None:
    """How often the search took each official when it was on offer (the choice table, all phases)."""
    if table is None or table.empty:
        return None
    rates = []
    for o in OFFICIALS:
        allp = table[(table.official == o) & (table.phase == "all")]
        if len(allp) and allp.rated.sum() > 0:
            rates.append(f"the {OFFICIAL_LABEL[o]} at {pct(weighted(allp, 'used', 'rated'))}")
    if not rates:
        return None
    return ("At the offers of its rated games the search took " + ", ".join(rates) + " of them: a description "
            "of one bot's choices, not a test of them.")


def off_fair(x) -> bool:
    """Whether a seat's interval (a seats table's row) leaves its fair share."""
    return x.lo > x.expected or x.hi < x.expected


def first_seats(a) -> list:
    """The first seat's rows of the control games' seats table, by player count."""
    return list(a.seats_control[a.seats_control.seat == 0].sort_values("players").itertuples())


def first_seat_text(x, fair: str = " (fair {})") -> str:
    """'38.3% [33.7%, 43.2%] of 402 games at 3 players (fair 33.3%)'."""
    return f"{pct_ci(x.win_rate, x.lo, x.hi)} of {x.games} games at {x.players} players" + fair.format(
        pct(x.expected))


def seat_summary(a) -> str | None:
    """The first seat in the control games: where its interval leaves the fair share, and where not."""
    if a is None or not len(a.seats_control):
        return None
    first = first_seats(a)
    off = [x for x in first if off_fair(x)]
    fair = [str(x.players) for x in first if not off_fair(x)]
    s = "Among identical bots (control games) the first seat won "
    s += "; ".join(first_seat_text(x) for x in off) if off else "its fair share at every count"
    if off and fair:
        s += f"; at {' and '.join(fair)} players its interval includes the fair share"
    return s + "."


def agreement_sentence(agreement: pd.DataFrame | None) -> str:
    """' At the offers its played choice equals the heuristic bot's at ...' (agreement.md), or ''."""
    if agreement is None or agreement.empty or "choice" not in agreement:
        return ""
    every = agreement[(agreement.choice == "played") & agreement.players.astype(str).eq("all")]
    if every.empty:
        return ""
    parts = [f"{OFFICIAL_LABEL[r.official]} {100 * r.agreement:.1f}%"
             + (f" (κ {r.kappa:.2f})" if pd.notna(r.kappa) else "") for r in every.itertuples()
             if r.official in OFFICIAL_LABEL]
    return (" Measured: at the offers of its rated games the search's own choice is the heuristic bot's choice "
            "in the same position at " + ", ".join(parts) + " of the offers ([agreement.md](agreement.md)).")


def findings(a: Analysis) -> list[str]:
    """Plain sentences: what forbidding each official does (where the CI excludes 0 and where it does not),
    which pairs of officials the data separate, how often each is used, and the seat advantage."""
    return ablation_findings(a) + usage_findings(a) + seat_findings(a)


def ablation_findings(a: Analysis) -> list[str]:
    """Per player count: what forbidding each official does (primary estimate) and which pairs of officials
    the data separate."""
    out = []
    for n, g in a.primary.groupby("players"):
        worst = g.sort_values("d_primary").iloc[0]
        how = "paired" if (g.primary == "paired").all() else "against 1/n" if (g.primary != "paired").all() \
            else "paired where the control dealt the same games, else against 1/n"
        costs = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_primary_hi < 0]
        gains = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_primary_lo > 0]
        unclear = [r for r in g.itertuples() if r.d_primary_lo <= 0 <= r.d_primary_hi]
        s = (f"{n} players (primary estimate: {how}): taking away the {OFFICIAL_LABEL[worst.official]} costs the "
             f"most ({pp(worst.d_primary, worst.d_primary_lo, worst.d_primary_hi)} win rate, "
             f"{num(worst.d_score, worst.d_score_lo, worst.d_score_hi)} points). "
             f"Win rate lower without: {', '.join(costs) or 'none'}")
        if gains:
            s += f"; higher without (this bot uses it to its harm): {', '.join(gains)}"
        s += "; no change detected: " + (", ".join(
            f"{OFFICIAL_LABEL[r.official]} ({pp(r.d_primary, r.d_primary_lo, r.d_primary_hi)}; {_power_text(r)})"
            for r in unclear) or "none") + "."
        out.append(s)
        p = a.pairs[a.pairs.players == n]
        if len(p):
            sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                   if r.win_separated or r.score_separated]
            not_sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                       if not (r.win_separated or r.score_separated)]
            out.append(f"{n} players: pairs the CIs separate (win rate or score): {', '.join(sep) or 'none'}; "
                       f"not separated: {', '.join(not_sep) or 'none'}.")
    return out


def usage_findings(a: Analysis) -> list[str]:
    """Per player count: how often the full bot uses each official, and in which phase."""
    out = []
    for n, g in a.usage.groupby("players"):
        g = g.sort_values("total", ascending=False)
        if "early_share_of_turns" in g:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} (on {pct(r.share_of_turns)} of its turns: "
                             + " / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in STAGES) + ")"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game (share of its turns early / middle / late): "
                       f"{uses}.")
        else:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} ({pct(r.share_of_turns)} of turns)"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game: {uses}.")
    return out


def seat_findings(a: Analysis) -> list[str]:
    """Per player count: the first seat in the control games, and the seats off the fair share."""
    out = []
    for n, g in a.seats_control.groupby("players"):
        f = g[g.seat == 0].iloc[0]
        where = ("above" if f.lo > f.expected else "below" if f.hi < f.expected else "not distinguishable from")
        off_fair = [f"seat {r.seat} {pct_ci(r.win_rate, r.lo, r.hi)}" for r in g.itertuples()
                    if r.lo > r.expected or r.hi < r.expected]
        out.append(f"{n} players, control games only (identical bots): the first seat wins {pct(f.win_rate)} "
                   f"[{pct(f.lo)}, {pct(f.hi)}] of {int(f.games)} games, {where} the fair {pct(f.expected)}; "
                   f"seats whose interval excludes the fair share: {', '.join(off_fair) or 'none'} (all seats "
                   f"equal: chi-square p = {p_text(f.p_equal_seats)}).")
    return out


def _detectable(r) -> float:
    """The detectable effect of a with_primary row for its primary estimator."""
    return r.detectable_paired if r.primary == "paired" else r.detectable_fair


def _power_text(r) -> str:
    """What the games of a with_primary row detect with 80% power, or why no power can be given: paired
    differences that never vary (every game the same as its control's) have no spread to compute it from."""
    d = _detectable(r)
    if math.isnan(d):
        return "no power can be given: the paired differences do not vary, so there is no spread to compute it from"
    return f"the smallest effect these games detect with 80% power is {100 * d:.1f} pp"


def format_text(a: Analysis) -> str:
    """A compact plain-text summary for the terminal."""
    L = ["officials: Δ win rate and Δ mean score when forbidden (95% CI); Δwin is the primary estimate the findings "
         "use: paired with the control game of the same deal where there is one, else against 1/n"]
    for r in a.primary.itertuples():
        how = "paired" if r.primary == "paired" else "vs 1/n"
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} games {r.games:>5}  win {pct(r.win_rate):>6}  "
                 f"Δwin {how:<6} {pp(r.d_primary, r.d_primary_lo, r.d_primary_hi):<26} "
                 f"Δscore {num(r.d_score, r.d_score_lo, r.d_score_hi)}")
    L.append("usage by the full bot (uses per player per game: early / middle / late = total)")
    for r in a.usage.itertuples():
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} {r.early:5.2f} / {r.middle:5.2f} / "
                 f"{r.late:5.2f} = {r.total:5.2f}  ({pct(r.share_of_turns)} of turns)")
    L.append("seat advantage (control games only; seat 0 starts)")
    for n, g in a.seats_control.groupby("players"):
        cells = "  ".join(f"seat {r.seat} {pct_ci(r.win_rate, r.lo, r.hi)}" for r in g.itertuples())
        L.append(f"  {n}p ({int(g.games.iloc[0])} games, equal-seats p {p_text(g.p_equal_seats.iloc[0])}): {cells}")
    L.append(wbc_sentence(control_wbc(a)).replace("**", ""))
    L += ["findings:"] + [f"  - {s}" for s in findings(a)]
    return "\n".join(L)


#: a Δ win rate interval wider than this (half-width) is "too few games to tell" in the summary for players
WIDE = 0.15


def _sample_note(rated: int) -> str:
    return f" (only {rated} rated decisions: the sample is too small to rely on)" if rated < SMALL_SAMPLE else ""


def player_summary(analyses: dict, main: str | None = None, choice: dict | None = None) -> list[str]:
    """A few plain sentences for players, from the data: what never using each official costs the main
    study's player, when using it is right (value at the moment of choice), and the first seat. Says so
    where the sample is too small."""
    out: list[str] = []
    names = list(analyses) or list(choice or {})
    if not names:
        return out
    main = main if main in names else names[-1]
    a = analyses.get(main)
    if a is not None:
        out += ablation_sentences(a)
    if choice and main in choice:
        out += choice_sentences(choice[main]["table"], follow_of(choice[main].get("advice")))
    if a is not None:
        out += seat_sentences(a)
    return out


def ablation_sentences(a: Analysis) -> list[str]:
    out = []
    t = a.primary
    for o in OFFICIALS:
        r = t[t.official == o].sort_values("players")
        if r.empty:
            continue
        parts, wide = [], []
        for x in r.itertuples():
            if (x.d_primary_hi - x.d_primary_lo) / 2 > WIDE:
                wide.append(f"{x.players}")
                continue
            # the difference carries its sign, the verdict only says whether the interval excludes zero
            est = "paired with the same deals" if x.primary == "paired" else "against 1/n"
            parts.append(f"at {x.players} players it wins {pct(x.win_rate)} of its games instead of "
                         f"{pct(1 / x.players)} ({pp(x.d_primary, x.d_primary_lo, x.d_primary_hi)} {est}, "
                         f"{verdict(x)})")
        s = f"**{OFFICIAL_LABEL[o]}**: a player who never uses it, against players who do"
        s += (": " + "; ".join(parts) if parts else "")
        if wide:
            s += (f"{'; ' if parts else ': '}at {', '.join(wide)} players too few games to tell "
                  f"({int(r.games.min())}–{int(r.games.max())} a table)")
        out.append(s + ".")
    return out


def choice_sentences(t: pd.DataFrame, follow: str | None = None) -> list[str]:
    """Per official: what using it when offered is compared with, how often it is right by each rating (the
    independent re-rating, without the first rating's selection bias, where the rows have it), and in which
    phase it is worth most, with its unit and the median beside the mean. follow="player" (the validation by
    play found the search's own choice better than the rating's: advice.advice_table): first how often the
    search itself uses it, and the rating's numbers said to be the rating's, not advice."""
    out = []
    for o in OFFICIALS:
        allp = t[(t.official == o) & (t.phase == "all")] if len(t) else t
        rated = int(allp.rated.sum()) if len(allp) else 0
        if not len(allp):
            out.append(f"**{OFFICIAL_LABEL[o]}** at the moment of choice: never on offer in the games rated.")
            continue
        unit = allp.unit.iloc[0] if "unit" in allp else "Δ evaluation"
        fresh = "fresh_rated" in allp and allp.fresh_rated.fillna(0).sum() > 0
        if follow == "player":
            s = (f"**{OFFICIAL_LABEL[o]}** when it is on offer: the search uses it at "
                 f"{pct(weighted(allp, 'used', 'rated'))} of its offers (its choices at the offers of all four "
                 "officials together beat the rating's in play: Results, validation by play). The rating, not to be "
                 "followed, compares it with the best move without it at the same decision: using it is the "
                 "better move in "
                 f"{pct(weighted(allp, 'right', 'rated'))} of the {rated} positions rated by the first rating")
        else:
            s = (f"**{OFFICIAL_LABEL[o]}** when it is on offer, against the best move without it at the same "
                 f"decision: using it is the better move in {pct(weighted(allp, 'right', 'rated'))} of the "
                 f"{rated} positions the search rated by the first rating")
        if fresh:
            s += (f", {pct(weighted(allp, 'fresh_right', 'fresh_rated'))} by the independent re-rating (no "
                  "selection bias)")
        prefix, weight = ("fresh_", "fresh_rated") if fresh else ("", "rated")
        ph = t[(t.official == o) & (t.phase != "all") & (t[weight].fillna(0) > 0)]
        if len(ph) and follow == "player":
            # play rejected the rating: its Δ by phase would read as advice, so say when the search uses it
            used = {p: weighted(g, "used", "rated") for p, g in ph.groupby("phase")}
            s += "; the search uses it " + ", ".join(f"{pct(used[p])} in the {p} game" for p in STAGES if p in used)
        elif len(ph):
            by_phase = {p: weighted(g, f"{prefix}d_win_mean", weight) for p, g in ph.groupby("phase")}
            top = max(by_phase, key=by_phase.__getitem__)
            median = weighted(ph[ph.phase == top], f"{prefix}d_win_median", weight)
            said = f"{unit} {100 * by_phase[top]:+.1f} pp on average there, median {100 * median:+.1f}"
            if by_phase[top] > 0:
                s += f"; it is worth most in the {top} game ({said})"
            else:       # on average using it now is worse than keeping it for later in every phase
                s += f"; on average using it now is worse in every phase, least in the {top} game ({said})"
        out.append(s + _sample_note(rated) + ".")
    return out


def seat_sentences(a: Analysis) -> list[str]:
    """The first seat, from the control games only (identical bots in every seat)."""
    out = []
    for n, g in a.seats_control.groupby("players"):
        f = g[g.seat == 0].iloc[0]
        if (f.hi - f.lo) / 2 > WIDE:
            out.append(f"First seat at {n} players: too few games to tell ({int(f.games)}).")
            continue
        where = "more than" if f.lo > f.expected else "less than" if f.hi < f.expected else "about"
        out.append(f"First seat at {n} players: wins {pct_ci(f.win_rate, f.lo, f.hi)} of "
                   f"{int(f.games)} control games (identical bots), {where} the fair {pct(f.expected)}"
                   + (" (the World Boardgaming Championships: 31.4% of 226 4-player games)" if n == 4 else "")
                   + ".")
    return out
