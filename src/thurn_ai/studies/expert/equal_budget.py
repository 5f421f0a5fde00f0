"""Equal-budget labels: which of a decision's candidate moves a fresh search prefers, each given the same budget.

The offline gate of a move prior (experiments/expert_gen3.py). At a held-out decision of the teacher data,
the candidates are the favourites of the priors compared (and the planner's move); where they differ, each
candidate's child position is searched with the same number of iterations in the same worlds: world k is one
determinization of the decision as its mover saw it (seeded by the game, the decision and k), the candidate
applied to it, and a search from there with the same seed for every candidate (common random numbers). The
label is the candidate of the highest mean value over the worlds (a tie for it: no label). Only decisions
where the mover moves again after every candidate are labelled (the child search's values are then the
mover's own), which leaves out the choices that end a turn.

A label data set is a folder of chunks, one Parquet file per game of one player count and teacher folder,
written atomically; a run started again labels only the games that are missing (`generate`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ... import _policy
from ...bots import make_bot
from ...errors import ThurnError
from ...fileio import atomic_to_parquet, load_json
from ...learned.prior import PHASES, PriorModel
from ...play.match import derive_seed
from ..chunked import DataSetKind, keep_one_data_set, stopping_safely
from ..provenance import log_run
from . import teacher as T

#: the search that labels: the teacher's (generation 1's) search, which none of the compared priors is
DEFAULT_SEARCH = "mcts(eval=learned,policy=handset)"
META = "labels.json"


class LabelError(ThurnError):
    """A label folder that holds another label set."""


DATA_SET = DataSetKind(META, "equal-budget label set", LabelError)


@dataclass(frozen=True)
class LabelChunk:
    """The held-out decisions of one game of one teacher folder and player count, and how to label them."""
    folder: str           # the teacher data folder
    tag: str              # its short name in file names ("gen1", "gen2")
    players: int
    game: int
    budget: int
    worlds: int
    seed: int
    search: str = DEFAULT_SEARCH

    @property
    def name(self) -> str:
        return f"{self.tag}-p{self.players}-{self.game:05d}.parquet"


def favourites(state, seed: int, priors: dict[str, PriorModel]) -> tuple[int, list[int], dict[str, int]] | None:
    """(phase, moves, {name: favourite move}) at a decision of a learned phase: the planner's move
    ("planner") and each prior's most likely move, from the prior features of one seeded determinization
    of what the mover knows (as the fit computes them); None outside the learned phases."""
    seen = state.determinize(state.current_player, seed)
    phase, codes, rows = _policy.prior_features_of(seen)
    if phase < 0 or len(codes) < 2:
        return None
    moves = [int(m) for m in codes]
    f = np.asarray(rows, dtype=float)
    out = {"planner": moves[int(np.argmax(f[:, 0]))]}      # plan_move, the first feature
    for name, model in priors.items():
        p = model.probabilities_features(state.n_players, phase, f)
        out[name] = moves[int(np.argmax(p if p is not None else f[:, 0]))]
    return phase, moves, out


def child_values(state, candidates: list[int], budget: int, worlds: int, seed: int, search: str
                 ) -> dict[int, list[float]] | None:
    """{candidate: its child's mean value in each world} (the mover's mean reward over the root of a
    `budget`-iteration search from the child); None if after some candidate, in some world, the game ends
    or another player moves."""
    mover = state.current_player
    bot = make_bot(search, seed)
    out: dict[int, list[float]] = {m: [] for m in candidates}
    for k in range(worlds):
        world_seed = derive_seed("equal-world", seed, k)
        world = state.determinize(mover, world_seed)
        for m in candidates:
            child = world.clone()
            child.apply(m)
            if child.is_terminal() or child.current_player != mover:
                return None
            tree = bot._tree(child, derive_seed("equal-search", seed, k), ismcts=True)
            tree.run(budget)
            rows = tree.root_children()
            visits = sum(r[1] for r in rows)
            out[m].append(sum(r[3] for r in rows) / visits if visits else 0.5)
    return out


def label_chunk(chunk: LabelChunk, priors: dict[str, PriorModel]) -> pd.DataFrame:
    """One row per held-out decision of the chunk's game: the favourites, whether it was labelled (the
    favourites differ and the mover moves again after each), each favourite's child value and the label."""
    data = T.load(chunk.folder, [chunk.players])
    data = data[data.game == chunk.game]
    rows = []
    for game, decision, _d, record, state in T.decisions_replayed(data, {chunk.game: T.records(
            chunk.folder, chunk.players)[chunk.game]}):
        seed = derive_seed("equal-budget", chunk.seed, chunk.tag, chunk.players, game, decision)
        found = favourites(state, derive_seed("prior-features", record.seed, decision), priors)
        if found is None:
            continue
        phase, _moves, fav = found
        row = {"folder": chunk.tag, "players": chunk.players, "game": game, "decision": decision,
               "phase": PHASES[phase], **{f"fav_{k}": v for k, v in fav.items()}, "labelled": False}
        candidates = sorted(set(fav.values()))
        values = child_values(state, candidates, chunk.budget, chunk.worlds, seed, chunk.search) \
            if len(candidates) > 1 else None
        if values is not None:
            mean = {m: float(np.mean(v)) for m, v in values.items()}
            best = [m for m in candidates if mean[m] >= max(mean.values()) - 1e-12]
            # a tie for the best (a game already decided) has no label
            row.update(labelled=len(best) == 1, label=best[0] if len(best) == 1 else -1,
                       **{f"value_{k}": mean[v] for k, v in fav.items()},
                       **{f"world_{k}": values[v] for k, v in fav.items()})
        rows.append(row)
    return pd.DataFrame(rows)


