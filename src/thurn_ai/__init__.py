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


__version__ = "0.1.0"
__all__ = ["Board", "load_board", "Rules", "GameState", "new_game", "ThurnError", "BoardError",
           "RulesError", "NotationError", "IllegalMoveError", "PositionError", "BotSpecError"]
