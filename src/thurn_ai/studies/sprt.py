"""A sequential test of a candidate bot against a baseline on paired deals (the statistics: stats/sprt.py).

    >>> from thurn_ai.studies.sprt import run_sprt
    >>> from thurn_ai.stats.sprt import SPRT
    >>> result = run_sprt("mcts(iterations=2000)", "mcts", players=2, test=SPRT(0, 3, 0.05, 0.05, batch=8),
    ...                   seed=1, out_dir="sprt1")
    >>> print(result.line)

Deal k (1, 2, ...) has the seed derive_seed("sprt", seed, k) and a focus seat s = (k - 1) mod players, and is
played twice: game 2k-1 with the candidate in seat s, game 2k with the baseline in seat s, every other seat the
same in both (2 players: the other bot of the pair, so the two games are a Fishtest game pair with the seats
swapped; 3-4 players: `opponents`, by default the baseline). A bot's seed depends only on the game's seed and
its seat, so both games deal the same cards to the same seats. The observation is the focus seat's paired
difference d = its result with the candidate minus its result with the baseline, under two conventions:

    win        (primary, declared before the games) the rules' tie-break: a shared top score goes to the
               holder of the game-end tile, else the next in seat order; the test stops on this one
    win_share  a shared first place counts its share (1/k); reported beside it, at the same deals

The test looks every test.batch deals and stops at the first look whose LLR crosses a bound. The games are
kept in out_dir as a tournament's are (results.csv, records.jsonl, written as each game ends; sprt.json with the
test, its looks and the verdict, rewritten atomically at every look), so an interrupted test resumes where it
stopped and replays its looks to the same verdict; the bounds, error rates and look schedule saved there are
the ones a resume must use.
"""
from __future__ import annotations

import json
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..bots import make_bot
from ..errors import TournamentError
from ..fileio import atomic_write_text, load_json
from ..game.rules import Rules
from ..play.match import derive_seed
from ..play.tournament import GameTask, ResultStore, bot_labels, check_players, play_task, result_columns, typed_frame
from ..play.tournament.store import CSV_FILE
from ..play.workers import run_each
from ..stats.sprt import SPRT, Status, verdict_line

RESULT_FILE = "sprt.json"
CONVENTIONS = ("win", "win_share")      # the primary first
NO_CAP = 500_000                        # deals a test may reach without max_deals (the store's bound)


