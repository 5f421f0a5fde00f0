"""The officials for a designer: what the game becomes when nobody, or everybody, uses an official. Every seat plays
the same host in a variant -- normal, never_<official> (every seat forbids it), always_<official> (every seat
takes it when offered: sided.py) -- on the same deals as the normal game, and the game's measures (GAME_MEASURES:
length, margin, spread, lead changes, seat advantage, how it ends, points) are compared game by game. DESIGN and
RULE were fixed before any game (docs/officials-design.md); symmetric_report.py reports it."""
from __future__ import annotations

import hashlib
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...bots.mcts import MCTS_DEFAULTS
from ...fileio import atomic_open, path_text, read_bounded
from ...bots.spec import BotSpec
from ...game.officials import OFFICIALS
from ...game.rules import PLAYER_COUNTS
from ...stats.summary import detectable_difference, mean_ci, t_interval
from .design import holm
from .plan import StudyError, with_forbid
from .sided import sided_spec

__all__ = ["Variant", "VARIANTS", "NORMAL", "HOSTS", "DesignCell", "DESIGN", "SEED", "RULE", "GAME_MEASURES",
           "host_spec", "cell_seed", "play_cell", "game_measures", "levels_table", "comparison_table", "verdict",
           "save_games", "load_games"]

NORMAL = "normal"
MODES = ("never", "always")


@dataclass(frozen=True)
class Variant:
    """Every seat: the bot as it is (mode normal), or never / always using `official`."""
    mode: str = NORMAL
    official: str | None = None

    def __post_init__(self):
        if (self.mode == NORMAL) != (self.official is None) or self.mode not in (NORMAL, *MODES) \
                or (self.official is not None and self.official not in OFFICIALS):
            raise StudyError(f"variant {self.mode} {self.official}: normal, or never / always with an official "
                             f"({', '.join(OFFICIALS)})")

    @classmethod
    def parse(cls, text: str) -> Variant:
        """'normal', 'never_postmaster', 'always_cartwright'."""
        if text == NORMAL:
            return cls()
        mode, _, official = str(text).partition("_")
        return cls(mode, official or None)

    @property
    def name(self) -> str:
        return NORMAL if self.mode == NORMAL else f"{self.mode}_{self.official}"

    def spec(self, host: BotSpec) -> BotSpec:
        """The spec every seat plays in this variant of `host`."""
        if self.mode == NORMAL:
            return host
        if self.mode == "never":
            return with_forbid(host, str(self.official))
        return sided_spec(host, "always", self.official)


VARIANTS = (Variant(), *(Variant(m, o) for o in OFFICIALS for m in MODES))

#: the populations: today's default search (its defaults written out, 1000 iterations), and the rule bot
HOSTS = {"mcts": BotSpec("mcts", {**MCTS_DEFAULTS, "iterations": 1000}), "heuristic": BotSpec("heuristic", {})}
#: the design's base seed: a host's games at n players use SEED + 1000 * (host's index) + 100 n
SEED = 53


def host_spec(host: str) -> BotSpec:
    if host not in HOSTS:
        raise StudyError(f"host {host!r}: one of {', '.join(HOSTS)}")
    return HOSTS[host]


def cell_seed(host: str, players: int, seed: int = SEED) -> int:
    """The seed of every variant of a host at a count (paired deals)."""
    return seed + 1000 * list(HOSTS).index(host) + 100 * players


@dataclass(frozen=True)
class DesignCell:
    host: str
    players: int
    variant: str
    games: int


#: fixed before any game (2026-11-28): per host the games a variant plays at each count (whole seat rotations
#: of 2, 3 and 4 players), in this order: the rule bot first (cheap), then the search
GAMES = {"heuristic": 600, "mcts": 204}
DESIGN = tuple(DesignCell(h, n, v.name, GAMES[h]) for h in ("heuristic", "mcts") for n in (2, 3, 4) for v in VARIANTS)
#: how a difference is read, fixed with the design: a variant changes a measure when the paired difference
#: to `normal` has Holm-adjusted p < ALPHA (Holm across the variants and counts of one host and measure) and
#: its interval excludes 0; otherwise "no change detected", with the smallest difference the pairs detect
ALPHA = 0.05
RULE = ("a variant changes a measure when its paired difference to the normal game has a Holm-adjusted p < 0.05 "
        "(Holm across the variants and player counts of one host and measure); otherwise no change is detected")

