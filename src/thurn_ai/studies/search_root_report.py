"""results/search_root/README.md from the summary (thurn_ai.studies.search_root.summary)."""
from __future__ import annotations

from statsmodels.stats.multitest import multipletests

from .markdown import table
from .search_root import BASELINE, CANDIDATE, CELLS, GAMES, STRATEGY


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _diff(d: dict | None, key: str = "win_share", low: str = "win_share_low", high: str = "win_share_high") -> str:
    if not d:
        return "–"
    return f"{100 * d[key]:+.1f} [{100 * d[low]:+.1f}, {100 * d[high]:+.1f}]"


def _row(cells: dict, name: str) -> list[str]:
    c = cells.get(name) or {}
    if not c.get("games"):
        return [name, "not played", "", "", ""]
    tiles = " / ".join(f"{c[k]:.2f}" for k in STRATEGY)
    return [name, f"{c['games']} of {c['planned']}", f"{_pct(c['win'])} [{_pct(c['win_low'])}, {_pct(c['win_high'])}]",
            f"{c['score']:.1f} / {c['others_score']:.1f}", tiles]


def report(data: dict, code: str) -> str:
    cells = data["cells"]
    tests = [(f"{n} players, paired", data["paired"][n], "win_share_p") for n in GAMES]
    tests += [(f"{n} players, head to head", data["h2h"][n], "p") for n in GAMES]
    ps = [t[1][t[2]] for t in tests if t[1]]
    holm = list(multipletests(ps, method="holm")[1]) if ps else []
    lines = [
        "# The halving root against the frozen default",
        "",
        f"Written by `python experiments/search_root.py --part report` at {code} (the front page README.md and "
        "findings.json with it); the cells by "
        "`--part strength`, from committed code (runs.json names each part's commit). The cells, their game "
        "counts and the adoption rule are in `src/thurn_ai/studies/search_root.py`, committed before the games.",
        "",
        f"Candidate `{CANDIDATE}`: Sequential Halving over the prior's top 4 moves at the root, common random "
        f"numbers, chosen by value; baseline `{BASELINE}` (the default `mcts` of November 2026, frozen). "
        "One searching seat, seats rotated, deals of seed 2051 (no earlier cell used them); wins with 95% "
        "Wilson intervals; a shared first place counts its share.",
        "",
        *table(["cell", "games", "win (95% CI)", "score / others' mean",
                "route tiles / game-end tile / houses unplaced"], (_row(cells, c.name) for c in CELLS)),
        "",
        "**Against `heuristic`, paired by deal** (halving minus anchor-1k, win share in points, 95% t interval):",
        "",
        *table(["players", "games", "difference"],
               [*([n, (data["paired"][n] or {}).get("games", 0), _diff(data["paired"][n])] for n in GAMES),
                ["pooled", (data["pooled"] or {}).get("games", 0), _diff(data["pooled"], "win_share", "low", "high")]]),
        "",
        "**Head to head** (halving in one seat, the anchor in every other; win share minus the fair share):",
        "",
        *table(["players", "games", "against anchor-1k", "against anchor-3k"],
               [*([n, (data["h2h"][n] or {}).get("games", 0), _diff(data["h2h"][n], "excess", "low", "high"),
                   _diff(data["h2h3k"][n], "excess", "low", "high")] for n in GAMES),
                ["pooled", (data["h2h_pooled"] or {}).get("games", 0),
                 _diff(data["h2h_pooled"], "excess", "low", "high"), ""]]),
        "",
        "Holm-adjusted p over these comparisons: "
        + (", ".join(f"{t[0]} {p:.3g}" for t, p in zip([t for t in tests if t[1]], holm)) or "none yet") + ".",
        "",
        "**Adoption rule** (committed before the games): the pooled paired difference against `heuristic` and "
        "the pooled head-to-head excess over the fair share against anchor-1k both have 95% intervals above "
        "zero. " + verdict(data),
        "",
    ]
    return "\n".join(lines)


def verdict(data: dict) -> str:
    """The adoption rule's verdict, in words."""
    if data["adopt"]:
        return "Verdict: **adopted**."
    if data.get("first_fails"):
        return ("Verdict: **not adopted**: the pooled paired difference against `heuristic` has an interval "
                "reaching zero, so condition (1) fails whatever the head-to-head cells show.")
    return "Verdict: not adopted." if data["complete"] else "Verdict: pending (cells not complete)."
