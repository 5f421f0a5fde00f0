"""The numbers of the officials study's results folders, each read off the files its command saved: the
agreement of the heuristic's choices with a search's (results/officials_learned*, officials_default), the
designer's ablations (officials_design), the rule card (officials_card) and the advice (officials_advice).
thurn_ai.studies.pages lists them; results/officials itself is findings.study_numbers."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...game.officials import OFFICIALS
from ..findings import Number, share_rows


def agreement_numbers(out: Path) -> dict[str, Number]:
    df = pd.read_csv(out / "agreement.csv")
    df = df[df.players.astype(str).str.isdigit() & df.official.isin(OFFICIALS)]
    return share_rows(df, lambda r: f"{r.choice}.p{r.players}.{r.official}.agreement", "agreement",
                       "agreement_low", "agreement_high", "offers",
                       lambda r: f"the heuristic's choice equals the search's ({r.choice}), 95% by game")


def default_numbers(out: Path) -> dict[str, Number]:
    """The agreement, and how the re-run on the default search compares with results/officials_learned (the
    same search, seeds and deals, rated before the win maps were refitted for this search): the share of
    decisions whose choices, visits and scores are the same, and how far the refit moved the rated Δ win."""
    numbers = agreement_numbers(out)
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


def design_numbers(out: Path) -> dict[str, Number]:
    """The symmetric ablations' paired differences: the design's (comparison.csv), else its pilot's."""
    from .symmetric_report import numbers
    if (out / "comparison.csv").exists():
        return numbers(pd.read_csv(out / "comparison.csv"), levels=pd.read_csv(out / "levels.csv"))
    return numbers(pd.read_csv(out / "pilot" / "comparison.csv"), prefix="pilot.",
                   levels=pd.read_csv(out / "pilot" / "levels.csv"))


def card_numbers(out: Path) -> dict[str, Number]:
    """The card against the heuristic's rule (baseline.csv), and as a constraint (the design's, a pilot's)."""
    from .card_play import numbers
    tables = {name: pd.read_csv(path) for name, path in (("constraint", out / "constraint.csv"),
                                                         ("pilot.constraint", out / "pilot" / "constraint.csv"))
              if path.exists()}
    return numbers(pd.read_csv(out / "baseline.csv"), tables)


def advice_numbers(out: Path) -> dict[str, Number]:
    """The candidate amendments, the fit and the confirmation (the design's, else a pilot's)."""
    from . import advice_play as ap
    numbers = ap.numbers(ap.read_candidates(out / "candidates.json"))
    for folder, prefix in ((out, ""), (out / "pilot", "pilot.")):
        fit = pd.read_csv(folder / "fit.csv") if (folder / "fit.csv").exists() else None
        stable = (pd.read_csv(folder / "stability.csv").set_index("candidate").chosen
                  if (folder / "stability.csv").exists() else None)
        confirmed = pd.read_csv(folder / "confirm.csv") if (folder / "confirm.csv").exists() else None
        numbers |= ap.numbers({}, fit, stable, confirmed, prefix)
    return numbers
