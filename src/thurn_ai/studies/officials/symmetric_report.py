"""The symmetric ablations' report (symmetric.py): the markdown a designer reads, one forest plot a host, and
the findings (Findings: the numbers the docs quote)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..findings import Number
from ..markdown import Prose, num, p_text, pp
from ..markdown import table as markdown_table
from .plan import OFFICIAL_LABEL
from .plots import pyplot, save
from .symmetric import DESIGN, GAME_MEASURES, NORMAL, RULE, VARIANTS, Variant, cell_seed, host_spec

__all__ = ["variant_label", "difference_text", "write_plot", "report", "numbers", "planned_table",
           "populations_table"]

PROSE = Prose(__package__, "prose/design.md")
#: the measures the plot and the summary show (uses is the manipulation check: the tables only)
SHOWN = tuple(m for m in GAME_MEASURES if m != "uses")
#: a measure's short name, for a plot panel's title and a table's column
SHORT = {"turns": "game length (turns)", "margin": "winner's margin", "spread": "score spread",
         "lead_changes": "lead changes", "first_win": "first seat: wins − 1/n", "by_carriage": "ended by a 7-carriage",
         "tile_points": "tile points a seat", "carriage_points": "carriage points a seat", "uses": "uses a seat"}


def variant_label(name: str) -> str:
    v = Variant.parse(name)
    return "normal game" if v.mode == NORMAL else f"{v.mode} {OFFICIAL_LABEL[str(v.official)]}"


def difference_text(r) -> str:
    """A paired difference with its interval, in points for a 0/1 measure, in its unit else."""
    if GAME_MEASURES[r.measure][1] == "share":
        return pp(r.d, r.d_lo, r.d_hi)
    return num(r.d, r.d_lo, r.d_hi, 1)


def write_plot(comparison: pd.DataFrame, out: Path, host: str) -> str | None:
    """design_<host>.png: per measure a panel, each variant's paired difference to the normal game with its
    95% interval, one colour a player count (a designer reads where the intervals leave 0)."""
    plt = pyplot()
    c = comparison[comparison.host == host]
    if c.empty:
        return None
    variants = [v.name for v in VARIANTS if v.mode != NORMAL and v.name in set(c.variant)]
    fig, axes = plt.subplots(2, 4, figsize=(16, 8), sharey=True)
    counts = sorted(c.players.unique())
    for ax, measure in zip(axes.flat, SHOWN):
        scale = 100 if GAME_MEASURES[measure][1] == "share" else 1
        for i, n in enumerate(counts):
            g = c[(c.players == n) & (c.measure == measure)].set_index("variant").reindex(variants)
            y = np.arange(len(variants)) + (i - (len(counts) - 1) / 2) * 0.25
            x = g.d.to_numpy(float) * scale
            err = np.vstack([x - g.d_lo.to_numpy(float) * scale, g.d_hi.to_numpy(float) * scale - x])
            ax.errorbar(x, y, xerr=err, fmt="o", capsize=2, label=f"{n} players")
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title(SHORT[measure] + (" (points)" if scale == 100 else ""), fontsize=10)
    axes.flat[0].set_yticks(range(len(variants)), [variant_label(v) for v in variants])
    axes.flat[4].set_yticks(range(len(variants)), [variant_label(v) for v in variants])
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"Every seat the same `{host}` bot: each variant minus the normal game, paired deals (95% intervals)")
    return save(plt, fig, Path(out), f"design_{host}.png", dpi=100)


def _marked(r) -> str:
    text = difference_text(r)
    return f"**{text}**" if r.verdict != "no change detected" else text


def _level_number(r) -> Number:
    """A row of the levels table as a number (the report's level cells and the normal game's findings print
    alike): a share as a percent, the seat advantage (a share minus 1/n) as signed points, the other measures
    in their own unit."""
    unit = "number" if GAME_MEASURES[r.measure][1] != "share" else "pp" if r.measure == "first_win" else "share"
    return Number(r.mean, r.lo, r.hi, unit, 1, r.games,
                  f"the {variant_label(r.variant)}: {SHORT[r.measure]} (mean, 95% t interval)")


def _level(levels: pd.DataFrame, host: str, n: int, variant: str, measure: str) -> str:
    r = levels[(levels.host == host) & (levels.players == n) & (levels.variant == variant)
               & (levels.measure == measure)]
    return "–" if r.empty else _level_number(next(r.itertuples())).text()


def _detected_lines(comparison: pd.DataFrame) -> list[str]:
    changed = comparison[comparison.verdict != "no change detected"]
    if changed.empty:
        return ["No variant changes any measure detectably (Holm-corrected)."]
    out = []
    for (host, variant), g in changed.groupby(["host", "variant"], sort=False):
        said = "; ".join(f"{r.players} players {SHORT[r.measure]} {difference_text(r)}"
                         for r in g.itertuples())
        out.append(f"- `{host}`, **{variant_label(variant)}**: {said}.")
    return out


#: a verdict as one sign: a detected rise, a detected fall, no change detected
SIGN = {"higher": "+", "lower": "−", "no change detected": "·"}


def populations_table(comparison: pd.DataFrame) -> pd.DataFrame:
    """Where more than one population (host) was played: per variant and measure, each host's verdicts at its
    player counts as signs in count order (SIGN; '+·−' = higher at 2, none at 3, lower at 4 players), and
    `both`: every host detected a change in the same direction at every count, so the change is the game's
    rather than one bot's; `opposite`: at some count one host detected a rise and another a fall. Empty with
    fewer than two hosts."""
    hosts = list(dict.fromkeys(comparison.host)) if len(comparison) else []
    if len(hosts) < 2:
        return pd.DataFrame()
    rows = []
    for (variant, measure), g in comparison.groupby(["variant", "measure"], sort=False):
        by_count = {h: {int(r.players): SIGN[r.verdict] for r in g[g.host == h].itertuples()} for h in hosts}
        signs = {h: "".join(by_count[h][n] for n in sorted(by_count[h])) for h in hosts}
        first = signs[hosts[0]]
        both = len(set(signs.values())) == 1 and first != "" and first in {"+" * len(first), "−" * len(first)}
        # at some count one population detected a rise and another a fall: the change depends on the bot
        counts = set.intersection(*(set(by_count[h]) for h in hosts))
        opposite = any({"+", "−"} <= {by_count[h][n] for h in hosts} for n in counts)
        rows.append({"variant": variant, "measure": measure, **signs, "both": both, "opposite": opposite})
    return pd.DataFrame(rows)


def _populations_lines(comparison: pd.DataFrame) -> list[str]:
    """The report's section comparing the populations: the sign table and the changes both detect."""
    t = populations_table(comparison)
    if t.empty:
        return []
    hosts = [c for c in t.columns if c not in ("variant", "measure", "both", "opposite")]
    measures = [m for m in SHOWN if m in set(t.measure)]
    rows = []
    for variant, g in t.groupby("variant", sort=False):
        by = {r.measure: r for r in g.itertuples()}
        cells = []
        for m in measures:
            r = by.get(m)
            text = " / ".join(getattr(r, h) or "–" for h in hosts) if r is not None else "–"
            cells.append(f"**{text}**" if r is not None and r.both else text)
        rows.append([variant_label(variant), *cells])
    shared = [f"- **{variant_label(v)}**: " + ", ".join(
        f"{SHORT[m]} {'higher' if sign.startswith('+') else 'lower'}" for m, sign in zip(g.measure, g[hosts[0]])) + "."
        for v, g in t[t.both].groupby("variant", sort=False)]
    opposite = [f"- **{variant_label(v)}**: " + ", ".join(SHORT[m] for m in g.measure) + "."
                for v, g in t[t.opposite].groupby("variant", sort=False)]
    return ["## Both populations", "",
            f"Each cell: the verdicts of {' / '.join(f'`{h}`' for h in hosts)} at 2, 3 and 4 players, one sign a "
            "count (+ higher, − lower, · no change detected). Bold: both populations detected the same change "
            "at every count, a change of the game rather than of one bot.", "",
            *markdown_table(["variant", *[SHORT[m] for m in measures]], rows), "",
            "Changed in both populations at every count:" if shared else
            "No change was detected in both populations at every count.", "", *shared,
            *([""] if shared else []),
            *(["Changed in opposite directions by the two populations at some count (the change depends on the "
               "bot):", "", *opposite, ""] if opposite else [])]


