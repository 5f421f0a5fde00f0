"""Every results folder's front page and findings, rebuilt from the data saved in it (no game is replayed).

`PAGES` names, for each folder of results/, its title, the command that made its data and the function that
reads its findings off the saved files (`Findings`); `write_page` saves them as findings.json and renders
README.md (findings.front_page), with the folder's longer text beside it: its report (report.md) linked, and
its hand-written notes (NOTES.md) appended. `python experiments/results_pages.py` rebuilds them all; the
numbers the README and docs quote are checked against these files by tests/project/test_docs.py."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..game.officials import OFFICIALS
from .findings import Findings, Number, front_page, share_rows
from .provenance import commit, read_runs


@dataclass(frozen=True)
class Page:
    """A results folder's front page: its title, the command that made its data, and its numbers (a
    function of the folder: {name: Number})."""
    title: str
    command: str
    numbers: Callable[[Path], dict[str, Number]]


def _latest(out: Path, pattern: str) -> Path:
    return sorted(out.glob(pattern), key=lambda p: p.stat().st_mtime)[-1]


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _bench(out: Path) -> dict[str, Number]:
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


def _calibration(out: Path) -> dict[str, Number]:
    """How well the hint's win maps held for the search they were fitted for (experiments/calibrate.py's
    calibration.csv): per population and player count the shown chance's slope and intercept out of fold
    (95% intervals clustered by game) and its ECE."""
    numbers: dict[str, Number] = {}
    for r in pd.read_csv(out / "calibration.csv").itertuples():
        if r.sayer != "shown, out of fold":
            continue
        who = "equal" if r.population == "self-play" else "heuristic"
        among = ("among equal players (self-play)" if who == "equal" else
                 "the search's seat against heuristic")
        for what, lo, hi in (("slope", r.slope_lo, r.slope_hi), ("intercept", r.intercept_lo, r.intercept_hi)):
            numbers[f"{who}.p{r.players}.{what}"] = Number(
                float(getattr(r, what)), float(lo), float(hi), digits=2, games=int(r.games),
                says=f"calibration {what} of the chance shown, {among}, {r.players} players, out of fold, 95% by game")
        numbers[f"{who}.p{r.players}.ece"] = Number(float(r.ece), digits=3, games=int(r.games),
                                                    says=f"expected calibration error, {among}, {r.players} players")
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


def _csv_shares(file: str, key, value: str, lo: str, hi: str, says) -> Callable[[Path], dict[str, Number]]:
    """A folder's win rates with their intervals, one a row of its table `file` (games in its column
    'games'): key(row) names each, says(row) says what it is."""
    return lambda out: share_rows(pd.read_csv(out / file), key, value, lo, hi, "games", says)


_strength = _csv_shares("summary.csv", lambda r: f"{r.matchup}.win", "a_win_rate", "ci_low", "ci_high",
                        lambda r: f"{r.bot_a} against {r.bot_b} ({r.board}), 95% Wilson")
_rulebased = _csv_shares("strength.csv", lambda r: f"{r.bot_a}_vs_{r.bot_b}.{r.board}.win", "win_rate_a",
                         "ci95_low", "ci95_high", lambda r: f"{r.bot_a} against {r.bot_b} ({r.board}), 95% Wilson")
_openspiel = _csv_shares("summary.csv", lambda r: f"{r.cell}.openspiel_win", "openspiel_win_rate", "ci_low",
                         "ci_high", lambda r: f"OpenSpiel's ISMCTS against mcts, {r.players} players, {r.mode} "
                                              f"{r.budget}")


def _learning(out: Path) -> dict[str, Number]:
    curve = pd.read_csv(out / "curve.csv")
    run = _json(out / "run.json")
    last = curve.iloc[-1]
    return {"training.games": Number(run["games"], unit="number", digits=0, says="training games"),
            "training.cpu_seconds": Number(run["cpu_seconds"], unit="number", digits=0, says="CPU seconds"),
            **{f"final.{c}": Number(float(last[c]), unit="number", digits=3, says=f"the last evaluation's {c}")
               for c in curve.columns if c != "games" and pd.api.types.is_numeric_dtype(curve[c])}}


def _speedup(out: Path) -> dict[str, Number]:
    numbers = {}
    for path in sorted(out.glob("speedup-*.json")):
        at = path.stem.split("-")[1]
        for name, w in _json(path)["workloads"].items():
            for r in w["runs"]:
                numbers[f"{at}.{name}.jobs{r['jobs']}.speedup"] = Number(
                    r["speedup"], unit="number", digits=2, games=w["games"],
                    says=f"{name} games at --jobs {r['jobs']} against --jobs 1, at {at}")
    return numbers


def _web_load(out: Path) -> dict[str, Number]:
    numbers = {}
    for phase in ("baseline", "attacked"):
        d = _json(out / phase / "web_load.json")["normal"]
        numbers[f"{phase}.normal_p50_ms"] = Number(d["latency_ms"]["50"], unit="number", games=d["requests"],
                                                    says=f"median latency of normal requests ({phase}), ms")
        numbers[f"{phase}.normal_p99_ms"] = Number(d["latency_ms"]["99"], unit="number", games=d["requests"],
                                                    says=f"99th percentile latency of normal requests ({phase}), ms")
    return numbers


def _web_idle(out: Path) -> dict[str, Number]:
    return {f"{c['phase']}.p99_ms": Number(c["p99"], unit="number", games=c["requests"],
                                           says=f"99th percentile latency, {c['connections']} idle connections")
            for c in _json(out / "web_idle.json")["connections"]}


def _hostile(out: Path) -> dict[str, Number]:
    totals = _json(out / "hostile_round3.json")["totals"]
    return {f"inputs.{k}": Number(v, unit="number", digits=0, says=f"hostile inputs: {k}") for k, v in totals.items()}


def _json_depth(out: Path) -> dict[str, Number]:
    return {f"{r['shape'].replace(' ', '_')}.seconds": Number(r["seconds"], unit="number", digits=4,
                                                              says=f"{r['shape']}: {r['outcome']}, seconds")
            for r in _json(out / "bench.json")["rows"]}


def _agreement(out: Path) -> dict[str, Number]:
    df = pd.read_csv(out / "agreement.csv")
    df = df[df.players.astype(str).str.isdigit() & df.official.isin(OFFICIALS)]
    return share_rows(df, lambda r: f"{r.choice}.p{r.players}.{r.official}.agreement", "agreement",
                       "agreement_low", "agreement_high", "offers",
                       lambda r: f"the heuristic's choice equals the search's ({r.choice}), 95% by game")


def _officials_default(out: Path) -> dict[str, Number]:
    """The agreement, and how the re-run on the default search compares with results/officials_learned (the
    same search, seeds and deals, rated before the win maps were refitted for this search): the share of
    decisions whose choices, visits and scores are the same, and how far the refit moved the rated Δ win."""
    numbers = _agreement(out)
    before = out.parent / "officials_learned" / "search_choices.parquet"
    if not before.exists():
        return numbers
    key = ["players", "game", "move"]
    m = pd.read_parquet(out / "search_choices.parquet").merge(pd.read_parquet(before), on=key,
                                                                suffixes=("", "_before"))
    same = ["used", "played", "best", "with_score", "without_score", "with_visits", "without_visits"]
    alike = m[same].eq(m[[f"{c}_before" for c in same]].to_numpy()).all(axis=1)
    shift = (m.d_win - m.d_win_before).abs()
    numbers["replicate.decisions"] = Number(len(m), unit="number", digits=0, says="decisions in both runs")
    numbers["replicate.same"] = Number(float(alike.mean()), unit="share", digits=2, games=len(m),
                                       says="decisions with the same choices, visits and scores as officials_learned")
    numbers["replicate.sign_kept"] = Number(float((np.sign(m.d_win) == np.sign(m.d_win_before)).mean()),
                                            unit="share", digits=2, games=len(m),
                                            says="decisions whose rated Δ win kept its sign with the refitted maps")
    numbers["replicate.d_win_shift"] = Number(float(100 * shift.mean()), unit="number", digits=2, games=len(m),
                                              says="mean absolute change of the rated Δ win, points")
    numbers["replicate.d_win_shift_max"] = Number(float(100 * shift.max()), unit="number", digits=2,
                                                  games=len(m), says="largest change of the rated Δ win, points")
    return numbers


def _learned(out: Path) -> dict[str, Number]:
    df = pd.read_csv(out / "calibration_by_opponents.csv")
    return {f"shift.{'all' if r.players == 0 else f'p{r.players}'}.{r.opponents.replace(' ', '_')}":
            Number(r.shift, r.shift_lo, r.shift_hi, "difference", digits=2, games=int(r.groups),
                   says=f"the win map's shift for {r.opponents}, {'every count' if r.players == 0 else r.players}")
            for r in df.itertuples()}


def _officials(out: Path) -> dict[str, Number]:
    from .officials.findings import study_numbers
    return study_numbers(out)


def _expert(out: Path) -> dict[str, Number]:
    from .expert.report import expert_numbers
    return expert_numbers(out)


def _review(out: Path) -> dict[str, Number]:
    from .review_validation import review_numbers
    return review_numbers(out)


def _search_root(out: Path) -> dict[str, Number]:
    summary = _json(out / "summary.json")
    numbers: dict[str, Number] = {}
    for name, c in summary["cells"].items():
        if c.get("games"):
            numbers[f"win.{name}"] = Number(c["win"], c["win_low"], c["win_high"], "share", games=c["games"],
                                            says=f"{c['spec']}'s win share against {c['others']}, 95% Wilson")
    for prefix, label, d in (("", "halving", summary), ("gen3.", "generation 3", summary["gen3"]),
                             ("tiles.", "route tiles", summary["tiles"])):
        numbers.update(_candidate_numbers(prefix, label, d))
    second = summary["gen3"].get("replicate") or {}
    for key, says in (("h2h_pooled", "generation 3's second head-to-head replicate, pooled over the player "
                                     "counts, 95% t"),
                      ("both", f"generation 3's head to head pooled over both replicates, "
                               f"{100 * second.get('level', 0):g}% t (the second look)")):
        d = second.get(key)
        if d:
            numbers[f"gen3.r2.{key}"] = Number(d["excess"], d["low"], d["high"], "pp", games=d["games"], says=says)
    for n, bots in (summary.get("ratings") or {}).items():
        for bot, r in bots.items():
            numbers[f"rating.p{n}.{bot}"] = Number(r["mu"], r["mu"] - 2 * r["sigma"], r["mu"] + 2 * r["sigma"],
                                                   digits=2, games=r["games"],
                                                   says=f"{bot}'s OpenSkill mu at {n} players, mu ± 2 sigma")
    return numbers


#: a candidate's paired differences in points beside its wins (search_root.PAIRED)
PAIRED_POINTS = {"score": "the searching seat's score", "others_score": "the other seats' mean score",
                 "route_tiles": "the searching seat's route-length tile points"}


def _candidate_numbers(prefix: str, label: str, summary: dict) -> dict[str, Number]:
    """A candidate's paired differences per count, pooled, and its pooled head-to-head excess."""
    numbers: dict[str, Number] = {}
    for n, d in summary["paired"].items():
        if d:
            numbers[f"{prefix}paired.p{n}"] = Number(d["win_share"], d["win_share_low"], d["win_share_high"], "pp",
                                                     games=d["games"], says=f"{label} minus anchor-1k, paired, 95% t")
            for key, what in PAIRED_POINTS.items():
                if key in d:
                    numbers[f"{prefix}{key}.p{n}"] = Number(
                        d[key], d[f"{key}_low"], d[f"{key}_high"], "difference", 2, games=d["games"],
                        says=f"{what} a game, {label} minus anchor-1k, {n} players, paired, 95% t")
    for key in ("pooled", "h2h_pooled"):
        d = summary[key]
        if d:
            value = d["win_share"] if key == "pooled" else d["excess"]
            numbers[prefix + key] = Number(value, d["low"], d["high"], "pp", games=d["games"],
                                           says=f"{label}, pooled over the player counts, 95% t")
    return numbers


