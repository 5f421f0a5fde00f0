"""Who sits where, and the results frame: the seating cycle that gives every bot every seat equally often,
the result columns (one row per player per game) and their types."""
from __future__ import annotations

import itertools
import math

import pandas as pd

from ...errors import TournamentError
from ..match import USE_COLUMNS      # the usage columns of a game record (one home: play.match)
from ...game.rules import Rules
from ...game.rules import is_player_count

MAX_CYCLE = 100_000    # games of one seating cycle (see seatings): more bots than that allows are refused

# Columns that do not depend on the board (tile columns, one per tile stack, go between them).
ID_COLUMNS = ["game", "game_seed", "seat", "bot", "spec", "players"]
RESULT_COLUMNS = ["score", "rank", "win", "win_share", "turns", "truncated", "carriage", "carriage_size"]
AFTER_TILES = ["tiles", "houses_unplaced", "closes"]
TEXT_COLUMNS = {"bot", "spec"}
FLOAT_COLUMNS = {"win_share"}
BOOL_COLUMNS = {"truncated"}


def check_players(players) -> None:
    if not isinstance(players, int) or isinstance(players, bool) or not is_player_count(players):
        raise TournamentError(f"a game has 2, 3 or 4 players, not {players!r}")


def cycle_length(n_bots: int, players: int) -> int:
    """len(seatings(n_bots, players)), counted: each choice of the bots with one seat more, times the
    distinct arrangements of that mix."""
    base, extra = divmod(players, n_bots)
    same = math.factorial(base) ** (n_bots - extra) * math.factorial(base + 1) ** extra
    return math.comb(n_bots, extra) * (math.factorial(players) // same)


def seatings(n_bots: int, players: int) -> list[tuple[int, ...]]:
    """One cycle of seatings (a tuple of bot indices per seat) in which every bot plays every seat equally
    often and every bot plays equally many games.

    Each game has as even a mix of bots as the seat count allows: every bot gets players // n_bots seats
    and players % n_bots bots (each combination of them in turn) get one more. With more bots than seats,
    that is every combination of `players` bots. Every distinct arrangement of each mix is played once.
    Arrangements come in rotation groups (a seating and its rotations, which alone are seat-balanced) and the
    groups of the different mixes are interleaved, so that a tournament cut short of a whole cycle is
    still close to balanced. For 2 bots and 2 players: (0, 1), (1, 0).
    """
    if n_bots < 1:
        raise TournamentError("a tournament needs at least one bot")
    check_players(players)
    base, extra = divmod(players, n_bots)
    size = cycle_length(n_bots, players)
    if size > MAX_CYCLE:          # counted before it is built: 60 bots at 4 players would be 11.7 million
        raise TournamentError(f"{n_bots} bots at {players} players need {size:,} games for every bot to play "
                              f"every seat and mix equally often (at most {MAX_CYCLE:,}); use fewer bots")
    groups_by_mix = []
    for more in itertools.combinations(range(n_bots), extra):
        mix = [b for b in range(n_bots) for _ in range(base + (b in more))]
        arrangements = sorted(set(itertools.permutations(mix)))
        groups, used = [], set()
        for a in arrangements:
            if a in used:
                continue
            group = []
            for r in range(players):
                rotated = a[r:] + a[:r]
                if rotated not in used:
                    used.add(rotated)
                    group.append(rotated)
            groups.append(group)
        groups_by_mix.append(groups)
    cycle: list = []
    for round_ in itertools.zip_longest(*groups_by_mix):
        for group in round_:
            if group:
                cycle.extend(group)
    return cycle


def bot_labels(specs: list[str]) -> list[str]:
    """Names for the result table: the spec itself, or 'spec #i' when the same spec is entered twice."""
    repeated = {s for s in specs if specs.count(s) > 1}
    return [f"{s} #{i + 1}" if s in repeated else s for i, s in enumerate(specs)]


def result_columns(rules: Rules) -> list[str]:
    tiles = [f"tile_{t.id}" for t in rules.load_board().tiles]
    return ID_COLUMNS + RESULT_COLUMNS + tiles + AFTER_TILES + USE_COLUMNS


def typed_frame(rows, columns: list[str]) -> pd.DataFrame:
    """Results with fixed column types, sorted by game and seat (the same frame however it was made)."""
    df = pd.DataFrame(rows, columns=columns) if not isinstance(rows, pd.DataFrame) else rows[columns]
    types = {c: ("str" if c in TEXT_COLUMNS else "float64" if c in FLOAT_COLUMNS else
                 "bool" if c in BOOL_COLUMNS else "int64") for c in columns}
    return df.astype(types).sort_values(["game", "seat"], kind="stable").reset_index(drop=True)
