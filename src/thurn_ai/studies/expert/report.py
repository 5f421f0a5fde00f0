"""The expert-iteration study's plan (which searches, which cells, how many games: fixed before any game was
played) and its report, results/expert/report.md, rebuilt from what is saved."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...bots import make_bot
from ...bots.base import Observation
from ...fileio import atomic_write_text, load_json
from ...play.match import position_at
from ..markdown import table
from ..provenance import machine_info
from ...stats.summary import wilson_interval
from . import measure as M
from . import teacher as T

#: today's strongest configuration (results/learned/strength/) and the learned prior, spelled out in full so
#: that the cells stay what they were when the defaults change
BUDGET = 1000
DEFAULT_SPEC = "mcts(iterations={it},eval=learned,policy=handset)"
PRIOR_SPEC = "mcts(iterations={it},eval=learned,policy=learned,mix={mix})"
#: equal CPU time: each search gets this many seconds of its thread's CPU a decision (clock=cpu)
CPU_SECONDS = 0.05
CPU_DEFAULT_SPEC = f"mcts(time={CPU_SECONDS},clock=cpu,eval=learned,policy=handset)"
CPU_PRIOR_SPEC = f"mcts(time={CPU_SECONDS},clock=cpu,eval=learned,policy=learned,mix={{mix}})"
#: the hand-set prior's share in the candidate, chosen on held-out teacher decisions (the screen:
#: results/expert/screen.csv) before any game of the cells below was played: the mix whose 1000-iteration
#: search agreed most often with the teacher (0.5: 88.7% of 600 decisions; 0: 85.7%; the planner prior 87.7%)
MIX = 0.5

#: the screen (experiments/expert_iteration.py --part screen): fits with each value share of the target, each
#: searched with each mix, on the first SCREEN_DECISIONS held-out decisions of each player count
SCREEN_Q_SHARES = (0.0, 0.5)
SCREEN_MIXES = (0.0, 0.5)
SCREEN_DECISIONS = 200

OFFLINE_SPECS = {"planner prior, 1000 it": DEFAULT_SPEC.format(it=BUDGET),
                 **{f"learned prior mix={m}, 1000 it": PRIOR_SPEC.format(it=BUDGET, mix=m) for m in (0.0, 0.25, 0.5)},
                 "heuristic": "heuristic"}
SPEED_SPECS = {"planner prior": DEFAULT_SPEC.format(it=BUDGET),
               "learned prior": PRIOR_SPEC.format(it=BUDGET, mix=MIX)}

@dataclass(frozen=True)
class Generation:
    """One round of expert iteration: teacher data from games played and searched with the previous
    generation's prior (generation 1: the hand-set prior), and the prior fitted to this and earlier data.
    Paths are relative to the repository's root (the experiment runs from there)."""
    number: int
    folder: str                  #: its outputs (cv.csv, offline_prior.csv, data/) under results/expert/
    seed: int                    #: of its teacher games (each generation plays new deals)
    play: str
    strong: str
    teacher: str
    fit_on: tuple[str, ...]      #: teacher data folders its prior is fitted to (under results/expert/)

    @property
    def data(self) -> str:
        return f"{self.folder}/data" if self.folder else "data"

    @property
    def prior(self) -> str:
        """Its fitted weights (results/expert/prior_gen<N>.json); the package ships the best generation's."""
        return f"results/expert/prior_gen{self.number}.json"

    def searching(self, it: int) -> str:
        """The search at `it` iterations with this generation's prior, mixed as the cells mix it."""
        return f"mcts(iterations={it},eval=learned,policy=learned,mix={MIX},pmodel={self.prior})"


