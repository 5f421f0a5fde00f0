"""Data sets written in chunks (the learned evaluation's positions, the expert study's teacher data): a
folder of one data set, whose chunks are played by local processes or a Dask cluster and written each
atomically as it finishes, so an interrupted run loses only the chunks in progress."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..fileio import atomic_to_parquet, atomic_write_text, load_json
from ..game.rules import Rules
from ..play.workers import run_each


class ChunkFiles:
    """The file names of a chunk of games first.. of one player count (a mixin of the chunk values)."""
    players: int
    first: int

    @property
    def name(self) -> str:
        return f"p{self.players}-{self.first:05d}.parquet"

    @property
    def records_name(self) -> str:
        return f"p{self.players}-{self.first:05d}.jsonl"


def mixed_game(players: int, game: int, play: str, strong: str) -> tuple[Rules, list[str]]:
    """(rules, bot specs by seat) of game number `game` of such a data set: the North board with horses
    when game % 5 == 4 (else South); `play` in every seat, except every fourth game (game % 4 == 3), where
    one seat (rotating) plays `strong` and the others the rule-based `heuristic` bot."""
    north = game % 5 == 4
    rules = Rules(players=players, board="north" if north else "south", variant="horses" if north else None)
    if game % 4 == 3:
        specs = ["heuristic"] * players
        specs[(game // 4) % players] = strong
    else:
        specs = [play] * players
    return rules, specs


def interleaved(per_count: dict[int, list], players: Iterable[int]) -> list:
    """Each player count's chunks taken in turn (one of every count, then the next...), so that a run
    stopped early has some of every count."""
    players = list(players)
    out: list = []
    for k in range(max((len(per_count[n]) for n in players), default=0)):
        out += [per_count[n][k] for n in players if k < len(per_count[n])]
    return out


def keep_one_data_set(out: Path, meta: dict, name: str, what: str, error: type[Exception]) -> None:
    """A folder keeps one data set: `meta` (seed, bots, ...) must match the folder's description file
    `name`, written by the first run."""
    path = out / name
    if path.exists():
        old = load_json(path, f"{what} description", error)
        if {k: old.get(k) for k in meta} != meta:
            raise error(f"{out} holds another {what} ({json.dumps(old)}); use another folder")
    else:
        atomic_write_text(path, json.dumps(meta, indent=1) + "\n")


def write_chunks(out: Path, todo: Sequence, play_chunk: Callable, jobs: int = 1, client=None,
                 progress: Callable | None = None) -> int:
    """Play the chunks (play_chunk(chunk) -> (chunk, frame, records text)) and write each as it finishes:
    its records first, then its rows (a chunk counts as done once its rows are there). Returns how many."""
    done = 0
    for chunk, frame, records in run_each(play_chunk, list(todo), jobs, client):
        atomic_write_text(out / chunk.records_name, records)
        atomic_to_parquet(frame, out / chunk.name, index=False)
        done += 1
        if progress:
            progress(chunk)
    return done