#: the measures of a game: name -> (what it is, unit: 'share' for 0/1 measures, 'number' else)
GAME_MEASURES = {
    "turns": ("game length in turns", "number"),
    "margin": ("winner's score minus the runner-up's", "number"),
    "spread": ("top score minus bottom score", "number"),
    "lead_changes": ("changes of the sole leader (running score) between turns", "number"),
    "first_win": ("the first seat wins (its share minus 1/n: the seat advantage)", "share"),
    "by_carriage": ("the end triggered by a carriage of 7 (else by a last house)", "share"),
    "tile_points": ("route-tile points a seat", "number"),
    "carriage_points": ("carriage points a seat", "number"),
    "uses": ("the variant's official: uses a seat a game", "number"),
}


def play_cell(cell: DesignCell, raw: Path, seed: int = SEED, jobs: int | None = 1,
              progress: bool = False) -> pd.DataFrame:
    """Play (or resume) one cell into raw/<host>_<n>p_<variant>; its games' measures (game_measures)."""
    from ...play.tournament import run_tournament

    spec = Variant.parse(cell.variant).spec(host_spec(cell.host))
    folder = Path(raw) / f"{cell.host}_{cell.players}p_{cell.variant}"
    # the tournament's files hold the spec's text
    rows = run_tournament([str(spec)] * cell.players, players=cell.players, games=cell.games,
                          seed=cell_seed(cell.host, cell.players, seed), jobs=jobs, out_dir=str(folder),
                          resume="auto", progress=progress)
    return game_measures(rows, folder / "records.jsonl", cell)


def _replayed(records: Path) -> dict[int, dict]:
    """Per game of a records.jsonl: lead_changes, and the seat that triggered the end (None if none)."""
    from ...play.match import GameRecord, replay
    from ...play.tournament.store import complete_lines

    out = {}
    for line in filter(str.strip, complete_lines(records).splitlines()):
        record = GameRecord.from_json(line)
        seen = {"turn": 0, "leader": None, "changes": 0, "ender": None}

        def after(state, seen=seen):
            ts = state.turn_state()
            if seen["ender"] is None and ts.end_triggered:
                seen["ender"] = int(ts.end_player)
            if state.turn == seen["turn"] and not state.is_terminal:
                return
            seen["turn"] = state.turn
            scores = state.scores()
            top = max(scores)
            if scores.count(top) == 1:
                leader = scores.index(top)
                seen["changes"] += seen["leader"] is not None and leader != seen["leader"]
                seen["leader"] = leader

        replay(record, after_move=after)
        out[int(json.loads(line)["game"])] = {"lead_changes": seen["changes"], "ender": seen["ender"]}
    return out


def game_measures(rows: pd.DataFrame, records: Path, cell: DesignCell) -> pd.DataFrame:
    """One row per game of a cell's tournament rows (run_tournament's columns) and its records: host, players,
    variant, game, game_seed and the GAME_MEASURES."""
    replayed = _replayed(Path(records))
    official = Variant.parse(cell.variant).official
    out = []
    for game, g in rows.groupby("game", sort=True):
        g = g.sort_values("seat")
        scores = np.sort(g.score.to_numpy(float))[::-1]
        winner = g[g.win == 1]
        runner_up = np.sort(g[g.win != 1].score.to_numpy(float))[-1] if len(g) > 1 else math.nan
        seen = replayed.get(int(game), {"lead_changes": math.nan, "ender": None})
        ender = g[g.seat == seen["ender"]] if seen["ender"] is not None else g.iloc[:0]
        out.append({"host": cell.host, "players": cell.players, "variant": cell.variant, "game": int(game),
                    "game_seed": int(g.game_seed.iloc[0]), "turns": float(g.turns.iloc[0]),
                    "margin": float(winner.score.iloc[0] - runner_up) if len(winner) else math.nan,
                    "spread": float(scores[0] - scores[-1]), "lead_changes": float(seen["lead_changes"]),
                    "first_win": float(g[g.seat == 0].win.iloc[0]),
                    "by_carriage": float(ender.carriage_size.iloc[0] >= 7) if len(ender) else math.nan,
                    "tile_points": float(g.tiles.mean()), "carriage_points": float(g.carriage.mean()),
                    "uses": float(g[f"uses_{official}"].mean()) if official else math.nan})
    return pd.DataFrame(out)


