"""The research wing's Markdown: one table writer and the formats every report prints its numbers in.

A report names its numbers once, here: a share as a percent (`pct`; with its interval, `pct_ci`), a
difference of shares in percentage points with its interval (`pp`), a signed difference in its own unit with
its interval (`num`), a p-value (`p_text`); a missing number (None or NaN) prints as "–". `table` writes a
Markdown table from a header and rows of cells, so no report writes the `|---|` line by hand."""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

#: what a missing number prints as
MISSING = "–"

#: p-values below this are printed as "< 1e-10": further digits carry no information (normal
#: approximations, clustered data, a model's assumptions all fail long before)
P_FLOOR = 1e-10


def missing(*values) -> bool:
    """Whether any of the values is None or NaN."""
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def pct(x, digits: int = 1) -> str:
    """A share as a percent: 0.829 -> '82.9%'."""
    return MISSING if missing(x) else f"{100 * x:.{digits}f}%"


def pct_ci(x, lo, hi, digits: int = 1) -> str:
    """A share with its interval, each as a percent: '82.9% [78.7%, 86.4%]'."""
    return f"{pct(x, digits)} [{pct(lo, digits)}, {pct(hi, digits)}]"


def pp(x, lo=None, hi=None, digits: int = 1) -> str:
    """A difference of shares in percentage points, with its interval when given: '+4.7 pp [+1.4, +8.1]'."""
    if missing(x) or (lo is not None or hi is not None) and missing(lo, hi):
        return MISSING
    text = f"{100 * x:+.{digits}f} pp"
    return text if lo is None else f"{text} [{100 * lo:+.{digits}f}, {100 * hi:+.{digits}f}]"


def num(x, lo, hi, digits: int = 2) -> str:
    """A signed number in its own unit with its interval: '+0.61 [+0.14, +1.07]'."""
    if missing(x, lo, hi):
        return MISSING
    return f"{x:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def p_text(p) -> str:
    """A p-value, two digits; below P_FLOOR '< 1e-10'."""
    if missing(p):
        return MISSING
    return "< 1e-10" if p < P_FLOOR else f"{p:.2g}"


def table(header: Sequence[str], rows: Iterable[Sequence[object]], right: str | Sequence[int] = "") -> list[str]:
    """A Markdown table as lines: the header, the rule, one line a row (cells written with str()).
    right: the columns aligned right, as indexes or a string of column letters ('l'/'r', one a column)."""
    header = list(header)
    if isinstance(right, str):
        right = [i for i, c in enumerate(right) if c == "r"]
    rule = "".join("|---:" if i in right else "|---" for i in range(len(header))) + "|"
    lines = ["| " + " | ".join(header) + " |", rule]
    for row in rows:
        cells = [str(c) for c in row]
        if len(cells) != len(header):
            raise ValueError(f"a row of {len(cells)} cells in a table of {len(header)} columns: {cells}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines
