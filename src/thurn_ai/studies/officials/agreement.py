"""The officials study, the search's choices against the `heuristic` bot's (issue 40): at every rated offer, the
heuristic asked in the same position (rebuilt from the kept record, every row checked against it), how often it
makes the search's choice, and Cohen's kappa; intervals resample whole games (docs/officials.md)."""
from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.stats import DegenerateDataWarning

from ...bots.base import Observation
from ...game.officials import OFFICIALS, official_of
from ...play.match import derive_seed
from .choice import choice_officials
from .plan import StudyError
from .records import kept_games
from ..markdown import Prose, pct, pct_ci, table

PROSE = Prose(__package__, "prose/agreement.md")

__all__ = ["REFERENCE", "CHOICES", "RESAMPLES", "Agreement", "heuristic_uses", "kappa", "table_of", "cell",
           "measure", "agreement_frame", "markdown"]
#: the table's file in a study's folder (the study's report reads it where it exists)
AGREEMENT_TABLE = "agreement.csv"

#: the bot whose choices the search's are compared with
REFERENCE = "heuristic"
#: the search's choices compared: name -> the column of the choice rows that holds it
CHOICES = {"played": "used", "rated": "best_uses"}
RESAMPLES = 1999
#: the columns of the choice rows this needs
NEEDED = ("players", "source", "game", "game_seed", "move", "seat", "official", "played", *CHOICES.values())


@dataclass(frozen=True)
class Agreement:
    """One cell: the offers of `official` at `players` players (None: every official / player count) and the search's
    `choice` (a key of CHOICES) against the heuristic's."""

    players: int | None
    official: str | None
    choice: str
    offers: int
    games: int
    heuristic_uses: float
    search_uses: float
    agreement: float
    agreement_low: float
    agreement_high: float
    kappa: float
    kappa_low: float
    kappa_high: float
    kappa_undefined: float      # share of resamples where kappa is undefined (left out of its interval)


# ---------------------------------------------------------------------------------- the heuristic's choices

def heuristic_uses(rows: pd.DataFrame, records, reference: str = REFERENCE) -> pd.Series:
    """Whether the `reference` bot, asked in each row's position, plays a move that uses the row's official: a boolean
    Series on rows' index. records: the folder of the kept records of the rows' games (<source>.jsonl.gz)."""
    from ...bots.spec import make_bot

    missing = [c for c in NEEDED if c not in rows.columns]
    if missing:
        raise StudyError(f"the choice rows lack columns: {', '.join(missing)}")
    bot = make_bot(reference, seed=0)
    out = pd.Series(False, index=rows.index, dtype=bool)
    for where, record, of_game in kept_games(rows, records):
        out.loc[of_game.index] = _game_uses(record, of_game, bot, where)
    return out


def _game_uses(record, rows: pd.DataFrame, bot, where: str) -> list[bool]:
    """The reference bot's use of each row's official in one game, in the order of `rows`, replaying the
    record once (the bot is asked once per position, however many officials are on offer there)."""
    from ...play.match import record_walk

    walk, done, state = record_walk(record), -1, None     # done: the move whose position `state` is
    asked: dict[int, int] = {}            # move index -> the bot's move there
    uses: dict = {}
    for r in rows.sort_values("move", kind="stable").itertuples():
        move = int(r.move)
        if not 0 <= move < len(record.moves):
            raise StudyError(f"{where}: the record has {len(record.moves)} moves; there is no move {move}")
        while done < move:
            done, state, _ = next(walk)
        assert state is not None            # the walk has reached move >= 0
        _check_row(state, record.moves[move], r, where)
        if move not in asked:
            seen = Observation(state, state.current_player, derive_seed("officials-agreement", record.seed, move))
            asked[move] = bot.choose(seen)
        uses[r.Index] = official_of(state, asked[move]) == r.official
    return [uses[i] for i in rows.index]


def _check_row(state, recorded: str, row, where: str) -> None:
    """StudyError unless the rebuilt position is the row's: the row's seat is to move, its official is on
    offer, and its played move is legal and the record's next move."""
    at = f"{where}, move {row.move}"
    if state.current_player != row.seat:
        raise StudyError(f"{at}: seat {state.current_player} is to move in the record, the row says seat {row.seat}")
    if row.official not in choice_officials(state):
        raise StudyError(f"{at}: the {row.official} is not on offer in the record's position")
    if not state.is_legal(state.parse_move(row.played)) or row.played != recorded:
        raise StudyError(f"{at}: the row's played move {row.played!r} is not the record's {recorded!r}")


# ---------------------------------------------------------------------------------- kappa and its interval

def table_of(search, reference) -> np.ndarray:
    """The 2x2 table of counts: rows the search (does without, uses), columns the reference bot alike."""
    a, b = np.asarray(search, dtype=bool), np.asarray(reference, dtype=bool)
    t = np.zeros((2, 2))
    np.add.at(t, (a.astype(int), b.astype(int)), 1)
    return t


