"""The games a win map is fitted on: the search it maps, playing, with what it said at every decision.

Two populations, one folder each under OUT/data/ (a chunked data set: one Parquet file per `CHUNK` games of
one player count, written atomically as its games end, so a run stopped early resumes where it was):
  self-play      every seat plays the search (the hint's chance among equal players)
  vs heuristic   one seat (rotating with the game's number) plays the search, the others `heuristic`
Game g is played on the North board with horses when g % 5 == 4, else South. Every game's seed derives from
the data set's seed, the population, the player count and g: fresh seeds, none shared with the games the
learned evaluation or the prior were fitted on (their seeds derive from other labels).

One row per decision where a seat playing the search searched (a forced move is not searched): game,
players, population, board, seat, move (moves played before), progress (0 at the start, 1 at the end: what
the map reads), share (the win share of the move it chose: what the hint maps) and won (1 if that seat won
the game). The hint's search at that position from that seat's view is this very search, up to its seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...bots import make_bot
from ...errors import ThurnError
from ...game.rules import PLAYER_COUNTS, Rules
from ...learned.features import position_features
from ...play.match import Decision, GameRecord, Table, derive_seed
from .. import chunked
from ..chunked import ChunkFiles, interleaved

CHUNK = 5                    #: games a file
META = "data.json"
#: the populations, each a folder of OUT/data: who plays the games
POPULATIONS = {"self-play": "every seat plays the search",
               "vs heuristic": "one seat (rotating) plays the search, every other seat the `heuristic` bot"}


class CalibrationError(ThurnError):
    """A calibration data folder or run that cannot be used."""


DATA_SET = chunked.DataSetKind(META, "calibration data set", CalibrationError)


@dataclass(frozen=True)
class Chunk(ChunkFiles):
    """Games first .. first + count - 1 of one player count and population."""
    players: int
    first: int
    count: int
    seed: int
    search: str
    population: str


def folder_of(data: Path, population: str) -> Path:
    """The folder of one population's games."""
    return Path(data) / population.replace(" ", "-")


def game_setup(players: int, game: int, population: str, seed: int, search: str) -> tuple[Rules, list[str], int]:
    """(rules, bot specs by seat, game seed) of game `game` of a population."""
    north = game % 5 == 4
    rules = Rules(players=players, board="north" if north else "south", variant="horses" if north else None)
    if population == "self-play":
        specs = [search] * players
    else:
        specs = ["heuristic"] * players
        specs[game % players] = search
    return rules, specs, derive_seed("win-map-calibration", seed, population, players, game)


#: the columns of a game's rows, before `won`
COLUMNS = ["game", "players", "population", "board", "seat", "move", "progress", "share", "visits"]


@dataclass
class _Shares:
    """The Observer of one game at the play loop (thurn_ai.play.match.Table): at each decision a seat playing
    the search searched, the row the module doc describes (a forced move is not searched: no row)."""
    game: int
    population: str
    search: str
    rows: list

    def decided(self, table: Table, decision: Decision) -> None:
        if table.seats[decision.player] != self.search:
            return
        searched = decision.bot.last_search(decision.observation)
        if searched is None or searched.best is None:
            return
        s = decision.state
        self.rows.append({"game": self.game, "players": s.n_players, "population": self.population,
                          "board": s.rules.board, "seat": decision.player, "move": len(table.moves),
                          "progress": float(position_features(s)[0]), "share": float(searched.best.win_prob),
                          "visits": int(searched.iterations)})


def play_game(players: int, game: int, population: str, seed: int, search: str) -> tuple[pd.DataFrame, GameRecord]:
    """One game, played by the one play loop: its rows (see the module doc) and its record."""
    rules, specs, game_seed = game_setup(players, game, population, seed, search)
    bots = [make_bot(s, derive_seed("bot", game_seed, i)) for i, s in enumerate(specs)]
    seeds = np.random.default_rng(derive_seed("observations", game_seed))    # as the data sets were drawn
    table = Table.new(rules, game_seed, specs, lambda: int(seeds.integers(2 ** 63)))
    shares = _Shares(game, population, search, [])
    record = table.play(bots, observer=shares)
    frame = pd.DataFrame(shares.rows, columns=COLUMNS)
    frame["won"] = (frame["seat"] == record.winner).astype(int)
    return frame, record


def play_chunk(chunk: Chunk) -> tuple[Chunk, pd.DataFrame, str]:
    """(chunk, its rows, its games' records as JSON lines)."""
    games = [play_game(chunk.players, g, chunk.population, chunk.seed, chunk.search)
             for g in range(chunk.first, chunk.first + chunk.count)]
    return (chunk, pd.concat([f for f, _ in games], ignore_index=True),
            "".join(r.to_json() + "\n" for _, r in games))


def plan(search: str, games: int, seed: int, players=PLAYER_COUNTS, population: str = "self-play") -> list[Chunk]:
    """The chunks of `games` games a player count of one population, interleaved by player count."""
    if population not in POPULATIONS:
        raise CalibrationError(f"no population {population!r} (one of {', '.join(POPULATIONS)})")
    make_bot(search, 0)            # a bad spec fails here, before any game
    per = {n: [Chunk(n, g, min(CHUNK, games - g), seed, search, population) for g in range(0, games, CHUNK)]
           for n in players}
    return interleaved(per, players)


def generate(data: Path, chunks: list[Chunk], jobs: int = 1, client=None, progress=None) -> int:
    """Play the chunks not yet in their population's folder under `data`, each written as it finishes;
    returns how many were played. A folder keeps one data set: the same seed and search."""
    done = 0
    for population in POPULATIONS:
        mine = [c for c in chunks if c.population == population]
        if not mine:
            continue
        meta = {"seed": mine[0].seed, "search": mine[0].search, "population": population, "chunk": CHUNK}
        done += chunked.generate(DATA_SET, folder_of(data, population), mine, meta, play_chunk,
                                 chunked.chunk_done, jobs, client, progress)
    return done


def load(data: Path, players=None) -> pd.DataFrame:
    """Every population's rows under `data` as one frame (a population without games is left out)."""
    frames = []
    for population in POPULATIONS:
        folder = folder_of(data, population)
        if folder.is_dir() and any(folder.glob("p*-*.parquet")):
            frames.append(chunked.load(DATA_SET, folder, players))
    if not frames:
        raise CalibrationError(f"no calibration games in {data}")
    return pd.concat(frames, ignore_index=True)