GEN1 = Generation(1, "", 1, T.DEFAULT_PLAY, T.DEFAULT_STRONG, T.DEFAULT_TEACHER, ("data",))
#: generation 2: the same recipe (300-iteration self-play, every fourth game one 1000-iteration search among
#: heuristic bots, a 10,000-iteration teacher at a fifth of the decisions), every search with generation 1's
#: prior; its prior is fitted to generation 1's and 2's training games together
GEN2 = Generation(2, "gen2", 2, GEN1.searching(300), GEN1.searching(1000), GEN1.searching(10000),
                  ("data", "gen2/data"))
GENERATIONS = {g.number: g for g in (GEN1, GEN2)}
OFFLINE_SPECS["generation 2 prior, 1000 it"] = GEN2.searching(BUDGET)


GAMES = {2: 400, 3: 402, 4: 400}        # whole seat rotations; a paired t test detects ~6-7 points (80%)
#: head to head: the issue's >= 400 a count, fixed by the issue before any game; the first 200 / 201 / 200 were
#: played (and reported as a first look) in an earlier session, the rest extends the same tournaments (games
#: 201-400: the same seeds a 400-game run deals, so the cells equal one uninterrupted run)
H2H_GAMES = {2: 400, 3: 402, 4: 400}
#: equal CPU time at the issue's >= 400 games a count, fixed (committed) before any of these games was played.
#: A first look of 100 / 102 / 100 games a count was played earlier (results/expert/first_look_cpu0.05/); a
#: CPU-time budget does not replay, so it could not be extended in place and these cells are a fresh run at one
#: commit, dealing the same seeds (its games 1-100 are the first look's deals, played again)
CPU_GAMES = GAMES
SEED = 2031                             # never used by the project's earlier strength runs

CELLS = [
    *[c for n in (3, 4, 2) for c in (
        M.Cell(f"default_p{n}_it1000", n, DEFAULT_SPEC.format(it=BUDGET), GAMES[n], seed=SEED),
        M.Cell(f"prior_p{n}_it1000", n, PRIOR_SPEC.format(it=BUDGET, mix=MIX), GAMES[n], seed=SEED))],
    *[M.Cell(f"h2h_p{n}_it1000", n, PRIOR_SPEC.format(it=BUDGET, mix=MIX), H2H_GAMES[n],
             others=DEFAULT_SPEC.format(it=BUDGET), seed=SEED) for n in (2, 3, 4)],
    *[c for n in (3, 4, 2) for c in (
        M.Cell(f"default_p{n}_cpu{CPU_SECONDS}", n, CPU_DEFAULT_SPEC, CPU_GAMES[n], seed=SEED),
        M.Cell(f"prior_p{n}_cpu{CPU_SECONDS}", n, CPU_PRIOR_SPEC.format(mix=MIX), CPU_GAMES[n], seed=SEED))],
]
#: generation 2 against heuristic on the same deals as generation 1's cells (planned once its prior was fitted,
#: before any of its games)
CELLS += [M.Cell(f"gen2_p{n}_it1000", n, GEN2.searching(BUDGET), GAMES[n], seed=SEED) for n in (3, 4, 2)]
#: the issue's second budget: today's default and the learned prior at 3000 iterations on the same deals as the
#: 1000-iteration cells (SEED), 400 / 402 / 400 games each, fixed before any of their games (committed before
#: the run began; played before the head to head's second half, 3 then 2 then 4 players, a pair at a time)
DEEP_BUDGET = 3000
CELLS += [c for n in (3, 2, 4) for c in (
    M.Cell(f"default_p{n}_it{DEEP_BUDGET}", n, DEFAULT_SPEC.format(it=DEEP_BUDGET), GAMES[n], seed=SEED),
    M.Cell(f"prior_p{n}_it{DEEP_BUDGET}", n, PRIOR_SPEC.format(it=DEEP_BUDGET, mix=MIX), GAMES[n], seed=SEED))]
