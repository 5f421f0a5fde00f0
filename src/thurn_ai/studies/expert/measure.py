"""What the learned prior is worth: offline on held-out teacher decisions, and in play (paired cells).

Offline (no games): at each held-out decision of the teacher data, seen as its mover saw it, how often a
search or a prior picks the teacher's most-visited move, and the teacher's mean visit share on its pick.

In play: cells of a tournament with one seat of a candidate `mcts` against `heuristic` in every other
seat (or against another `mcts`: head to head), seats rotated by the tournament. Cells with the same
seed and player count play the same deals in the same seats, so two candidates are compared game by game
(`paired`): the primary estimate is the mean per-game difference of the searching seat's win share, with a
t interval of the differences (scipy), and the same for its score.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from ...bots import make_bot
from ...bots.base import Observation
from ...game.officials import OFFICIALS, official_of
from ...play.match import derive_seed, position_at
from ...play.tournament.plan import run_tournament
from ...play.tournament.store import load_results
from ...stats.summary import detectable_difference, t_interval, wilson_interval
from . import teacher as T


# ---------------------------------------------------------------- offline

#: visits a teacher's move needs for its mean reward to count (the fit's MIN_VISITS)
WELL_VISITED = 30
#: the teacher's own row in search_agreement's table (its most-visited move)
TEACHER = "teacher (its most-visited move)"


def search_agreement(folder, players: int, specs: dict[str, str], limit: int | None = None,
                     seed: int = 0) -> pd.DataFrame:
    """One row per held-out sampled decision of `players` players and per named spec: whether the spec's
    choice is the teacher's most-visited move (`agrees`), whether it is the teacher's best move by mean
    reward among those it visited WELL_VISITED times or more (`agrees_value`: the teacher searched with the
    hand-set prior, so its visits lean toward that prior's favourite; its values less so), and the
    teacher's visit share on it."""
    data = T.load(folder, [players])
    data = data[T.held_out(data["game"])]
    records = T.records(folder, players)
    decisions = sorted(data.groupby(["game", "decision"]).groups)
    if limit is not None:
        decisions = decisions[:limit]
    out = []
    for game, decision in decisions:
        rows = data[(data["game"] == game) & (data["decision"] == decision)]
        rec = records[int(game)]
        state = position_at(rec, int(rows["move_index"].iloc[0]))
        share = dict(zip(rows["move"].astype(int), rows["share"]))
        best = int(rows.loc[rows["visits"].idxmax(), "move"])
        # the teacher's best by mean reward among its well-visited moves: less an echo of its own prior
        sure = rows[rows["visits"] >= WELL_VISITED]
        best_q = int(sure.loc[sure["value"].idxmax(), "move"]) if len(sure) else best
        offers = sorted({o for o in (official_of(state, m) for m in state.legal_moves()) if o})
        out.append({"players": players, "game": int(game), "decision": int(decision), "phase": rows["phase"].iloc[0],
                    "spec": TEACHER, "agrees": True, "agrees_value": best == best_q, "teacher_share": share[best],
                    "move": best, "official": official_of(state, best) or "", "offers": "+".join(offers)})
        for name, spec in specs.items():
            bot = make_bot(spec, derive_seed("agreement", seed, players, int(game), int(decision)))
            move = bot.choose(Observation(state, state.current_player, derive_seed("obs", int(game), int(decision))))
            out.append({"players": players, "game": int(game), "decision": int(decision),
                        "phase": rows["phase"].iloc[0],
                        "spec": name, "agrees": move == best, "agrees_value": move == best_q,
                        "teacher_share": share.get(move, 0.0), "move": int(move),
                        "official": official_of(state, move) or "", "offers": "+".join(offers)})
    return pd.DataFrame(out)


def official_kappa(df: pd.DataFrame, spec: str, reference: str = "heuristic") -> pd.DataFrame:
    """At the decisions where an official is on offer: how often `spec` and `reference` both use it or both
    do without, with Cohen's kappa (the officials study's: NaN where either side never or always uses it,
    as the report prints it), per player count and official."""
    from ..officials.agreement import kappa as cohens_kappa
    out = []
    for (players, official), _g in df.assign(o=df["offers"].str.split("+")).explode("o").groupby(["players", "o"]):
        if official not in OFFICIALS:
            continue
        at = df[(df["players"] == players) & df["offers"].str.contains(official, regex=False)]
        a = at[at["spec"] == spec].set_index(["game", "decision"])["official"] == official
        b = at[at["spec"] == reference].set_index(["game", "decision"])["official"] == official
        a, b = a.align(b, join="inner")
        if len(a) == 0:
            continue
        kappa = cohens_kappa(a.to_numpy(), b.to_numpy())
        out.append({"players": players, "official": official, "spec": spec, "offers": len(a),
                    "same": float((a == b).mean()), "uses": float(a.mean()), "reference_uses": float(b.mean()),
                    "kappa": float(kappa)})
    return pd.DataFrame(out)


# ---------------------------------------------------------------- in play


@dataclass(frozen=True)
class Cell:
    """One tournament: `spec` in one seat (rotated), `others` in every other seat."""
    name: str
    players: int
    spec: str
    games: int
    others: str = "heuristic"
    seed: int = 2031
    board: str = "south"

    def specs(self) -> list[str]:
        return [self.spec] + [self.others] * (self.players - 1)


def run_cell(cell: Cell, out: Path, jobs: int = 1, client_scheduler: str | None = None) -> pd.DataFrame:
    """Play (or resume) a cell into out/<cell name>/; its results, one row per seat per game."""
    return run_tournament(cell.specs(), players=cell.players, games=cell.games, seed=cell.seed, jobs=jobs,
                          out_dir=out / cell.name, resume="auto", progress=False, scheduler=client_scheduler,
                          rules_kwargs={"board": cell.board})


def complete_games(out: Path, cell: Cell) -> pd.DataFrame | None:
    """Every seat's rows of a cell's complete games (a game with a row for each seat), or None before any
    results file."""
    path = out / cell.name / "results.csv"
    if not path.exists():
        return None
    df = load_results(path)
    whole = df.groupby("game")["seat"].nunique()
    return df[df["game"].isin(whole[whole == cell.players].index)]


def games_played(out: Path, cell: Cell) -> int:
    """How many of a cell's games are complete (0 before any)."""
    df = complete_games(out, cell)
    return 0 if df is None else int(df["game"].nunique())


#: the route-length tiles' columns of a results row (5-, 6- and 7-city routes)
ROUTE_TILES = ("tile_route5", "tile_route6", "tile_route7")


def seat_rows(out: Path, cell: Cell) -> pd.DataFrame | None:
    """The candidate seat's rows of a cell's complete games (by game), or None before any; beside a row's
    columns, the others' mean score (`others_score`) and the seat's route-length tile points (`route_tiles`)."""
    df = complete_games(out, cell)
    if df is None:
        return None
    mine = df[df["spec"] == cell.spec].drop_duplicates("game").set_index("game")
    others = df[df["spec"] != cell.spec].groupby("game")["score"].mean()
    mine = mine.assign(others_score=others.reindex(mine.index))
    if set(ROUTE_TILES) <= set(mine.columns):
        mine = mine.assign(route_tiles=mine[list(ROUTE_TILES)].sum(axis=1))
    return mine if len(mine) else None


def cell_summary(out: Path, cell: Cell) -> dict | None:
    rows = seat_rows(out, cell)
    if rows is None:
        return None
    n = len(rows)
    wins = float(rows["win_share"].sum())
    low, high = wilson_interval(wins, n)
    return {"cell": cell.name, "players": cell.players, "spec": cell.spec, "others": cell.others,
            "games": n, "planned": cell.games, "win": wins / n, "win_low": low, "win_high": high,
            "score": float(rows["score"].mean()), "others_score": float(rows["others_score"].mean())}


def paired(out: Path, a: Cell, b: Cell, measures: tuple[str, ...] = ("win_share", "score")) -> dict | None:
    """a - b over the games both cells played (same seed and count: the same deals and seats): the mean
    difference of each of the candidate seat's `measures` (columns of `seat_rows`; win share and score unless
    told), each with its 95% t interval and p-value."""
    both = _paired_rows(out, a, b)
    if both is None:
        return None
    row: dict = {"a": a.name, "b": b.name, "players": a.players, "games": len(both)}
    for key in measures:
        d = (both[f"{key}_a"] - both[f"{key}_b"]).to_numpy(float)
        mean = float(d.mean())
        if len(d) > 1 and d.std(ddof=1) > 0:
            t = sps.ttest_1samp(d, 0.0)
            ci = t.confidence_interval(0.95)
            low, high, p = float(ci.low), float(ci.high), float(t.pvalue)
        else:
            low = high = mean
            p = float("nan")
        sd = float(d.std(ddof=1)) if len(d) > 1 else float("nan")
        row.update({key: mean, f"{key}_low": low, f"{key}_high": high, f"{key}_p": p, f"{key}_sd": sd})
    row["detectable"] = detectable_difference(len(both), row["win_share_sd"])
    return row


def _paired_rows(out: Path, a: Cell, b: Cell) -> pd.DataFrame | None:
    """The games both cells played, a's columns suffixed _a and b's _b (None before both ran); ValueError
    if their games' seeds differ (not the same deals)."""
    ra, rb = seat_rows(out, a), seat_rows(out, b)
    if ra is None or rb is None:
        return None
    both = ra.merge(rb, how="inner", left_index=True, right_index=True, suffixes=("_a", "_b"))
    if not (both["game_seed_a"] == both["game_seed_b"]).all():
        raise ValueError(f"{a.name} and {b.name} are not paired: their games' seeds differ")
    return both


def paired_differences(out: Path, a: Cell, b: Cell) -> np.ndarray:
    """Per game of a paired comparison (as `paired`): a's win share minus b's; empty before both ran."""
    both = _paired_rows(out, a, b)
    if both is None:
        return np.zeros(0)
    return (both["win_share_a"] - both["win_share_b"]).to_numpy(float)


def pooled(out: Path, pairs: list[tuple[Cell, Cell]]) -> dict | None:
    """The per-game win-share differences of several paired comparisons (e.g. one per player count) pooled
    into one mean with its 95% t interval: every game weighs the same."""
    d = np.concatenate([paired_differences(out, a, b) for a, b in pairs])
    if len(d) < 2:
        return None
    sd = float(d.std(ddof=1))
    return {"games": len(d), "win_share": float(d.mean()), **t_interval(d), "sd": sd,
            "detectable": detectable_difference(len(d), sd)}