def _kappa_of_table(t: np.ndarray) -> float:
    """Cohen's kappa of a 2x2 table (statsmodels); NaN where a side is constant (a row or column sum 0)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    if (t.sum(axis=0) == 0).any() or (t.sum(axis=1) == 0).any():
        return math.nan
    return float(cohens_kappa(t, return_results=False))


def kappa(search, reference) -> float:
    """Cohen's kappa of two boolean choices at the same offers (NaN where either side is constant)."""
    return _kappa_of_table(table_of(search, reference))


def cell(search, reference, games, resamples: int = RESAMPLES, seed: int = 0) -> tuple:
    """(agreement, its interval, kappa, its interval, the share of resamples where kappa is undefined) of
    two boolean choices at the same offers, `games` naming each offer's game (the cluster resampled; the
    offers of a single game have no intervals)."""
    from ...stats.summary import cluster_bootstrap

    a, b = np.asarray(search, dtype=bool), np.asarray(reference, dtype=bool)
    _, game = np.unique(np.asarray(games), return_inverse=True)
    counts = np.zeros((game.max() + 1, 2, 2))            # each game's own 2x2 table
    np.add.at(counts, (game, a.astype(int), b.astype(int)), 1)

    def statistic(picked):
        t = counts[picked].sum(axis=0)
        return np.array([np.trace(t) / t.sum(), _kappa_of_table(t)])
    same, k = statistic(np.arange(len(counts)))
    if len(counts) < 2:                 # one game: nothing to resample
        return float(same), math.nan, math.nan, float(k), math.nan, math.nan, math.nan
    with warnings.catch_warnings():     # a cell where every resample agrees alike is expected, not a problem
        warnings.simplefilter("ignore", DegenerateDataWarning)
        dist = cluster_bootstrap(len(counts), statistic, resamples, seed)
    defined = dist[1][~np.isnan(dist[1])]
    a_low, a_high = np.percentile(dist[0], [2.5, 97.5])
    k_low, k_high = (np.percentile(defined, [2.5, 97.5]) if len(defined) and not math.isnan(k)
                     else (math.nan, math.nan))
    return (float(same), float(a_low), float(a_high), float(k), float(k_low), float(k_high),
            1 - len(defined) / dist.shape[1])


# ---------------------------------------------------------------------------------- the cells

def measure(rows: pd.DataFrame, records, resamples: int = RESAMPLES, seed: int = 0,
            reference: str = REFERENCE) -> list[Agreement]:
    """The agreement of the search's choices (each of CHOICES) with the reference bot's at the rows'
    offers: per player count and official, per official over every player count, and over everything."""
    if len(rows) == 0:
        raise StudyError("no choice rows to compare")
    ref = heuristic_uses(rows, records, reference)
    rows = rows.assign(reference=ref, cluster=list(zip(rows["players"], rows["source"], rows["game"])))
    groups: list[tuple[tuple[int | None, str | None], pd.DataFrame]]
    groups = [((int(n), o), g) for (n, o), g in rows.groupby(["players", "official"])]
    groups += [((None, o), g) for o, g in rows.groupby("official")]
    groups += [((None, None), rows)]
    order = {o: k for k, o in enumerate(OFFICIALS)}
    groups.sort(key=lambda x: (x[0][0] is None, x[0][0] or 0, x[0][1] is None, order.get(x[0][1] or "", 0)))
    out = []
    for choice, column in CHOICES.items():
        for (n, o), g in groups:
            stats = cell(g[column], g["reference"], g["cluster"], resamples, seed)
            out.append(Agreement(n, o, choice, len(g), g["cluster"].nunique(), float(g["reference"].mean()),
                                 float(g[column].mean()), *stats))
    return out


def agreement_frame(cells: list[Agreement]) -> pd.DataFrame:
    """One row per cell ('all' for every player count or official)."""
    return pd.DataFrame([{**asdict(c), "players": "all" if c.players is None else c.players,
                          "official": c.official or "all"} for c in cells])


def _num(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.2f}"


def markdown(cells: list[Agreement], study: str, code: str, seconds: float) -> str:
    """The short report: what was compared, the numbers, what they assume."""
    lines = [*PROSE.lines("intro", reference=REFERENCE, study=study), ""]
    for choice in CHOICES:
        lines += [f"## The search's {choice} choice", ""]
        lines += table(["players", "official", "offers", "games", "heuristic uses", "search uses", "agreement",
                        "kappa", "undefined resamples"],
                       ([c.players or "all", c.official or "all", c.offers, c.games, pct(c.heuristic_uses),
                         pct(c.search_uses), pct_ci(c.agreement, c.agreement_low, c.agreement_high),
                         _num(c.kappa) + ("" if math.isnan(c.kappa_low)
                                          else f" [{_num(c.kappa_low)}, {_num(c.kappa_high)}]"),
                         pct(c.kappa_undefined)] for c in cells if c.choice == choice)) + [""]
    lines += [PROSE("made", study=study, code=code, seconds=seconds), ""]
    return "\n".join(lines)
