"""Perfect-Information Monte Carlo (determinized UCT), the baseline for ISMCTS.

    pimc                          1000 iterations in total, over worlds=10 determinizations
    pimc(iterations=3000,worlds=20,c=0.7,playout=heuristic,reward=win,workers=2)

For each of `worlds` determinizations (the hidden cards re-dealt consistently with what the player knows,
and the deck's future fixed) plain UCT searches that world as if everything were visible; the root visit
counts and values of all worlds are added up and the most-visited move is played. The iteration budget is
the total over all worlds (the same meaning as for mcts, for a fair comparison); a time budget is split
evenly between the worlds. Uses the same compiled tree as ISMCTS (thurn_ai._search.Tree, ismcts=False).
"""
from __future__ import annotations

from ..errors import BotSpecError
from .base import Observation
from .mcts import SearchBot

#: Determinizations per decision: each is a tree and a state built before the search starts, so the count
#: must be bounded (worlds=10**9 filled the memory at 0.7 GB/s); far more than is useful.
MAX_WORLDS = 1000


class PIMCBot(SearchBot):
    spec = "pimc"

    def __init__(self, seed: int = 0, worlds: int = 10, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= MAX_WORLDS:
            raise BotSpecError(f"PIMCBot: worlds must be a whole number from 1 to {MAX_WORLDS}, not {worlds!r}")
        self.worlds = worlds

    def _jobs(self, obs: Observation, seed: int) -> list[tuple]:
        k = self.worlds if self.time else min(self.worlds, self.iterations)
        # a time budget is shared by the worlds; with workers the worlds run that many at a time
        seconds = self.time * min(self.workers, k) / k if self.time else 0.0
        out = []
        for w in range(k):
            world_seed = (seed + w * 0xD1B54A32D192ED03) & 0xFFFFFFFFFFFFFFFF
            world = obs.determinize(world_seed)
            iters = 0 if self.time else self.iterations // k + (1 if w < self.iterations % k else 0)
            out.append((self._tree(world, world_seed ^ 0xA5A5A5A5A5A5A5A5, ismcts=False), iters, seconds))
        return out
