"""thurn-ai: a fast, faithful engine and AI toolkit for Thurn und Taxis (and Glanz und Gloria)."""
from .board import Board, load_board
from .errors import (BoardError, BotSpecError, IllegalMoveError, NotationError, PositionError,
                     RulesError, ThurnError)
from .game import GameState, new_game
from .rules import Rules

__version__ = "0.1.0"
__all__ = ["Board", "load_board", "Rules", "GameState", "new_game", "ThurnError", "BoardError",
           "RulesError", "NotationError", "IllegalMoveError", "PositionError", "BotSpecError"]
