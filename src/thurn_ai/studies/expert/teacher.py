"""Teacher data for expert iteration: what a deep search says at a sample of the decisions of real games.

A teacher data set is a folder of chunks, one Parquet file per `CHUNK` games of one player count, each
written atomically when its games are done (with the games' records beside it, `.jsonl`), so an
interrupted run loses at most the chunks in progress and `generate()` run again plays only what is missing.
Every game's seed, every bot's seed, which decisions are sampled and every teacher search's seed derive
from the data set's seed, its player count and the game's number: a chunk is the same on any machine.

Which games (as the learned evaluation's data, thurn_ai/studies/learned/data.py): for each player count, game g is
played on the North board with horses when g % 5 == 4 (else South); by `play` in every seat, except every
fourth game (g % 4 == 3), where one seat (rotating) plays `strong` and the others the rule-based
`heuristic` bot. Held out from every fit: games with g % 5 == 0 and g % 10 == 9 (`held_out`).

At every decision of a game with more than one legal move, with chance `sample`, the `teacher` search
(by default 10,000 iterations of the default search with the learned evaluation) is run from the mover's
information set -- what the mover may know, nothing more -- and one row is stored per root move: its
visits, visit share, mean reward (value), win share and mean score, the move the teacher would play and
the move the game's bot did play. The position itself is the record's first `move` moves (`play.match.position_at`),
so features can be recomputed from it later.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...bots import make_bot
from ...bots.base import Observation, Searcher
from ...bots.search_result import SearchResult
from ...errors import ThurnError
from ...fileio import load_json
from ...game.rules import PLAYER_COUNTS, Rules
from ..learned.data import held_out  # noqa: F401  (the same games are held out as for the learned evaluation)
from ...play.match import Decision, GameRecord, Table, derive_seed, play_game, read_records, record_walk
from .. import chunked
from ..chunked import ChunkFiles, interleaved, mixed_game

CHUNK = 5                                         #: games a file
#: generation 1's bots, spelled out in full (policy=handset: the search's defaults changed after it)
DEFAULT_PLAY = "mcts(iterations=300,eval=learned,policy=handset)"
DEFAULT_STRONG = "mcts(eval=learned,policy=handset)"
DEFAULT_TEACHER = "mcts(iterations=10000,eval=learned,policy=handset)"
DEFAULT_SAMPLE = 0.2
META = "teacher.json"


class TeacherError(ThurnError):
    """A teacher data folder that does not match the run asked for, or holds no data."""


DATA_SET = chunked.DataSetKind(META, "teacher data set", TeacherError)


def decisions_replayed(data: pd.DataFrame, records: dict):
    """(game, decision, its rows, its game's record, the state before its move) per sampled decision of
    `data` (one player count's teacher rows), each game replayed once on the way ({game: GameRecord}). The
    state is the replay's own: read it, or clone it to keep it."""
    for game, rows in data.groupby("game", sort=True):
        record = records[int(game)]
        walk, at, state = record_walk(record), -1, None
        for (decision, move_index), d in rows.groupby(["decision", "move_index"], sort=True):
            while at < move_index:
                at, state, _ = next(walk)
            yield int(game), int(decision), d, record, state


@dataclass(frozen=True)
class TeacherChunk(ChunkFiles):
    """Games first .. first + count - 1 of one player count, and how they are played and sampled."""
    players: int
    first: int
    count: int
    seed: int
    play: str = DEFAULT_PLAY
    strong: str = DEFAULT_STRONG
    teacher: str = DEFAULT_TEACHER
    sample: float = DEFAULT_SAMPLE


def game_setup(players: int, game: int, seed: int, play: str, strong: str) -> tuple[Rules, list[str], int]:
    """(rules, bot specs by seat, game seed) of game `game` of a teacher data set."""
    rules, specs = mixed_game(players, game, play, strong)
    return rules, specs, derive_seed("teacher-data", seed, players, game)


def play_teacher_game(chunk: TeacherChunk, game: int) -> tuple[pd.DataFrame, GameRecord]:
    """Play game `game` of the chunk's data set: its teacher rows and its record. The game is played by
    play_game (the one play loop); a _Teacher observer samples the decisions and asks the teacher."""
    rules, specs, game_seed = game_setup(chunk.players, game, chunk.seed, chunk.play, chunk.strong)
    bots = [make_bot(s, derive_seed("bot", game_seed, i)) for i, s in enumerate(specs)]
    # one stream for the observations, the sample and the teacher's observations, drawn in that order at
    # each decision, as the data sets were made before they were played by play_game
    rng = np.random.default_rng(derive_seed("sample", game_seed))
    teacher = _Teacher(chunk, game, make_bot(chunk.teacher, derive_seed("teacher", game_seed)), rng)
    record = play_game(rules, bots, game_seed, observer=teacher,
                       observation_seeds=lambda: int(rng.integers(2 ** 63)))
    if not teacher.rows:       # a game without a sampled decision still leaves a typed, empty frame
        return pd.DataFrame(columns=COLUMNS), record
    return pd.DataFrame(teacher.rows), record


class _Teacher:
    """The observer of a teacher game (play.match.Observer): at each decision with more than one legal move,
    with chance `sample`, the teacher searches the mover's information set; its rows are the decision's
    context and the targets of each root move (move_targets)."""

    def __init__(self, chunk: TeacherChunk, game: int, teacher: Searcher, rng: np.random.Generator):
        self.chunk, self.game, self.teacher, self.rng = chunk, game, teacher, rng
        self.rows: list[dict] = []
        self.decision = 0

    def decided(self, table: Table, decision: Decision) -> None:
        state, p = decision.state, decision.player
        n_legal = len(state.legal_moves())
        if n_legal <= 1 or self.rng.random() >= self.chunk.sample:
            return
        taught = self.teacher.search(Observation(state, p, int(self.rng.integers(2 ** 63))))
        context = {"game": self.game, "players": self.chunk.players, "board": state.rules.board,
                   "decision": self.decision, "move_index": len(table.moves), "turn": state.turn,
                   "phase": state.phase, "mover": p, "bot": table.seats[p], "n_legal": n_legal}
        self.rows.extend({**context, **targets} for targets in move_targets(taught, decision.move))
        self.decision += 1


def move_targets(taught: SearchResult, played: int) -> list[dict]:
    """What the teacher's search says of each root move of a decision, one dict a move: the targets a prior
    is fitted to (visits and their share, the mean reward `value`, win share, mean score), whether it is the
    teacher's choice and whether the game's bot played it, and the search's iterations."""
    best = taught.best.move if taught.best is not None else None
    return [{"move": r.move, "notation": r.notation, "visits": r.visits, "share": r.share, "value": r.value,
             "win_prob": r.win_prob, "mean_score": r.mean_score, "teacher_best": r.move == best,
             "played": r.move == played, "iterations": taught.iterations} for r in taught.moves]


COLUMNS = ["game", "players", "board", "decision", "move_index", "turn", "phase", "mover", "bot", "n_legal",
           "move", "notation", "visits", "share", "value", "win_prob", "mean_score", "teacher_best", "played",
           "iterations"]


def play_chunk(chunk: TeacherChunk) -> tuple[TeacherChunk, pd.DataFrame, str]:
    """(chunk, its rows, its games' records as JSON lines)."""
    games = [play_teacher_game(chunk, g) for g in range(chunk.first, chunk.first + chunk.count)]
    frames = [f for f, _ in games if len(f)]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    return chunk, frame, "".join(r.to_json() + "\n" for _, r in games)


def plan_chunks(players=PLAYER_COUNTS, games: int = 100, seed: int = 0, play: str = DEFAULT_PLAY,
                strong: str = DEFAULT_STRONG, teacher: str = DEFAULT_TEACHER,
                sample: float = DEFAULT_SAMPLE) -> list[TeacherChunk]:
    """The chunks of games 0 .. games - 1 for each player count, interleaved so that an interrupted run has
    some of every count. Chunk boundaries are fixed multiples of CHUNK, whatever `games` is: a run
    extended later (more games) fills the short last chunk of an earlier run first, never skips a game."""
    if not 0.0 < sample <= 1.0:
        raise TeacherError(f"sample must be a share of decisions, above 0 and at most 1, not {sample!r}")
    for spec in {play, strong, teacher, "heuristic"}:
        make_bot(spec, 0)          # a bad spec fails here, before any game
    if not isinstance(make_bot(teacher, 0), Searcher):
        raise TeacherError(f"the teacher {teacher!r} does not search (bots.base.Searcher): it has no visit shares "
                           "or values to teach; use a search bot")
    per = {n: [TeacherChunk(n, g, min(CHUNK, games - g), seed, play, strong, teacher, sample)
               for g in range(0, games, CHUNK)] for n in players}
    return interleaved(per, players)


def _done(out: Path, chunk: TeacherChunk) -> bool:
    """Whether the chunk's file holds all its games (a short last chunk of an earlier run does not)."""
    path = out / chunk.records_name
    if not (out / chunk.name).exists() or not path.exists():
        return False
    return sum(1 for _ in read_records(path)) >= chunk.count


def generate(out_dir, chunks: list[TeacherChunk], jobs: int = 1, client=None, progress=None) -> int:
    """Play the chunks not yet complete in out_dir and write each as it finishes; returns the chunks played.
    A folder keeps one data set: the same seed, bots and sampling (more games may be added). `client`: a
    dask.distributed Client (the tournament's --scheduler); else `jobs` local processes."""
    c = chunks[0] if chunks else None
    meta = {"seed": c.seed, "play": c.play, "strong": c.strong, "teacher": c.teacher, "sample": c.sample,
            "chunk": CHUNK} if c else {}
    return chunked.generate(DATA_SET, out_dir, chunks, meta, play_chunk, _done, jobs, client, progress)


def description(out_dir) -> dict:
    """A teacher data folder's description (its seed, bots and sampling: META); TeacherError if unreadable."""
    return load_json(Path(out_dir) / META, f"{DATA_SET.what} description", TeacherError)


def load(out_dir, players=None) -> pd.DataFrame:
    """Every chunk of a teacher data folder (of some player counts) as one frame."""
    return chunked.load(DATA_SET, out_dir, players)


def records(out_dir, players: int) -> dict[int, GameRecord]:
    """{game number: GameRecord} of every game of one player count in a teacher data folder."""
    out = {}
    for path in sorted(Path(out_dir).glob(f"p{players}-*.jsonl")):
        first = int(path.stem.split("-")[1])
        for k, rec in enumerate(read_records(path)):
            out[first + k] = rec
    return out