def plan_chunks(folders: dict[str, str], players, budget: int, worlds: int, seed: int,
                search: str = DEFAULT_SEARCH) -> list[LabelChunk]:
    """A chunk per held-out game of each folder ({tag: folder}) and count, interleaved over the counts and
    folders (a run stopped early has some of each)."""
    per = []
    for tag, folder in folders.items():
        for n in players:
            games = sorted(int(g) for g in T.records(folder, n) if T.held_out(np.array([g]))[0])
            per.append([LabelChunk(str(folder), tag, n, g, budget, worlds, seed, search) for g in games])
    return [c[k] for k in range(max(map(len, per), default=0)) for c in per if k < len(c)]


def generate(out_dir, chunks: list[LabelChunk], priors: dict[str, PriorModel], progress=None) -> int:
    """Label the chunks not yet in out_dir, each written when done; returns how many were labelled."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if chunks:
        c = chunks[0]
        meta = {"budget": c.budget, "worlds": c.worlds, "seed": c.seed, "search": c.search,
                "priors": sorted(priors)}
        keep_one_data_set(out, meta, META, DATA_SET.what, LabelError)
    done = 0
    for chunk in chunks:
        if (out / chunk.name).exists():
            continue
        atomic_to_parquet(label_chunk(chunk, priors), out / chunk.name, index=False)
        done += 1
        if progress:
            progress(chunk)
    return done


def load(out_dir) -> pd.DataFrame:
    """Every chunk of a label folder as one frame (empty chunks: games without a learned-phase decision)."""
    frames = [f for f in (pd.read_parquet(p) for p in sorted(Path(out_dir).glob("*-p*-*.parquet"))) if len(f)]
    if not frames:
        raise LabelError(f"no equal-budget labels in {out_dir}")
    return pd.concat(frames, ignore_index=True)


def agreement(labels: pd.DataFrame, a: str, b: str) -> tuple[float, float, float, int]:
    """The paired difference of agreement with the label, b's favourite minus a's, over the labelled
    decisions: (mean, low, high) of a 95% interval robust to the decisions of a game being alike, and the
    decisions (clustered_mean)."""
    d = labels[labels.labelled]
    return clustered_mean(d, (d[f"fav_{b}"] == d["label"]).astype(float)
                          - (d[f"fav_{a}"] == d["label"]).astype(float))


def value_gain(labels: pd.DataFrame, a: str, b: str) -> tuple[float, float, float, int]:
    """The paired difference of the equal-budget child value of b's favourite minus a's (the mover's mean
    reward), over the labelled decisions, as agreement()."""
    d = labels[labels.labelled]
    return clustered_mean(d, d[f"value_{b}"] - d[f"value_{a}"])


def clustered_mean(d: pd.DataFrame, diff: pd.Series) -> tuple[float, float, float, int]:
    """The mean of per-decision differences with a 95% interval whose standard error is clustered by game
    (OLS on a constant, statsmodels' cluster-robust covariance), and the decisions. Decisions of one game
    give the mean without an interval (NaN bounds)."""
    import statsmodels.api as sm
    groups = pd.factorize(d["folder"] + "-" + d["players"].astype(str) + "-" + d["game"].astype(str))[0]
    if len(set(groups)) < 2:         # one game (or none): no spread between games to estimate an interval from
        return float(diff.mean()) if len(d) else float("nan"), float("nan"), float("nan"), len(d)
    fit = sm.OLS(diff.to_numpy(dtype=float), np.ones((len(d), 1))).fit(cov_type="cluster",
                                                                       cov_kwds={"groups": groups})
    lo, hi = fit.conf_int(0.05)[0]
    return float(fit.params[0]), float(lo), float(hi), len(d)


def gate_tables(labels: pd.DataFrame, compared, pairs, players=(2, 3, 4)) -> tuple[list, list, list]:
    """The offline gate's tables from a label set: per count and pooled, the held-out and labelled decisions
    and each compared prior's agreement with the label; the paired differences (b minus a for each (a, b) of
    `pairs`) of agreement and of child value; and by phase, pooled, the agreement difference of each pair."""
    done = labels[labels.labelled]
    counts = [(str(n), labels[labels.players == n]) for n in players] + [("pooled", labels)]
    rows = []
    for name, part in counts:
        d = part[part.labelled]
        rows.append({"players": name, "held_out": len(part), "decisions": len(d),
                     "games": d.groupby(["folder", "players", "game"]).ngroups,
                     **{k: float((d[f"fav_{k}"] == d["label"]).mean()) for k in compared}})
    diffs = [{"players": name, "base": a, "versus": b, "measure": measure,
              **dict(zip(("diff", "low", "high", "decisions"), how(part, a, b)))}
             for name, part in counts for a, b in pairs
             for measure, how in (("agreement", agreement), ("value", value_gain))]
    phases = [{"phase": ph, "base": a, "versus": b,
               **dict(zip(("diff", "low", "high", "decisions"), agreement(labels[labels.phase == ph], a, b)))}
              for a, b in pairs for ph in PHASES if (done.phase == ph).sum() >= 2]
    return rows, diffs, phases


class _TimeUp(Exception):
    """The time limit passed: stop after the game just labelled."""


def label_run(out_dir, folders: dict[str, str], players, budget: int, worlds: int, seed: int,
              priors: dict[str, PriorModel], limit_minutes: float | None = None, log=print) -> bool:
    """A script's labelling run: plan the chunks and label the missing ones (generate), logging each game as it
    is written; with limit_minutes, stop after the game in progress once that many minutes have passed (the
    same call resumes). Ctrl-C and a label set's error end the script as chunked.stopping_safely says. True
    when every game is labelled."""
    wall = time.time()

    def progress(chunk):
        log(f"{chunk.name} ({time.time() - wall:.0f} s)")
        if limit_minutes and time.time() - wall > 60 * limit_minutes:
            raise _TimeUp

    chunks = plan_chunks({k: str(v) for k, v in folders.items()}, players, budget, worlds, seed)
    with stopping_safely(out_dir):
        try:
            generate(out_dir, chunks, priors, progress)
        except _TimeUp:
            return False
    return True


def labels_part(out: Path, folders: dict, players, seed: int, priors: dict[str, PriorModel], budget: int,
                worlds: int, limit_minutes: float | None, code: str) -> None:
    """A gate script's `--part labels`: label_run into OUT/labels, printing each game, and the run logged in
    OUT/runs.json (its CPU seconds, budget, worlds and whether every game is labelled)."""
    start = time.process_time()
    finished = label_run(out / "labels", folders, players, budget, worlds, seed, priors, limit_minutes,
                         log=lambda line: print(line, flush=True))
    log_run(out, "labels", time.process_time() - start, code, cpu_seconds=True, budget=budget, worlds=worlds,
            finished=finished)


def load_set(out_dir) -> tuple[pd.DataFrame, dict]:
    """A label folder's labels (load) and its description (budget, worlds, seed, search, priors)."""
    return load(out_dir), load_json(Path(out_dir) / META, f"{DATA_SET.what} description", LabelError)