# ---------------------------------------------------------------- games.parquet, checked when read back

#: games.parquet's columns and their types; a saved table is read back only if it has exactly these
GAMES_COLUMNS = {"host": str, "players": int, "variant": str, "game": int, "game_seed": int,
                 **{m: float for m in GAME_MEASURES}}
#: the Parquet metadata key of the table's checksum (games_checksum), written with it by save_games
CHECKSUM_KEY = b"thurn_ai.games_sha256"
#: what a measure of one game can be (NaN: not measured); beyond: the table is damaged
MEASURE_RANGES = {"turns": (1, 32767), "margin": (0, 1000), "spread": (0, 1000), "lead_changes": (0, 32767),
                  "first_win": (0, 1), "by_carriage": (0, 1), "tile_points": (-1000, 1000),
                  "carriage_points": (-1000, 1000), "uses": (0, 32767)}
#: the bytes of a games table read at most (the full design is 0.3 MB)
MAX_GAMES_BYTES = 256 * 2 ** 20


def _canonical(games: pd.DataFrame) -> pd.DataFrame:
    """The table in its columns' order and types (ValueError/KeyError/TypeError if it cannot be)."""
    out = pd.DataFrame({c: games[c].astype("int64" if t is int else "float64" if t is float else object)
                        for c, t in GAMES_COLUMNS.items()})
    if any(not isinstance(v, str) for c in ("host", "variant") for v in out[c]):
        raise TypeError("host and variant are text")
    return out