def _value_route_tiles(out: Path) -> dict[str, Number]:
    s = _json(out / "summary.json")
    numbers = {"pooled.pairwise_diff": Number(s["pooled_pairwise_diff"], s["low"], s["high"], "pp",
                                              games=s["decisions"], says="held-out pairwise accuracy, 13 minus "
                                              "12 features, pooled over 2-4 players, 95% game bootstrap")}
    return {**numbers, **_pairwise_by_count(out)}


def _pairwise_by_count(out: Path) -> dict[str, Number]:
    """Each evaluation's held-out pairwise accuracy by player count (held_out.csv of an offline gate)."""
    return {f"pairwise.p{r.players}.{r.model.replace(' ', '_')}": Number(
        float(r.pairwise), unit="number", digits=3, games=int(r.decisions),
        says=f"{r.model}: share of sibling pairs ordered as the teacher valued them, {r.players} players")
        for r in pd.read_csv(out / "held_out.csv").itertuples()}


def _value_net(out: Path) -> dict[str, Number]:
    """The network's offline gate: pooled pairwise accuracy of each evaluation, the paired difference to the
    route-tiles refit (summary.json), and per player count (held_out.csv)."""
    s = _json(out / "summary.json")
    diff, lo, hi = s["network_minus_route_tiles"]
    numbers = {"pooled.network_minus_route_tiles": Number(
        diff, lo, hi, "pp", games=s["decisions"], says="held-out pairwise accuracy, network minus route-tiles "
        "refit, pooled over 2-4 players, 95% game bootstrap")}
    for name, (v, low, high) in s["pooled"].items():
        numbers[f"pooled.{name.replace(' ', '_')}"] = Number(
            v, low, high, "number", 3, games=s["decisions"],
            says=f"{name}: share of sibling pairs ordered as the teacher valued them, 2-4 players pooled")
    return {**numbers, **_pairwise_by_count(out)}


