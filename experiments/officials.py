"""What each official is worth, to whom and when, and the first-seat advantage: reproduces results/officials/.

    python experiments/officials.py                   # everything (resumes an interrupted run)
    python experiments/officials.py --part ablation   # only the ablation tournaments of every study
    python experiments/officials.py --part choice     # only the value at the moment of choice (both ratings)
    python experiments/officials.py --part validation # only the validation by play (the rated bot)
    python experiments/officials.py --part turns      # only the turn question (which official this turn)
    python experiments/officials.py --part records    # keep the games' records (compressed) for readers
    python experiments/officials.py --cost            # what each part will cost, then stop
    python experiments/officials.py --scheduler tcp://host:8786   # play and rate on a Dask cluster
    python experiments/officials.py --part report     # rebuild report, tables, plots from the saved data
    python experiments/officials.py --quick --allow-dirty   # a tiny smoke run into a temporary folder
    python experiments/officials.py --budget 2=1000,3=1000,4=1000 --games 2=200,3=402,4=200

Two studies (docs/officials.md):
  heuristic  the rule-based bot: per player count a control tournament (every seat the bot) and one per
             official (one rotating seat with it forbidden); its first control games are also rated by the
             search (value at the moment of choice in the heuristic bot's positions);
  search     the strongest mcts (thurn_ai.bots.mcts.STRONGEST for each player count, as `thurn-ai hint`)
             at a budget where it beats the heuristic bot (results/learned/strength/README.md), the same
             tournaments, and its control games rated by the same search.
The report compares them (usage, timing, what the heuristic bot's choices give away) and their seats.
The search study's decisions are rated twice (each side's most visited move by its own mean, and that move
re-rated by an independent search), and the validation by play pits the `rated` bot, which follows a
rating at every offer of an official, against the standard bot (games fixed before the run from the
precision wanted). Before playing, the script prints what each part will cost.

Results must come from committed code: the script refuses to run when the package, the core, the
experiments or the build files have uncommitted changes (tracked or new files), unless --allow-dirty,
which marks the report as not reproducible. The report names the commit it was built at and runs.json
the commits the games were played with. Tournaments and rated decisions are appended as they finish under
OUT/raw/ (not committed), so an interrupted run continues where it stopped when started again with the
same settings.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from thurn_ai.studies import officials as study
from thurn_ai.studies import provenance
from thurn_ai.studies.officials import cost as study_cost, rated as study_rated, records as study_records
from thurn_ai.studies.officials.report_validation import advice_follows
from thurn_ai.fileio import atomic_to_csv, atomic_to_parquet, atomic_write_text
from thurn_ai.game.officials import OFFICIALS

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials"
SEED = 1
#: the code whose changes make a result irreproducible: the package, the compiled core, the scripts, the build
CODE_PATHS = provenance.CODE_PATHS

#: iterations per decision of the strong search by player count: the default budget, at which the strongest
#: mcts (the learned evaluation) beats the heuristic bot at every count (results/learned/strength: 72.8% at
#: 2 players against a fair 50%, 57.6% at 3 against 33.3%, 37.3% at 4 against 25%, each interval clear of
#: fair). The first study needed 3000 at 4 players with the hand-set evaluation; 1000 makes the 4-player
#: parts a third of the cost (the validation alone would take 23 core-hours at 3000) and rates with the
#: search `thurn-ai hint` uses by default.
SEARCH_BUDGET = {2: 1000, 3: 1000, 4: 1000}
#: games per tournament of the strong study (each is rounded up to a multiple of the player count), fixed
#: before the validated run: at least 200 a cell; 402 at 3 players. (The first study doubled its 3-player
#: cells after 201 games left the Cartwright's interval touching zero -- optional stopping. The validated
#: study's ablation games are new deals, paired with the control, so that look did not choose them; its
#: counts are fixed here and the report's intervals are read at these counts only.)
SEARCH_GAMES = {2: 200, 3: 402, 4: 200}
#: control games whose decisions are rated, per player count
SEARCH_CHOICE_GAMES = {2: 100, 3: 100, 4: 100}
HEURISTIC_CHOICE_GAMES = {2: 50, 3: 50, 4: 50}
#: control games of the search study whose turn starts are rated (the turn question), per player count
SEARCH_TURN_GAMES = {2: 50, 3: 50, 4: 50}
#: the validation's cells per player count and its games per cell: fixed before the run, enough to find a win
#: rate 3 points away from the fair 1/n (design.games_to_separate). Every count follows both ratings; at 2
#: players each rating also has its control (rated.CONTROLS: the same smaller searches at an offer, no
#: rating), which tells a rating's own effect from its smaller searches'. Controls at 3 and 4 players would
#: cost about 10 more core-hours; the 2-player pair is where the study's question was raised (issue 22).
VALIDATION_RATINGS = {2: study_rated.CELLS, 3: study_rated.RATINGS, 4: study_rated.RATINGS}
VALIDATION_GAMES = {n: study_rated.validation_games(n) for n in (2, 3, 4)}
#: the runs the report uses (runs.json keeps only these)
RUN_NAMES = ("heuristic", "search", "heuristic_choice", "search_choice", "validation", "search_turns")


@dataclass(frozen=True)
class Study:
    name: str
    bot: str
    players: tuple[int, ...]
    games: dict                      # per tournament (control and each official), by player count
    budget_text: str                 # the budget in words, for the report
    budget: dict | None = None       # iterations per decision by player count (a search bot)
    choice_games: dict = field(default_factory=dict)   # control games rated, by player count
    officials: tuple[str, ...] = OFFICIALS

    def bots(self) -> dict[int, str]:
        return study.study_bots(self.bot, self.players, self.budget)


def studies(budget: dict, games: dict, choice_games: dict | None, players=(2, 3, 4)) -> list[Study]:
    """The two studies. `players`: the counts the search study plays and both studies' decisions are rated
    at (the heuristic study's ablation always has 2, 3 and 4: it is cheap)."""
    return [
        Study("heuristic", "heuristic", (2, 3, 4), {2: 360, 3: 180, 4: 180},
              "rule-based heuristic bot, no search (deterministic given the cards)",
              choice_games={n: HEURISTIC_CHOICE_GAMES[n] for n in players}),
        Study("search", "mcts", tuple(players), games,
              "the strongest mcts configuration for each player count, iterations per decision "
              + ", ".join(f"{n} players {it}" for n, it in sorted(budget.items()) if n in players) + "; one thread",
              budget=budget, choice_games={n: (choice_games or SEARCH_CHOICE_GAMES)[n] for n in players}),
    ]


QUICK = [
    Study("heuristic", "heuristic", (2,), {2: 4}, "rule-based heuristic bot (smoke run)", choice_games={2: 1}),
    Study("search", "mcts", (2,), {2: 2}, "mcts, 30 iterations (smoke run)", budget={2: 30}, choice_games={2: 1}),
]
QUICK_VALIDATION_GAMES = {2: 2}
NOTES = [
    "An official's worth is measured for a player: what that player makes of it. A positive Δ means the player "
    "does better without the official, i.e. its way of using it does harm - a finding about the player, not "
    "the game.",
    "The search study's bot beats the heuristic bot at these budgets (results/learned/strength/README.md), so "
    "it is the stronger player of the two; the value at the moment of choice is that search's own estimate.",
]


def unfinished_note(played: dict, rated: dict) -> list[str]:
    """A note naming what the search study still lacks against its design, and the command that adds it.

    played: {players: the fewest games any of the search study's tournaments has} (a count it did not play:
    0 or absent); rated: {"search" / "heuristic": {players: control games whose decisions are rated}}.
    The design: SEARCH_GAMES games a tournament, SEARCH_CHOICE_GAMES and HEURISTIC_CHOICE_GAMES rated games."""
    gaps = []
    for n in (2, 3, 4):
        lacks = []
        want = study.rotation_games(SEARCH_GAMES, n)
        have = played.get(n, 0)
        if have == 0:
            lacks.append(f"the ablation is not played yet ({want} games a tournament, "
                         f"{SEARCH_BUDGET[n]} iterations a decision)")
        elif have < want:
            lacks.append(f"the ablation has {have} of its {want} games a tournament so far (its intervals are "
                         "wider than they will be)")
        short = [f"{have_r} of {want_r} {who} control games" for who, want_r, have_r in
                 (("search", SEARCH_CHOICE_GAMES[n], rated.get("search", {}).get(n, 0)),
                  ("heuristic", HEURISTIC_CHOICE_GAMES[n], rated.get("heuristic", {}).get(n, 0)))
                 if have_r < want_r]
        if short:
            lacks.append("the value at the moment of choice has rated " + " and ".join(short))
        if lacks:
            gaps.append(f"at {n} players " + "; ".join(lacks))
    if not gaps:
        return []
    return ["Not finished yet: " + "; ".join(gaps) + ". `python experiments/officials.py` adds the rest (every "
            "part resumes where it stopped; docs/officials.md says what it costs), then rebuilds this report."]


# ------------------------------------------------------------------------------------------- the code

# one home for the provenance checks: thurn_ai/studies/provenance.py (these names keep the experiments' root)
DirtyTree = provenance.DirtyTree


def commit(root=ROOT) -> str:
    return provenance.commit(root)


def uncommitted(root=ROOT) -> list[str]:
    return provenance.uncommitted(root, CODE_PATHS)


def code_state(root=ROOT) -> str:
    """The commit the games are played with, and any uncommitted changes to the code."""
    return provenance.code_state(root)


def check_clean(root=ROOT, allow_dirty: bool = False) -> list[str]:
    """The uncommitted code files; DirtyTree if there are any and allow_dirty is not set."""
    return provenance.check_clean(root, allow_dirty)


def log_run(out: Path, name: str, seconds: float = 0.0, played_with: str | None = None,
            keep_only=None) -> dict:
    """OUT/runs.json (committed with the results): per study and part the wall time over all its runs and
    the code each run played with. Re-read before every write, as two studies may run in two processes.
    keep_only: drop every entry not named there (the report's runs) and save."""
    path = out / "runs.json"
    runs = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if keep_only is not None and set(runs) - set(keep_only):
        runs = {k: v for k, v in runs.items() if k in keep_only}
        atomic_write_text(path, json.dumps(runs, indent=1) + "\n")
    if name:
        entry = runs.setdefault(name, {"seconds": 0.0, "played_with": []})
        entry["seconds"] += seconds
        if played_with and played_with not in entry["played_with"]:
            entry["played_with"].append(played_with)
        atomic_write_text(path, json.dumps(runs, indent=1) + "\n")
    return runs


# ------------------------------------------------------------------------------------------- the parts

def run_ablation(s: Study, out: Path, jobs, played_with: str, scheduler=None) -> None:
    """Play (or resume) one study's tournaments into OUT/raw/<name>/ (paired deals: the control and every
    ablation of a count share their seeds); played_with: the code this process loaded (code_state() when
    it started: the tree may change while a long run goes on); scheduler: a Dask scheduler's address."""
    log_run(out, s.name, played_with=played_with)
    t0 = time.time()
    study.run_ablation(s.bots(), s.players, s.games, SEED, s.officials, jobs=jobs, out_dir=out / "raw" / s.name,
                       resume=True, progress=False, log=lambda m: print(m, flush=True), scheduler=scheduler)
    log_run(out, s.name, seconds=time.time() - t0)


def rating_searches(search: Study, iterations=None, every_count: bool = True) -> dict[int, str]:
    """{players: spec} of the searches that rate decisions: the search study's bot at its budget, for every
    player count (every_count; the report names the rating search of each count it shows, also of counts
    rated by an earlier run with other --players) or only the study's own."""
    counts = (2, 3, 4) if every_count else search.players
    return study.choice_bots(study.study_bots(search.bot, counts, search.budget), iterations)


def run_choice(s: Study, searchers: dict, out: Path, jobs, played_with: str, scheduler=None) -> None:
    """Rate (or resume rating) the decisions of one study's first control games into OUT/raw/<name>/, with
    both ratings (the first and the independent re-rating); played_with, scheduler as for run_ablation."""
    key = f"{s.name}_choice"
    log_run(out, key, played_with=played_with)
    t0 = time.time()
    players = tuple(n for n in s.players if n in s.choice_games)
    study.run_choice_study(s.bots(), players, s.games, s.choice_games, searchers, seed=SEED, choice_seed=SEED,
                           jobs=jobs, out_dir=out / "raw" / s.name, log=lambda m: print(m, flush=True),
                           fresh=True, scheduler=scheduler)
    log_run(out, key, seconds=time.time() - t0)


def run_turns(s: Study, searchers: dict, games: dict, out: Path, jobs, played_with: str, scheduler=None) -> None:
    """The turn question on the study's control games already played (the choice part plays them): the first
    games[n] rated with searchers[n] into OUT/raw/<name>/turns_<n>p (resumes)."""
    key = f"{s.name}_turns"
    log_run(out, key, played_with=played_with)
    t0 = time.time()
    study.run_turns_study(out / "raw" / s.name, tuple(games), games, searchers, seed=SEED, jobs=jobs,
                          log=lambda m: print(m, flush=True), scheduler=scheduler)
    log_run(out, key, seconds=time.time() - t0)


def run_validation(search: Study, games: dict, ratings, out: Path, jobs, played_with: str, scheduler=None) -> None:
    """The validation by play: the rated bot (following each rating) against the search study's bot, into
    OUT/raw/validation/ (resumes); games: {players: games a cell}, fixed before the run."""
    log_run(out, "validation", played_with=played_with)
    t0 = time.time()
    study_rated.run_validation(search.bots(), search.players, games, SEED, ratings, jobs=jobs,
                               out_dir=out / "raw" / "validation", scheduler=scheduler,
                               log=lambda m: print(m, flush=True))
    log_run(out, "validation", seconds=time.time() - t0)


def validation_rows(search: Study, out: Path):
    """The validation's games, every cell played (rated.CELLS): from OUT/raw/validation if played there, else
    the committed OUT/validation_games.parquet; None if neither."""
    from thurn_ai.play.tournament import load_results

    frames = []
    for n in search.players:
        for rating in study_rated.CELLS:
            folder = study_rated.validation_folder(out / "raw" / "validation", n, rating)
            if (folder / "results.csv").exists():
                raw = load_results(folder)
                spec = study_rated.validation_spec(search.bots()[n], rating)
                frames.append(raw.assign(rating=rating, rated=raw["spec"] == spec))
    if frames:
        return pd.concat(frames, ignore_index=True)
    saved = out / "validation_games.parquet"
    return pd.read_parquet(saved) if saved.exists() else None


def print_costs(chosen: list[Study], searchers: dict, part: str, validation_games: dict, ratings,
                turn_games: dict | None = None) -> None:
    """What each part will cost, from a short timing of the rating search at each player count."""
    search = next((s for s in chosen if s.name == "search"), None)
    counts = sorted({n for s in chosen for n in s.players if s.bot != "heuristic"} | set(
        n for s in chosen for n in s.choice_games))
    timings = {n: study_cost.measure(n, searchers[n], SEED) for n in counts if n in searchers}
    abl = {n: study.rotation_games(search.games, n) for n in search.players} if search and part in (
        "ablation", "all") else None
    rated = {}
    if part in ("choice", "all"):
        for s in chosen:
            for n, g in s.choice_games.items():
                rated[n] = rated.get(n, 0) + g
    val = validation_games if search and part in ("validation", "all") else None
    turns = turn_games if search and part in ("turns", "all") else None
    rows = study_cost.part_costs(timings, abl, rated_games=rated or None, fresh=True, validation_games=val,
                                 ratings=ratings, turn_games=turns)
    print(study_cost.format_costs(rows, timings), flush=True)


def study_games(s: Study, out: Path):
    """The study's games: from its tournaments in OUT/raw if they are all there, else from the committed
    OUT/<name>_games.parquet; None if neither exists."""
    if all((out / "raw" / s.name / c.name).is_dir() for c in study.plan(s.players, s.officials)):
        df = study.load_ablation(out / "raw" / s.name, s.bots(), s.players, s.officials)
        planned = sum(study.rotation_games(s.games, n) for n in s.players) * (1 + len(s.officials))
        if df.groupby(["players", "official"]).game.nunique().sum() < planned:
            print(f"note: {s.name} is unfinished; the report covers the games played so far", flush=True)
        return df
    saved = out / f"{s.name}_games.parquet"
    return study.load_study(saved) if saved.exists() else None


def study_choices(s: Study, out: Path):
    """(rated decisions, their games' records or None): from OUT/raw if rated there, else from the
    committed OUT/<name>_choices.parquet (the example positions saved with it are linked); None if neither."""
    raw = out / "raw" / s.name
    try:
        df = study.load_choice_study(raw, s.players)
    except study.StudyError:
        saved = out / f"{s.name}_choices.parquet"
        return (pd.read_parquet(saved), None) if saved.exists() else None
    return df, study.study_records(raw, df)


def played_per_tournament(games) -> dict:
    """{players: the fewest games of any tournament (control or an official) of the study} of its games."""
    if games is None or games.empty:
        return {}
    per = games.groupby(["players", "official"]).game.nunique()
    conditions = 1 + len(OFFICIALS)
    return {int(n): int(g.min()) if len(g) == conditions else 0 for n, g in per.groupby(level="players")}


def replay_note(games, at: str) -> str:
    """The heuristic bot does not search: its games must replay identically with committed code. Checks a
    sample (experiments/officials_replay.py) and says what it found, for games played with uncommitted code."""
    from officials_replay import replay

    same, differ, _ = replay(games, 15)
    verdict = ("all gave the same scores and game lengths" if not differ
               else f"{differ} differ, so these results do not reproduce from committed code")
    return (f"The heuristic study's games were played with uncommitted changes (see its line below). "
            f"`python experiments/officials_replay.py` replays every 15th game of each of its tournaments with "
            f"the code of commit {at}: {same + differ} games, {verdict}.")


def search_replay_note(raw: Path, at: str) -> str | None:
    """The search study's games come from several commits (runs.json; the compiled search was made faster
    in between without changing a decision, results/bench/README.md): replay two games of each of its
    tournaments in raw/ (the first and the middle one) with this code, move by move, and say what it found.
    None without saved tournaments."""
    from officials_replay import replay_tournament

    folders = sorted(f for f in raw.glob("*p_*") if (f / "tournament.json").exists() and (f / "records.jsonl").exists())
    if not folders:
        return None
    same = differ = 0
    for folder in folders:
        with open(folder / "records.jsonl", encoding="utf-8") as f:
            saved = sum(1 for line in f if line.strip())
        a, b, _ = replay_tournament(folder, max(1, (saved + 1) // 2))
        same, differ = same + a, differ + b
    verdict = ("all gave the same games, move by move" if not differ
               else f"{differ} differ, so these results do not reproduce from this commit's code")
    return (f"The search study's games were played with the commits runs.json lists. `python "
            f"experiments/officials_replay.py --tournament FOLDER --every K` replays saved games move by move: "
            f"two of each of its tournaments (the first and the middle game), replayed with the code of commit "
            f"{at}: {same + differ} games, {verdict}.")


def report(chosen: list[Study], searchers: dict, out: Path, command: str, notes: list[str], dirty: list[str],
           against_design: bool = True) -> None:
    """Build OUT/report.md and its tables and plots from the saved data; against_design: add a note on
    what the search study still lacks (unfinished_note). runs.json keeps only the runs the report uses."""
    runs = log_run(out, "", keep_only=RUN_NAMES)
    analyses, choice = {}, {}
    meta = {"command": command, "commit": commit(), "studies": {}, "plots": {}, "notes": notes,
            "main_study": "search", "compare": ["heuristic", "search"]}
    if dirty:
        meta["dirty"] = ", ".join(dirty[:8]) + (f" and {len(dirty) - 8} more" if len(dirty) > 8 else "")
    search = next((s for s in chosen if s.name == "search"), None)
    vrows = validation_rows(search, out) if search else None
    if vrows is not None:
        atomic_to_parquet(vrows, out / "validation_games.parquet", index=False)
        meta["validation"] = study_rated.validation_table(vrows)
        atomic_to_csv(meta["validation"], out / "validation.csv", index=False, float_format="%.6g")
    # the advice follows what the validation by play found (the search study's only: the heuristic bot's own
    # choices were not validated)
    follows = {"search": advice_follows(meta.get("validation"))}
    frames, rows = {}, {}
    for s in chosen:
        df = study_games(s, out)
        if df is not None:
            a = study.analyse(df)
            analyses[s.name], frames[s.name] = a, df
            meta["plots"][s.name] = study.save_study(df, a, out, prefix=f"{s.name}_",
                                                     title=f"{s.name}: what each official is worth")
            run = runs.get(s.name, {})
            bots = s.bots()
            meta["studies"][s.name] = {"bot": next(iter(bots.values())) if len(set(bots.values())) == 1 else
                                       "; ".join(f"{n} players {b}" for n, b in bots.items()),
                                       "games": s.games, "seed": SEED, "budget": s.budget_text,
                                       "wall_minutes": run.get("seconds", 0) / 60,
                                       "played_with": "; then ".join(run.get("played_with", [])) or "unknown",
                                       "game_length": study.control_facts(df)}
            print(f"== {s.name}\n{study.format_text(a)}\n", flush=True)
            if s.bot == "heuristic" and "uncommitted" in meta["studies"][s.name]["played_with"]:
                meta["notes"] = meta["notes"] + [replay_note(df, commit())]
            if s.name == "search" and against_design:
                note = search_replay_note(out / "raw" / s.name, commit())
                meta["notes"] = meta["notes"] + ([note] if note else [])
        got = study_choices(s, out)
        if got is not None:
            cdf, records = got
            rows[s.name] = cdf
            choice[s.name] = {**study.save_choice(cdf, out, records, prefix=f"{s.name}_", title=s.name,
                                                  follow=follows.get(s.name, "unvalidated")),
                              "search": {n: searchers[n] for n in sorted(cdf.players.unique())},
                              "games": {int(n): int(g.game.nunique()) for n, g in cdf.groupby("players")}}
            print(f"== {s.name}: value at the moment of choice\n"
                  f"{study.format_choice_text(choice[s.name]['table'])}\n", flush=True)
    if not analyses:
        print("nothing to report yet: run the ablation part first", file=sys.stderr)
        return
    if search and any(study.turns_folder(out / "raw" / search.name, n).is_dir() for n in search.players):
        turns = study.load_turns_study(out / "raw" / search.name, search.players)
        atomic_to_parquet(turns, out / "turns_rated.parquet", index=False)
        meta["turns"] = study.turn_table(turns)
        atomic_to_csv(meta["turns"], out / "turns.csv", index=False, float_format="%.6g")
    if against_design:
        meta["notes"] = meta["notes"] + unfinished_note(
            played_per_tournament(frames.get("search")), {k: c["games"] for k, c in choice.items()})
    comparison = seats = None
    if {"heuristic", "search"} <= set(analyses):
        pair = ("heuristic", "search")
        comparison = study.bot_comparison({k: analyses[k].usage for k in pair},
                                          {k: analyses[k].ablation for k in pair},
                                          {k: rows[k] for k in pair if k in rows})
        seats = study.seat_comparison({k: analyses[k] for k in pair})
        atomic_to_csv(comparison, out / "heuristic_vs_search.csv", index=False, float_format="%.6g")
        atomic_to_csv(seats, out / "seats_compared.csv", index=False, float_format="%.6g")
        meta["comparison_plots"] = study.write_comparison_plot(comparison, ["heuristic", "search"], out)
    atomic_write_text(out / "report.md", study.build_report(analyses, meta, choice or None, comparison, seats))
    print(f"wrote {out / 'report.md'}")
    if against_design and out.resolve() == OUT.resolve():
        # the rules for players (docs/officials-advice.md) come from the same build, so its numbers are the report's
        write_readme_block(ROOT / "docs" / "officials-advice.md", study.readme_block(analyses, choice, meta))


def write_readme_block(readme: Path, block: list[str]) -> bool:
    """Replace the README's officials block with `block` (report.readme_block); a README without the block
    is left as it is, with a warning. Whether it was written."""
    if not block:
        return False
    try:
        text = study.with_readme_block(readme.read_text(encoding="utf-8"), block)
    except study.StudyError as e:
        print(f"warning: {e}; the README is left as it is", file=sys.stderr)
        return False
    atomic_write_text(readme, text)
    print(f"wrote the players' rules into {readme}")
    return True


def per_count(text: str | None, what: str) -> dict | None:
    """'2=200,3=201,4=200' (or one number for 2, 3 and 4 players) as {players: n}; None for None."""
    if text is None:
        return None
    try:
        parts = [p for p in text.split(",") if p.strip()]
        if len(parts) == 1 and "=" not in parts[0]:
            out = {n: int(parts[0]) for n in (2, 3, 4)}
        else:
            out = {int(k): int(v) for k, v in (p.split("=") for p in parts)}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} {text!r}: expected e.g. 2=200,3=201,4=200") from None
    if not out or any(n not in (2, 3, 4) or v < 1 for n, v in out.items()):
        raise argparse.ArgumentTypeError(f"{what} {text!r}: player counts 2, 3, 4 and positive numbers")
    return out


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("ablation", "choice", "validation", "turns", "records", "report", "all"),
                    default="all", help="which part to run (default: all, then the records and the report)")
    ap.add_argument("--scheduler", default=None,
                    help="a Dask scheduler address (tcp://host:8786) to play and rate the games on")
    ap.add_argument("--cost", action="store_true", help="print what each part will cost, then stop")
    ap.add_argument("--validation-games", type=lambda t: per_count(t, "validation games"), default=None,
                    help="games per cell of the validation by play (default: enough to find 3 points off "
                         "1/n, " + ",".join(f"{k}={v}" for k, v in VALIDATION_GAMES.items()) + ")")
    ap.add_argument("--ratings", default=None,
                    help="the validation's cells at every player count: the ratings the rated bot follows "
                         f"and their controls ({', '.join(study_rated.CELLS)}; default "
                         + "; ".join(f"{n} players {','.join(c)}" for n, c in VALIDATION_RATINGS.items()) + ")")
    ap.add_argument("--quick", action="store_true", help="a tiny smoke run (into a temporary folder)")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default results/officials)")
    ap.add_argument("--only", default=None, help="run only these studies (comma-separated: heuristic, search)")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--budget", type=lambda t: per_count(t, "budget"), default=None,
                    help="iterations per decision of the search study by player count "
                         f"(default {','.join(f'{k}={v}' for k, v in SEARCH_BUDGET.items())})")
    ap.add_argument("--games", type=lambda t: per_count(t, "games"), default=None,
                    help="games per tournament of the search study by player count "
                         f"(default {','.join(f'{k}={v}' for k, v in SEARCH_GAMES.items())})")
    ap.add_argument("--choice-games", type=lambda t: per_count(t, "choice games"), default=None,
                    help="control games of the search study whose decisions are rated, by player count "
                         f"(default {','.join(f'{k}={v}' for k, v in SEARCH_CHOICE_GAMES.items())})")
    ap.add_argument("--choice-iterations", type=lambda t: per_count(t, "choice iterations"), default=None,
                    help="iterations of each rating search by player count (default: the search study's budget)")
    ap.add_argument("--players", default="2,3,4",
                    help="player counts of the search study and of the rated decisions (default 2,3,4; the "
                         "heuristic study's ablation always has all three)")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="run with uncommitted code changes (the report says it is not reproducible)")
    ap.add_argument("--report-only", action="store_true", help="the same as --part report")
    return ap