#: the sibling-ranking value in play (docs/expert.md, "A value that ranks siblings"): the generation 1 cells'
#: search with the refitted evaluation, on their deals, 400 / 402 / 400 games as planned in the docs before any
#: game; adopted only if its pooled paired difference against prior_p{n}_it1000 lies above zero
VALUE_SPEC = "mcts(iterations={it},eval=learned,policy=learned,mix={mix},model=results/expert/value_rank.json)"
CELLS += [M.Cell(f"value_p{n}_it1000", n, VALUE_SPEC.format(it=BUDGET, mix=MIX), GAMES[n], seed=SEED)
          for n in (3, 2, 4)]
#: the MLP prior in play (docs/expert.md, "Playing the MLP prior"): generation 1's search with the 4-unit MLP
#: fitted to the shipped logit's data and target (results/expert/prior_mlp.json) instead of the logit, on the
#: generation 1 cells' deals, 400 / 402 / 400 games, fixed (committed) before any of its games. It replaces the
#: logit as mcts's prior only if its pooled paired difference against prior_p{n}_it1000 lies above zero
MLP_SPEC = ("mcts(iterations={it},eval=learned,policy=learned,mix={mix},"
            "pmodel=results/expert/prior_mlp.json)")
CELLS += [M.Cell(f"mlp_p{n}_it1000", n, MLP_SPEC.format(it=BUDGET, mix=MIX), GAMES[n], seed=SEED)
          for n in (3, 2, 4)]
SPEED_SPECS["MLP prior"] = MLP_SPEC.format(it=BUDGET, mix=MIX)
PAIRS = [(f"prior_p{n}_{b}", f"default_p{n}_{b}")
         for b in ("it1000", f"it{DEEP_BUDGET}", f"cpu{CPU_SECONDS}") for n in (2, 3, 4)]
PAIRS += [(f"gen2_p{n}_it1000", f"prior_p{n}_it1000") for n in (2, 3, 4)]
PAIRS += [(f"value_p{n}_it1000", f"prior_p{n}_it1000") for n in (2, 3, 4)]
PAIRS += [(f"mlp_p{n}_it1000", f"prior_p{n}_it1000") for n in (2, 3, 4)]

#: the pooled paired comparisons the report gives once all their cells are played in full: (what, the
#: candidate's cell prefix, the baseline's, the budget as the cells' names end: it1000, cpu0.05). The
#: sibling-ranking value and the MLP prior are adopted only if their pooled interval lies above zero (the
#: rules in docs/expert.md and above, written before their games).
POOLED = [("Generation 1 − hand-set prior", "prior", "default", f"it{BUDGET}"),
          ("Generation 1 − hand-set prior", "prior", "default", f"it{DEEP_BUDGET}"),
          # added while the 400-game equal-CPU cells were being played, before any of their results was read
          ("Generation 1 − hand-set prior", "prior", "default", f"cpu{CPU_SECONDS}"),
          ("The sibling-ranking value − generation 1's search", "value", "prior", f"it{BUDGET}"),
          ("The MLP prior − generation 1's logit", "mlp", "prior", f"it{BUDGET}")]

#: when a generation replaces the one before as mcts's prior (committed while generation 2's 4-player cell
#: was being played, before its 2-player cell began; the 3-player cell was known): its per-game win-share
#: differences against the previous generation at 1000 iterations, pooled over 2, 3 and 4 players, have a
#: 95% interval above zero. Otherwise the previous generation stays the default and this one is the
#: generation that stops the iteration.
def replaces_previous(out: Path, number: int) -> dict | None:
    """The pooled paired comparison of generation `number` against the one before, with the verdict."""
    before = "prior" if number == 2 else f"gen{number - 1}"
    p = M.pooled(out / "runs", [(_cell(f"gen{number}_p{n}_it1000"), _cell(f"{before}_p{n}_it1000"))
                                for n in (2, 3, 4)])
    if p is None:
        return None
    return {**p, "replaces": p["low"] > 0}


