"""The modules that moved into the floors' folders (issue 23) keep their old names for one release: the old
name imports the new module itself and warns where it went (thurn_ai.MOVED)."""
from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import thurn_ai

ROOT = Path(__file__).resolve().parents[2]
NEEDS = {"openspiel": "pyspiel", "pettingzoo": "pettingzoo", "gym": "gymnasium"}


@pytest.mark.parametrize("old", sorted(thurn_ai.MOVED))
def test_an_old_name_is_the_new_module_and_says_where_it_went(old):
    if old in NEEDS:
        pytest.importorskip(NEEDS[old])
    new = f"thurn_ai.{thurn_ai.MOVED[old]}"
    sys.modules.pop(f"thurn_ai.{old}", None)        # imported before by another test: import it afresh
    with pytest.warns(DeprecationWarning, match=rf"thurn_ai\.{old} moved to {new}\b"):
        module = importlib.import_module(f"thurn_ai.{old}")
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new


def test_the_old_names_are_the_modules_that_are_gone():
    # an alias never hides a module that exists: every old name is free, every new name is a module
    for old, new in thurn_ai.MOVED.items():
        assert importlib.util.find_spec(f"thurn_ai.{new}").origin.startswith(thurn_ai.__path__[0])
        assert not any((importlib.resources.files("thurn_ai") / f"{old}{ext}").is_file() for ext in (".py", ""))


def test_an_unknown_name_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("thurn_ai.no_such_module")


def test_the_documented_imports_work():
    from thurn_ai.game import CloseLog, new_game
    from thurn_ai.position import load_position, position_from_dict, position_to_dict  # noqa: F401
    from thurn_ai.stats import summarize  # noqa: F401
    assert new_game is thurn_ai.new_game and CloseLog.__module__ == "thurn_ai.game.state"


def test_the_old_openspiel_name_still_registers_the_game():
    pytest.importorskip("pyspiel")
    code = ("import thurn_ai.openspiel, pyspiel\n"
            "print(thurn_ai.openspiel.__file__)\n"
            "print(pyspiel.load_game('thurn_und_taxis').num_players())")
    run = subprocess.run([sys.executable, "-W", "always::DeprecationWarning", "-c", code], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    file, players = run.stdout.split()
    assert file == str(ROOT / "src" / "thurn_ai" / "adapters" / "openspiel.py") and players == "2"
    assert "thurn_ai.openspiel moved to thurn_ai.adapters.openspiel" in run.stderr


def test_every_old_name_the_docs_showed_is_kept():
    shown = {"analysis", "openspiel", "openspiel_encoding", "pettingzoo", "gym", "match", "tournament", "notation",
             "officials", "board", "rules", "draw", "plots", "officials_study", "workers", "bench", "bench_search"}
    assert shown - set(thurn_ai.MOVED) == set()
