"""results/search_root/report.md from the summary (thurn_ai.studies.search_root.summary)."""
from __future__ import annotations

from statsmodels.stats.multitest import multipletests

from .markdown import table
from .search_root import BASELINE, CANDIDATE, CELLS, GAMES, GEN3, PAIRED, SEED_R2, STRATEGY, TILES


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _diff(d: dict | None, key: str = "win_share", low: str = "win_share_low", high: str = "win_share_high",
          scale: float = 100, digits: int = 1) -> str:
    """A difference with its interval, scaled (a share in points by default); – where not measured."""
    if not d or key not in d:
        return "–"
    return f"{scale * d[key]:+.{digits}f} [{scale * d[low]:+.{digits}f}, {scale * d[high]:+.{digits}f}]"


def _points(d: dict | None, key: str) -> str:
    """A paired difference in game points (score, route tiles) with its 95% t interval."""
    return _diff(d, key, f"{key}_low", f"{key}_high", scale=1, digits=2)


def _row(cells: dict, name: str) -> list[str]:
    c = cells.get(name) or {}
    if not c.get("games"):
        return [name, "not played", "", "", ""]
    tiles = " / ".join(f"{c[k]:.2f}" for k in STRATEGY)
    return [name, f"{c['games']} of {c['planned']}", f"{_pct(c['win'])} [{_pct(c['win_low'])}, {_pct(c['win_high'])}]",
            f"{c['score']:.1f} / {c['others_score']:.1f}", tiles]


def _comparisons(label: str, d: dict, h2h3k: dict | None = None) -> list[str]:
    """A candidate's paired table and head-to-head table."""
    h2h_head = ["players", "games", "against anchor-1k"] + (["against anchor-3k"] if h2h3k else [])
    return [
        f"**Against `heuristic`, paired by deal** ({label} minus anchor-1k, 95% t intervals: the searching "
        "seat's win share in points, and in game points its score, the other seats' mean score and its "
        "route-length tile points):",
        "",
        *table(["players", "games", "difference", "score", "others' score", "route tiles"],
               [*([n, (d["paired"][n] or {}).get("games", 0), _diff(d["paired"][n])]
                  + [_points(d["paired"][n], k) for k in PAIRED if k != "win_share"] for n in GAMES),
                ["pooled", (d["pooled"] or {}).get("games", 0), _diff(d["pooled"], "win_share", "low", "high"),
                 "", "", ""]]),
        "",
        f"**Head to head** ({label} in one seat, the anchor in every other; win share minus the fair share):",
        "",
        *table(h2h_head,
               [*([n, (d["h2h"][n] or {}).get("games", 0), _diff(d["h2h"][n], "excess", "low", "high")]
                  + ([_diff(h2h3k[n], "excess", "low", "high")] if h2h3k else []) for n in GAMES),
                ["pooled", (d["h2h_pooled"] or {}).get("games", 0), _diff(d["h2h_pooled"], "excess", "low", "high")]
                + ([""] if h2h3k else [])]),
        "",
        "**Adoption rule** (committed before the games): the pooled paired difference against `heuristic` and "
        "the pooled head-to-head excess over the fair share against anchor-1k both have 95% intervals above "
        "zero. " + verdict(d),
        "",
    ]


def report(data: dict, code: str) -> str:
    cells, gen3, tiles = data["cells"], data["gen3"], data["tiles"]
    tests = [(f"{label}, {n} players, paired", d["paired"][n], "win_share_p")
             for label, d in (("halving", data), ("generation 3", gen3), ("route tiles", tiles)) for n in GAMES]
    tests += [(f"{label}, {n} players, head to head", d["h2h"][n], "p")
              for label, d in (("halving", data), ("generation 3", gen3),
                               ("generation 3 (replicate 2)", gen3["replicate"]), ("route tiles", tiles))
              for n in GAMES]
    ps = [t[1][t[2]] for t in tests if t[1]]
    holm = list(multipletests(ps, method="holm")[1]) if ps else []
    lines = [
        "# Candidates against the frozen default",
        "",
        f"Written by `python experiments/search_root.py --part report` at {code} (the front page README.md and "
        "findings.json with it); the cells by "
        "`--part strength`, from committed code (runs.json names each part's commit). The cells, their game "
        "counts and the adoption rules are in `src/thurn_ai/studies/search_root.py`, committed before the games.",
        "",
        f"Baseline `{BASELINE}` (the default `mcts` of November 2026, frozen). Candidates: `{CANDIDATE}`, "
        "Sequential Halving over the prior's top 4 moves at the root, common random numbers, chosen by value; "
        f"`{GEN3}`, generation 3 of the move prior (fitted to the improved-policy target: "
        "[results/expert_gen3/](../expert_gen3/README.md)); "
        f"`{TILES}`, route-length tiles in the evaluation (the route-tiles refit: "
        "[results/value_route_tiles/](../value_route_tiles/README.md)) and in the playout's rule for when to "
        "close. One searching seat, seats rotated, deals of seed 2051 "
        "(no cell before the halving root's used them); wins with 95% Wilson intervals; a shared first place "
        "counts its share.",
        "",
        *table(["cell", "games", "win (95% CI)", "score / others' mean",
                "route tiles / game-end tile / houses unplaced"], (_row(cells, c.name) for c in CELLS)),
        "",
        "## The halving root",
        "",
        *_comparisons("halving", data, data["h2h3k"]),
        "## Generation 3 of the move prior",
        "",
        *_comparisons("generation 3", gen3),
        *_replicate(gen3["replicate"]),
        "## Route-length tiles in the evaluation and the playout's close",
        "",
        *_comparisons("route tiles", tiles),
        *_ratings(data.get("ratings") or {}),
        "Holm-adjusted p over these comparisons: "
        + (", ".join(f"{t[0]} {p:.3g}" for t, p in zip([t for t in tests if t[1]], holm)) or "none yet") + ".",
        "",
    ]
    return "\n".join(lines)