def _prior_gate(out: Path, compared) -> dict[str, Number]:
    """A prior's offline gate: each compared prior's agreement with the equal-budget label (agreement.csv),
    and the paired differences (paired.csv: `versus` minus `base`; generation 3's file, without a base
    column, compares with generation 1)."""
    numbers = {}
    for r in pd.read_csv(out / "agreement.csv", dtype={"players": str}).itertuples():
        for k in compared:
            numbers[f"agree.{r.players}.{k}"] = Number(
                float(getattr(r, k)), unit="share", games=int(r.decisions),
                says=f"{k}'s favourite is the equal-budget label, labelled held-out decisions, {r.players}"
                     + (" players" if r.players != "pooled" else " over 2-4 players"))
    for r in pd.read_csv(out / "paired.csv", dtype={"players": str}).itertuples():
        base = getattr(r, "base", "gen1")
        unit, digits = ("pp", 1) if r.measure == "agreement" else ("difference", 4)
        what = "agreement with the label" if r.measure == "agreement" else "equal-budget child value of the favourite"
        numbers[f"{r.measure}.{r.players}.{r.versus}_minus_{base}"] = Number(
            float(r.diff), float(r.low), float(r.high), unit, digits, games=int(r.decisions),
            says=f"{what}, {r.versus} − {base}, paired, 95% clustered by game ({r.players})")
    return numbers


