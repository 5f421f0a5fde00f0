"""The frozen search anchors (bots/anchors.py): every option and weights file pinned, no option taken, a changed
file refused, and anchor-1k the same search as the default `mcts` with the frozen weights."""
import pytest

import thurn_ai
from thurn_ai.bots import Observation, make_bot
from thurn_ai.bots.anchors import ANCHORS, FROZEN
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.errors import BotSpecError
from thurn_ai.fileio import sha256_of


def midgame(players: int, seed: int, moves: int):
    """A position after `moves` moves of heuristic play (a decision with at least two moves)."""
    g = thurn_ai.new_game(players=players, seed=seed)
    bots = [make_bot("heuristic", seed=seed + i) for i in range(players)]
    done = 0
    while not g.is_terminal():
        if done >= moves and len(g.legal_moves()) > 1:
            return g
        g.apply(bots[g.current_player].choose(Observation(g, g.current_player, seed)))
        done += 1
    pytest.skip("the game ended first")


def test_anchors_pin_every_option_and_their_files():
    fields = set(SearchOptions.names())
    for anchor in ANCHORS.values():
        assert set(anchor.options) | set(anchor.files) == fields, anchor.name
        for name, sha256 in anchor.files.values():
            assert sha256_of(FROZEN / name) == sha256
        options = make_bot(anchor.name).options
        assert options == anchor.search_options()


def test_anchors_take_no_options_and_refuse_a_changed_file(tmp_path, monkeypatch):
    with pytest.raises(BotSpecError, match="no option"):
        make_bot("anchor-1k(iterations=5)")
    import thurn_ai.bots.anchors as A
    bad = tmp_path / "prior_2026_11.json"
    bad.write_text((FROZEN / "prior_2026_11.json").read_text().replace("1", "2", 1))
    (tmp_path / "value_2026_11.json").write_bytes((FROZEN / "value_2026_11.json").read_bytes())
    monkeypatch.setattr(A, "FROZEN", tmp_path)
    with pytest.raises(BotSpecError, match="pinned"):
        make_bot("anchor-1k")


def test_anchor_1k_searches_as_the_frozen_default():
    # anchor-1k is the November 2026 default: the same search as the default `mcts` with the frozen weights
    spec = ("mcts(iterations=1000,eval=learned,policy=learned,mix=0.5,"
            f"model={FROZEN / 'value_2026_11.json'},pmodel={FROZEN / 'prior_2026_11.json'})")
    for moves in (4, 25):
        g = midgame(3, 2, moves)
        a = make_bot("anchor-1k", seed=5).analyse(Observation(g, g.current_player, 1))
        b = make_bot(spec, seed=5).analyse(Observation(g, g.current_player, 1))
        assert a == b
