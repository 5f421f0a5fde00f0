"""A league's ratings as files: ratings.csv, ratings.png, findings.json and README.md (experiments/league.py;
`thurn-ai league` writes the first two)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..fileio import atomic_to_csv, atomic_write_text
from ..play.league import load_league
from ..stats.rating import fit_ratings, plot_ratings, ratings_markdown


def league_ratings(results: dict[int, pd.DataFrame], anchor: str = "heuristic", kind: str = "win",
                   bootstrap: int = 200, seed: int = 0) -> dict[int, pd.DataFrame]:
    """fit_ratings for each player count's games."""
    return {n: fit_ratings(df, anchor=anchor, kind=kind, bootstrap=bootstrap, seed=seed)
            for n, df in sorted(results.items())}


def write_tables(out: Path, tables: dict[int, pd.DataFrame], anchor: str, name: str = "ratings") -> None:
    """OUT/<name>.csv (every player count's rows, `players` first) and OUT/<name>.png."""
    frame = pd.concat([t.assign(players=n) for n, t in tables.items()], ignore_index=True)
    atomic_to_csv(frame[["players", *[c for c in frame.columns if c != "players"]]].round(4), out / f"{name}.csv",
                  index=False)
    plot_ratings(tables, out / f"{name}.png", anchor=anchor)


def write_report(out: Path, code: str, anchor: str, bootstrap: int, seed: int) -> dict:
    """Rate the league saved in OUT/games and write the results folder; returns the findings."""
    out = Path(out)
    results = load_league(out / "games")
    wins = league_ratings(results, anchor, "win", bootstrap, seed)
    places = league_ratings(results, anchor, "place", bootstrap, seed)
    write_tables(out, wins, anchor)
    write_tables(out, places, anchor, name="ratings_place")
    findings = {f"{n}p.{r.bot}.rating": {"value": round(r.rating, 2), "lo": round(r.lo, 2), "hi": round(r.hi, 2),
                                          "games": int(r.games), "win_share": round(r.win_share, 1)}
                for n, t in wins.items() for r in t.itertuples()}
    atomic_write_text(out / "findings.json", json.dumps(findings, indent=1) + "\n")
    games = {n: df["game"].nunique() for n, df in results.items()}
    parts = ["# The league: the field and the default search, rated\n",
             f"Produced by `python experiments/league.py` at commit {code}: "
             + ", ".join(f"{g} games at {n} players" for n, g in games.items())
             + f". Ratings: the winner of each game as a Luce choice among its table (choix), {anchor} = 0, "
             f"95% intervals from {bootstrap} resamples of the games; `beats anchor` is the model's chance to win "
             f"a two-player game against {anchor}. The placing-order (Plackett-Luce) fit is in ratings_place.csv.\n",
             "![ratings](ratings.png)\n"]
    for n, t in wins.items():
        parts.append(ratings_markdown(t, n) + "\n")
    atomic_write_text(out / "README.md", "\n".join(parts))
    return findings
