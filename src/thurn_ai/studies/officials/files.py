"""The officials study's files: a study's games, tables and plots (save_study / load_study) and its rated
decisions with their tables, examples, advice and plots (save_choice)."""
from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from ...fileio import atomic_to_csv, atomic_to_parquet, path_text, read_bounded
from ...play.tournament.store import MAX_LOG_BYTES
from .advice import advice_table, write_advice_plots
from .choice import example_names, save_example_positions
from .choice_tables import choice_examples, choice_table
from .plan import StudyError
from .plots import write_choice_plots, write_plots
from .tables import Analysis, check_study_data, write_tables

#: where a study's example positions go, under its output folder
POSITIONS_DIR = "positions"


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
    """Write the rated decisions (<prefix>choices.parquet), their table (<prefix>choice_table.csv), the examples where
    the choice matters most (<prefix>choice_examples.csv, and as position files in out_dir/positions/ when `records`
    holds their games: study_records()), and the plots."""
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
