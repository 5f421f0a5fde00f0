"""The officials study's runner, behind both its front doors (`thurn-ai officials` and
experiments/officials.py): the study as a value (`Study`: its bot, player counts and games), how each part
is played for it (ablation, choice, turns, validation, records; each resumes from OUT/raw/<study>/), what
each part will cost, and the report built from the saved data with its notes (what the design still
lacks, the replays of games played with other code).

The committed study (results/officials/, docs/officials.md) is two studies -- the rule-based heuristic bot
and the default search at SEARCH_BUDGET -- with the design below, fixed before the runs."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ...bots.spec import BotSpec, make_bot
from ...errors import BotSpecError
from ...fileio import atomic_to_csv, atomic_to_parquet, atomic_write_text
from ...game.officials import OFFICIALS
from ..provenance import tally_run
from . import cost as study_cost, rated as study_rated
from .choice import load_choice_study, run_choice_study, study_records
from .files import load_study, save_choice, save_study
from .findings import StudyFindings
from .plan import (StudyError, choice_bots, load_ablation, plan, rotation_games, run_ablation,
                   study_board_file, study_bots)
from .plots import write_comparison_plot
from .records import keep_records, replay, replay_tournament
from .report import build_report, readme_block, with_readme_block
from .report_tables import format_choice_text
from .report_text import format_text
from .report_validation import advice_follows
from .validation_cells import CELLS_TABLE
from .agreement import AGREEMENT_TABLE
from .tables import Analysis, analyse, bot_comparison, control_facts, seat_comparison
from .turn_choice import load_turns_study, run_turns_study, turn_table, turns_folder

#: the study's base seed (its tournaments' and searches' seeds derive from it)
SEED = 1

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
#: the two studies' bots (the search study's: the strongest mcts configuration under these options)
HEURISTIC, MCTS = BotSpec("heuristic", {}), BotSpec("mcts", {})
#: the runs the report uses (runs.json keeps only these)
RUN_NAMES = ("heuristic", "search", "heuristic_choice", "search_choice", "validation", "search_turns")


@dataclass(frozen=True)
class Study:
    """One study: a bot (at a budget per player count) against itself with each official forbidden in
    turn, its decisions rated in its first control games."""
    name: str
    bot: BotSpec
    players: tuple[int, ...]
    games: dict | int                # per tournament (control and each official), by player count, or one
    budget_text: str = ""            # the budget in words, for the report
    budget: dict | str | None = None   # iterations per decision by player count (plan.parse_budget)
    choice_games: dict = field(default_factory=dict)   # control games rated, by player count
    officials: tuple[str, ...] = OFFICIALS
    seed: int = SEED                 # base seed: tournament seed = seed + 100 * players + k (plan.plan)
    rules_kwargs: dict | None = None   # the board and variant (Rules' keywords); None: the South board

    def bots(self) -> dict[int, BotSpec]:
        """{players: spec} of the study's bot (its budget at each count)."""
        return study_bots(self.bot, self.players, self.budget)


def studies(budget: dict, games: dict, choice_games: dict | None, players=(2, 3, 4),
            search_bot: BotSpec = MCTS) -> list[Study]:
    """The two studies. `players`: the counts the search study plays and both studies' decisions are rated
    at (the heuristic study's ablation always has 2, 3 and 4: it is cheap). search_bot: the search study's bot
    (an mcts spec: its options over the default search's, plan.study_spec), which also rates."""
    return [
        Study("heuristic", HEURISTIC, (2, 3, 4), {2: 360, 3: 180, 4: 180},
              "rule-based heuristic bot, no search (deterministic given the cards)",
              choice_games={n: HEURISTIC_CHOICE_GAMES[n] for n in players}),
        Study("search", search_bot, tuple(players), games,
              ("the default search (mcts's defaults, thurn_ai.bots.default_search)" if search_bot == MCTS else
               f"{search_bot} over the default search's options")
              + ", iterations per decision "
              + ", ".join(f"{n} players {it}" for n, it in sorted(budget.items()) if n in players) + "; one thread",
              budget=budget, choice_games={n: (choice_games or SEARCH_CHOICE_GAMES)[n] for n in players}),
    ]