def _replicate(r: dict) -> list[str]:
    """Generation 3's second head-to-head replicate and the second look at its condition (2)."""
    level = f"{100 * r['level']:g}%"
    return [
        f"### The second head-to-head replicate (deals of seed {SEED_R2})",
        "",
        "Generation 3 against anchor-1k again, on deals no cell used before; win share minus the fair share, "
        "95% t interval for each count and for this replicate pooled, and the "
        f"{level} interval of the second look pooled over both replicates:",
        "",
        *table(["players", "games", "against anchor-1k"],
               [*([n, (r["h2h"][n] or {}).get("games", 0), _diff(r["h2h"][n], "excess", "low", "high")]
                  for n in GAMES),
                ["pooled", (r["h2h_pooled"] or {}).get("games", 0),
                 _diff(r["h2h_pooled"], "excess", "low", "high")],
                [f"both replicates ({level})", (r["both"] or {}).get("games", 0),
                 _diff(r["both"], "excess", "low", "high")]]),
        "",
        "**Adoption rule for the second look** (committed before its games): generation 3 becomes the default "
        f"if the head-to-head excess pooled over both replicates has a {level} interval above zero (a second "
        "look at condition (2) at half the one-sided level; condition (1) held on the first replicate). "
        + second_look_verdict(r),
        "",
    ]


def second_look_verdict(r: dict) -> str:
    """The second look's verdict, in words."""
    if not r["complete"]:
        return "Verdict: pending (cells not complete)."
    if r["adopt"]:
        return "Verdict: **adopted**."
    return (f"Verdict: **not adopted**: the excess pooled over both replicates, "
            f"{_diff(r['both'], 'excess', 'low', 'high')} points, has an interval reaching zero.")


def _ratings(rated: dict) -> list[str]:
    """The population rating per player count, strongest first."""
    if not rated:
        return []
    rows = [[n, bot, r["games"], f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['mu'] - 3 * r['sigma']:.2f}"]
            for n, bots in sorted(rated.items(), key=lambda kv: int(kv[0]))
            for bot, r in sorted(bots.items(), key=lambda kv: -kv[1]["mu"])]
    return [
        "## Population rating",
        "",
        "OpenSkill (Plackett-Luce) over every complete game of a player count's cells pooled, where `heuristic`, "
        "anchor-1k and the candidates meet; places from the final scores (equal scores share a place), a bot "
        "holding several seats gets each seat's evidence, averaged over 8 seeded orders of the games "
        "(thurn_ai.stats.openskill_ratings). It describes the games beside the wins; the adoption rules are the "
        "paired cells'. mu starts at 25; mu − 3σ is OpenSkill's conservative rating.",
        "",
        *table(["players", "bot", "games", "mu", "σ", "mu − 3σ"], rows),
        "",
    ]


def verdict(data: dict) -> str:
    """The adoption rule's verdict, in words."""
    if data["adopt"]:
        return "Verdict: **adopted**."
    if data.get("first_fails"):
        return ("Verdict: **not adopted**: the pooled paired difference against `heuristic` has an interval "
                "reaching zero, so condition (1) fails whatever the head-to-head cells show.")
    if not data["complete"]:
        return "Verdict: pending (cells not complete)."
    h2h = data.get("h2h_pooled")
    if h2h and h2h["low"] <= 0:
        return ("Verdict: **not adopted**: condition (1) holds, but the pooled head-to-head excess over the fair "
                f"share, {_diff(h2h, 'excess', 'low', 'high')} points, has an interval reaching zero, so condition "
                "(2) fails.")
    return "Verdict: **not adopted**."