@dataclass
class Plan:
    """What a run does, from its options: the studies (all, and the chosen ones), the output folder, the
    rating searches, the validation's ratings and games a cell."""
    chosen_all: list
    chosen: list
    out: Path
    search: Study
    searchers: dict
    ratings: dict
    vgames: dict
    tgames: dict


def run_plan(args, ap) -> Plan:
    """The run's Plan; ap.error (exit 2) for bad options."""
    if args.quick:
        chosen_all = QUICK
        out = args.out or Path(tempfile.gettempdir()) / "thurn-officials-quick"
    else:
        try:
            players = tuple(sorted(study.parse_players(args.players)))
        except study.StudyError as e:
            ap.error(f"--players: {e}")
        chosen_all = studies({**SEARCH_BUDGET, **(args.budget or {})}, {**SEARCH_GAMES, **(args.games or {})},
                             args.choice_games, players)
        out = args.out or OUT
    search = next(s for s in chosen_all if s.name == "search")
    searchers = rating_searches(search, args.choice_iterations, every_count=not args.quick)
    chosen = chosen_all
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {s.name for s in chosen_all}
        if unknown:
            ap.error(f"unknown study {', '.join(sorted(unknown))}; have {', '.join(s.name for s in chosen_all)}")
        chosen = [s for s in chosen_all if s.name in names]
    ratings = VALIDATION_RATINGS
    if args.ratings is not None:
        try:
            cells = study_rated.check_cells(r.strip() for r in args.ratings.split(",") if r.strip())
        except study.StudyError as e:
            ap.error(f"--ratings: {e}")
        ratings = {n: cells for n in (2, 3, 4)}
    vgames = QUICK_VALIDATION_GAMES if args.quick else {**VALIDATION_GAMES, **(args.validation_games or {})}
    vgames = {n: study.rotation_games(g, n) for n, g in vgames.items() if n in search.players}
    tgames = {n: (1 if args.quick else SEARCH_TURN_GAMES[n]) for n in search.players}
    return Plan(chosen_all, chosen, out, search, searchers, ratings, vgames, tgames)


