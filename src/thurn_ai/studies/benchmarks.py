"""The numbers of the benchmark and audit folders of results/ (and of the review's check), each read off the
files its one script saved: engine and search speed, a search iteration's cost, the yardstick bots' strength,
OpenSpiel's peer, the learning baseline, the tournaments' speed-up, the web server under load, hostile and deep
input, the review. `thurn_ai.studies.pages` lists them; each function here takes the folder and returns
{name: Number}."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from .findings import Number, share_rows


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def bench(out: Path) -> dict[str, Number]:
    rows = _json(out / "engine-5b9e2cc.json")["engine"]
    moves = [r["actions_per_s"] / 1e6 for r in rows]
    return {"engine.random_moves_per_second_min": Number(min(moves), unit="number", says="million random moves "
                                                         "a second, the slowest board and player count"),
            "engine.random_moves_per_second_max": Number(max(moves), unit="number", says="million random moves "
                                                         "a second, the fastest board and player count"),
            **_searches(out), **_hint(out)}


def _hint(out: Path) -> dict[str, Number]:
    """The hint on the README's position (experiments/bench_hint.py, the newest hint-*.json by its date): the
    default search's cost, and its ratio to the second spec's (the hint's search before the learned prior)."""
    files = sorted(out.glob("hint-*.json"))
    if not files:
        return {}
    d = max((_json(f) for f in files), key=lambda r: r["date"])
    first, commit = d["specs"][0], d["commit"].split()[0]
    numbers = {f"hint.{key}": Number(d["hints"][first][key], unit="number", digits=digits,
                                     says=f"{what} of the hint's default search on {d['position']}, {commit}")
               for key, digits, what in (("cpu_seconds", 3, "CPU seconds of analyse()"),
                                         ("command_cpu_seconds", 2, "CPU seconds of the whole command"))}
    before = d["specs"][1] if len(d["specs"]) > 1 else None       # bench_hint's second spec: the hint before
    for key, what in (("instructions_in_search", "callgrind instructions in the search"),
                      ("command_cpu_seconds", "CPU seconds of the whole command")) if before else ():
        numbers[f"hint.default_over_before.{key}"] = Number(
            d["hints"][first][key] / d["hints"][before][key] - 1, unit="share",
            says=f"{what}: the default search over {before}, {d['position']}, {commit}")
    return numbers


def _searches(out: Path) -> dict[str, Number]:
    """The named searches side by side (experiments/bench_searches.py, the newest searches-*.json by its
    date): the learned prior's cost per iteration over the hand-set one's, and each search's iterations per
    CPU second, by player count."""
    files = sorted(out.glob("searches-*.json"))
    if not files:
        return {}
    d = max((_json(f) for f in files), key=lambda r: r["date"])
    rows, numbers = d["searches"], {}
    learned, handset = rows.get("mcts"), rows.get("mcts(policy=handset)")
    for n in sorted(learned or {}):
        if handset is None:
            break
        for what, key, unit in (("instructions", "instructions_per_iteration", "callgrind instructions"),
                                ("cpu", "cpu_us_per_iteration", "CPU seconds")):
            numbers[f"search.learned_prior_cost.{what}.p{n}"] = Number(
                learned[n][key] / handset[n][key] - 1, unit="share",
                says=f"{unit} an iteration of mcts over mcts(policy=handset), {n} players, {d['commit'].split()[0]}")
    for spec, by_players in rows.items():
        name = re.sub(r"[^a-z0-9]+", "_", spec.lower()).strip("_")
        for n, r in by_players.items():
            numbers[f"search.iterations_per_cpu_second.{name}.p{n}"] = Number(
                r["iterations_per_cpu_second"], unit="number", digits=0,
                says=f"{spec}, {n} players, best of {d['rounds']} rounds on a shared machine")
    return numbers


def iteration_cost(out: Path) -> dict[str, Number]:
    """The default search's cost an iteration, this code against the baseline commit (experiments/iteration_cost.py,
    results.json): instructions and iterations per CPU second by player count, and their ratios."""
    d = _json(out / "results.json")
    base, code = d["baseline"], d["code"].split()[0]
    numbers = {}
    for n, row in d["players"].items():
        for key, what in (("instructions", "callgrind instructions an iteration"),
                          ("per_cpu_second", "iterations per CPU second")):
            for side, commit in (("baseline", d["baseline"]), ("code", d["code"])):
                numbers[f"p{n}.{key}.{side}"] = Number(row[key][commit], unit="number", digits=0,
                                                       says=f"{what} of anchor-1k's tree, {n} players, at "
                                                            f"{commit.split()[0]}")
        numbers[f"p{n}.instructions.ratio"] = Number(row["instructions_ratio"], unit="number", digits=3,
                                                     says=f"instructions an iteration, {code} over {base}, {n} players")
        numbers[f"p{n}.per_cpu_second.ratio"] = Number(row["speed_ratio"], unit="number", digits=3,
                                                       says=f"iterations per CPU second, {code} over {base}, {n} "
                                                            "players (a shared machine)")
    return numbers


def _csv_shares(file: str, key, value: str, lo: str, hi: str, says) -> Callable[[Path], dict[str, Number]]:
    """A folder's win rates with their intervals, one a row of its table `file` (games in its column
    'games'): key(row) names each, says(row) says what it is."""
    return lambda out: share_rows(pd.read_csv(out / file), key, value, lo, hi, "games", says)


strength = _csv_shares("summary.csv", lambda r: f"{r.matchup}.win", "a_win_rate", "ci_low", "ci_high",
                        lambda r: f"{r.bot_a} against {r.bot_b} ({r.board}), 95% Wilson")
rulebased = _csv_shares("strength.csv", lambda r: f"{r.bot_a}_vs_{r.bot_b}.{r.board}.win", "win_rate_a",
                         "ci95_low", "ci95_high", lambda r: f"{r.bot_a} against {r.bot_b} ({r.board}), 95% Wilson")
openspiel = _csv_shares("summary.csv", lambda r: f"{r.cell}.openspiel_win", "openspiel_win_rate", "ci_low",
                         "ci_high", lambda r: f"OpenSpiel's ISMCTS against mcts, {r.players} players, {r.mode} "
                                              f"{r.budget}")


def learning(out: Path) -> dict[str, Number]:
    curve = pd.read_csv(out / "curve.csv")
    run = _json(out / "run.json")
    last = curve.iloc[-1]
    return {"training.games": Number(run["games"], unit="number", digits=0, says="training games"),
            "training.cpu_seconds": Number(run["cpu_seconds"], unit="number", digits=0, says="CPU seconds"),
            **{f"final.{c}": Number(float(last[c]), unit="number", digits=3, says=f"the last evaluation's {c}")
               for c in curve.columns if c != "games" and pd.api.types.is_numeric_dtype(curve[c])}}


def speedup(out: Path) -> dict[str, Number]:
    numbers = {}
    for path in sorted(out.glob("speedup-*.json")):
        at = path.stem.split("-")[1]
        for name, w in _json(path)["workloads"].items():
            for r in w["runs"]:
                numbers[f"{at}.{name}.jobs{r['jobs']}.speedup"] = Number(
                    r["speedup"], unit="number", digits=2, games=w["games"],
                    says=f"{name} games at --jobs {r['jobs']} against --jobs 1, at {at}")
    return numbers


def web_load(out: Path) -> dict[str, Number]:
    numbers = {}
    for phase in ("baseline", "attacked"):
        d = _json(out / phase / "web_load.json")["normal"]
        numbers[f"{phase}.normal_p50_ms"] = Number(d["latency_ms"]["50"], unit="number", games=d["requests"],
                                                    says=f"median latency of normal requests ({phase}), ms")
        numbers[f"{phase}.normal_p99_ms"] = Number(d["latency_ms"]["99"], unit="number", games=d["requests"],
                                                    says=f"99th percentile latency of normal requests ({phase}), ms")
    return numbers


def web_idle(out: Path) -> dict[str, Number]:
    return {f"{c['phase']}.p99_ms": Number(c["p99"], unit="number", games=c["requests"],
                                           says=f"99th percentile latency, {c['connections']} idle connections")
            for c in _json(out / "web_idle.json")["connections"]}


def hostile(out: Path) -> dict[str, Number]:
    totals = _json(out / "hostile_round3.json")["totals"]
    return {f"inputs.{k}": Number(v, unit="number", digits=0, says=f"hostile inputs: {k}") for k, v in totals.items()}


def json_depth(out: Path) -> dict[str, Number]:
    return {f"{r['shape'].replace(' ', '_')}.seconds": Number(r["seconds"], unit="number", digits=4,
                                                              says=f"{r['shape']}: {r['outcome']}, seconds")
            for r in _json(out / "bench.json")["rows"]}
