"""The first things that must work: a game runs to the end, seeds reproduce it, moves round-trip."""
import thurn_ai


def test_random_game_ends_and_seed_reproduces():
    a = thurn_ai.new_game(players=3, seed=11)
    b = thurn_ai.new_game(players=3, seed=11)
    moves = []
    while not a.is_terminal():
        m = a.apply_random()
        moves.append(m)
    for m in moves:
        assert b.is_legal(m)
        b.apply(m)
    assert b.is_terminal() and b.scores() == a.scores() and b.winner() == a.winner()


def test_notation_round_trips_for_every_legal_move():
    g = thurn_ai.new_game(players=2, seed=3)
    for _ in range(400):
        for m in g.legal_moves():
            assert g.parse_move(g.move_str(m)) == m
        g.apply_random()


def test_registering_a_bot_first_keeps_the_builtin_bots(monkeypatch):
    from thurn_ai.bots import spec
    from thurn_ai.bots.random_bot import RandomBot
    monkeypatch.setattr(spec, "_REGISTRY", {})
    monkeypatch.setattr(spec, "_BUILTIN_LOADED", False)
    spec.register("mine", RandomBot)
    assert {"mine", "random", "greedy", "mcts"} <= set(spec.known_bots())
