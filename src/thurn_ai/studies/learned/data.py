"""Positions and how their games ended: the learned evaluation's data, from games of the shipped bots.

A data set is a folder of chunks, one Parquet file per `CHUNK` games of one player count, each written
atomically when its games are done, so an interrupted run loses at most the chunks in progress and
`generate()` run again plays only what is missing. Every game's seed derives from the data set's seed,
its player count and its number, so a chunk is the same on any machine.

Which games: for each player count, game g is played on the North board with horses when g % 5 == 4
(else South), and by `search` in every seat, except every fourth game (g % 4 == 3), where one seat
(rotating) plays `strong` and the others the rule-based `heuristic` bot -- the search's own games and
games against the yardstick.

Beside each chunk, its games' records (`.jsonl`, the game records of thurn_ai.play.match), from which any
position can be set up again (`play.match.position_at`).

One row per player per position, at the start of every turn (where the search's truncated playouts stop
and the model is asked): the features (features.FEATURES), progress, and the game's end for that player
(won, rank, final score, margin = final score minus the best other). For the player to move, when its
bot searched, also what the search said: `search_win` (its reported win %, as a share) and
`search_score`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...bots import make_bot
from ...errors import ThurnError
from ...play.match import Decision, GameRecord, Table, derive_seed, play_game, read_records
from ...game.rules import PLAYER_COUNTS, Rules
from ...learned.features import FEATURES, position_features
from .. import chunked
from ..chunked import ChunkFiles, interleaved, mixed_game

CHUNK = 10                       #: games a file
DEFAULT_SEARCH = "mcts(iterations=300)"
DEFAULT_STRONG = "mcts"
META = "data.json"


class DataError(ThurnError):
    """A data folder that does not match the run asked for."""


DATA_SET = chunked.DataSetKind(META, "data set", DataError)


@dataclass(frozen=True)
class DataChunk(ChunkFiles):
    """Games first .. first + count - 1 of one player count."""
    players: int
    first: int
    count: int
    seed: int
    search: str
    strong: str


def game_setup(players: int, game: int, seed: int, search: str, strong: str) -> tuple[Rules, list[str], int]:
    """(rules, bot specs by seat, game seed) of game `game` of a data set."""
    rules, specs = mixed_game(players, game, search, strong)
    return rules, specs, derive_seed("learned-data", seed, players, game)


def play_data_game(players: int, game: int, seed: int, search: str = DEFAULT_SEARCH,
                   strong: str = DEFAULT_STRONG) -> tuple[pd.DataFrame, GameRecord]:
    """Play one game of a data set: its rows (see the module docstring; `move` is the number of moves
    played before the position) and its record. The game is played by play_game (the one play loop); a
    _TurnStarts observer reads the positions."""
    rules, specs, game_seed = game_setup(players, game, seed, search, strong)
    bots = [make_bot(s, derive_seed("bot", game_seed, i)) for i, s in enumerate(specs)]
    # the observations' seeds as the data sets were made before they were played by play_game
    draws = np.random.default_rng(derive_seed("observations", game_seed))
    seen = _TurnStarts()
    record = play_game(rules, bots, game_seed, observer=seen,
                       observation_seeds=lambda: int(draws.integers(2 ** 63)))
    scores = np.asarray(record.scores, dtype=float)
    rank = np.empty(players, dtype=int)
    rank[record.ranking] = np.arange(1, players + 1)
    margin = np.array([scores[i] - np.max(np.delete(scores, i)) for i in range(players)])
    rows = []
    for (turn, move, mover, progress, feats), (sw, ss) in zip(seen.positions, seen.said):
        for i in range(players):
            row = {"game": game, "players": players, "board": rules.board, "variant": rules.resolved_variant,
                   "turn": turn, "move": move, "progress": progress, "player": i, "mover": i == mover, "bot": specs[i]}
            row.update({f"f_{name}": feats[i, k] for k, name in enumerate(FEATURES)})
            row.update(won=int(i == record.winner), rank=int(rank[i]), final_score=scores[i], margin=margin[i],
                       search_win=sw if i == mover else np.nan, search_score=ss if i == mover else np.nan)
            rows.append(row)
    return pd.DataFrame(rows), record


class _TurnStarts:
    """The observer of a data game (play.match.Observer): at the first decision of every turn, the position
    (turn, move number, mover, then progress and features: position_features) and what the mover's search
    said of its chosen move (_said)."""

    def __init__(self):
        self.positions: list[tuple] = []
        self.said: list[tuple[float, float]] = []
        self._turn = -1

    def decided(self, table: Table, decision: Decision) -> None:
        state = decision.state
        if state.turn != self._turn:
            self._turn = state.turn
            self.positions.append((state.turn, len(table.moves), decision.player) + position_features(state))
            self.said.append(_said(decision.bot, decision.observation))


def _said(bot, obs) -> tuple[float, float]:
    """The searching bot's reported win share and mean score for its chosen move at obs (NaN if it did
    not search: not a search bot, or a single legal move)."""
    searched = bot.last_search(obs)
    if searched is None or searched.best is None:
        return np.nan, np.nan
    return float(searched.best.win_prob), float(searched.best.mean_score)


def play_chunk(chunk: DataChunk) -> tuple[DataChunk, pd.DataFrame, str]:
    """(chunk, its rows, its games' records as JSON lines)."""
    games = [play_data_game(chunk.players, g, chunk.seed, chunk.search, chunk.strong)
             for g in range(chunk.first, chunk.first + chunk.count)]
    return (chunk, pd.concat([f for f, _ in games], ignore_index=True),
            "".join(r.to_json() + "\n" for _, r in games))


def plan_chunks(players=PLAYER_COUNTS, games: int = 500, seed: int = 0, search: str = DEFAULT_SEARCH,
                strong: str = DEFAULT_STRONG, first_game: int = 0) -> list[DataChunk]:
    """The chunks of `games` games (from game number first_game) for each player count, interleaved so
    an interrupted run has some of every count."""
    for spec in {search, strong, "heuristic"}:
        make_bot(spec, 0)          # a bad spec fails here, before any game
    per = {n: [DataChunk(n, g, min(CHUNK, first_game + games - g), seed, search, strong)
               for g in range(first_game, first_game + games, CHUNK)] for n in players}
    return interleaved(per, players)


def generate(out_dir, chunks: list[DataChunk], jobs: int = 1, client=None, progress=None) -> int:
    """Play the chunks not yet in out_dir and write each as it finishes; returns the chunks played. A folder
    keeps one data set: the same seed and bots (more games may be added). `client`: a dask.distributed
    Client (the tournament's --scheduler); else `jobs` local processes."""
    meta = ({"seed": chunks[0].seed, "search": chunks[0].search, "strong": chunks[0].strong, "chunk": CHUNK}
            if chunks else {})
    return chunked.generate(DATA_SET, out_dir, chunks, meta, play_chunk, chunked.chunk_done, jobs, client, progress)


def load(out_dir, players=None) -> pd.DataFrame:
    """Every chunk of a data folder (of some player counts) as one frame."""
    return chunked.load(DATA_SET, out_dir, players)


def records(out_dir, players: int, games) -> dict:
    """{game number: GameRecord} for these games of one player count (from the chunks' record files)."""
    out, want = {}, set(int(g) for g in games)
    for first in sorted({g - g % CHUNK for g in want}):
        path = Path(out_dir) / f"p{players}-{first:05d}.jsonl"
        for k, rec in enumerate(read_records(path)):
            if first + k in want:
                out[first + k] = rec
    return out


def held_out(game):
    """Games the fit never sees: every fifth (all South) and every tenth North game (numbers ending in 9).
    `game`: a game number or an array (Series) of them."""
    return (game % 5 == 0) | (game % 10 == 9)


def training_games(folders, players) -> pd.DataFrame:
    """The games the fit may see, of one or more data folders (a later generation's games beside the
    earlier ones): each folder's held-out games left out by its own numbering, then the game numbers of
    the k-th folder shifted by k * 1,000,000, so that the folds, which keep a game together, never join
    two different games."""
    frames = []
    for k, folder in enumerate(folders):
        frame = load(folder, players)
        frame = frame[~held_out(frame["game"])].copy()
        frame["game"] += k * 1_000_000
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


