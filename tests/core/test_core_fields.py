"""The compiled state's scalar fields, read and written by name (GameState.turn_state(), export(), load())."""
import pytest

import thurn_ai
from thurn_ai._core import OFFICIALS, PHASES, TURN_FIELDS, TurnState


def played(players, seed, moves):
    g = thurn_ai.new_game(players=players, seed=seed)
    for _ in range(moves):
        if g.is_terminal():
            break
        g.apply_random()
    return g


@pytest.mark.parametrize("players, seed, moves", [(2, 1, 0), (3, 4, 40), (4, 7, 120), (2, 9, 400)])
def test_turn_state_reads_each_field_under_its_own_name(players, seed, moves):
    g = played(players, seed, moves)
    t = g.turn_state()
    assert isinstance(t, TurnState) and t._fields == TURN_FIELDS and len(t) == len(TURN_FIELDS)
    assert (t.current, PHASES[t.phase], t.turn) == (g.current_player, g.phase, g.turn)
    assert t.display_n == len(g.display()) and t.deck_n == sum(g.to_dict()["deck"].values())
    used = g.to_dict()["turn_state"]["official_used"]
    assert (OFFICIALS[t.official - 1] if t.official else None) == used
    assert t._asdict() == {f: g.export()[f] for f in TURN_FIELDS}


def test_load_writes_each_field_under_its_own_name():
    """A distinct value for every field comes back under the same name: the writer and the reader list
    the struct's fields in the same order."""
    g = played(3, 4, 40)
    values = {f: 10 + i for i, f in enumerate(TURN_FIELDS)}
    h = g.clone()
    h.load(dict(g.export(), **values))
    assert h.turn_state()._asdict() == values
    assert {f: h.export()[f] for f in TURN_FIELDS} == values
