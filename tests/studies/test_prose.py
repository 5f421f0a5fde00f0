"""A report's fixed prose is data (studies.markdown.Prose): Markdown files shipped with the package, one section a
`<!-- key -->` marker, their {fields} filled by the renderers. Every section a renderer names exists, and every
section of a file is named by one (a section no code reads is prose nobody sees)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from thurn_ai.studies.markdown import Prose

OFFICIALS = Path(__file__).resolve().parents[2] / "src" / "thurn_ai" / "studies" / "officials"


def test_a_prose_file_is_read_into_sections_with_their_fields_filled(tmp_path, monkeypatch):
    package = tmp_path / "pkg_prose_demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "text.md").write_text("<!-- A preamble the sections ignore: {not a field} -->\n"
                                     "<!-- head -->\n# {title}\n\nA set {{braces}} of its own.\n\n"
                                     "<!-- note.2 -->\n- one\n- {n:,} two\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    prose = Prose("pkg_prose_demo", "text.md")
    assert set(prose.sections) == {"head", "note.2"}
    assert prose("head", title="Seats") == "# Seats\n\nA set {braces} of its own."      # blank lines around dropped
    assert prose.lines("note.2", n=1200) == ["- one", "- 1,200 two"]
    with pytest.raises(KeyError):
        prose("missing")
    with pytest.raises(KeyError):
        prose("head")                                   # a field left unfilled is an error, not a "{title}"


def _named_sections(code: str) -> set[str]:
    keys = set(re.findall(r'PROSE(?:\.lines)?\(\s*"([\w.-]+)"', code))
    keys |= set(re.findall(r'PROSE\(\s*"([\w.-]+)" if', code)) | set(re.findall(r'else "([\w.-]+)"\)', code))
    for key in re.findall(r'Part\.of\(\s*"([\w.-]+)"', code):
        keys |= {f"q-{key}", f"t-{key}"}
    for a, b in re.findall(r'Part\.of\(\s*"([\w.-]+)" if .*? else "([\w.-]+)"', code):
        keys |= {f"q-{a}", f"t-{a}", f"q-{b}", f"t-{b}"}
    return keys


@pytest.mark.parametrize("name", sorted(p.name for p in (OFFICIALS / "prose").glob("*.md")))
def test_every_section_of_the_officials_prose_is_read_and_every_section_read_exists(name):
    code = {p.stem: p.read_text(encoding="utf-8") for p in OFFICIALS.glob("*.py")}
    owners = {m for m, text in code.items() if f'"prose/{name}"' in text}
    readers = [text for m, text in code.items()        # the owners, and the modules importing their PROSE
               if m in owners or any(re.search(rf"from \.{o} import \(?[^)]*\bPROSE\b", text) for o in owners)]
    assert readers, f"no module reads prose/{name}"
    named = set().union(*(_named_sections(code) for code in readers))
    sections = set(Prose("thurn_ai.studies.officials", f"prose/{name}").sections)
    assert named - sections == set(), f"named but not in prose/{name}"
    assert sections - named == set(), f"in prose/{name} but read by no code"
