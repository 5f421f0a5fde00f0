

def test_the_searches_declare_that_they_analyse_and_the_others_do_not():
    """Capabilities are declared (issue 54): a search is an Analyst by its class; callers ask isinstance
    instead of probing for methods by name."""
    from thurn_ai.bots import make_bot
    from thurn_ai.bots.base import Analyst
    from thurn_ai.bots.mcts import SearchBot

    assert issubclass(SearchBot, Analyst)
    assert all(isinstance(make_bot(spec), Analyst) for spec in ("mcts", "pimc", "mcts(iterations=10)"))
    assert not any(isinstance(make_bot(spec), Analyst) for spec in ("random", "greedy", "heuristic"))
