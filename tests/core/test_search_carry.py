"""Tree.visits_along: the visits of the node a line of (mover, move) pairs reaches in a searched tree, read
without changing it (what a tree kept across the other players' turns would still hold: issue 69,
experiments/carry_across_turns.py)."""
import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import make_bot

MOVE_CODES = 512        # move codes are kind << 5 | city, kind < 16 (_search.pyx)


def searched(players=2, moves=12, iterations=1000):
    """A position after `moves` heuristic moves, searched by the default search's tree (anchor-1k)."""
    g = thurn_ai.new_game(players=players, seed=7)
    for k in range(moves):
        g.apply(_search.policy_choice(g, 700 + k, 0, 0.05))
    tree = make_bot("anchor-1k")._tree(g, 11, ismcts=True)
    tree.run(iterations)
    return g, tree


def children(tree, path, players):
    """{(mover, move): visits} of every child of the node `path` reaches, found by asking every pair."""
    out = {}
    for mover in range(players):
        for move in range(MOVE_CODES):
            v = tree.visits_along([*path, (mover, move)])
            if v:
                out[(mover, move)] = v
    return out


def test_the_root_and_its_children():
    g, tree = searched()
    p = g.current_player
    assert tree.visits_along([]) == 1000
    move, visits = max(((r[0], r[1]) for r in tree.root_children()), key=lambda r: r[1])
    assert tree.visits_along([(p, move)]) == visits > 0
    assert tree.visits_along(((p, move),)) == visits          # any sequence of pairs
    # another mover's move of the same code is another node (the root's children are all the observer's)
    assert tree.visits_along([((p + 1) % g.n_players, move)]) == 0
    absent = next(m for m in range(MOVE_CODES) if m not in {r[0] for r in tree.root_children()})
    assert tree.visits_along([(p, absent)]) == 0
    assert tree.visits_along([(p, absent), (p, move)]) == 0


def test_a_line_into_the_other_players_moves():
    """Down the most visited line until another player has moved: every node's children, found by
    visits_along, hold its visits but the one that added it (the root: all of them)."""
    players = 3
    g, tree = searched(players=players)
    path, visits = [], tree.visits_along([])
    while not path or path[-1][0] == g.current_player:
        below = children(tree, path, players)
        assert sum(below.values()) == visits - (1 if path else 0)
        step, visits = max(below.items(), key=lambda kv: kv[1])
        path.append(step)
    assert path[-1][0] != g.current_player and visits > 0
    assert tree.visits_along(path) == visits


def test_it_changes_nothing():
    g, tree = searched(players=4)
    before = (tree.root_children(), tree.n_nodes, tree.principal_variation(), tree.own_nodes())
    p = g.current_player
    for path in ([], [(p, tree.root_children()[0][0])], [(p, 1), (p, 2), (p + 1, 3)]):
        tree.visits_along(path)
    assert (tree.root_children(), tree.n_nodes, tree.principal_variation(), tree.own_nodes()) == before
    # and a search from there goes on as before it was asked
    assert tree.run(50) == 50 and tree.visits_along([]) == 1050
