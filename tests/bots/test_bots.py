

def test_the_searches_declare_that_they_analyse_and_the_others_do_not():
    """Capabilities are declared (issue 54): a search is an Analyst by its class; callers ask isinstance
    instead of probing for methods by name."""
    from thurn_ai.bots import make_bot
    from thurn_ai.bots.base import Analyst
    from thurn_ai.bots.mcts import SearchBot

    assert issubclass(SearchBot, Analyst)
    assert all(isinstance(make_bot(spec), Analyst) for spec in ("mcts", "pimc", "mcts(iterations=10)"))
    assert not any(isinstance(make_bot(spec), Analyst) for spec in ("random", "greedy", "heuristic"))


def test_the_searches_declare_their_policy_values_and_budget_and_where_their_values_come_from():
    """A search is a Searcher by its class (a policy and values at a position, its budget typed, the
    weights its values come from): the web server bounds it, the teacher data asks it, the win map reads it."""
    from thurn_ai.bots import make_bot
    from thurn_ai.bots.base import Searcher
    from thurn_ai.bots.mcts import SearchBot
    from thurn_ai.learned.model import DEFAULT_PATH

    assert Searcher in SearchBot.__mro__           # declared by the class, not only found on it
    assert all(isinstance(make_bot(spec), Searcher) for spec in ("mcts", "pimc"))
    assert not any(isinstance(make_bot(spec), Searcher) for spec in ("random", "greedy", "heuristic", "human"))
    bot = make_bot("pimc(time=0.5,workers=2,eval=learned)")
    assert (bot.iterations, bot.time, bot.workers, bot.value_weights) == (1000, 0.5, 2, str(DEFAULT_PATH))
    assert make_bot("mcts(eval=simple)").value_weights is None
    assert make_bot(f"mcts(eval=learned,model={DEFAULT_PATH})").value_weights == str(DEFAULT_PATH)


def test_a_bot_with_a_search_attribute_is_no_search_unless_it_declares_it():
    """The web's sessions asked hasattr(bot, "search"): any bot with an attribute of that name counted as a
    search (its step then took a searching slot). The Searcher protocol asks for the whole capability."""
    from thurn_ai.bots.base import Bot, Searcher

    class Lookup(Bot):
        search = "a table lookup, not a tree search"

        def choose(self, obs):
            return obs.legal_moves()[0]
    assert not isinstance(Lookup(), Searcher)
