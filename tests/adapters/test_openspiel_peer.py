"""experiments/openspiel_peer.py: a game of each OpenSpiel ISMCTS set-up plays to the end and repeats with its
seed (issue 25: the games of results/openspiel could not be replayed)."""
import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra: pip install 'thurn-ai[openspiel]'")

from tests.helpers import experiment  # noqa: E402

peer = experiment("openspiel_peer")


@pytest.mark.parametrize("setup", ["random", "heuristic", "plan"])
def test_a_game_of_each_setup_repeats_with_its_seed(setup):
    task = {"cell": f"p2_{setup}_it3", "game": 1, "players": 2, "setup": setup, "mode": "iterations", "budget": 3,
            "seed": 11, "openspiel_seat": 1, "uct_c": 1.4, "mcts_options": ""}
    row = peer.play_game(task)
    assert row["setup"] == setup and row["openspiel_iterations"] == 3 * row["openspiel_decisions"] > 0
    assert peer.replay([{**row, **{k: str(v) for k, v in row.items()}}], 2, 1.4, "").startswith("1 of 1 ")
    other = peer.play_game({**task, "seed": 12})
    assert (other["scores"], other["turns"]) != (row["scores"], row["turns"])
