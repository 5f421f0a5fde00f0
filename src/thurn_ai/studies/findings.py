"""A study's findings as data: named numbers with their intervals, the commit, the command and the games.

Every results folder holds one `findings.json` (`Findings.save`, atomically) beside the data it was computed
from; its README.md is rendered from it (`front_page`), and the numbers the README and docs quote are checked
against it by tests/project/test_docs.py. A number is a `Number` (value, interval, unit, games): its unit
says how it prints (`Number.text`), so a quoted number and its source are compared as the same text."""
from __future__ import annotations

import json
import math
import numbers as numeric
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import ThurnError
from ..fileio import atomic_write_text, load_json
from .markdown import missing, num, p_text, pct, pp, table

#: the file a results folder's findings are saved in
FINDINGS_FILE = "findings.json"


class FindingsError(ThurnError):
    """A findings file that cannot be read, or a number it does not hold."""


def _share(n: Number) -> str:
    if n.lo is None or n.hi is None:
        return pct(n.value, n.digits)
    return f"{pct(n.value, n.digits)} [{100 * n.lo:.{n.digits}f}, {100 * n.hi:.{n.digits}f}]"


def _plain(n: Number) -> str:
    text = f"{n.value:,.{n.digits}f}"
    if n.lo is None or missing(n.lo, n.hi):
        return text
    return f"{text} [{n.lo:,.{n.digits}f}, {n.hi:,.{n.digits}f}]"


#: how each unit prints: a share as a percent, a difference of shares in percentage points (signed; a size:
#: unsigned, e.g. a detectable difference), a signed
#: difference in its own unit, a p-value, a plain number (a count, a rate, a time)
FORMATS = {
    "share": _share,
    "pp": lambda n: pp(n.value, n.lo, n.hi, n.digits),
    "size": lambda n: f"{100 * n.value:.{n.digits}f} pp",
    "difference": lambda n: (f"{n.value:+.{n.digits}f}" if n.lo is None else num(n.value, n.lo, n.hi, n.digits)),
    "p": lambda n: p_text(n.value),
    "number": _plain,
}


#: the most digits a number prints with
MAX_DIGITS = 10


@dataclass(frozen=True)
class Number:
    """One measured number: its value, its interval (lo, hi; None when it has none), its unit (a key of
    FORMATS), the digits it prints with, the games (or positions, runs) behind it, and what it is in words."""
    value: float
    lo: float | None = None
    hi: float | None = None
    unit: str = "number"
    digits: int = 1
    games: int | None = None
    says: str = ""

    def __post_init__(self):
        def real(x) -> bool:
            return isinstance(x, numeric.Real) and not isinstance(x, bool) and math.isfinite(x)

        if not real(self.value) or any(x is not None and not real(x) for x in (self.lo, self.hi)):
            raise FindingsError(f"a number's value and interval are finite numbers, not {self.value!r}, "
                                f"{self.lo!r}, {self.hi!r}")
        if not isinstance(self.digits, numeric.Integral) or isinstance(self.digits, bool) \
                or not 0 <= self.digits <= MAX_DIGITS:
            raise FindingsError(f"a number's digits are 0 to {MAX_DIGITS}, not {self.digits!r}")
        if self.games is not None and (not isinstance(self.games, numeric.Integral) or isinstance(self.games, bool)
                                       or self.games < 0):
            raise FindingsError(f"a number's games are a count, not {self.games!r}")
        if not isinstance(self.says, str):
            raise FindingsError(f"what a number is, in words, is text, not {self.says!r}")
        if not isinstance(self.unit, str) or self.unit not in FORMATS:
            raise FindingsError(f"unknown unit {self.unit!r} (one of {', '.join(FORMATS)})")
        if (self.lo is None) != (self.hi is None):
            raise FindingsError("a number's interval needs both ends (lo and hi) or neither")

    def text(self) -> str:
        """The number as the reports print it: '82.9% [78.7, 86.4]', '+4.7 pp [+1.4, +8.1]', '6.8'."""
        return FORMATS[self.unit](self)