def _expert_gen3(out: Path) -> dict[str, Number]:
    """Generation 3's offline gate, against generation 1."""
    return _prior_gate(out, ("gen1", "gen2", "gen3", "planner"))


def _expert_gen4(out: Path) -> dict[str, Number]:
    """Generation 4's offline gate (internal-node rows and two new features), against generations 1 and 3,
    and its agreement differences by phase (phases.csv)."""
    numbers = _prior_gate(out, ("gen1", "gen3", "gen4", "gen4_root", "planner"))
    for r in pd.read_csv(out / "phases.csv").itertuples():
        numbers[f"phase.{r.phase}.{r.versus}_minus_{r.base}"] = Number(
            float(r.diff), float(r.low), float(r.high), "pp", 1, games=int(r.decisions),
            says=f"agreement with the label, {r.versus} − {r.base}, {r.phase} decisions pooled over 2-4 players, "
                 "paired, 95% clustered by game")
    return numbers


def _officials_design(out: Path) -> dict[str, Number]:
    """The symmetric ablations' paired differences: the design's (comparison.csv), else its pilot's."""
    from .officials.symmetric_report import numbers
    if (out / "comparison.csv").exists():
        return numbers(pd.read_csv(out / "comparison.csv"), levels=pd.read_csv(out / "levels.csv"))
    return numbers(pd.read_csv(out / "pilot" / "comparison.csv"), prefix="pilot.",
                   levels=pd.read_csv(out / "pilot" / "levels.csv"))


