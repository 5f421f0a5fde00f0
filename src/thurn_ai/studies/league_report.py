"""A league's ratings as files: ratings.csv, ratings.png, findings.json and README.md (experiments/league.py;
`thurn-ai league` writes the first two)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..fileio import atomic_to_csv
from ..play.league import load_league
from ..stats.rating import fit_ratings, plot_ratings, ratings_markdown
from .findings import Findings, Number, front_page

#: the line the results folder's front page opens with (docs/development.md, a study's life)
STATUS = ('benchmark. A yardstick: the field of reference bots and the default search rated against each other '
          '(a first, small league: 112 / 84 / 84 games).')


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


def write_report(out: Path, code: str, anchor: str, bootstrap: int, seed: int) -> Findings:
    """Rate the league saved in OUT/games and write the results folder (its findings and front page)."""
    out = Path(out)
    results = load_league(out / "games")
    wins = league_ratings(results, anchor, "win", bootstrap, seed)
    places = league_ratings(results, anchor, "place", bootstrap, seed)
    write_tables(out, wins, anchor)
    write_tables(out, places, anchor, name="ratings_place")
    numbers = {f"{n}p.{r.bot}": Number(float(r.rating), float(r.lo), float(r.hi), unit="difference", digits=2,
                                       games=int(r.games), says=f"{r.bot}'s rating at {n} players ({anchor} = 0), "
                                                                 "log-strength of winning, 95% game bootstrap")
               for n, t in wins.items() for r in t.itertuples() if r.bot != anchor}
    games = {f"p{n}": int(df["game"].nunique()) for n, df in results.items()}
    findings = Findings(status=STATUS, study=out.name, title="The league: the field and the default search, rated",
                        command="python experiments/league.py", commit=code, numbers=numbers, games=games)
    body = [f"Ratings: the winner of each game as a Luce choice among its table (choix), {anchor} = 0, 95% intervals "
            f"from {bootstrap} resamples of the games; `beats anchor` is the model's chance to win a two-player "
            f"game against {anchor}. The placing-order (Plackett-Luce) fit is in ratings_place.csv. Games: "
            + ", ".join(f"{g} at {k[1:]} players" for k, g in games.items()) + ". A bot that never won has no finite "
            "rating: its number is the fit's regularization floor (choix's alpha), not a measurement. Where a player "
            "count played only the start of its seating cycle, the bots met in unequal numbers of games (the first "
            "mixes of the cycle hold the first bots); the fit uses every game as it is.", "",
            "![ratings](ratings.png)", ""]
    for n, t in wins.items():
        body += [ratings_markdown(t, n), ""]
    front_page(out, findings, body)
    return findings
