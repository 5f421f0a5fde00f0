"""Data sets written in chunks (the learned evaluation's positions, the expert study's teacher data): a
folder of one data set, whose chunks are played by local processes or a Dask cluster and written each
atomically as it finishes, so an interrupted run loses only the chunks in progress."""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import pandas as pd

from ..fileio import atomic_to_parquet, atomic_write_text, load_json, path_text
from ..game.rules import Rules
from ..play.workers import run_each


@dataclass(frozen=True)
class DataSetKind:
    """A kind of chunked data set: the name of its folder's description file, its name in messages, and the
    error its checks raise."""
    meta_file: str
    what: str
    error: type[Exception]


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


def generate(kind: DataSetKind, out_dir, chunks: Sequence, meta: dict[str, Any], play_chunk: Callable,
             is_done: Callable[[Path, Any], bool], jobs: int = 1, client=None,
             progress: Callable | None = None) -> int:
    """Play the chunks that is_done(folder, chunk) says out_dir lacks and write each as it finishes; returns
    how many were played. With any chunks, the folder must keep one data set: `meta` (seed, bots, ...) is
    checked against its description first (keep_one_data_set). `client`: a dask.distributed Client; else
    `jobs` local processes."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if chunks:
        keep_one_data_set(out, meta, kind.meta_file, kind.what, kind.error)
    try:
        return write_chunks(out, [c for c in chunks if not is_done(out, c)], play_chunk, jobs, client, progress)
    except OSError as e:       # a full disk, a read-only folder: each chunk is written atomically, none is cut
        raise kind.error(f"cannot write to {path_text(out)}: {e.strerror or e}; the chunks written so far are "
                         "kept (run it again to continue)") from None


def chunk_done(out: Path, chunk) -> bool:
    """Whether out holds this chunk (a ChunkFiles value with `first` and `count` games): its Parquet file
    exists and holds at least the chunk's games. The
    last chunk of a run whose games are not a multiple of CHUNK is short (15 games: games 10-14 in
    p2-00010); a later run with more games must play that chunk again, whole, not take the short file
    for it (the games are seeded by number, so the first ones come out the same). A file that cannot be
    read is played again too."""
    path = out / chunk.name
    if not path.exists():
        return False
    try:
        games = pd.read_parquet(path, columns=["game"])["game"]
    except Exception:        # noqa: BLE001 - pyarrow raises many kinds; all mean "play it again"
        return False
    return set(range(chunk.first, chunk.first + chunk.count)) <= set(games.tolist())


@contextmanager
def stopping_safely(out_dir):
    """Around a generator's run in a script: Ctrl-C says "stopping..." at once and stops the workers (a
    second one quits at once; workers.stop_on_ctrl_c), then the script ends with one line and status 130;
    a data set error (a full disk, another data set in the folder) is one `error:` line and status 2."""
    from ..errors import ThurnError
    from ..play.workers import stop_on_ctrl_c
    try:
        with stop_on_ctrl_c():
            yield
    except KeyboardInterrupt:
        print(f"interrupted: the chunks written to {path_text(out_dir)} are kept; run the same command again "
              "to continue", file=sys.stderr, flush=True)
        sys.exit(130)
    except ThurnError as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        sys.exit(2)


def load(kind: DataSetKind, out_dir, players: Iterable[int] | None = None) -> pd.DataFrame:
    """Every chunk of a data folder (of some player counts) as one frame; kind.error when none holds a row."""
    files = sorted(Path(out_dir).glob("p*-*.parquet"))
    if players is not None:
        wanted = set(players)
        files = [f for f in files if int(f.name[1:f.name.index("-")]) in wanted]
    frames = [f for f in (pd.read_parquet(f) for f in files) if len(f)]
    if not frames:
        raise kind.error(f"no {kind.what} in {out_dir}")
    return pd.concat(frames, ignore_index=True)
