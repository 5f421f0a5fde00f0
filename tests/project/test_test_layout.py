"""The tests' folders mirror the package (docs/architecture.md, "Lint, types and the tests' layout"): every
test module lives in a folder named for a folder of src/thurn_ai/, or in core/ (the compiled core and the
search) or project/ (the repository as a whole); every test folder is a package, so that two folders may
hold modules of the same name.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
PKG = ROOT / "src" / "thurn_ai"
NOT_PACKAGE_FOLDERS = {"core", "project"}


def test_every_test_module_is_in_a_folder_named_for_the_package():
    package_folders = {p.parent.name for p in PKG.glob("*/__init__.py")}
    at_top = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert at_top == [], "move these into the folder of what they test"
    folders = {p.relative_to(TESTS).parts[0] for p in TESTS.rglob("test_*.py")}
    assert folders - package_folders - NOT_PACKAGE_FOLDERS == set()


def test_every_test_folder_is_a_package():
    folders = {p.parent for p in TESTS.rglob("test_*.py")} | {TESTS}
    assert sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").is_file()) == []