def _officials_card(out: Path) -> dict[str, Number]:
    """The card against the heuristic's rule (baseline.csv), and as a constraint (the design's, a pilot's)."""
    from .officials.card_play import numbers
    tables = {name: pd.read_csv(path) for name, path in (("constraint", out / "constraint.csv"),
                                                         ("pilot.constraint", out / "pilot" / "constraint.csv"))
              if path.exists()}
    return numbers(pd.read_csv(out / "baseline.csv"), tables)


def _officials_advice(out: Path) -> dict[str, Number]:
    """The candidate amendments, the fit and the confirmation (the design's, else a pilot's)."""
    from .officials import advice_play as ap
    numbers = ap.numbers(ap.read_candidates(out / "candidates.json"))
    for folder, prefix in ((out, ""), (out / "pilot", "pilot.")):
        fit = pd.read_csv(folder / "fit.csv") if (folder / "fit.csv").exists() else None
        stable = (pd.read_csv(folder / "stability.csv").set_index("candidate").chosen
                  if (folder / "stability.csv").exists() else None)
        confirmed = pd.read_csv(folder / "confirm.csv") if (folder / "confirm.csv").exists() else None
        numbers |= ap.numbers({}, fit, stable, confirmed, prefix)
    return numbers


#: the front page of every folder of results/
PAGES: dict[str, Page] = {
    "bench": Page("Engine and search speed", "python experiments/bench_engine.py", _bench),
    "calibration": Page("The hint's win maps, refitted for the default search", "python experiments/calibrate.py",
                        _calibration),
    "expert": Page("Expert iteration: a move prior learned from deep searches",
                   "python experiments/expert_iteration.py", _expert),
    "expert_gen3": Page("Generation 3 of the move prior: the improved-policy target, gated offline",
                        "python experiments/expert_gen3.py", _expert_gen3),
    "expert_gen4": Page("Generation 4 of the move prior: internal-node rows and two new features, gated offline",
                        "python experiments/expert_gen4.py", _expert_gen4),
    "hostile_round3": Page("Hostile input, third round", "python experiments/hostile_round3.py", _hostile),
    "json_depth": Page("Reading deeply nested or malformed JSON", "python experiments/json_depth_bench.py",
                       _json_depth),
    "learned": Page("The learned evaluation and the hint's win chance",
                    "python experiments/learned_value.py", _learned),
    "learning": Page("A learning baseline: masked actor-critic on the normalised tensor",
                     "python experiments/learning_baseline.py", _learning),
    "officials": Page("What the officials are worth", "python experiments/officials.py", _officials),
    "officials_learned": Page("The officials' choices of the search with the learned evaluation",
                              "python experiments/officials_agreement.py --study-dir results/officials_learned",
                              _agreement),
    "officials_learned3000": Page("The officials' choices of the search with the learned evaluation, 3000 "
                                  "iterations", "python experiments/officials_agreement.py --study-dir "
                                  "results/officials_learned3000", _agreement),
    "officials_default": Page("The officials' choices of the default search, its win chance calibrated for it",
                              "python experiments/officials.py --only search --part choice --games 2=200,3=100,4=100 "
                              "--out results/officials_default; python experiments/officials_agreement.py "
                              "--study-dir results/officials_default", _officials_default),
    "officials_card": Page("The rule card for a player: the obvious baseline, and the card as a constraint",
                           "python experiments/officials_card.py", _officials_card),
    "officials_advice": Page("Advice chosen by play, confirmed on fresh deals",
                             "python experiments/officials_advice.py", _officials_advice),
    "officials_design": Page("The officials for a designer: symmetric ablations",
                             "python experiments/officials_design.py", _officials_design),
    "openspiel": Page("OpenSpiel's ISMCTS and thurn-ai's mcts on the same game", "python experiments/openspiel_peer.py",
                      _openspiel),
    "review": Page("Game review: its validation set (planted mistakes, false alarms, order of players) and its time",
                   "python experiments/review.py", _review),
    "search_root": Page("Candidates against the frozen default", "python experiments/search_root.py",
                        _search_root),
    "rulebased": Page("Strength of the rule-based bots", "python experiments/rulebased_strength.py", _rulebased),
    "speedup": Page("Tournament speed-up: --jobs 1 against --jobs 2", "python experiments/speedup.py", _speedup),
    "strength": Page("ISMCTS strength", "python experiments/strength.py", _strength),
    "value_route_tiles": Page("A route-length-tile feature in the learned evaluation (offline)",
                              "python experiments/value_route_tiles.py", _value_route_tiles),
    "value_net": Page("A network value in the search (offline gate)", "python experiments/value_net.py",
                      _value_net),
    "web_idle": Page("The web server with idle connections", "python experiments/web_idle.py", _web_idle),
    "web_load": Page("The web server under attack", "python experiments/web_load.py", _web_load),
}

