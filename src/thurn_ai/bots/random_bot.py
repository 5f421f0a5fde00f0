"""The uniform random bot: every legal move equally likely."""
from __future__ import annotations

from .base import Bot, Observation


class RandomBot(Bot):
    spec = "random"

    def choose(self, obs: Observation) -> int:
        moves = self.allowed_moves(obs.state)
        return moves[self.rng.randrange(len(moves))]