def report(games: pd.DataFrame, levels: pd.DataFrame, comparison: pd.DataFrame, planned: pd.DataFrame,
           commit: str, command: str, plots: list[str], pilot: bool) -> str:
    """The markdown report: summary, question, method, per host and count the measures of each variant with
    the paired differences, threats, and the design with the games played."""
    lines = ["# The officials for a designer: the game without, and with every offer taken", ""]
    if pilot:
        lines += [PROSE("pilot"), ""]
    lines += ["## Summary", "", "Detected changes against the normal game (paired deals, " + RULE + "):", "",
              *_detected_lines(comparison), "",
              "## Question", "", PROSE("question"), "", "## Method", "",
              *PROSE.lines("method", hosts="; ".join(f"`{h}` = `{host_spec(h)}`" for h in sorted(set(games.host))),
                           seeds=", ".join(f"({h}, {n}p: {cell_seed(h, n)})"
                                           for h, n in sorted(set(zip(games.host, games.players)))),
                           measures="; ".join(f"`{k}` {v[0]}" for k, v in GAME_MEASURES.items())), ""]
    lines += ["## Results", ""] + [f"![{p}]({p})" for p in plots] + [""]
    for (host, n), c in comparison.groupby(["host", "players"], sort=False):
        lines += [f"### `{host}`, {n} players", ""]
        header = ["variant", *[SHORT[m] for m in SHOWN]]
        rows = [[variant_label(NORMAL), *[_level(levels, host, n, NORMAL, m) for m in SHOWN]]]
        for variant, g in c.groupby("variant", sort=False):
            by = {r.measure: r for r in g.itertuples()}
            rows.append([f"{variant_label(variant)} ({_level(levels, host, n, variant, 'uses')} uses a seat)",
                         *[_marked(by[m]) if m in by else "–" for m in SHOWN]])
        lines += ["The normal game's level, then each variant's difference to it (bold: a detected change).", "",
                  *markdown_table(header, rows), ""]
    lines += _populations_lines(comparison)
    lines += ["## Threats to validity", "", *PROSE.lines("threats"), "",
              "## Appendix: the design and the games", ""]
    lines += markdown_table(["host", "players", "variant", "games planned", "games played"],
                            ([p.host, p.players, p.variant, p.planned, p.games] for p in planned.itertuples()))
    lines += ["", f"Reproduce: `{command}`. Built at commit `{commit}`.", ""]
    return "\n".join(lines) + "\n"


