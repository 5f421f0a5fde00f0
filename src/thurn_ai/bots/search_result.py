"""What a tree search returns (SearchBot.search): typed values, built once from the compiled trees' root
statistics at the Python boundary (the compiled hot path keeps its own arrays)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RootMove:
    """One move of the decision at hand, as the search rated it: move (its code) and notation; visits and
    share (visits / all root visits); win_prob, the share of playouts through the move that the player won
    (an evaluation's estimate for those cut short); mean_score, their mean final (or evaluated) score; value,
    the mean reward the search maximised; mean_table, the other players' mean final (or evaluated) score in
    those playouts (the table a player's margin is measured against: the game review's unit)."""
    move: int
    notation: str
    visits: int
    share: float
    win_prob: float
    mean_score: float
    value: float
    mean_table: float = 0.0

    @property
    def mean_margin(self) -> float:
        """The player's expected final margin over the table: mean_score - mean_table."""
        return self.mean_score - self.mean_table

    def to_dict(self) -> dict:
        """JSON form: the fields by name, in this order."""
        return {"move": self.move, "notation": self.notation, "visits": self.visits, "share": self.share,
                "win_prob": self.win_prob, "mean_score": self.mean_score, "value": self.value,
                "mean_table": self.mean_table}


@dataclass(frozen=True)
class SearchResult:
    """One search of a decision: `moves`, the root moves best first (most visits; ties by value, then by
    move code, so the order is reproducible); `trees`, the compiled trees searched (their root statistics
    were added up: a line is read from the one that visited the best move most); `iterations`, the
    iterations run over all trees; `carried`, the root visits the trees held before it from the searcher's
    previous decision of the turn (reuse=, thurn_ai.bots.mcts; 0 for a fresh tree); `allotted`, with
    spend=game what the game's bank allotted the decision (iterations, or seconds with game_time=; else 0)."""
    moves: tuple[RootMove, ...]
    trees: tuple
    iterations: int
    carried: int = 0
    allotted: float = 0

    @property
    def best(self) -> RootMove | None:
        """The most visited move (None when the search rated no move)."""
        return self.moves[0] if self.moves else None

    def to_dict(self) -> dict:
        """JSON form: {'analysis': [each move's to_dict()], 'iterations': n} (the trees are not data)."""
        return {"analysis": [m.to_dict() for m in self.moves], "iterations": self.iterations}
