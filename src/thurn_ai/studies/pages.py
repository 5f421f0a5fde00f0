"""Every results folder of the repository, listed in pages.json: its title, the command that made its data,
where its numbers are read off its saved files (a study module's function, "module:function" under
thurn_ai.studies, imported when asked) and its status: adopted (what ships, where), closed at a commit (what
it found, the command that reruns it there), or a benchmark / audit (docs/development.md). `write_page` saves
the findings as findings.json and renders README.md (findings.front_page), with the folder's report
(report.md) linked and its hand-written notes (NOTES.md) appended; a closed study's findings.json is kept as
it closed. `python experiments/results_pages.py` rebuilds them all; tests/project/test_quoted_numbers.py
checks the numbers the README and docs quote against these files."""
from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from .findings import Findings, Number, front_page
from .provenance import commit, read_runs

#: the list of results folders (data: one entry a folder)
LIST = Path(__file__).with_name("pages.json")
#: what each kind of status says, after its name
KINDS = {"benchmark": "A measurement of the package as it is (speed, a yardstick), not a candidate.",
         "audit": "A check of the package's robustness, not a candidate."}


@dataclass(frozen=True)
class Page:
    """A results folder's front page: its title, the command that made its data, where its numbers are read
    ("module:function": a function of the folder returning {name: Number}; None for a closed study, whose
    findings.json is kept as it was when it closed) and its status, the line the page opens with."""
    title: str
    command: str
    numbers: str | None
    status: str

    def read(self, out: Path) -> dict[str, Number]:
        """The folder's numbers, read off its saved files by the study's function."""
        module, function = (self.numbers or "").split(":")
        return getattr(importlib.import_module(f"thurn_ai.studies.{module}"), function)(out)


def status_text(status: str | dict) -> str:
    """A status entry of pages.json in words: 'adopted. <what ships, where>', 'closed at <commit>. <what it
    found> Rerun: `git checkout <commit> && <command>`.', 'benchmark. ...' or 'audit. ...'."""
    if isinstance(status, str):
        return f"{status}. {KINDS[status]}"
    if "adopted" in status:
        return f"adopted. {status['adopted']}"
    at = status["closed_at"]
    return f"closed at {at}. {status['found']} Rerun: `git checkout {at} && {status['rerun']}`."


def _pages() -> dict[str, Page]:
    return {name: Page(e["title"], e["command"], e.get("numbers"), status_text(e["status"]))
            for name, e in json.loads(LIST.read_text(encoding="utf-8")).items()}


#: the front page of every folder of results/
PAGES: dict[str, Page] = _pages()

#: the marker front_page's README starts its second paragraph with: a README without it is hand-written
GENERATED = "The data come from `"


def findings_of(results: Path, name: str, at: str | None = None) -> Findings:
    """The findings of results/NAME read off its saved data (at: the commit they are computed at; the
    checkout's by default); a closed study's as its findings.json keeps them, with today's status."""
    page, out = PAGES[name], Path(results) / name
    if page.numbers is None:
        return replace(Findings.load(out), title=page.title, status=page.status, runs=_runs(out))
    numbers = page.read(out)
    games = {k: n.games for k, n in numbers.items() if n.games is not None}
    return Findings(name, page.title, page.command, at or commit(Path(results).parent), numbers,
                    games=games, played_at=_played_at(out), status=page.status, runs=_runs(out))


#: what findings.json keeps of each run runs.json logged
RUN_KEYS = ("part", "code", "command", "seed", "seeds", "games")


def _runs(out: Path) -> tuple[dict, ...]:
    """The folder's runs as runs.json logged them: part, commit, and the command and seeds where logged."""
    return tuple({k: r[k] for k in RUN_KEYS if r.get(k) not in (None, "")} for r in read_runs(out))


def _played_at(out: Path) -> tuple[str, ...]:
    """The commits runs.json says the folder's games were played at."""
    heads = (r["code"].split()[0] for r in read_runs(out) if r.get("code", "").strip())
    return tuple(dict.fromkeys(h for h in heads if re.fullmatch(r"[0-9a-f]{7,40}", h)))


def _generated(text: str) -> bool:
    """Whether a README is a front page (its second or third paragraph, after a status line, starts with
    GENERATED), not hand-written."""
    lines = text.split("\n")
    return any(line.startswith(GENERATED) for line in lines[2:5])


def write_page(results: Path, name: str, at: str | None = None) -> Path:
    """results/NAME/findings.json and README.md. A hand-written README.md (one front_page did not write) is
    kept first as NOTES.md, which the front page appends; report.md, when there is one, is linked."""
    out = Path(results) / name
    readme, notes = out / "README.md", out / "NOTES.md"
    if readme.exists() and not _generated(readme.read_text(encoding="utf-8")):
        text = readme.read_text(encoding="utf-8").split("\n", 1)[1].lstrip("\n")
        old = notes.read_text(encoding="utf-8") if notes.exists() else ""
        notes.write_text(text.rstrip() + "\n" + ("\n" + old if old else ""), encoding="utf-8")
    body = ["The study's report: [report.md](report.md)."] if (out / "report.md").exists() else []
    return front_page(out, findings_of(results, name, at), body)


def refresh(out, at: str | None = None) -> Path | None:
    """After a study wrote into OUT: its front page and findings, when OUT is a folder of results/ that PAGES
    knows (an experiment writing elsewhere, e.g. a quick run into a temporary folder, gets none)."""
    out = Path(out)
    return write_page(out.parent, out.name, at) if out.name in PAGES and out.parent.name == "results" else None
