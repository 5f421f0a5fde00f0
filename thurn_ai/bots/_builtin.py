"""Registers the built-in bots beyond 'random'. Each bot module is one algorithm."""
from .spec import register

# Bots are added here as they are written: register("greedy", GreedyBot), ...

from .greedy import GreedyBot  # noqa: E402

register("greedy", GreedyBot)

from .heuristic import HeuristicBot  # noqa: E402

register("heuristic", HeuristicBot)

from .human import HumanBot  # noqa: E402

register("human", HumanBot)

from .mcts import MCTSBot  # noqa: E402
from .pimc import PIMCBot  # noqa: E402

register("mcts", MCTSBot)
register("pimc", PIMCBot)