def games_checksum(games: pd.DataFrame) -> str:
    """The SHA-256 of a games table's content (columns, types and every value, in order)."""
    canon = _canonical(games)
    digest = hashlib.sha256(json.dumps(list(GAMES_COLUMNS)).encode())
    digest.update(pd.util.hash_pandas_object(canon, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def save_games(games: pd.DataFrame, path) -> None:
    """Write a games table (game_measures' rows) to `path` as Parquet, atomically, with its checksum in the
    file's metadata, so load_games can tell a table this code wrote from an edited or damaged one."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    canon = _canonical(games)
    table = pa.Table.from_pandas(canon, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           CHECKSUM_KEY: games_checksum(canon).encode()})
    with atomic_open(path, "wb", what="games table") as f:
        pq.write_table(table, f)


def load_games(path) -> pd.DataFrame:
    """The games table save_games wrote to `path`, checked before it is trusted: its checksum, its columns
    and types, every value in range (MEASURE_RANGES; host, players, variant of the design) and one row a
    game. Anything else -- truncated, not Parquet, edited, a column dropped, a phantom cell -- is one
    StudyError naming the file (delete it to play its cells again from their tournaments)."""
    import pyarrow.parquet as pq
    shown = path_text(path)

    def damaged(why: str) -> StudyError:
        return StudyError(f"{shown} is damaged or was edited ({why}); delete it and run again to replay its cells "
                          "from their tournaments")

    try:
        data = read_bounded(path, "games table", StudyError, MAX_GAMES_BYTES)
    except FileNotFoundError:
        raise StudyError(f"{shown}: no such file") from None
    try:
        table = pq.read_table(io.BytesIO(data))
        saved = (table.schema.metadata or {}).get(CHECKSUM_KEY, b"").decode("ascii", "replace")
        games = table.to_pandas()
    except Exception as e:  # noqa: BLE001 - pyarrow raises many kinds; all mean "not a readable table"
        raise damaged(f"not a readable Parquet table: {type(e).__name__}") from None
    if list(games.columns) != list(GAMES_COLUMNS):
        raise damaged(f"its columns are not {', '.join(GAMES_COLUMNS)}")
    try:
        games = _canonical(games)
    except (ValueError, TypeError, KeyError, OverflowError) as e:
        raise damaged(f"a column of the wrong type: {e}") from None
    if not saved:
        raise damaged("it has no checksum")
    if saved != games_checksum(games):
        raise damaged("its checksum differs from its content")
    _check_game_values(games, damaged)
    return games


def _check_game_values(games: pd.DataFrame, damaged) -> None:
    hosts, variants = set(HOSTS), {v.name for v in VARIANTS}
    if not set(games.host) <= hosts or not set(games.variant) <= variants:
        raise damaged("a host or variant not of the design")
    if not games.players.isin(list(PLAYER_COUNTS)).all() or (games.game < 1).any():
        raise damaged("a player count or game number out of range")
    if games.duplicated(["host", "players", "variant", "game"]).any():
        raise damaged("a game given twice")
    for m, (lo, hi) in MEASURE_RANGES.items():
        x = games[m].to_numpy(float)
        bad = ~np.isnan(x) & ((x < lo) | (x > hi))
        if np.isinf(x).any() or bad.any():
            raise damaged(f"{m} out of range [{lo}, {hi}]")


def levels_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per host, count, variant and measure: games, mean and its 95% t interval (first_win: minus 1/n, the
    seat advantage)."""
    out = []
    for (host, n, variant), g in games.groupby(["host", "players", "variant"], sort=False):
        for measure in GAME_MEASURES:
            x = g[measure].dropna().to_numpy(float)
            shift = 1 / n if measure == "first_win" else 0.0
            m, lo, hi = mean_ci(x) if len(x) else (math.nan,) * 3
            out.append({"host": host, "players": int(n), "variant": variant, "measure": measure, "games": len(x),
                        "mean": m - shift, "lo": lo - shift, "hi": hi - shift})
    return pd.DataFrame(out)


def _paired(a: pd.DataFrame, b: pd.DataFrame, measure: str) -> dict:
    """A variant's games `a` minus the normal's `b`, by game number (same deals checked): d, interval, p."""
    m = a[["game", "game_seed", measure]].merge(b[["game", "game_seed", measure]], on="game", suffixes=("", "_n"))
    if (m.game_seed != m.game_seed_n).any():
        raise StudyError("a variant and the normal game dealt different games (not paired)")
    d = (m[measure] - m[f"{measure}_n"]).dropna().to_numpy(float)
    if len(d) < 2:
        return {"pairs": len(d), "d": float(d.mean()) if len(d) else math.nan, "d_lo": math.nan,
                "d_hi": math.nan, "p": math.nan, "detectable": math.nan}
    sd = float(d.std(ddof=1))
    ci = t_interval(d) if sd > 0 else {"low": float(d.mean()), "high": float(d.mean()), "p": 1.0}
    return {"pairs": len(d), "d": float(d.mean()), "d_lo": ci["low"], "d_hi": ci["high"], "p": ci["p"],
            "detectable": detectable_difference(len(d), sd)}


def comparison_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per host, count, variant (not normal) and measure (not uses): the paired difference to the normal game
    (d, 95% t interval, paired t test's p), Holm-adjusted within each host and measure (p_holm), the smallest
    difference the pairs detect (80% power) and the verdict (RULE)."""
    out = []
    for (host, n), g in games.groupby(["host", "players"], sort=False):
        normal = g[g.variant == NORMAL]
        if normal.empty:
            continue
        for variant, a in g[g.variant != NORMAL].groupby("variant", sort=False):
            for measure in GAME_MEASURES:
                if measure != "uses":
                    out.append({"host": host, "players": int(n), "variant": variant, "measure": measure,
                                "normal": float(normal[measure].mean()), "value": float(a[measure].mean()),
                                **_paired(a, normal, measure)})
    table = pd.DataFrame(out)
    if table.empty:
        return table
    table["p_holm"] = math.nan
    for _key, idx in table.groupby(["host", "measure"]).groups.items():
        table.loc[idx, "p_holm"] = holm(table.loc[idx, "p"])
    table["verdict"] = [verdict(r) for r in table.itertuples()]
    return table


def verdict(r) -> str:
    """'higher' / 'lower' (a detected change, RULE) or 'no change detected'."""
    if not math.isnan(r.p_holm) and r.p_holm < ALPHA and (r.d_lo > 0 or r.d_hi < 0):
        return "higher" if r.d > 0 else "lower"
    return "no change detected"