def run_parts(plan: Plan, part: str, args, played_with: str) -> None:
    """Play, rate and keep what `part` asks for (every part resumes)."""
    out = plan.out
    out.mkdir(parents=True, exist_ok=True)
    if part in ("ablation", "all"):
        for s in plan.chosen:
            run_ablation(s, out, args.jobs, played_with, args.scheduler)
    if part in ("choice", "all"):
        for s in plan.chosen:
            run_choice(s, {n: plan.searchers[n] for n in s.choice_games}, out, args.jobs, played_with, args.scheduler)
    if part in ("validation", "all") and plan.search in plan.chosen:
        run_validation(plan.search, plan.vgames, plan.ratings, out, args.jobs, played_with, args.scheduler)
    if part in ("turns", "all") and plan.search in plan.chosen:
        run_turns(plan.search, {n: plan.searchers[n] for n in plan.tgames}, plan.tgames, out, args.jobs, played_with,
                  args.scheduler)
    if part in ("records", "all"):
        kept = study_records.keep_records(out / "raw", out / "records")
        print(f"kept the records of {len(kept) // 2} tournaments in {out / 'records'}", flush=True)


def command_text(args) -> str:
    """The command that reproduces this run, for the report."""
    return "python experiments/officials.py" + (" --quick" if args.quick else "") + (
        f" --players {args.players}" if args.players != "2,3,4" and not args.quick else "") + "".join(
        f" --{k.replace('_', '-')} " + ",".join(f"{n}={v}" for n, v in sorted(getattr(args, k).items()))
        for k in ("budget", "games", "choice_games", "choice_iterations", "validation_games") if getattr(args, k))


