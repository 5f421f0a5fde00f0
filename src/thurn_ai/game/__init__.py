"""The game floor: the board and rules (data), move notation, the officials, and the game state.

    board       a board file: cities, provinces, routes, tiles (boards/*.json are the packaged boards)
    rules       the rules of one game (players, board, variant) and the game's fixed numbers
    state       GameState and new_game: the compiled core's state with its Python API
    notation    moves as text and back, and why a move is illegal
    officials   which official a move uses, and the game's phases

Nothing here imports a floor above (see docs/architecture.md).
"""
from .state import CloseAward, CloseLog, GameState, new_game

__all__ = ["GameState", "new_game", "CloseAward", "CloseLog"]