def speed(folder, specs: dict[str, str], positions: int = 20, repeats: int = 3) -> pd.DataFrame:
    """Iterations per CPU second of each spec's search, alternating specs position by position in one run
    (so machine load hits both alike), at held-out teacher positions of every player count."""
    cpu = {name: 0.0 for name in specs}
    iters = {name: 0 for name in specs}
    for n in (2, 3, 4):
        data = T.load(folder, [n])
        data = data[T.held_out(data["game"])]
        records = T.records(folder, n)
        picks = data.drop_duplicates(["game", "decision"]).head(positions)
        for _i, row in picks.iterrows():
            state = position_at(records[int(row["game"])], int(row["move_index"]))
            for r in range(repeats):
                for name, spec in specs.items():
                    bot = make_bot(spec, r)
                    t = time.process_time()
                    out = bot.search(Observation(state, state.current_player, r))
                    cpu[name] += time.process_time() - t
                    iters[name] += out.iterations
    return pd.DataFrame([{"search": name, "spec": specs[name], "iterations": iters[name],
                          "cpu_seconds": round(cpu[name], 3),
                          "iterations_per_cpu_second": iters[name] / cpu[name]} for name in specs])


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def write_report(out: Path, code: str) -> None:
    """results/expert/report.md from the saved tables and cells: one section a saved table, each left out
    until its data exist."""
    lines = ["# Expert iteration: a move prior learned from deep searches, generation by generation", "",
             f"Built by `python experiments/expert_iteration.py` at {code} ({machine_info()['cpu']}). "
             "docs/expert.md describes the method; this page gives what was measured.", ""]
    for section in (_teacher_lines, _offline_prior_lines, _offline_search_lines, _kappa_lines, _screen_lines,
                    lambda o: _generation_lines(o, GEN2), _speed_lines, _cells_lines, _paired_lines,
                    _pooled_lines, _gen2_verdict_lines):
        lines += section(out)
    atomic_write_text(out / "report.md", "\n".join(lines) + "\n")


def _data_table(data: pd.DataFrame) -> list[str]:
    """Per player count: the games, the sampled decisions and how many of them are held out."""
    rows = ([n, d["game"].nunique(), len(d), int(T.held_out(d["game"]).sum())]
            for n, d in data.drop_duplicates(["players", "game", "decision"]).groupby("players"))
    return table(["players", "games", "sampled decisions", "of them held out"], rows) + [""]


def _teacher_lines(out: Path) -> list[str]:
    meta = out / "data" / "teacher.json"
    if not meta.exists():
        return []
    m_ = load_json(meta, "a teacher data set's meta file")
    return ["## Teacher data", "",
            f"Seed {m_['seed']}; games played by `{m_['play']}` in every seat (every fourth game: one seat "
            f"`{m_['strong']}`, the others `heuristic`); at a share {m_['sample']} of the decisions with a "
            f"choice, the teacher `{m_['teacher']}` searched from the mover's information set "
            "(thurn_ai/studies/expert/teacher.py). Held out: games with number mod 5 = 0 or mod 10 = 9.", "",
            *_data_table(T.load(out / "data"))]


def _offline_prior_lines(out: Path) -> list[str]:
    prior = out / "offline_prior.csv"
    if not prior.exists():
        return []
    return ["## Offline: the prior's favourite against the teacher's most-visited move (held-out games)", "",
            "Top-1: how often the move with the highest prior is the teacher's most-visited move; share: the "
            "teacher's mean visit share on that move. The planner is today's prior's favourite (0.8 of its "
            "mass). The teacher itself searched with the planner's prior, so its visits lean toward the "
            "planner's move: agreement measured this way favours the planner.", "",
            *table(["players", "phase", "decisions", "learned top-1", "planner top-1", "learned share",
                    "planner share"],
                   ([r.players, r.phase, r.decisions, _pct(r.prior_top1), _pct(r.planner_top1), _pct(r.prior_share),
                     _pct(r.planner_share)] for r in pd.read_csv(prior).itertuples())), ""]


