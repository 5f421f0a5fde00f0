"""A bot spec as a value (thurn_ai.bots.spec.BotSpec): parsed once, changed as a value, written back as the
text a person types and the files store."""
import pickle

import pytest

from thurn_ai.bots import BotSpec, make_bot
from thurn_ai.errors import BotSpecError


@pytest.mark.parametrize("text", [
    "random", "mcts(iterations=2000)", "mcts(time=1.0,c=0.7)", "mcts(c=0.5,eval=simple,forbid=postmaster)",
    "greedy(forbid=cartwright+postmaster)", "pimc(worlds=4,iterations=100,workers=2)", "mcts(eps=1e-05)",
    "mcts(select=puct,prior=0.8,c=1.0,reward=mixed,playout=heuristic,horizon=3,eval=learned,iterations=1000)",
    "heuristic(forbid=none)", "mcts(clock=cpu,time=0.05)",
])
def test_canonical_text_reads_back_as_itself(text):
    spec = BotSpec.parse(text)
    assert str(spec) == text and BotSpec.parse(str(spec)) == spec


def test_typed_text_is_read_into_one_canonical_value():
    spec = BotSpec.parse("  MCTS( Iterations = 300 , forbid = carrier+POSTMASTER, flag=Yes )")
    assert spec.name == "mcts"
    assert spec.options == {"iterations": 300, "forbid": frozenset({"postal_carrier", "postmaster"}), "flag": True}
    assert str(spec) == "mcts(iterations=300,forbid=postal_carrier+postmaster,flag=true)"
    assert BotSpec.parse(spec) is spec                  # a value is not parsed again
    with pytest.raises(BotSpecError, match="given twice"):
        BotSpec.parse("mcts(c=1,c=2)")


def test_changed_copies_keep_the_order_of_the_options():
    spec = BotSpec.parse("mcts(time=1.0,c=0.7)")
    assert str(spec.with_(iterations=50).without("time")) == "mcts(c=0.7,iterations=50)"
    assert str(spec.with_(time=2.5)) == "mcts(time=2.5,c=0.7)"       # a set option keeps its place
    assert str(spec.without("time", "c")) == "mcts"
    assert str(spec) == "mcts(time=1.0,c=0.7)"                       # the original is unchanged
    assert spec.option("c") == 0.7 and spec.option("worlds", 9) == 9


def test_a_spec_is_a_hashable_picklable_value():
    a, b = BotSpec.parse("mcts(iterations=10,c=0.5)"), BotSpec("MCTS", {"iterations": 10, "c": 0.5})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert pickle.loads(pickle.dumps(a)) == a
    assert a != BotSpec.parse("mcts(iterations=10)")


def test_make_bot_takes_text_or_a_value():
    typed = make_bot(" mcts(iterations=10 , c=0.5)")
    assert typed.spec == "mcts(iterations=10 , c=0.5)"               # what the user typed (files store it)
    built = make_bot(BotSpec("mcts", {"iterations": 10, "c": 0.5}))
    assert built.spec == "mcts(iterations=10,c=0.5)" and built.options.c == 0.5
    with pytest.raises(BotSpecError, match="has no option worlds"):
        make_bot(BotSpec("mcts", {"worlds": 3}))
    with pytest.raises(BotSpecError, match="unknown bot"):
        make_bot(BotSpec("nosuchbot"))