def reachable(address: str | None) -> str | None:
    """None when there is no scheduler or it answers; else the message naming the problem."""
    if not address:
        return None
    from thurn_ai.play.tournament import TournamentError, connect
    try:
        connect(address).close()
    except TournamentError as e:
        return str(e)
    return None


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    try:
        dirty = check_clean(ROOT, args.allow_dirty)
    except DirtyTree as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # What this process plays with is the code as it is now: its modules are loaded (and its workers forked)
    # from it, whatever is edited or committed while the run goes on.
    played_with = code_state(ROOT)
    part = "report" if args.report_only else args.part
    plan = run_plan(args, ap)
    problem = reachable(args.scheduler) if part not in ("report", "records") else None
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if part not in ("report", "records") or args.cost:
        print("validation by play, games a cell fixed before the run (3 points off 1/n, 80% power, 5% two-sided): "
              + ", ".join(f"{n} players {g}" for n, g in sorted(plan.vgames.items())), flush=True)
        print_costs(plan.chosen, plan.searchers, "all" if args.cost else part, plan.vgames, plan.ratings, plan.tgames)
    if args.cost:
        return 0
    try:
        run_parts(plan, part, args, played_with)
    except study.StudyError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    report(plan.chosen_all, plan.searchers, plan.out, command_text(args), [] if args.quick else NOTES, dirty,
           against_design=not args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
