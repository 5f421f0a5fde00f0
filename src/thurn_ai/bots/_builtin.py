"""The built-in bots by name. Each bot module is one algorithm."""


def register_builtin(register) -> None:
    from .anchors import anchor_bots
    from .greedy import GreedyBot
    from .heuristic import HeuristicBot
    from .human import HumanBot
    from .mcts import MCTSBot
    from .pimc import PIMCBot
    from .racer import CloserBot, RacerBot
    from .random_bot import RandomBot

    for name, cls in (("random", RandomBot), ("greedy", GreedyBot), ("heuristic", HeuristicBot),
                      ("human", HumanBot), ("mcts", MCTSBot), ("pimc", PIMCBot), ("racer", RacerBot),
                      ("closer", CloserBot)):
        register(name, cls)
    for name, cls in anchor_bots().items():
        register(name, cls)