def _offline_search_lines(out: Path) -> list[str]:
    search = out / "offline_search.csv"
    if not search.exists():
        return []
    g = _agreement_by(pd.read_csv(search), ["players", "spec"]).reset_index()

    def agreeing(share, r) -> str:
        lo, hi = wilson_interval(share * r.decisions, r.decisions)
        return f"{_pct(share)} [{_pct(lo)}, {_pct(hi)}]"
    return ["## Offline: the 1000-iteration search against the teacher (held-out decisions)", "",
            "Each search chooses at the held-out decision as its mover saw it; agreement with the teacher's "
            "most-visited move (95% Wilson interval) and the teacher's visit share on the choice. This "
            f"screen chose the candidate's mix ({MIX}) before any game of the cells below.", "",
            "The teacher searched with the hand-set prior, so its visits lean toward that prior's favourite; "
            "'= teacher's value' compares with its best move by mean reward among the moves it visited "
            f"{M.WELL_VISITED} times or more, which leans less.", "",
            *table(["players", "search", "decisions", "= teacher", "= teacher's value", "teacher's share"],
                   ([r.players, r.spec, r.decisions, agreeing(r.agrees, r), agreeing(r.agrees_value, r),
                     _pct(r.share)] for r in g.itertuples())), ""]


def _kappa_lines(out: Path) -> list[str]:
    search = out / "offline_search.csv"
    if not search.exists():
        return []
    df = pd.read_csv(search, keep_default_na=False)
    shown = ["planner prior, 1000 it", f"learned prior mix={MIX}, 1000 it", "generation 2 prior, 1000 it", M.TEACHER]
    rows = [r for r in (M.official_kappa(df, spec) for spec in shown) if len(r)]
    if not rows:
        return []
    return ["### The officials: the search's choice against the `heuristic` bot's, at the same offers", "",
            "At the held-out decisions where an official is on offer: how often the search and the rule "
            "bot make the same choice (use it, or do without), and Cohen's kappa (agreement beyond chance; "
            "– where one of them never or always uses it).", "",
            *table(["players", "official", "search", "offers", "same choice", "search uses", "heuristic uses",
                    "kappa"],
                   ([r.players, r.official, r.spec, r.offers, _pct(r.same), _pct(r.uses), _pct(r.reference_uses),
                     "–" if not np.isfinite(r.kappa) else f"{r.kappa:.2f}"]
                    for r in pd.concat(rows, ignore_index=True).itertuples())), ""]


def _screen_lines(out: Path) -> list[str]:
    screen = out / "screen.csv"
    if not screen.exists():
        return []
    g = _agreement_by(pd.read_csv(screen), "spec")
    return ["### The screen that chose the candidate (before any game)", "",
            "Fits with the target's value share q (0: visit shares only), each searched at 1000 iterations "
            "with the hand-set prior's share `mix`, at the first held-out decisions of every player count "
            "(`--part screen`, screen.csv).", "",
            *table(["search", "decisions", "= teacher", "= teacher's value", "teacher's share"],
                   ([spec, int(r.decisions), _pct(r.agrees), _pct(r.agrees_value), _pct(r.share)]
                    for spec, r in g.iterrows())), ""]


def _speed_lines(out: Path) -> list[str]:
    sp = out / "speed.csv"
    if not sp.exists():
        return []
    return ["## Speed", "", "Iterations per CPU second, the searches alternated position by position in one "
            "run at held-out teacher positions (2, 3 and 4 players).", "",
            *table(["search", "iterations", "CPU s", "iterations / CPU s"],
                   ([r.search, r.iterations, r.cpu_seconds, f"{r.iterations_per_cpu_second:,.0f}"]
                    for r in pd.read_csv(sp).itertuples())), ""]


