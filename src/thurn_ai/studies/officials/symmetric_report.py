"""The symmetric ablations' report (symmetric.py): the markdown a designer reads, one forest plot a host, and
the findings (Findings: the numbers the docs quote)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..findings import Number
from ..markdown import num, p_text, pct, pp
from ..markdown import table as markdown_table
from .plan import OFFICIAL_LABEL
from .plots import pyplot, save
from .symmetric import DESIGN, GAME_MEASURES, NORMAL, RULE, VARIANTS, Variant, cell_seed, host_spec

__all__ = ["variant_label", "difference_text", "write_plot", "report", "numbers", "planned_table"]

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


def _level(levels: pd.DataFrame, host: str, n: int, variant: str, measure: str) -> str:
    r = levels[(levels.host == host) & (levels.players == n) & (levels.variant == variant)
               & (levels.measure == measure)]
    if r.empty:
        return "–"
    r = r.iloc[0]
    if GAME_MEASURES[measure][1] == "share":
        if measure == "first_win":           # the seat advantage: a difference from the fair share
            return pp(r["mean"], r.lo, r.hi)
        return f"{pct(r['mean'])} [{100 * r.lo:.1f}, {100 * r.hi:.1f}]"
    return f"{r['mean']:.1f} [{r.lo:.1f}, {r.hi:.1f}]"


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


def report(games: pd.DataFrame, levels: pd.DataFrame, comparison: pd.DataFrame, planned: pd.DataFrame,
           commit: str, command: str, plots: list[str], pilot: bool) -> str:
    """The markdown report: summary, question, method, per host and count the measures of each variant with
    the paired differences, threats, and the design with the games played."""
    lines = ["# The officials for a designer: the game without, and with every offer taken", ""]
    if pilot:
        lines += ["**A pilot**, far fewer games than the design fixes (the Appendix lists both): it checks the "
                  "pipeline and the size of the effects; its verdicts are not the design's.", ""]
    lines += ["## Summary", "", "Detected changes against the normal game (paired deals, " + RULE + "):", "",
              *_detected_lines(comparison), "",
              "## Question", "",
              "What does each official do to the game, when **nobody** may use it and when **everybody** takes it "
              "whenever it is offered? (The player's question, one seat without it, is the ablation of the main "
              "study.)", "",
              "## Method", "",
              "- Every seat plays the same bot in a variant: the normal bot; `never_X`, the official forbidden "
              "(the forced Postmaster of an empty hand stays: it is no choice); `always_X`, the official taken at "
              "every offer, the bot's best move on that side (the `sided` bot).",
              "- Hosts: " + "; ".join(f"`{h}` = `{host_spec(h)}`" for h in sorted(set(games.host))) + ".",
              "- Paired deals: all variants of a host at n players share one seed "
              + ", ".join(f"({h}, {n}p: {cell_seed(h, n)})" for h, n in
                          sorted(set(zip(games.host, games.players)))) + "; game g deals the same cards in each.",
              "- Measures (one value a game): " + "; ".join(f"`{k}` {v[0]}" for k, v in GAME_MEASURES.items()) + ".",
              "- Each variant minus the normal game, game by game: mean, 95% t interval, paired t test, Holm "
              "across the variants and counts of one host and measure; the smallest difference the pairs detect "
              "(80% power, from the observed spread). Wins by the rules' tie-break (the study's estimator).", ""]
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
    lines += ["## Threats to validity", "",
              "- A variant changes every seat's play at once; the bots were not tuned for it (a search's model of "
              "the other players still expects the normal game, and `always` plays the host's best move on the "
              "using side, which may be poor where the host would not use it).",
              "- One bot a population: a stronger or human population may use the officials differently.",
              "- `by_carriage` reads which ended the game (the end player's carriage of 7 or a last house); a "
              "turn that did both counts as carriage.", "",
              "## Appendix: the design and the games", ""]
    lines += markdown_table(["host", "players", "variant", "games planned", "games played"],
                            ([p.host, p.players, p.variant, p.planned, p.games] for p in planned.itertuples()))
    lines += ["", f"Reproduce: `{command}`. Built at commit `{commit}`.", ""]
    return "\n".join(lines) + "\n"


def numbers(comparison: pd.DataFrame, prefix: str = "") -> dict[str, Number]:
    """The paired differences as named numbers (the folder's findings): '<prefix><host>.<n>p.<variant>.<measure>'."""
    out = {}
    for r in comparison.itertuples():
        unit = "pp" if GAME_MEASURES[r.measure][1] == "share" else "difference"
        out[f"{prefix}{r.host}.{r.players}p.{r.variant}.{r.measure}"] = Number(
            r.d, r.d_lo, r.d_hi, unit, 1, r.pairs, f"{variant_label(r.variant)} minus the normal game: "
            f"{SHORT[r.measure]} (Holm p {p_text(r.p_holm)})")
    return out


def planned_table(games: pd.DataFrame, design=DESIGN) -> pd.DataFrame:
    """The design's cells with the games played of each."""
    played = games.groupby(["host", "players", "variant"]).size()
    return pd.DataFrame([{"host": c.host, "players": c.players, "variant": c.variant, "planned": c.games,
                          "games": int(played.get((c.host, c.players, c.variant), 0))} for c in design])