def numbers(comparison: pd.DataFrame, prefix: str = "", levels: pd.DataFrame | None = None) -> dict[str, Number]:
    """The paired differences as named numbers (the folder's findings): '<prefix><host>.<n>p.<variant>.<measure>';
    with `levels`, also the normal game's level of each measure: '<prefix><host>.<n>p.normal.<measure>'."""
    out = {}
    for r in comparison.itertuples():
        unit = "pp" if GAME_MEASURES[r.measure][1] == "share" else "difference"
        out[f"{prefix}{r.host}.{r.players}p.{r.variant}.{r.measure}"] = Number(
            r.d, r.d_lo, r.d_hi, unit, 1, r.pairs, f"{variant_label(r.variant)} minus the normal game: "
            f"{SHORT[r.measure]} (Holm p {p_text(r.p_holm)})")
    if levels is not None:
        for r in levels[(levels.variant == NORMAL) & levels.measure.isin(SHOWN)].itertuples():
            out[f"{prefix}{r.host}.{r.players}p.{NORMAL}.{r.measure}"] = _level_number(r)
    return out


def planned_table(games: pd.DataFrame, design=DESIGN) -> pd.DataFrame:
    """The design's cells with the games played of each."""
    played = games.groupby(["host", "players", "variant"]).size()
    return pd.DataFrame([{"host": c.host, "players": c.players, "variant": c.variant, "planned": c.games,
                          "games": int(played.get((c.host, c.players, c.variant), 0))} for c in design])
