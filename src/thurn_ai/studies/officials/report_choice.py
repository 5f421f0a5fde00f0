"""The officials study's report, the value at the moment of choice: the method, each search's rating facts, the
per-bot detail and its tables, and the terminal text of a choice table (report.py assembles them)."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .plan import OFFICIAL_LABEL
from ..markdown import pct, table

__all__ = ["format_choice_text", "CHOICE_METHOD", "choice_section", "choice_search_lines", "choice_detail",
           "choice_study_lines", "choice_table_lines"]


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
            fresh = (f"{pct(r.fresh_right)} [{pct(r.fresh_right_lo)}, {pct(r.fresh_right_hi)}]"
                     if getattr(r, "fresh_rated", 0) else "–")
            cells = [f"{100 * r.d_win_mean:+.1f} / {100 * r.d_win_median:+.1f} / "
                     f"{100 * getattr(r, 'd_win_trimmed', math.nan):+.1f} pp [{100 * r.d_win_q25:+.1f}, "
                     f"{100 * r.d_win_q75:+.1f}]", f"{r.d_score_mean:+.2f}",
                     f"{pct(r.right)} [{pct(r.right_lo)}, {pct(r.right_hi)}]"
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