#: the marker front_page's README starts its second paragraph with: a README without it is hand-written
GENERATED = "The data come from `"


def findings_of(results: Path, name: str, at: str | None = None) -> Findings:
    """The findings of results/NAME read off its saved data (at: the commit they are computed at; the
    checkout's by default)."""
    page, out = PAGES[name], Path(results) / name
    numbers = page.numbers(out)
    games = {k: n.games for k, n in numbers.items() if n.games is not None}
    return Findings(name, page.title, page.command, at or commit(Path(results).parent), numbers,
                    games=games, played_at=_played_at(out))


def _played_at(out: Path) -> tuple[str, ...]:
    """The commits runs.json says the folder's games were played at."""
    heads = (r["code"].split()[0] for r in read_runs(out) if r.get("code", "").strip())
    return tuple(dict.fromkeys(h for h in heads if re.fullmatch(r"[0-9a-f]{7,40}", h)))


def _generated(text: str) -> bool:
    """Whether a README is a front page (its second paragraph starts with GENERATED), not hand-written."""
    lines = text.split("\n")
    return len(lines) > 2 and lines[2].startswith(GENERATED)


def write_page(results: Path, name: str, at: str | None = None) -> Path:
    """results/NAME/findings.json and README.md. A hand-written README.md (one front_page did not write) is
    kept first as NOTES.md, which the front page appends; report.md, when there is one, is linked."""
    out = Path(results) / name
    readme, notes = out / "README.md", out / "NOTES.md"
    if readme.exists() and not _generated(readme.read_text(encoding="utf-8")):
        text = readme.read_text(encoding="utf-8").split("\n", 1)[1].lstrip("\n")
        old = notes.read_text(encoding="utf-8") if notes.exists() else ""
        notes.write_text(text.rstrip() + "\n" + ("\n" + old if old else ""), encoding="utf-8")
    body = ["The study's report: [report.md](report.md)."] if (out / "report.md").exists() else []
    return front_page(out, findings_of(results, name, at), body)


def refresh(out, at: str | None = None) -> Path | None:
    """After a study wrote into OUT: its front page and findings, when OUT is a folder of results/ that PAGES
    knows (an experiment writing elsewhere, e.g. a quick run into a temporary folder, gets none)."""
    out = Path(out)
    return write_page(out.parent, out.name, at) if out.name in PAGES and out.parent.name == "results" else None
