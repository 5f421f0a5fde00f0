"""The officials study of one bot, as `thurn-ai officials` runs it: its options as one value (`Parameters`)
and the one function that plays, rates and reports the part they ask for (`run`); the command line only
reads its options into Parameters and prints what `run` shows. The committed two-bot study
(experiments/officials.py) is `run.run_plan` / `run.run_parts` over the same `run.Study` and its parts."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...bots.spec import BotSpec
from ...fileio import atomic_write_text, claim_folder
from ...game.officials import OFFICIALS
from . import run as study_run
from .choice import study_records
from .choice_tables import choice_table
from .files import load_study, save_choice, save_study
from .findings import StudyFindings
from .plan import StudyError, choice_bots, study_board_file, study_bots, with_forbid
from .rated import CELLS, RATINGS, validation_table
from .report import build_report, choice_report
from .report_tables import format_choice_text
from .report_text import format_text
from .report_validation import validation_section
from .tables import analyse
from .turn_choice import turn_section, turn_table

PARTS = ("ablation", "choice", "turns", "validation", "all")
#: The empty file that marks an --out folder as made by the command (which then may rewrite its files).
OUT_MARK = ".thurn-ai-officials"

#: show(text, tables): a part's text and its tables (DataFrames or plain data); note(text): a line about
#: files written; log(text): progress (or None)
Show = Callable[[str, dict], None]
Note = Callable[[str], None]


@dataclass(frozen=True)
class Parameters:
    """One bot's study: its bot (each official forbidden for it in turn; with `budget` iterations per
    decision by player count), the part to run, the player counts and officials, the games of each part,
    the seeds, the board (Rules' keywords), where to write (out; None: print only) or the saved games to
    re-analyse (from_path: then no bot, the saved games name theirs), and the command line that reproduces
    it (for the report)."""
    bot: BotSpec | None
    part: str = "ablation"
    players: tuple[int, ...] = (2, 3, 4)
    officials: tuple[str, ...] = OFFICIALS
    games: int = 100
    budget: str | None = None
    choice_games: int = 10
    choice_iterations: int | None = None
    validation_games: int | None = None
    controls: bool = False
    seed: int = 0
    jobs: int | None = None
    rules_kwargs: dict = field(default_factory=dict)
    out: Path | None = None
    from_path: Path | None = None
    quiet: bool = False
    command: str = ""

    def __post_init__(self):
        if self.part not in PARTS:
            raise StudyError(f"part {self.part!r}: one of {', '.join(PARTS)}")


def check_out(part: str, out) -> None:
    """StudyError when the part keeps records (choice, turns, all) and there is no out folder to keep them."""
    if part not in ("ablation", "validation") and not out:
        raise StudyError(f"--part {part} needs --out: the games' records and the rated decisions are kept there")


def run(p: Parameters, show: Show, note: Note, log=None) -> None:
    """Play, rate and report the part `p` asks for (every part resumes from p.out/raw)."""
    if p.out or (p.from_path and str(p.from_path).endswith(".parquet")):     # its data files are Parquet
        from ...extras import need
        need("parquet", "thurn-ai officials --out (its games.parquet and choices.parquet)", StudyError)
    if p.out:
        claim_folder(p.out, OUT_MARK, "--out", StudyError)     # before any game is played
    if p.from_path:
        if p.part != "ablation":
            raise StudyError("--from re-analyses saved ablation games: use it with --part ablation")
        df = load_study(p.from_path)
        name = df.loc[~df.restricted, "bot"].iloc[0]  # the full bot's spec
        _finish({name: analyse(df)}, {name: df}, None, p.out, name, {}, show, note)
        return
    check_out(p.part, p.out)
    if p.bot is None:
        raise StudyError("no bot to play: give one, or saved games to re-analyse")
    bots = study_bots(p.bot, p.players, p.budget)          # checks the spec and the budget before any game
    for spec in bots.values():
        with_forbid(spec, p.officials[0])
    searchers = choice_bots(bots, p.choice_iterations)
    out = Path(p.out) if p.out else None
    raw = out / "raw" if out else None
    texts = {n: str(s) for n, s in bots.items()}
    name = str(p.bot) if len(set(texts.values())) > 1 else next(iter(texts.values()))
    study = study_run.Study(name, p.bot, p.players, p.games, budget=p.budget,
                            choice_games={n: p.choice_games for n in p.players}, officials=p.officials,
                            seed=p.seed, rules_kwargs=p.rules_kwargs)
    progress = not p.quiet
    if p.part == "validation":
        _validation(study, p, raw, show, note, log)
        return
    analyses, frames = {}, {}
    if p.part in ("ablation", "all"):
        df = study_run.play_ablation(study, raw, p.jobs, log=log, progress=progress, resume=bool(p.out))
        analyses[name], frames[name] = analyse(df), df
    choice = None
    if p.part in ("choice", "all") and out and raw:     # (check_out: these parts have an out folder)
        cdf = study_run.play_choice(study, searchers, raw, p.jobs, log=log, progress=progress)
        ctable = choice_table(cdf)
        show(format_choice_text(ctable), {"choice": ctable})
        records = study_records(raw, cdf, study_board_file(p.rules_kwargs))
        choice = {name: {**save_choice(cdf, out, records, title=name), "search": searchers,
                         "games": {n: int(cdf[cdf.players == n].game.nunique()) for n in p.players}}}
    if p.part in ("turns", "all") and out and raw:
        _turns(study, p, out, searchers, show, note, log)
        if p.part == "turns":
            return
    bot_text = "; ".join(f"{n} players `{s}`" for n, s in texts.items()) if len(set(texts.values())) > 1 \
        else str(p.bot)
    _finish(analyses, frames, choice, p.out, name, {"command": p.command, "studies": {name: {
        "bot": bot_text, "games": p.games, "seed": p.seed}}}, show, note)


def _turns(study, p: Parameters, out: Path, searchers, show: Show, note: Note, log) -> None:
    """The turn question on the first choice_games control games of each count: shown, and written to
    OUT/turns.csv (the table) and OUT/turns.md (its section)."""
    df = study_run.play_turns(study, searchers, study.choice_games, out / "raw", p.jobs, log=log, progress=not p.quiet)
    table = turn_table(df)
    text = "\n".join(turn_section(table))
    show(text, {"turns": table})
    atomic_write_text(out / "turns.csv", table.to_csv(index=False))
    atomic_write_text(out / "turns.md", text + "\n")
    note(f"wrote {p.out}/turns.csv and turns.md")


def _validation(study, p: Parameters, raw, show: Show, note: Note, log) -> None:
    """The validation by play: the rated bot against the bot at each count, both ratings (and with controls
    their controls); shown, and with an out folder written to OUT/validation.csv (the table) and
    OUT/validation.md (its section)."""
    rows = study_run.play_validation(study, p.validation_games, CELLS if p.controls else RATINGS,
                                     None if raw is None else raw / "validation", p.jobs, log=log,
                                     progress=not p.quiet)
    table = validation_table(rows)
    text = "\n".join(validation_section(table, None))
    show(text, {"validation": table})
    if p.out:
        atomic_write_text(Path(p.out) / "validation.csv", table.to_csv(index=False))
        atomic_write_text(Path(p.out) / "validation.md", text + "\n")
        note(f"wrote {p.out}/validation.csv and validation.md")


def _finish(analyses: dict, frames: dict, choice, out, name: str, meta_extra: dict, show: Show, note: Note) -> None:
    """Show the ablation's text and write the report (and the ablation's files) to out, if given."""
    for key, a in analyses.items():
        prefix = f"{key}: " if len(analyses) > 1 else ""
        show(format_text(a), {**{prefix + k: t for k, t in a.tables().items()}, prefix + "wbc": a.wbc})
    if not out:
        return
    plots = {key: save_study(frames[key], a, out, title=key) for key, a in analyses.items()}
    findings = StudyFindings(analyses, choice, title=f"What the officials are worth: {name}", plots=plots,
                             main_study=name, **meta_extra)
    text = build_report(findings) if analyses else choice_report(findings)
    atomic_write_text(Path(out) / "report.md", text)
    note(f"wrote {out}/report.md" + (", games.parquet, tables and plots" if analyses else "")
         + (", choices.parquet, choice table, plots and example positions" if choice else ""))
