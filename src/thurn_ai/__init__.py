"""thurn-ai: a fast, faithful engine and AI toolkit for Thurn und Taxis (and Glanz und Gloria)."""


def _check_built() -> None:
    """The compiled core is built by `pip install` (or in place): say so, instead of 'No module named
    thurn_ai._core', when a checkout was never built (or was built for another Python)."""
    import importlib
    try:
        importlib.import_module(f"{__name__}._core")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}._core":
            raise
        import os
        import sys
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        if os.path.basename(root) == "src":      # the src layout: the checkout is one folder up
            root = os.path.dirname(root)
        raise ImportError(
            f"thurn_ai is not built: its compiled core (thurn_ai._core) is missing for Python "
            f"{sys.version_info.major}.{sys.version_info.minor} in {os.path.dirname(os.path.abspath(__file__))}; "
            f"run `pip install -e .` (or `python setup.py build_ext --inplace`) in {root}",
            name=e.name) from None


_check_built()
from .game.board import Board, load_board
from .errors import (BoardError, BotSpecError, IllegalMoveError, NotationError, PositionError,
                     RulesError, ThurnError)
from .game.state import GameState, new_game
from .game.rules import Rules


def _wire_the_core() -> None:
    """The compiled core imports nothing from the package: notation, positions and the error type it
    raises are handed to it here, from above (see cext/thurn_ai/_core.pyx, 'what the layers above
    provide')."""
    from . import _core, position
    from .game import notation
    _core.install(notation_error=NotationError, illegal_move_error=notation.illegal_move_error,
                  parse_move=notation.parse_move, move_to_str=notation.move_to_str,
                  position_to_dict=position.position_to_dict)


_wire_the_core()


# Modules that moved into the floors' folders (issue 23), old name -> new name. For one release the old
# names still import, with a DeprecationWarning saying where the module went; then this table goes.
MOVED = {
    "board": "game.board", "rules": "game.rules", "notation": "game.notation", "officials": "game.officials",
    "position_read": "position.read", "position_check": "position.check", "position_build": "position.build",
    "position_write": "position.write", "position_files": "position.files",
    "match": "play.match", "analysis": "play.analysis", "tournament": "play.tournament",
    "bench": "play.bench", "bench_search": "play.bench", "workers": "play.workers",
    "plots": "stats.plots", "draw": "render.board",
    "officials_study": "studies.officials", "officials_study_plan": "studies.officials.plan",
    "officials_study_tables": "studies.officials.tables", "officials_study_choice": "studies.officials.choice",
    "officials_study_report": "studies.officials.report", "officials_study_plots": "studies.officials.plots",
    "openspiel": "adapters.openspiel", "openspiel_encoding": "adapters.encoding",
    "pettingzoo": "adapters.pettingzoo", "gym": "adapters.gym",
}


class _MovedModules:
    """Import hook for the names in MOVED: `import thurn_ai.openspiel` imports thurn_ai.adapters.openspiel
    (the same module object, so its side effects and attributes are the new module's) and warns."""

    def __init__(self):
        self._specs = {}

    def find_spec(self, name, path=None, target=None):
        old = name.removeprefix(__name__ + ".")
        if old == name or old not in MOVED:      # first: this hook sees every import of the process
            return None
        return _importlib_util.spec_from_loader(name, self)

    def create_module(self, spec):
        new = f"{__name__}.{MOVED[spec.name.removeprefix(__name__ + '.')]}"
        _warnings.warn(f"{spec.name} moved to {new}; import it from there (the old name goes in the next "
                       f"release)", DeprecationWarning, stacklevel=2)   # warnings skips the import system's frames
        module = _importlib.import_module(new)
        self._specs[new] = module.__spec__      # the import system sets the old name's spec on it: put it back
        return module

    def exec_module(self, module):
        module.__spec__ = self._specs.pop(module.__name__)


import importlib as _importlib  # noqa: E402
import importlib.util as _importlib_util  # noqa: E402
import sys as _sys  # noqa: E402
import warnings as _warnings  # noqa: E402
_sys.meta_path.insert(0, _MovedModules())    # before any other finder (an editable install of another checkout)

__version__ = "0.1.0"
__all__ = ["Board", "load_board", "Rules", "GameState", "new_game", "ThurnError", "BoardError",
           "RulesError", "NotationError", "IllegalMoveError", "PositionError", "BotSpecError"]
