"""The officials study: what each official is worth, to whom and when, and whether the first seat wins more.

The design and statistics are docs/officials.md's; the modules are listed in docs/architecture.md. Everything
below the runner works on a DataFrame with one row per player per game (plan.CANONICAL_COLUMNS plus
`uses_<official>_<stage>`), so reports rebuild from saved data. This face holds the calls a user makes
(`__all__`); the statistics (Wilson, Newcombe, Welch, t intervals) are in thurn_ai.stats.summary."""
from __future__ import annotations

from .choice import run_choice_study
from .files import load_study, save_choice, save_study
from .plan import StudyError, run_ablation, study_bots
from .rated import run_validation
from .report import build_report
from .report_text import format_text
from .tables import analyse
from .turn_choice import run_turns_study

__all__ = ["StudyError", "study_bots", "run_ablation", "load_study", "analyse", "save_study", "build_report",
           "format_text", "run_choice_study", "save_choice", "run_turns_study", "run_validation"]
