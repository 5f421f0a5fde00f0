"""Internal-node rows: what the teacher's search says at the mover's own later decisions of the same turn.

A teacher data set (teacher.py) keeps one row a root move: the decision the game's bot faced. Below the root,
the teacher's tree also holds well-visited nodes where the same player decides again in the same turn -- after
playing a card, which route to close or whether to stop; which city a house goes to, one house after another;
what to discard -- and each such node has its own moves with visits and values. Those are decisions of
positions the mover knows exactly (only the mover's own moves lead there, and no card is drawn on the way:
`_search.Tree.own_nodes`), so they are teacher data as good as the root's, a few of them per search.

This module searches again the training decisions of a teacher data folder (not its held-out games, whose
decisions the offline gate reads; not the draw phase, where every child is a draw), with the folder's own
teacher spec and a fresh seed a decision, and keeps one row per move of every own node visited at least
`min_visits` times: the decision's context, the node's `path` (the moves from the root, space-separated codes),
and the move's visits, mean reward `value`, win share and mean score. The position of a row is the decision's
position with the path applied (`apply_path`).

The rows are written in chunks that mirror the source folder's (p{n}-{first}.parquet, with the games' records
copied beside them as .jsonl, so the folder reads like a teacher folder: teacher.decisions_replayed works on
it), each atomically when its decisions are searched: an interrupted run loses only the chunks in progress.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...bots import make_bot
from ...bots.base import Observation
from ...fileio import path_text as shown_path
from ...play.match import derive_seed, parse_records
from .. import chunked
from ..chunked import ChunkFiles
from . import improved as I
from . import teacher as T

#: the fewest visits of an own node for its moves to be rows (of the teacher's 10,000 iterations: 5%)
MIN_NODE_VISITS = 500
META = "internal.json"
DATA_SET = chunked.DataSetKind(META, "internal-node data set", T.TeacherError)
COLUMNS = ["game", "players", "board", "decision", "move_index", "turn", "mover", "path", "node_visits", "move",
           "visits", "value", "win_prob", "mean_score", "iterations"]


def path_text(path) -> str:
    """A path of move codes as the rows keep it ("" for the root)."""
    return " ".join(str(int(m)) for m in path)


def apply_path(state, path: str):
    """A clone of `state` with the path's moves (path_text) applied: the position of an internal row."""
    out = state.clone()
    for m in path.split():
        out.apply(int(m))
    return out


def node_rows(tree, min_visits: int = MIN_NODE_VISITS) -> list[dict]:
    """One dict a move of every own node of a searched tree visited at least min_visits times (the root
    excluded): its path, `node_visits` (its moves' visits summed: the node's own less the visit that added
    it), the move's visits, mean reward, win share and mean score."""
    out = []
    for path, children in tree.own_nodes(min_visits):
        node_visits = sum(c[1] for c in children)
        for move, visits, _avail, value, wins, score in children:
            n = max(visits, 1)
            out.append({"path": path_text(path), "node_visits": int(node_visits), "move": int(move),
                        "visits": int(visits), "value": value / n, "win_prob": wins / n, "mean_score": score / n})
    return out


@dataclass(frozen=True)
class InternalChunk(ChunkFiles):
    """The internal rows of one chunk of a teacher data folder (source), searched again by `teacher`."""
    players: int
    first: int
    source: str
    teacher: str
    seed: int
    min_visits: int = MIN_NODE_VISITS


def eligible(rows: pd.DataFrame) -> pd.DataFrame:
    """The teacher rows whose decisions are searched again: training games, not the draw phase."""
    return rows[~T.held_out(rows["game"]) & (rows["phase"] != "draw")]


def search_chunk(chunk: InternalChunk) -> tuple[InternalChunk, pd.DataFrame, str]:
    """(chunk, its internal rows, its games' records as JSON lines, copied from the source)."""
    source = Path(chunk.source)
    rows = pd.read_parquet(source / chunk.name)
    records_text = (source / chunk.records_name).read_text()      # read once: parsed here, copied as it is
    records = {chunk.first + k: r for k, r in
               enumerate(parse_records(records_text, shown_path(source / chunk.records_name)))}
    out: list[dict] = []
    for game, decision, d, _rec, state in T.decisions_replayed(eligible(rows), records):
        seed = derive_seed("internal", chunk.seed, chunk.players, game, decision)
        bot = make_bot(chunk.teacher, seed)
        result = bot.search(Observation(state, state.current_player, derive_seed("internal-obs", seed)))
        if len(result.trees) != 1:
            raise T.TeacherError(f"internal rows need a teacher of one tree, not {len(result.trees)} "
                                 f"(root-parallel workers): {chunk.teacher}")
        context = {"game": game, "players": chunk.players, "board": state.rules.board, "decision": decision,
                   "move_index": int(d["move_index"].iloc[0]), "turn": state.turn, "mover": state.current_player,
                   "iterations": result.iterations}
        out.extend({**context, **r} for r in node_rows(result.trees[0], chunk.min_visits))
    frame = pd.DataFrame(out, columns=COLUMNS) if out else pd.DataFrame(columns=COLUMNS)
    return chunk, frame, records_text


def plan_chunks(source, seed: int, players=(2, 3, 4), min_visits: int = MIN_NODE_VISITS) -> list[InternalChunk]:
    """One chunk a chunk file of the source teacher folder, of these player counts, interleaved over the
    counts; the teacher is the source's own (its teacher.json; a relative prior file found as fit does)."""
    if min_visits < 1:
        raise T.TeacherError(f"min_visits must be at least 1, not {min_visits!r}")
    source = Path(source)
    teacher = str(I.teacher_spec(T.description(source), source))
    make_bot(teacher, 0)             # a bad spec fails here, before any search
    per = {n: [InternalChunk(n, int(p.stem.split("-")[1]), str(source), teacher, seed, min_visits)
               for p in sorted(source.glob(f"p{n}-*.parquet"))] for n in players}
    return chunked.interleaved(per, players)


def _done(out: Path, chunk: InternalChunk) -> bool:
    # the rows file is written last: once it is there the chunk is done (a chunk may hold no row)
    return (out / chunk.name).exists()


def generate(out_dir, chunks: list[InternalChunk], jobs: int = 1, client=None, progress=None) -> int:
    """Search the chunks not yet in out_dir and write each as it finishes; returns the chunks searched. A
    folder keeps one data set: the same source (its seed and teacher), seed and min_visits."""
    c = chunks[0] if chunks else None
    # the source is named by its own description (its seed and teacher), not by a path that differs by machine
    source = T.description(c.source) if c else {}
    meta = {"source_seed": source.get("seed"), "source_teacher": source.get("teacher"), "seed": c.seed,
            "min_visits": c.min_visits} if c else {}
    return chunked.generate(DATA_SET, out_dir, chunks, meta, search_chunk, _done, jobs, client, progress)


def load(out_dir, players=None) -> pd.DataFrame:
    """Every chunk of an internal-node folder (of some player counts) as one frame."""
    return chunked.load(DATA_SET, out_dir, players)


def node_count(rows: pd.DataFrame) -> int:
    """How many own nodes (decisions) the rows hold."""
    return int(len(rows[["game", "decision", "path"]].drop_duplicates())) if len(rows) else 0


__all__ = ["MIN_NODE_VISITS", "COLUMNS", "path_text", "apply_path", "node_rows", "InternalChunk", "eligible",
           "search_chunk", "plan_chunks", "generate", "load", "node_count"]