@dataclass(frozen=True)
class Findings:
    """What a study found: its results folder's name, a title, the command that rebuilds it, the commit the
    findings were computed at (and the commits the games were played at), the games behind them by cell or
    part, and the named numbers (a name is dotted, e.g. 'pooled.it1000.win'), in the order they read; its
    status (adopted, closed at a commit, or a benchmark / audit: a line the front page opens with) and its
    runs as runs.json logged them (part, commit, seed, command where the run named them)."""
    study: str
    title: str
    command: str
    commit: str
    numbers: dict[str, Number]
    games: dict[str, int] = field(default_factory=dict)
    played_at: tuple[str, ...] = ()
    status: str = ""
    runs: tuple[dict, ...] = ()

    def number(self, name: str) -> Number:
        """The number called `name`; FindingsError naming the study when it has none."""
        try:
            return self.numbers[name]
        except KeyError:
            raise FindingsError(f"results/{self.study}/{FINDINGS_FILE} has no number {name!r}") from None

    def to_dict(self) -> dict:
        return {"study": self.study, "title": self.title, "status": self.status, "command": self.command,
                "commit": self.commit, "played_at": list(self.played_at), "runs": list(self.runs),
                "games": dict(self.games),
                "numbers": {k: {f: v for f, v in asdict(n).items() if v is not None and v != ""}
                            for k, n in self.numbers.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> Findings:
        """The findings of a findings.json's data, every field checked (FindingsError naming the first
        that is not what it must be)."""
        def bad(what: str) -> FindingsError:
            return FindingsError(f"not a findings file: {what}")

        if not isinstance(data, dict):
            raise bad("not an object")
        for key in ("study", "title", "command", "commit"):
            if not isinstance(data.get(key), str):
                raise bad(f"{key!r} is not text")
        numbers, games = data.get("numbers"), data.get("games", {})
        played_at = data.get("played_at", [])
        if not isinstance(numbers, dict) or not all(isinstance(v, dict) for v in numbers.values()):
            raise bad("'numbers' is not an object of numbers")
        if not isinstance(games, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                  for v in games.values()):
            raise bad("'games' is not an object of counts")
        if not isinstance(played_at, list) or not all(isinstance(c, str) for c in played_at):
            raise bad("'played_at' is not a list of commits")
        runs = data.get("runs", [])
        if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            raise bad("'runs' is not a list of runs")
        if not isinstance(data.get("status", ""), str):
            raise bad("'status' is not text")
        try:
            return cls(study=data["study"], title=data["title"], command=data["command"], commit=data["commit"],
                       numbers={k: Number(**v) for k, v in numbers.items()}, games=dict(games),
                       played_at=tuple(played_at), status=str(data.get("status", "")),
                       runs=tuple(runs))
        except (KeyError, TypeError, ValueError) as e:
            raise bad(str(e)) from None

    def save(self, folder) -> Path:
        """FOLDER/findings.json, written atomically."""
        path = Path(folder) / FINDINGS_FILE
        atomic_write_text(path, json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n")
        return path

    @classmethod
    def load(cls, folder) -> Findings:
        """The findings saved in FOLDER/findings.json; FindingsError when it is missing or malformed."""
        path = Path(folder) / FINDINGS_FILE
        data = load_json(path, "findings file", FindingsError)   # bounded; bad UTF-8, NaN, depth: one error
        try:
            return cls.from_dict(data)
        except FindingsError as e:
            raise FindingsError(f"{path}: {e}") from None

    def table_lines(self) -> list[str]:
        """The numbers as a Markdown table: name, value, games, what it is."""
        return table(["number", "value", "games", "what it is"],
                     ([f"`{k}`", n.text(), "–" if n.games is None else f"{n.games:,}", n.says]
                      for k, n in self.numbers.items()), right="lrr")


def share_rows(df, key, value: str, lo: str, hi: str, games: str, says) -> dict[str, Number]:
    """Shares with their intervals, one a row of a table (a DataFrame): key(row) names each, says(row) says
    what it is; the columns `value`, `lo`, `hi` and `games` hold them."""
    return {key(r): Number(float(getattr(r, value)), float(getattr(r, lo)), float(getattr(r, hi)), "share",
                           games=int(getattr(r, games)), says=says(r)) for r in df.itertuples()}


def front_page(out, findings: Findings, body: Sequence[str] = ()) -> Path:
    """OUT/README.md, the results folder's front page, from its findings: the title, the command and the
    commit, `body` (the study's own words, links to its report), the findings table, then OUT/NOTES.md (the
    hand-written notes) when there is one; written atomically. Also saves the findings beside it."""
    out = Path(out)
    findings.save(out)
    played = f" (played at {', '.join(findings.played_at)})" if findings.played_at else ""
    kind, _, what = findings.status.partition(". ")
    status = [f"**Status: {kind}.** {what}".rstrip(), ""] if findings.status else []
    text = [f"# {findings.title}", "", *status,
            f"The data come from `{findings.command}`{played}. The numbers below were read off them at commit "
            f"{findings.commit} (`python experiments/results_pages.py`) and are `{FINDINGS_FILE}`'s, the file "
            "the docs' quoted numbers are checked against.", ""]
    text += [*body, *([""] if body and body[-1] else [])]
    text += ["## Findings", "", *findings.table_lines(), ""]
    notes = out / "NOTES.md"
    if notes.exists():
        text += [notes.read_text(encoding="utf-8").rstrip(), ""]
    path = out / "README.md"
    atomic_write_text(path, "\n".join(text))
    return path