def _cells_lines(out: Path) -> list[str]:
    rows = [s for s in (M.cell_summary(out / "runs", c) for c in CELLS) if s]
    if not rows:
        return []
    lines = ["## In play", "",
             f"One seat of the cell's search, the other seats `heuristic` (or, head to head, today's default "
             f"search); seats rotated; seed {SEED}; game counts fixed before the run. Win: the rules' winner "
             "(ties shared), 95% Wilson interval. Scores: the search's mean and the other seats' mean.", "",
             *table(["cell", "players", "search", "against", "games (planned)", "fair share", "win", "score",
                     "others' score"],
                    ([r["cell"], r["players"], f"`{r['spec']}`", f"`{r['others']}`", f"{r['games']} ({r['planned']})",
                      _pct(1 / r["players"]), f"{_pct(r['win'])} [{_pct(r['win_low'])}, {_pct(r['win_high'])}]",
                      f"{r['score']:.1f}", f"{r['others_score']:.1f}"] for r in rows))]
    missing = [c.name for c in CELLS if M.cell_summary(out / "runs", c) is None]
    if missing:
        lines += ["", f"Planned but not played (the run stopped before them): {', '.join(missing)}."]
    return lines + [""]


def _paired_lines(out: Path) -> list[str]:
    pairs = [p for p in (M.paired(out / "runs", _cell(a), _cell(b)) for a, b in PAIRS) if p]
    if not pairs:
        return []
    from statsmodels.stats.multitest import multipletests
    holm = multipletests([p["win_share_p"] for p in pairs], method="holm")[1]
    return ["### Paired: each comparison on the same deals and seats", "",
            "Generation 1 against the hand-set prior (today's default before this study), each later "
            "generation against the one before it, and the sibling-ranking value against generation 1's "
            "search.", "",
            "The primary estimate: the mean per-game difference of the searching seat's win share (in "
            "points), 95% t interval of the differences, two-sided p; and the same for its score. "
            "Detectable: the difference these games detect with 80% power (paired t, from the observed "
            "spread of the per-game differences; statsmodels). "
            "Holm-corrected p (over every paired comparison in the table) beside the raw one.", "",
            *table(["comparison", "budget", "players", "games", "win difference", "p (Holm)", "score difference",
                    "detectable"],
                   ([_comparison(p), _budget(p["a"].split("_")[-1]), p["players"], p["games"],
                     f"{_pp(p['win_share'])} pp [{_pp(p['win_share_low'])}, {_pp(p['win_share_high'])}]",
                     f"{_p(p['win_share_p'])} ({_p(h)})",
                     f"{p['score']:+.2f} [{p['score_low']:+.2f}, {p['score_high']:+.2f}]",
                     f"{100 * p['detectable']:.1f} pp"] for p, h in zip(pairs, holm))), ""]


def _pooled_lines(out: Path) -> list[str]:
    lines = []
    for what, a, b, budget in POOLED:
        names = [(f"{a}_p{n}_{budget}", f"{b}_p{n}_{budget}") for n in (2, 3, 4)]
        pool = M.pooled(out / "runs", [(_cell(x), _cell(y)) for x, y in names])
        if pool and _played_in_full(out, [c for pair in names for c in pair]):
            lines += [f"{what} at {_budget(budget, long=True)}, pooled over the three player counts "
                      f"({pool['games']} paired games, each game weighing the same): {_pp(pool['win_share'])} points "
                      f"[{_pp(pool['low'])}, {_pp(pool['high'])}], p {_p(pool['p'])}; these games detect "
                      f"{100 * pool['detectable']:.1f} points with 80% power.", ""]
    return lines