@dataclass
class SprtPlan:
    """The games of a test: deal k's seed and focus seat, and who sits where in its two games."""
    candidate: str
    baseline: str
    opponents: str | None
    rules: Rules
    seed: int
    test: SPRT
    specs: list[str] = field(init=False)
    labels: list[str] = field(init=False)

    def __post_init__(self):
        self.specs = [self.candidate, self.baseline]
        if self.opponents is not None and self.opponents != self.baseline:
            self.specs.append(self.opponents)
        self.labels = bot_labels(self.specs)

    @property
    def players(self) -> int:
        return self.rules.players

    def deal_seed(self, deal: int) -> int:
        return derive_seed("sprt", self.seed, deal)

    def focus(self, deal: int) -> int:
        return (deal - 1) % self.players

    def seating(self, game: int) -> list[int]:
        """Bot indices (into specs) by seat for game `game` (odd: the candidate's, even: the baseline's)."""
        deal, with_candidate = (game + 1) // 2, game % 2 == 1
        s = self.focus(deal)
        if self.players == 2:
            other = 1 if with_candidate else 0
        else:
            other = len(self.specs) - 1 if len(self.specs) == 3 else 1
        seats = [other] * self.players
        seats[s] = 0 if with_candidate else 1
        return seats

    def task(self, game: int) -> GameTask:
        seats = self.seating(game)
        return GameTask(game=game, seed=self.deal_seed((game + 1) // 2),
                        specs=tuple(self.specs[b] for b in seats), labels=tuple(self.labels[b] for b in seats),
                        rules=self.rules)

    def planned(self, game: int) -> tuple[int, tuple[str, ...]]:
        task = self.task(game)
        return task.seed, task.specs

    def max_deals(self) -> int:
        return self.test.max_deals or NO_CAP

    def meta(self, columns) -> dict:
        return {"format": 1, "kind": "sprt", "specs": self.specs, "players": self.players, "seed": self.seed,
                "games": 2 * self.max_deals(), "rules": self.rules.to_dict(), "columns": columns, "cycle": 2,
                "candidate": self.candidate, "baseline": self.baseline, "opponents": self.opponents,
                "test": self.test.to_dict(), "primary": CONVENTIONS[0]}


@dataclass(frozen=True)
class SprtResult:
    """A test's outcome: the test as declared, where it stands under each convention (the primary decides),
    the games played, and the verdict line."""
    candidate: str
    baseline: str
    players: int
    test: SPRT
    status: dict[str, Status]
    deals: int
    line: str

    @property
    def verdict(self) -> str:
        return self.status[CONVENTIONS[0]].verdict

    def to_dict(self) -> dict:
        return {"candidate": self.candidate, "baseline": self.baseline, "players": self.players,
                "test": self.test.to_dict(), "primary": CONVENTIONS[0], "deals": self.deals,
                "games": 2 * self.deals, "verdict": self.verdict, "line": self.line,
                "status": {c: {**s.__dict__, "ci": list(s.ci)} for c, s in self.status.items()}}


def paired_differences(plan: SprtPlan, df: pd.DataFrame, convention: str = "win") -> np.ndarray:
    """d for deals 1, 2, ... as long as both their games are in df (the focus seat's result with the
    candidate minus with the baseline)."""
    value = df.set_index(["game", "seat"])[convention]
    out = []
    deal = 1
    while (2 * deal - 1, 0) in value.index and (2 * deal, 0) in value.index:
        s = plan.focus(deal)
        out.append(float(value[(2 * deal - 1, s)]) - float(value[(2 * deal, s)]))
        deal += 1
    return np.array(out)


def evaluate(plan: SprtPlan, df: pd.DataFrame) -> SprtResult:
    """The test over the games in df: the primary convention's stop, the other read at the same deals."""
    test = plan.test
    primary = test.status(paired_differences(plan, df, CONVENTIONS[0]))
    status = {CONVENTIONS[0]: primary}
    for c in CONVENTIONS[1:]:
        d = paired_differences(plan, df, c)[:primary.n]
        other = SPRT(test.elo0, test.elo1, test.alpha, test.beta, batch=max(primary.n, 1))
        status[c] = other.status(d) if len(d) else primary
    line = verdict_line(test, primary, plan.candidate, plan.baseline)
    alt = status[CONVENTIONS[1]]
    line += (f"; a shared first place as its share: {alt.mean:+.1f} points [{alt.ci[0]:+.1f}, {alt.ci[1]:+.1f}], "
             f"LLR {alt.llr:+.2f}")
    return SprtResult(plan.candidate, plan.baseline, plan.players, test, status, primary.n, line)


def run_sprt(candidate: str, baseline: str, players: int = 2, test: SPRT | None = None, seed: int = 0,
             opponents: str | None = None, jobs: int = 1, out_dir=None, resume: bool | str = False,
             rules: Rules | None = None, on_look=None) -> SprtResult:
    """Play the test until it stops (a bound crossed, or test.max_deals): see the module doc. on_look(result)
    is called at every look (for a progress line). test: default SPRT() (H0 0, H1 +3 points, 5% / 5%)."""
    test = test or SPRT()
    check_players(players)
    rules = rules or Rules(players=players)
    if rules.players != players:
        raise TournamentError(f"the rules are for {rules.players} players, the test for {players}")
    for spec in (candidate, baseline, opponents):
        if spec is not None:
            make_bot(spec, 0)
    plan = SprtPlan(candidate, baseline, opponents, rules, seed, test)
    columns = result_columns(rules)
    store = None
    rows: list[dict] = []
    if out_dir is not None:
        _check_declared(Path(out_dir), plan, resume)
        store = ResultStore(out_dir, plan.meta(columns), columns, plan.planned)
        if store.open(resume):
            rows = pd.read_csv(store.path(CSV_FILE), keep_default_na=False).to_dict("records")
    try:
        return _play(plan, store, rows, columns, jobs, out_dir, on_look)
    finally:
        if store is not None:
            store.close()


def _check_declared(folder: Path, plan: SprtPlan, resume) -> None:
    saved = folder / "tournament.json"
    if resume and saved.exists():
        meta = load_json(saved, "test file", TournamentError)
        if meta.get("test") != plan.test.to_dict() or meta.get("candidate") != plan.candidate:
            raise TournamentError(f"{folder} holds another test ({meta.get('candidate')!r} against "
                                  f"{meta.get('baseline')!r}, {meta.get('test')}); a test's bounds, error rates and "
                                  "looks are declared before its games and kept: resume it with the same ones")


def _play(plan: SprtPlan, store, rows: list[dict], columns, jobs: int, out_dir, on_look) -> SprtResult:
    test = plan.test
    while True:
        result = evaluate(plan, typed_frame(rows, columns) if rows else pd.DataFrame(columns=columns))
        if out_dir is not None:
            atomic_write_text(Path(out_dir) / RESULT_FILE, json.dumps(result.to_dict(), indent=1) + "\n")
        if on_look is not None:
            on_look(result)
        if result.verdict != "continue" or result.deals >= plan.max_deals():
            return result
        done = {r["game"] for r in rows}
        first = result.deals + 1
        games = [g for k in range(first, min(first + test.batch, plan.max_deals() + 1))
                 for g in (2 * k - 1, 2 * k) if g not in done]
        with closing(run_each(play_task, [plan.task(g) for g in games], jobs)) as finished:
            for _game, game_rows, record in finished:
                if store is not None:
                    store.append(game_rows, record)
                rows.extend(game_rows)
