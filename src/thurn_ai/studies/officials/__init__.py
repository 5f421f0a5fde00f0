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
  game phase (early / middle / late by houses placed, thurn_ai.game.officials.game_stage).
* **Seat advantage**: win rate per seat, over all games of a study (seats rotate, so every seat sees the
  same mix of bots), with Wilson CIs and a chi-square test of equal seats, next to the WBC record.

Everything below the runner works on a plain DataFrame with one row per player per game (the *canonical*
columns in CANONICAL_COLUMNS plus `uses_<official>_<phase>`), so reports can be rebuilt from saved data.

The study is split by job; this module is its public face (every name below) and its files:
    officials_study_plan     the conditions, seeds and games; playing or loading them (run_ablation)
    officials_study_tables   usage, ablation, pairs, seats, WBC comparison (analyse); the statistics
                             helpers (Wilson, Newcombe, Welch, t intervals) are in thurn_ai/stats/summary.py
    officials_study_report   findings, the markdown report, the terminal text
    officials_study_plots    the PNG figures
    officials_study_choice   value at the moment of choice: the search rates, at each decision where an
                             official is on offer, the best move with it and the best without
    choice_tables            the rated decisions' tables (both ratings, medians, the last round apart)
    design                   games fixed from the precision wanted, Holm, paired deals, robust summaries
    rated                    validation by play: the `rated` bot follows the rating at every offer