def _gen2_verdict_lines(out: Path) -> list[str]:
    verdict = replaces_previous(out, 2)
    complete = all(M.cell_summary(out / "runs", _cell(f"gen2_p{n}_it1000")) for n in (2, 3, 4))
    if not (verdict and complete):
        return []
    return ["### Does generation 2 replace generation 1?", "",
            "The rule, committed while generation 2's 4-player cell was being played and before its "
            "2-player cell began (its 3-player cell was known): it replaces "
            "generation 1 as `mcts`'s prior if its per-game win-share differences against generation 1, "
            "pooled over 2, 3 and 4 players, have a 95% interval above zero.", "",
            f"Pooled over {verdict['games']} paired games: {_pp(verdict['win_share'])} points "
            f"[{_pp(verdict['low'])}, {_pp(verdict['high'])}], p {_p(verdict['p'])}: "
            + ("generation 2 replaces generation 1." if verdict["replaces"] else
               "generation 1 stays the default; generation 2 is the generation that stops the iteration "
               "(by the rule above)."), ""]


def _agreement_by(df: pd.DataFrame, by) -> pd.DataFrame:
    """Each search's agreement with the teacher (its rows left out), grouped by `by`: decisions, the shares
    agreeing with its most-visited and its best-valued move, and its mean visit share on the choice."""
    return df[df["spec"] != M.TEACHER].groupby(by).agg(
        decisions=("agrees", "size"), agrees=("agrees", "mean"), agrees_value=("agrees_value", "mean"),
        share=("teacher_share", "mean"))


def _played_in_full(out: Path, names: list[str]) -> bool:
    """Every one of these cells has played all its planned games."""
    summaries = [M.cell_summary(out / "runs", _cell(n)) for n in names]
    return all(s is not None and s["games"] == s["planned"] for s in summaries)


def _budget(suffix: str, long: bool = False) -> str:
    """A cell name's budget in words: it1000 -> "1000 it" ("1000 iterations"), cpu0.05 -> "CPU s 0.05"
    ("0.05 CPU seconds a decision")."""
    if suffix.startswith("cpu"):
        return f"{suffix[3:]} CPU seconds a decision" if long else f"CPU s {suffix[3:]}"
    return f"{suffix[2:]} iterations" if long else f"{suffix[2:]} it"


def _comparison(p: dict) -> str:
    """A paired row's name in words: which generation minus which."""
    gen = lambda name: (f"generation {name[3]}" if name.startswith("gen") else  # noqa: E731
                        "generation 1" if name.startswith("prior") else
                        "generation 1, sibling-ranking value" if name.startswith("value") else
                        "generation 1, MLP prior" if name.startswith("mlp") else "hand-set prior")
    return f"{gen(p['a'])} − {gen(p['b'])}"


def _generation_lines(out: Path, gen: "Generation") -> list[str]:
    """The report's section on a later generation: its teacher data and its prior offline."""
    meta = out / gen.data / T.META
    if gen.number == 1 or not meta.exists():
        return []
    m_ = load_json(meta, "a teacher data set's meta file")
    lines = [f"## Generation {gen.number}", "",
             f"Teacher data (results/expert/{gen.data}/, seed {m_['seed']}): games played by `{m_['play']}` in "
             f"every seat (every fourth game: one seat `{m_['strong']}`, the others `heuristic`); the teacher "
             f"`{m_['teacher']}` at a share {m_['sample']} of the decisions. Its prior "
             f"({gen.prior}) is fitted to the training games of "
             f"{', '.join(f'results/expert/{f}' for f in gen.fit_on)}.", "", *_data_table(T.load(out / gen.data))]
    prior = out / gen.folder / "offline_prior.csv"
    if prior.exists():
        lines += [f"Offline, on generation {gen.number}'s held-out decisions (its teacher searched with generation "
                  f"{gen.number - 1}'s prior, so agreement measured this way favours that prior): top-1 = how often "
                  "the prior's favourite is the teacher's most-visited move; cross-entropy to the fit's soft target "
                  "(lower is better).", "",
                  *table(["players", "phase", "decisions", f"gen {gen.number} top-1", f"gen {gen.number - 1} top-1",
                          "planner top-1", f"gen {gen.number} cross-entropy", f"gen {gen.number - 1} cross-entropy"],
                         ([r.players, r.phase, r.decisions, _pct(r.prior_top1), _pct(r.previous_top1),
                           _pct(r.planner_top1), f"{r.prior_xent:.3f}", f"{r.previous_xent:.3f}"]
                          for r in pd.read_csv(prior).itertuples())), ""]
    return lines