QUICK = [
    Study("heuristic", HEURISTIC, (2,), {2: 4}, "rule-based heuristic bot (smoke run)", choice_games={2: 1}),
    Study("search", MCTS, (2,), {2: 2}, "mcts, 30 iterations (smoke run)", budget={2: 30}, choice_games={2: 1}),
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
        want = rotation_games(SEARCH_GAMES, n)
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


# ------------------------------------------------------------------------------------------- the parts

def play_ablation(s: Study, raw: Path | None, jobs=None, scheduler: str | None = None, log=print,
                  progress: bool = False, resume: bool = True) -> pd.DataFrame:
    """Play (or resume) one study's tournaments into `raw` (paired deals: the control and every ablation of
    a count share their seeds); scheduler: a Dask scheduler's address."""
    return run_ablation(s.bots(), s.players, s.games, s.seed, s.officials, jobs=jobs, rules_kwargs=s.rules_kwargs,
                        out_dir=raw, resume=resume, progress=progress, log=log, scheduler=scheduler)


def play_choice(s: Study, searchers: dict, raw: Path, jobs=None, scheduler: str | None = None, log=print,
                progress: bool = False, fresh: bool = False) -> pd.DataFrame:
    """Rate (or resume rating) the decisions of one study's first control games (s.choice_games) into
    `raw` with both ratings (the first and the independent re-rating), searchers[n] rating at n players;
    the control games are played first where they are not yet."""
    players = tuple(n for n in s.players if n in s.choice_games)
    return run_choice_study(s.bots(), players, s.games, s.choice_games, searchers, seed=s.seed, choice_seed=s.seed,
                            jobs=jobs, rules_kwargs=s.rules_kwargs, out_dir=raw, progress=progress, log=log,
                            fresh=fresh, scheduler=scheduler)


def play_turns(s: Study, searchers: dict, games: dict, raw: Path, jobs=None, scheduler: str | None = None,
               log=print, progress: bool = False) -> pd.DataFrame:
    """The turn question on the study's control games already played in `raw` (the ablation or the choice
    part plays them): the first games[n] rated with searchers[n] into raw/turns_<n>p (resumes)."""
    return run_turns_study(raw, tuple(games), games, searchers, seed=s.seed, jobs=jobs,
                           board_file=study_board_file(s.rules_kwargs or {}), progress=progress, log=log,
                           scheduler=scheduler)


def play_validation(s: Study, games: dict | int | None, ratings, raw: Path | None, jobs=None,
                    scheduler: str | None = None, log=print, progress: bool = False) -> pd.DataFrame:
    """The validation by play: the rated bot (following each rating) against the study's bot, into `raw`
    (resumes); games: {players: games a cell}, fixed before the run (None: rated.validation_games)."""
    return study_rated.run_validation(s.bots(), s.players, games, s.seed, ratings, jobs=jobs, out_dir=raw,
                                      scheduler=scheduler, progress=progress, log=log)


def timed(out: Path, key: str, played_with: str, part, *args, **kwargs) -> None:
    """Run one study's part (play_ablation, ...) and add its wall time and the code it played with to
    OUT/runs.json (provenance.tally_run); played_with: the code this process loaded (code_state() when it
    started: the tree may change while a long run goes on)."""
    tally_run(out, key, played_with=played_with)
    t0 = time.time()
    part(*args, **kwargs)
    tally_run(out, key, seconds=time.time() - t0)


def rating_searches(search: Study, iterations=None, every_count: bool = True) -> dict[int, BotSpec]:
    """{players: spec} of the searches that rate decisions: the search study's bot at its budget, for every
    player count (every_count; the report names the rating search of each count it shows, also of counts
    rated by an earlier run with other --players) or only the study's own."""
    counts = (2, 3, 4) if every_count else search.players
    return choice_bots(study_bots(search.bot, counts, search.budget), iterations)


def validation_rows(search: Study, out: Path):
    """The validation's games, every cell played (rated.CELLS): from OUT/raw/validation if played there, else
    the committed OUT/validation_games.parquet; None if neither."""
    from ...play.tournament import load_results

    frames = []
    for n in search.players:
        for rating in study_rated.CELLS:
            folder = study_rated.validation_folder(out / "raw" / "validation", n, rating)
            if (folder / "results.csv").exists():
                raw = load_results(folder)
                spec = study_rated.validation_spec(search.bots()[n], rating)
                frames.append(raw.assign(rating=rating, rated=raw["spec"] == str(spec)))
    if frames:
        return pd.concat(frames, ignore_index=True)
    saved = out / "validation_games.parquet"
    return pd.read_parquet(saved) if saved.exists() else None


def print_costs(chosen: list[Study], searchers: dict, part: str, validation_games: dict, ratings,
                turn_games: dict | None = None) -> None:
    """What each part will cost, from a short timing of the rating search at each player count."""
    search = next((s for s in chosen if s.name == "search"), None)
    counts = sorted({n for s in chosen for n in s.players if s.bot != HEURISTIC} | set(
        n for s in chosen for n in s.choice_games))
    timings = {n: study_cost.measure(n, searchers[n], SEED) for n in counts if n in searchers}
    abl = {n: rotation_games(search.games, n) for n in search.players} if search and part in (
        "ablation", "all") else None
    rated: dict[int, int] = {}
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
    if all((out / "raw" / s.name / c.name).is_dir() for c in plan(s.players, s.officials)):
        df = load_ablation(out / "raw" / s.name, s.bots(), s.players, s.officials)
        planned = sum(rotation_games(s.games, n) for n in s.players) * (1 + len(s.officials))
        if df.groupby(["players", "official"]).game.nunique().sum() < planned:
            print(f"note: {s.name} is unfinished; the report covers the games played so far", flush=True)
        return df
    saved = out / f"{s.name}_games.parquet"
    return load_study(saved) if saved.exists() else None


def study_choices(s: Study, out: Path):
    """(rated decisions, their games' records or None): from OUT/raw if rated there, else from the
    committed OUT/<name>_choices.parquet (the example positions saved with it are linked); None if neither."""
    raw = out / "raw" / s.name
    try:
        df = load_choice_study(raw, s.players)
    except StudyError:
        saved = out / f"{s.name}_choices.parquet"
        return (pd.read_parquet(saved), None) if saved.exists() else None
    return df, study_records(raw, df)


def played_per_tournament(games) -> dict:
    """{players: the fewest games of any tournament (control or an official) of the study} of its games."""
    if games is None or games.empty:
        return {}
    per = games.groupby(["players", "official"]).game.nunique()
    conditions = 1 + len(OFFICIALS)
    return {int(n): int(g.min()) if len(g) == conditions else 0 for n, g in per.groupby(level="players")}


def replay_note(games, at: str) -> str:
    """The heuristic bot does not search: its games must replay identically with committed code. Checks a
    sample (records.replay) and says what it found, for games played with uncommitted code."""
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


def _ablation_part(s: Study, df: pd.DataFrame, out: Path, runs: dict, meta: dict, at: str,
                   against_design: bool) -> Analysis:
    """One study's ablation for the report: its analysis, plots and facts (into meta), printed as text."""
    a = analyse(df)
    meta["plots"][s.name] = save_study(df, a, out, prefix=f"{s.name}_", title=f"{s.name}: what each official is worth")
    run = runs.get(s.name, {})
    bots = s.bots()
    texts = {n: str(b) for n, b in bots.items()}
    meta["studies"][s.name] = {"bot": next(iter(texts.values())) if len(set(texts.values())) == 1 else
                               "; ".join(f"{n} players {b}" for n, b in texts.items()),
                               "games": s.games, "seed": SEED, "budget": s.budget_text,
                               "wall_minutes": run.get("seconds", 0) / 60,
                               "played_with": "; then ".join(run.get("played_with", [])) or "unknown",
                               "game_length": control_facts(df)}
    print(f"== {s.name}\n{format_text(a)}\n", flush=True)
    if s.bot == HEURISTIC and "uncommitted" in meta["studies"][s.name]["played_with"]:
        meta["notes"] = meta["notes"] + [replay_note(df, at)]
    if s.name == "search" and against_design:
        note = search_replay_note(out / "raw" / s.name, at)
        meta["notes"] = meta["notes"] + ([note] if note else [])
    return a


def _choice_part(s: Study, cdf: pd.DataFrame, records, out: Path, searchers: dict, follow: str) -> tuple:
    """One study's value at the moment of choice for the report: (its rated decisions, its choice entry)."""
    entry = {**save_choice(cdf, out, records, prefix=f"{s.name}_", title=s.name, follow=follow),
             "search": {n: searchers[n] for n in sorted(cdf.players.unique())},
             "games": {int(n): int(g.game.nunique()) for n, g in cdf.groupby("players")}}
    print(f"== {s.name}: value at the moment of choice\n{format_choice_text(entry['table'])}\n", flush=True)
    return cdf, entry


def report(chosen: list[Study], searchers: dict, out: Path, command: str, notes: list[str], dirty: list[str],
           at: str, against_design: bool = True, advice: Path | None = None) -> None:
    """Build OUT/report.md and its tables and plots from the saved data; at: the commit it is built at;
    against_design: add a note on what the search study still lacks (unfinished_note); advice: the file
    whose players' rules block is rewritten from the report (docs/officials-advice.md), if any. runs.json
    keeps only the runs the report uses."""
    runs = tally_run(out, "", keep_only=RUN_NAMES)
    analyses, choice = {}, {}
    meta: dict = {"studies": {}, "plots": {}, "notes": notes}       # gathered part by part: StudyFindings
    if dirty:
        meta["dirty"] = ", ".join(dirty[:8]) + (f" and {len(dirty) - 8} more" if len(dirty) > 8 else "")
    search = next((s for s in chosen if s.name == "search"), None)
    vrows = validation_rows(search, out) if search else None
    if vrows is not None:
        atomic_to_parquet(vrows, out / "validation_games.parquet", index=False)
        meta["validation"] = study_rated.validation_table(vrows)
        atomic_to_csv(meta["validation"], out / "validation.csv", index=False, float_format="%.6g")
    # what the later cell-by-cell validation and the agreement with the heuristic bot found, where they ran
    for key, name in (("validation_cells", CELLS_TABLE), ("agreement", AGREEMENT_TABLE)):
        if (out / name).is_file():
            meta[key] = pd.read_csv(out / name)
    # the advice follows what the validation by play found (the search study's only: the heuristic bot's own
    # choices were not validated)
    follows = {"search": advice_follows(meta.get("validation"))}
    frames, rows = {}, {}
    for s in chosen:
        df = study_games(s, out)
        if df is not None:
            analyses[s.name], frames[s.name] = _ablation_part(s, df, out, runs, meta, at, against_design), df
        got = study_choices(s, out)
        if got is not None:
            cdf, records = got
            rows[s.name], choice[s.name] = _choice_part(s, cdf, records, out, searchers,
                                                        follows.get(s.name, "unvalidated"))
    if not analyses:
        print("nothing to report yet: run the ablation part first", file=sys.stderr)
        return
    if search and any(turns_folder(out / "raw" / search.name, n).is_dir() for n in search.players):
        turns = load_turns_study(out / "raw" / search.name, search.players)
        atomic_to_parquet(turns, out / "turns_rated.parquet", index=False)
        meta["turns"] = turn_table(turns)
        atomic_to_csv(meta["turns"], out / "turns.csv", index=False, float_format="%.6g")
    if against_design:
        meta["notes"] = meta["notes"] + unfinished_note(
            played_per_tournament(frames.get("search")), {k: c["games"] for k, c in choice.items()})
    comparison = seats = None
    if {"heuristic", "search"} <= set(analyses):
        pair = ("heuristic", "search")
        comparison = bot_comparison({k: analyses[k].usage for k in pair},
                                          {k: analyses[k].ablation for k in pair},
                                          {k: rows[k] for k in pair if k in rows})
        seats = seat_comparison({k: analyses[k] for k in pair})
        atomic_to_csv(comparison, out / "heuristic_vs_search.csv", index=False, float_format="%.6g")
        atomic_to_csv(seats, out / "seats_compared.csv", index=False, float_format="%.6g")
        meta["comparison_plots"] = write_comparison_plot(comparison, ["heuristic", "search"], out)
    findings = StudyFindings(
        analyses, choice or None, comparison, seats, meta.get("validation"), meta.get("validation_cells"),
        meta.get("agreement"), meta.get("turns"), command=command, commit=at, dirty=meta.get("dirty", ""),
        main_study="search", compare=("heuristic", "search"), notes=tuple(meta["notes"]), studies=meta["studies"],
        plots=meta["plots"], comparison_plots=tuple(meta.get("comparison_plots", ())))
    atomic_write_text(out / "report.md", build_report(findings))
    print(f"wrote {out / 'report.md'}")
    if advice is not None:
        # the rules for players (docs/officials-advice.md) come from the same build, so its numbers are the report's
        write_readme_block(advice, readme_block(findings))


def write_readme_block(readme: Path, block: list[str]) -> bool:
    """Replace the README's officials block with `block` (report.readme_block); a README without the block
    is left as it is, with a warning. Whether it was written."""
    if not block:
        return False
    try:
        text = with_readme_block(readme.read_text(encoding="utf-8"), block)
    except StudyError as e:
        print(f"warning: {e}; the README is left as it is", file=sys.stderr)
        return False
    atomic_write_text(readme, text)
    print(f"wrote the players' rules into {readme}")
    return True


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


@dataclass(frozen=True)
class RunOptions:
    """experiments/officials.py's options, read: the output folder, the smoke run (quick), the search
    study's player counts, per-count replacements of the design (budget, games, choice_games,
    choice_iterations, validation_games: {players: n}), the studies to run (only; None: both), the
    validation's cells at every count (ratings; None: VALIDATION_RATINGS) and the search study's bot (an
    mcts spec, check_search_bot: its options over the default search's; default the default search)."""
    out: Path
    quick: bool = False
    players: tuple[int, ...] = (2, 3, 4)
    budget: dict | None = None
    games: dict | None = None
    choice_games: dict | None = None
    choice_iterations: dict | None = None
    only: tuple[str, ...] | None = None
    ratings: tuple[str, ...] | None = None
    validation_games: dict | None = None
    search_bot: BotSpec = MCTS


def run_plan(o: RunOptions) -> Plan:
    """The run's Plan from its options: the design (SEARCH_BUDGET, ...) with the given per-count
    replacements, or the QUICK smoke run; StudyError naming the option for a bad one."""
    if o.quick:
        chosen_all = QUICK
    else:
        chosen_all = studies({**SEARCH_BUDGET, **(o.budget or {})}, {**SEARCH_GAMES, **(o.games or {})},
                             o.choice_games, tuple(sorted(o.players)), check_search_bot(o.search_bot))
    search = next(s for s in chosen_all if s.name == "search")
    searchers = rating_searches(search, o.choice_iterations, every_count=not o.quick)
    chosen = chosen_all
    if o.only:
        unknown = set(o.only) - {s.name for s in chosen_all}
        if unknown:
            raise StudyError(f"unknown study {', '.join(sorted(unknown))}; have "
                             f"{', '.join(s.name for s in chosen_all)}")
        chosen = [s for s in chosen_all if s.name in o.only]
    cells = VALIDATION_RATINGS
    if o.ratings is not None:
        try:
            picked = study_rated.check_cells(o.ratings)
        except StudyError as e:
            raise StudyError(f"--ratings: {e}") from None
        cells = {n: picked for n in (2, 3, 4)}
    vgames = QUICK_VALIDATION_GAMES if o.quick else {**VALIDATION_GAMES, **(o.validation_games or {})}
    vgames = {n: rotation_games(g, n) for n, g in vgames.items() if n in search.players}
    tgames = {n: (1 if o.quick else SEARCH_TURN_GAMES[n]) for n in search.players}
    return Plan(chosen_all, chosen, Path(o.out), search, searchers, cells, vgames, tgames)


def check_search_bot(value: BotSpec) -> BotSpec:
    """The search study's bot, checked: an mcts spec without a budget (--budget sets it) or forbidden
    officials (the study forbids them in turn); StudyError naming the problem."""
    try:
        make_bot(value)                 # an unknown option or a bad value is named here, not at the first game
    except BotSpecError as e:
        raise StudyError(f"--search-bot: {e}") from None
    if value.name != "mcts":
        raise StudyError(f"--search-bot: the study and its ratings search with mcts, not {value.name!r}")
    if value.option("forbid"):
        raise StudyError("--search-bot: the study forbids each official in turn; give a bot with no forbid")
    budget = {"iterations", "time"} & set(value.options)
    if budget:
        raise StudyError(f"--search-bot: give the budget with --budget, not {', '.join(sorted(budget))}")
    return value


def run_parts(plan: Plan, part: str, played_with: str, jobs=None, scheduler: str | None = None) -> None:
    """Play, rate and keep what `part` asks for (every part resumes); played_with: the code this process
    loaded (provenance.code_state when it started)."""
    out = plan.out
    out.mkdir(parents=True, exist_ok=True)
    log = lambda m: print(m, flush=True)       # noqa: E731
    if part in ("ablation", "all"):
        for s in plan.chosen:
            timed(out, s.name, played_with, play_ablation, s, out / "raw" / s.name, jobs, scheduler, log)
    if part in ("choice", "all"):
        for s in plan.chosen:
            timed(out, f"{s.name}_choice", played_with, play_choice, s, {n: plan.searchers[n] for n in s.choice_games},
                  out / "raw" / s.name, jobs, scheduler, log, fresh=True)
    if part in ("validation", "all") and plan.search in plan.chosen:
        timed(out, "validation", played_with, play_validation, plan.search, plan.vgames, plan.ratings,
              out / "raw" / "validation", jobs, scheduler, log)
    if part in ("turns", "all") and plan.search in plan.chosen:
        s = plan.search
        timed(out, f"{s.name}_turns", played_with, play_turns, s, {n: plan.searchers[n] for n in plan.tgames},
              plan.tgames, out / "raw" / s.name, jobs, scheduler, log)
    if part in ("records", "all"):
        kept = keep_records(out / "raw", out / "records")
        print(f"kept the records of {len(kept) // 2} tournaments in {out / 'records'}", flush=True)
