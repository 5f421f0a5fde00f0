"""Internal-node rows of the teacher (thurn_ai/studies/expert/internal.py, _search.Tree.own_nodes): the nodes
below the root where the searcher decides again in the same turn, reached without a draw; their rows replay
to legal positions, are seeded and resume, and join the fit's training decisions only."""
from __future__ import annotations

import pytest

from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.game.state import new_game
from thurn_ai.learned.prior import N_FEATURES
from thurn_ai.studies.expert import fit as F
from thurn_ai.studies.expert import internal as N
from thurn_ai.studies.expert import teacher as T

DRAWS = (1, 2, 3)           # MV_DRAW, MV_DECK, MV_ADMIN: move code >> 5
SMALL = dict(play="mcts(iterations=20)", strong="mcts(iterations=20)", teacher="mcts(iterations=300)", sample=0.3)


def positions(players: int, seed: int, phases=("play", "after_play", "houses")):
    """Positions of a heuristic game at decisions of these phases with more than one legal move."""
    state, bot = new_game(players, seed=seed), make_bot("heuristic", seed)
    while not state.is_terminal():
        if state.phase in phases and len(state.legal_moves()) > 1:
            yield state.clone()
        state.apply(bot.choose(Observation(state, state.current_player, 0)))


def searched(state, iterations=1500, seed=3):
    result = make_bot(f"mcts(iterations={iterations})", seed).search(Observation(state, state.current_player, 1))
    return result.trees[0]


def test_own_nodes_replay_as_the_searchers_own_decisions_of_the_turn():
    seen = 0
    for state in list(positions(3, 4))[::3]:
        tree = searched(state)
        me, turn = state.current_player, state.turn
        parent_visits = {(): sum(c[1] for c in tree.root_children())}
        for path, children in tree.own_nodes(50):
            at = state.clone()
            for m in path:
                assert m >> 5 not in DRAWS                  # no card drawn on the way
                assert m in at.legal_moves()
                at.apply(m)
            assert at.current_player == me and at.turn == turn and not at.is_terminal()
            legal = set(at.legal_moves())
            assert {c[0] for c in children} <= legal
            visits = sum(c[1] for c in children)
            assert 50 <= visits + 1 <= parent_visits.get(tuple(path[:-1]), visits + 1)
            parent_visits[tuple(path)] = visits + 1
            seen += 1
    assert seen > 5


def test_a_draw_decision_has_no_own_node_below_it():
    state = next(positions(2, 1, phases=("draw",)))
    assert all(m >> 5 in DRAWS for m in state.legal_moves())
    assert searched(state, 500).own_nodes(1) == []


def test_min_visits_keeps_the_well_visited_nodes():
    state = next(s for s in positions(2, 7, phases=("after_play",)))
    tree = searched(state, 3000)
    every, few = tree.own_nodes(1), tree.own_nodes(1000)
    assert len(few) <= len(every)
    assert all(sum(c[1] for c in ch) + 1 >= 1000 for _p, ch in few)
    assert {tuple(p) for p, _ in few} <= {tuple(p) for p, _ in every}


@pytest.fixture(scope="module")
def teacher_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("teacher") / "data"
    T.generate(out, T.plan_chunks(players=[2], games=7, seed=5, **SMALL))
    return out


def test_internal_rows_are_seeded_resume_and_keep_their_data_set(teacher_folder, tmp_path):
    chunks = N.plan_chunks(teacher_folder, seed=9, players=[2], min_visits=20)
    assert [c.first for c in chunks] == [0, 5]
    a, b = tmp_path / "a", tmp_path / "b"
    assert N.generate(a, chunks[:1]) == 1
    assert N.generate(a, chunks) == 1                      # resumes: only the missing chunk
    assert N.generate(a, chunks) == 0
    N.generate(b, chunks)
    rows = N.load(a)
    assert rows.equals(N.load(b))                          # same seed, same rows
    assert len(rows) and N.node_count(rows) > 0
    source = T.load(teacher_folder)
    searched_again = set(map(tuple, rows[["game", "decision"]].drop_duplicates().to_numpy()))
    eligible = set(map(tuple, N.eligible(source)[["game", "decision"]].drop_duplicates().to_numpy()))
    assert searched_again <= eligible                      # training games, not the draw phase
    assert not T.held_out(rows["game"]).any() and (rows["path"] != "").all()
    with pytest.raises(T.TeacherError, match="another internal-node data set"):
        N.generate(a, N.plan_chunks(teacher_folder, seed=10, players=[2], min_visits=20))
    with pytest.raises(T.TeacherError, match="min_visits"):
        N.plan_chunks(teacher_folder, seed=9, min_visits=0)


def test_internal_rows_rebuild_their_positions_and_join_the_training_decisions(teacher_folder, tmp_path):
    nodes = tmp_path / "nodes"
    N.generate(nodes, N.plan_chunks(teacher_folder, seed=9, players=[2], min_visits=20))
    rows = F.decision_rows(N.load(nodes), T.records(nodes, 2))
    assert rows
    for r in rows:
        assert r["path"] and r["features"].shape == (len(r["moves"]), N_FEATURES) and r["visits"].sum() > 0
    root, held = F.load_groups(teacher_folder, [2])
    both, held_both = F.load_groups(teacher_folder, [2], internal=[nodes])
    assert sum(len(d) for d in both.values()) == sum(len(d) for d in root.values()) + len(rows)
    assert all(len(held[k]) == len(held_both[k]) for k in held)    # the held-out games are untouched
    with pytest.raises(ValueError, match="internal-node folders"):
        F.load_groups(teacher_folder, [2], internal=[nodes, nodes])


def test_apply_path_plays_the_path_on_a_copy():
    state = next(positions(2, 3, phases=("play",)))
    moves = [m for m in state.legal_moves() if m >> 5 not in DRAWS]
    before = state.to_dict()
    at = N.apply_path(state, N.path_text(moves[:1]))
    by_hand = state.clone()
    by_hand.apply(moves[0])
    assert at.to_dict() == by_hand.to_dict() != before
    assert state.to_dict() == before                         # the decision's own state is untouched
    assert N.apply_path(state, "").to_dict() == before and N.apply_path(state, "") is not state