def _p(p: float) -> str:
    if not np.isfinite(p):
        return "–"
    return "< 1e-10" if p < 1e-10 else f"{p:.2g}"


def _cell(name: str) -> M.Cell:
    return next(c for c in CELLS if c.name == name)


def expert_numbers(out: Path) -> dict:
    """The study's findings (studies/pages.py): each played cell's win share, each pooled comparison with
    the difference its games detect (80% power, from the observed spread of the paired differences), the
    speed of each search, and in how many phase rows generation 2's top-1 prints as generation 1's."""
    from ..findings import Number
    numbers = {}
    for c in CELLS:
        s = M.cell_summary(out / "runs", c)
        if s:
            numbers[f"cell.{c.name}.win"] = Number(s["win"], s["win_low"], s["win_high"], "share", games=s["games"],
                                                   says=f"`{c.spec}` against `{c.others}`, 95% Wilson")
    for what, a, b, budget in POOLED:
        pool = M.pooled(out / "runs", [(_cell(f"{a}_p{n}_{budget}"), _cell(f"{b}_p{n}_{budget}")) for n in (2, 3, 4)])
        if pool:
            key = f"pooled.{a}_minus_{b}.{budget}"
            numbers[key] = Number(pool["win_share"], pool["low"], pool["high"], "pp", games=pool["games"],
                                  says=f"{what}, {_budget(budget, long=True)}, pooled, 95% t")
            numbers[key + ".detectable"] = Number(pool["detectable"], unit="size", games=pool["games"],
                                                  says="detectable with 80% power (observed spread)")
    gen2 = M.pooled(out / "runs", [(_cell(f"gen2_p{n}_it1000"), _cell(f"prior_p{n}_it1000")) for n in (2, 3, 4)])
    if gen2:
        numbers["pooled.gen2_minus_prior.it1000"] = Number(gen2["win_share"], gen2["low"], gen2["high"], "pp",
                                                           games=gen2["games"], says="generation 2 − generation 1")
        numbers["pooled.gen2_minus_prior.it1000.detectable"] = Number(
            gen2["detectable"], unit="size", games=gen2["games"], says="detectable with 80% power (observed spread)")
    for a, b in PAIRS:
        p = M.paired(out / "runs", _cell(a), _cell(b))
        if p:
            numbers[f"paired.{a}_minus_{b}.detectable"] = Number(p["detectable"], unit="size", games=p["games"],
                                                                 says="detectable with 80% power (observed spread)")
    speed = out / "speed.csv"
    if speed.exists():
        for r in pd.read_csv(speed).itertuples():
            name = f"speed.{r.search.replace(' ', '_')}"
            numbers[name] = Number(r.iterations_per_cpu_second, unit="number", digits=0,
                                   says=f"{r.search}: iterations a CPU second")
            numbers[f"{name}.at_cpu{CPU_SECONDS:g}"] = Number(
                r.iterations_per_cpu_second * CPU_SECONDS, unit="number", digits=0,
                says=f"{r.search}: iterations in the CPU-time cells' {CPU_SECONDS:g} CPU seconds, at that speed")
    prior = out / "gen2" / "offline_prior.csv"
    if prior.exists():
        df = pd.read_csv(prior)
        same = sum(_pct(a) == _pct(b) for a, b in zip(df.prior_top1, df.previous_top1))
        numbers["gen2.top1_as_gen1.rows"] = Number(same, unit="number", digits=0, games=len(df),
                                                   says="phase rows where generation 2's top-1 prints as "
                                                        "generation 1's (of `games` rows)")
    return numbers
