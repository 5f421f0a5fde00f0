"""The officials study: what each official is worth, to whom and when, and whether the first seat wins more.

Design (docs/officials.md explains the choices):

* For each player count n there is a **control** tournament (n copies of the full bot) and, for each
  official, an **ablation** tournament: one seat plays the bot with that official forbidden, the other
  n - 1 seats play the full bot. Seats rotate, so the restricted bot sits in every seat equally often.
* **Δ win rate** = the restricted bot's win rate - 1/n. In a field of identical full bots each player wins
  exactly 1/n of the games (one winner per game), so the baseline has no sampling error; the 95% CI is the
  Wilson interval of the restricted bot's win rate shifted by 1/n.
* **Δ mean score** = the restricted bot's mean score - the full bot's mean score per seat in the control
  games (Welch t interval). The control's unit is one game (the mean over its seats), because the seats of
  one game are not independent of each other.
* **Usage** is counted in the control games (the full bot as it plays): uses per player per game in each
  game phase (early / middle / late by houses placed, thurn_ai.officials.game_phase).
* **Seat advantage**: win rate per seat, over all games of a study (seats rotate, so every seat sees the
  same mix of bots), with Wilson CIs and a chi-square test of equal seats, next to the WBC record.

Everything below the runner works on a plain DataFrame with one row per player per game (the *canonical*
columns in CANONICAL_COLUMNS plus `uses_<official>_<phase>`), so reports can be rebuilt from saved data.

The study is split by job; this module is its public face (every name below) and its files:
    officials_study_plan     the conditions, seeds and games; playing or loading them (run_ablation)
    officials_study_tables   usage, ablation, pairs, seats, WBC comparison (analyse); the statistics
                             helpers (Wilson, Newcombe, Welch, t intervals) are in thurn_ai/stats.py
    officials_study_report   findings, the markdown report, the terminal text
    officials_study_plots    the PNG figures
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .fileio import atomic_to_parquet
from .officials import OFFICIALS, PHASES
from .officials_study_plan import (CANONICAL_COLUMNS, CONTROL, OFFICIAL_LABEL, USE_COLUMNS, Condition, StudyError,
                                   load_ablation, parse_officials, parse_players, phase_turns, plan,
                                   rotation_games, run_ablation, standardize, study_board_file, turns_column,
                                   use_column, with_forbid, with_phase_turns)
from .officials_study_plots import write_plots
from .officials_study_report import (build_report, control_facts, findings, format_text, num, pct, pp,
                                     wbc_sentence)
from .officials_study_tables import (WBC_FIRST_SEAT, WBC_FIRST_SEAT_2024, Analysis, ablation_table, analyse,
                                     check_study_data, pairwise_table, seat_table, substitution_table,
                                     usage_table, wbc_comparison, write_tables)
from .stats import CONFIDENCE, mean_ci, mean_interval, newcombe, welch, wilson_interval

__all__ = ["OFFICIALS", "PHASES", "CONTROL", "OFFICIAL_LABEL", "CANONICAL_COLUMNS", "USE_COLUMNS",
           "WBC_FIRST_SEAT", "WBC_FIRST_SEAT_2024", "CONFIDENCE", "StudyError", "Condition", "Analysis",
           "use_column", "turns_column", "with_forbid", "parse_officials", "parse_players", "plan",
           "rotation_games", "phase_turns", "with_phase_turns", "standardize", "study_board_file",
           "run_ablation", "load_ablation", "wilson_interval", "mean_interval", "newcombe", "mean_ci", "welch",
           "check_study_data", "usage_table", "substitution_table", "ablation_table", "pairwise_table",
           "seat_table", "wbc_comparison", "analyse", "pct", "pp", "num", "findings", "build_report",
           "control_facts", "wbc_sentence", "format_text", "write_plots", "write_tables", "save_study",
           "load_study"]


# ----------------------------------------------------------------------------------------- files

def save_study(df: pd.DataFrame, a: Analysis, out_dir, prefix: str = "", title: str = "") -> list[str]:
    """Write the study's rows (<prefix>games.parquet), its tables (CSV) and plots (PNG) to out_dir;
    returns the plot file names (relative to out_dir)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_to_parquet(df, out_dir / f"{prefix}games.parquet", index=False)
    write_tables(a, out_dir, prefix)
    return write_plots(a, out_dir, prefix, title)


def load_study(path) -> pd.DataFrame:
    """Study rows saved by save_study (Parquet) or as CSV; StudyError if unreadable or not study data."""
    p = Path(path)
    if not p.is_file():
        raise StudyError(f"{path}: no such file")
    try:
        df = pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_csv(p)
    except Exception as e:  # pyarrow and the CSV reader raise many kinds; all mean "not readable"
        raise StudyError(f"cannot read study data from {path}: {e}") from None
    check_study_data(df)
    return df