"""
from __future__ import annotations

import io

from pathlib import Path

import pandas as pd

from ...fileio import atomic_to_csv, atomic_to_parquet, path_text, read_bounded
from ...play.tournament.store import MAX_LOG_BYTES
from ...game.officials import OFFICIALS, STAGES
from .choice import (ChoiceSettings, example_names, load_choice_study, run_choice, run_choice_study,
                     save_example_positions, study_records)
from .choice_tables import choice_examples, choice_table, win_unit
from .advice import advice_lines, advice_table, write_advice_plots
from .design import games_to_separate, holm, paired, paired_differences
from .turn_choice import TurnSettings, load_turns_study, run_turns_study, turn_section, turn_table, turns_folder
from .rated import CELLS, RATINGS, RatedBot, rated_spec, run_validation, validation_games, validation_table
from .plan import (CANONICAL_COLUMNS, CONTROL, OFFICIAL_LABEL, USE_COLUMNS, Condition, StudyError,
                                   bot_for, choice_bots, load_ablation, parse_budget, parse_officials, parse_players,
                                   phase_turns, plan, rotation_games, run_ablation, standardize, study_board_file,
                                   study_bots, study_spec, turns_column, use_column, with_forbid, with_phase_turns)
from .plots import write_choice_plots, write_comparison_plot, write_plots
from .report import (build_report, choice_report, control_facts, findings, format_choice_text,
                                     format_text, num, pct, player_summary, pp, readme_block, wbc_sentence,
                                     with_readme_block)
from .tables import (WBC_FIRST_SEAT, WBC_FIRST_SEAT_2024, Analysis, ablation_table, analyse,
                                     bot_comparison, check_study_data, pairwise_table, seat_comparison, seat_table,
                                     substitution_table, usage_table, wbc_comparison, write_tables)
from ...stats.summary import CONFIDENCE, mean_ci, mean_interval, newcombe, welch, wilson_interval

__all__ = ["OFFICIALS", "STAGES", "CONTROL", "OFFICIAL_LABEL", "CANONICAL_COLUMNS", "USE_COLUMNS",
           "WBC_FIRST_SEAT", "WBC_FIRST_SEAT_2024", "CONFIDENCE", "StudyError", "Condition", "Analysis",
           "use_column", "turns_column", "with_forbid", "parse_officials", "parse_players", "plan",
           "rotation_games", "phase_turns", "with_phase_turns", "standardize", "study_board_file",
           "run_ablation", "load_ablation", "wilson_interval", "mean_interval", "newcombe", "mean_ci", "welch",
           "check_study_data", "usage_table", "substitution_table", "ablation_table", "pairwise_table",
           "seat_table", "wbc_comparison", "analyse", "pct", "pp", "num", "findings", "build_report",
           "control_facts", "wbc_sentence", "format_text", "write_plots", "write_tables", "save_study",
           "load_study", "ChoiceSettings", "run_choice", "run_choice_study", "load_choice_study", "choice_table",
           "choice_examples", "save_example_positions", "study_records", "save_choice", "study_spec",
           "study_bots", "parse_budget", "bot_for", "bot_comparison", "seat_comparison", "player_summary",
           "write_choice_plots", "write_comparison_plot", "POSITIONS_DIR", "choice_report",
           "format_choice_text", "choice_bots", "win_unit", "games_to_separate", "holm", "paired",
           "paired_differences", "CELLS", "RATINGS",
           "RatedBot", "rated_spec", "run_validation", "validation_games", "validation_table",
           "advice_table", "advice_lines", "write_advice_plots", "TurnSettings", "run_turns_study",
           "load_turns_study", "turn_table", "turn_section", "turns_folder", "readme_block", "with_readme_block"]

#: where a study's example positions go, under its output folder
POSITIONS_DIR = "positions"


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
    try:          # bounded, a regular file only (a path to /dev/zero or a FIFO is one error)
        data = io.BytesIO(read_bounded(p, "study data file", StudyError, MAX_LOG_BYTES))
    except FileNotFoundError:
        raise StudyError(f"{path_text(path)}: no such file") from None
    try:
        df = pd.read_parquet(data) if p.suffix == ".parquet" else pd.read_csv(data)
    except Exception as e:  # pyarrow and the CSV reader raise many kinds; all mean "not readable"
        raise StudyError(f"cannot read study data from {path_text(path)}: {e}") from None
    try:
        check_study_data(df)
    except StudyError as e:        # name the file
        raise StudyError(f"{path_text(path)}: {e}") from None
    return df


def save_choice(df: pd.DataFrame, out_dir, records: dict | None, prefix: str = "", title: str = "",
                per_official: int = 3, follow: str = "unvalidated") -> dict:
    """Write the rated decisions (<prefix>choices.parquet), their table (<prefix>choice_table.csv), the
    examples where the choice matters most (<prefix>choice_examples.csv, and as position files in
    out_dir/positions/ when `records` holds their games: study_records()), and the plots. Returns what
    build_report's choice section needs: {'table', 'examples' (with a 'file' column), 'plots', 'advice'
    (advice.advice_table, also saved as <prefix>advice.csv; follow: whose choices it follows, as the
    validation by play decided: report_validation.advice_follows), 'advice_plots'}."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_to_parquet(df, out_dir / f"{prefix}choices.parquet", index=False)
    table = choice_table(df)
    atomic_to_csv(table, out_dir / f"{prefix}choice_table.csv", index=False, float_format="%.6g")
    examples = choice_examples(df, per_official)
    if records is not None and len(examples):
        names = save_example_positions(examples, records, out_dir / POSITIONS_DIR, prefix)
        examples = examples.assign(file=[f"{POSITIONS_DIR}/{n}" for n in names])
    else:   # no games to replay (a report rebuilt from the saved rows): link the files saved with them
        names = example_names(examples, prefix)
        examples = examples.assign(file=[f"{POSITIONS_DIR}/{n}" if (out_dir / POSITIONS_DIR / n).exists() else None
                                         for n in names])
    atomic_to_csv(examples, out_dir / f"{prefix}choice_examples.csv", index=False, float_format="%.6g")
    plots = write_choice_plots(table, df, out_dir, prefix, title)
    advice = advice_table(df, follow)
    atomic_to_csv(advice, out_dir / f"{prefix}advice.csv", index=False, float_format="%.6g")
    return {"table": table, "examples": examples, "plots": plots, "advice": advice,
            "advice_plots": write_advice_plots(advice, out_dir, prefix)}
