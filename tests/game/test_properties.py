"""Property tests: what must hold in every reachable position, over many seeded random games with 2, 3
and 4 players.

Three kinds of games are played:
- compiled uniform playouts (`g.playout()`), thousands of them, checked at the end;
- games stepped in Python with a "builder" policy (extends and closes routes, aims at a random route
  length per seat, so games end by the last house as well as by the 7-carriage), checked after every
  move, including the change from the previous position;
- uniform random games stepped in Python, checked every few dozen moves.
The consistency of each position is the library's one checker (thurn_ai.position.check_state, the rules
a position file is checked with); its numbers (66 cards, 20 houses, carriage points) are pinned here to
the rulebook's, and scores, moves and the changes of each move are checked against the rules, not the
engine.
"""
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import thurn_ai
from tests.helpers import build, total_cards
from thurn_ai.game import rules
from thurn_ai.game.notation import move_city, move_kind
from thurn_ai.position import check_state

PLAYERS = st.sampled_from([2, 3, 4])
SEEDS = st.integers(0, 2**63 - 1)
BOARD = thurn_ai.load_board("south")
NC = BOARD.n_cities
CARDS_PER_CITY = 3
HOUSES = 20
CARRIAGE_POINTS = [2, 3, 5, 7, 10]
PUBLIC = ("display", "display_n", "deck_n", "discard", "discard_n", "route", "houses", "houses_left",
          "carriage", "stack_pos", "tiles_n", "tiles_pts", "official_uses", "closes", "current", "phase",
          "turn", "end_triggered", "end_player")


# ------------------------------------------------------------------ invariants of one position

def test_the_checker_counts_with_the_rulebooks_numbers():
    """check_state counts with the board's and the rules' numbers: they are the rulebook's."""
    assert BOARD.cards_per_city == CARDS_PER_CITY and BOARD.n_cards == NC * CARDS_PER_CITY == 66
    assert (rules.HOUSES, rules.DISPLAY_SIZE) == (HOUSES, 6)
    assert [points for _, points in BOARD.carriages] == CARRIAGE_POINTS


def check_reachable(g):
    """What must hold in every reachable position: no problem by the rules positions are checked with
    (thurn_ai.position.check_state: cards, routes, houses, tiles, the end, the turn), and the score and the
    moves as the rules say."""
    assert check_state(g) == []
    d = g.export()
    # score: highest carriage + tiles - houses not placed
    expected = [(CARRIAGE_POINTS[d["carriage"][p]] if d["carriage"][p] >= 0 else 0)
                + sum(d["tiles_pts"][p]) - d["houses_left"][p] for p in range(g.n_players)]
    assert g.scores() == expected
    assert d["truncated"] == 0
    if g.is_terminal():
        assert g.legal_moves() == []
    else:
        assert g.legal_moves(), "no legal move before the end"


def expected_ranking(d, scores):
    """The rulebook's order: score, then the game-end holder, then clockwise after the holder."""
    n = len(scores)
    holder = d["end_player"] if d["end_player"] >= 0 else 0
    return sorted(range(n), key=lambda p: (-scores[p], (p - holder) % n))


def check_final(g):
    d = g.export()
    assert g.is_terminal() and d["truncated"] == 0, "the game must end by the rules, not by the cap"
    check_reachable(g)
    assert d["end_triggered"] == 1
    assert g.ranking() == expected_ranking(d, g.scores())
    assert g.winner() == g.ranking()[0]


# ------------------------------------------------------------------ invariants of one move

class Tracker:
    """Checks every move of a game against the position before it."""

    def __init__(self, g):
        self.g = g
        self.prev = g.export()
        self.official_this_turn = Counter()      # (turn, seat) -> officials used
        check_reachable(g)
        self._count_officials(self.prev, [[0] * 4 for _ in range(g.n_players)])

    def _count_officials(self, d, before):
        for p in range(self.g.n_players):
            used = sum(d["official_uses"][p]) - sum(before[p])
            assert used >= 0
            if used:
                key = (d["turn"] if p == d["current"] else self.prev["turn"], p)
                self.official_this_turn[key] += used
                assert self.official_this_turn[key] <= 1, "more than one official in a turn"

    def apply(self, m):
        g, a = self.g, self.prev
        assert g.is_legal(m)
        mover, kind, city = g.current_player, move_kind(m), move_city(m)
        g.apply(m)
        b = g.export()
        check_reachable(g)
        n = g.n_players
        # houses only grow, one at a time, by a house move in a city of the route being closed
        for p in range(n):
            before, after = set(a["houses"][p]), set(b["houses"][p])
            if p == mover and kind == "house":
                assert city in a["route"][p] and city not in before
                assert after == before | {city}
                assert b["houses_left"][p] == a["houses_left"][p] - 1
            else:
                assert after == before and b["houses_left"][p] == a["houses_left"][p]
        # tiles and carriages change only for the mover, only while closing, never backwards
        for t in range(len(BOARD.tiles)):
            assert b["stack_pos"][t] >= a["stack_pos"][t]
        for p in range(n):
            if p != mover:
                assert b["tiles_n"][p] == a["tiles_n"][p] and b["carriage"][p] == a["carriage"][p]
                assert b["closes"][p] == a["closes"][p]
        assert b["carriage"][mover] in (a["carriage"][mover], a["carriage"][mover] + 1)
        if b["carriage"][mover] != a["carriage"][mover]:
            assert b["closes"][mover] == a["closes"][mover] + 1
        if b["tiles_n"][mover] != a["tiles_n"][mover]:
            assert kind in ("close", "house", "done", "cartwright")
        # turn order: clockwise, one seat at a time
        if not g.is_terminal():
            assert b["current"] in (mover, (mover + 1) % n)
        self._count_officials(b, a["official_uses"])
        self.prev = b


# ------------------------------------------------------------------ move policies

def builder_move(g, rng, target):
    """A random policy that builds routes: prefer the Cartwright, closing at the seat's target length,
    placing houses, extending the route; otherwise any legal move."""
    by_kind = {}
    for m in g.legal_moves():
        by_kind.setdefault(move_kind(m), []).append(m)
    p = g.current_player
    if "cartwright" in by_kind:
        return by_kind["cartwright"][0]
    if "close" in by_kind and len(g.export()["route"][p]) >= target[p]:
        return by_kind["close"][0]
    if "house" in by_kind and rng.random() < 0.9:
        return rng.choice(by_kind["house"])
    extend = by_kind.get("left", []) + by_kind.get("right", [])
    if extend and rng.random() < 0.9:
        return rng.choice(extend)
    if "stop" in by_kind and rng.random() < 0.7:
        return by_kind["stop"][0]
    return rng.choice([m for ms in by_kind.values() for m in ms])


def check_determinize(g, rng):
    """determinize(p) keeps p's hand and every public part, re-deals only what p cannot see."""
    d = g.export()
    n = g.n_players
    for p in range(n):
        seed = rng.getrandbits(64)
        h = g.determinize(p, seed)
        e = h.export()
        assert g.export() == d                            # the original is untouched
        for key in PUBLIC:
            assert e[key] == d[key], key
        assert e["hand"][p] == d["hand"][p] and e["known"] == d["known"]
        for q in range(n):
            assert sum(e["hand"][q]) == sum(d["hand"][q])
            assert all(k <= c for k, c in zip(e["known"][q], e["hand"][q]))
        # the cards p cannot see (deck + opponents' hands) are the same multiset, re-dealt
        def unseen(x, p=p):
            return [x["deck"][c] + sum(x["hand"][q][c] for q in range(n) if q != p) for c in range(NC)]
        assert unseen(e) == unseen(d)
        check_reachable(h)
        assert g.determinize(p, seed).export() == e        # the same seed deals the same way
        if g.current_player == p:
            assert h.legal_moves() == g.legal_moves()      # p's choices do not depend on hidden cards


def advance(g, steps):
    for _ in range(steps):
        if g.is_terminal():
            return
        g.apply_random()


def check_clone_independent(g, rng):
    """Mutating a clone leaves the original unchanged, and the other way round (g itself untouched)."""
    before = g.export()
    original = g.clone()
    copy = original.clone()
    assert copy.export() == before
    advance(copy, rng.randint(1, 40))
    copy.determinize(0, 1)
    assert original.export() == before
    snapshot = copy.export()
    advance(original, rng.randint(1, 40))
    original.load(snapshot)
    original.reseed(rng.getrandbits(64))
    advance(original, 5)
    assert copy.export() == snapshot
    assert g.export() == before


# ------------------------------------------------------------------ the properties

@settings(max_examples=40)
@given(players=PLAYERS, seed=SEEDS)
def test_compiled_playouts_end_by_the_rules(players, seed):
    """Fifty uniform random games per example, played in compiled code, end naturally (never by the
    max_turns cap) in a consistent position."""
    for i in range(50):
        g = thurn_ai.new_game(players=players, seed=(seed + i * 0x9E3779B97F4A7C15) % 2**64)
        assert g.playout() > 0
        check_final(g)


@settings(max_examples=30)
@given(players=PLAYERS, seed=SEEDS)
def test_every_move_of_builder_games_keeps_the_invariants(players, seed):
    rng = random.Random(seed)
    g = thurn_ai.new_game(players=players, seed=seed)
    target = [rng.randint(3, 7) for _ in range(players)]
    tracker = Tracker(g)
    moves = 0
    while not g.is_terminal():
        tracker.apply(builder_move(g, rng, target))
        moves += 1
        if moves % 97 == 0:
            check_determinize(g, rng)
            check_clone_independent(g, rng)
    check_final(g)


@settings(max_examples=12)
@given(players=PLAYERS, seed=SEEDS)
def test_uniform_random_games_checked_along_the_way(players, seed):
    rng = random.Random(seed)
    g = thurn_ai.new_game(players=players, seed=seed)
    prev = g.export()
    steps = 0
    while not g.is_terminal():
        g.apply_random()
        steps += 1
        if steps % 53 == 0 or g.is_terminal():
            d = g.export()
            check_reachable(g)
            for p in range(players):                      # houses only ever grow
                assert set(prev["houses"][p]) <= set(d["houses"][p])
                assert d["carriage"][p] >= prev["carriage"][p]
            assert all(x >= y for x, y in zip(d["stack_pos"], prev["stack_pos"]))
            prev = d
        if steps % 1009 == 0:
            check_determinize(g, rng)
            # every legal move can be applied and leaves a consistent position
            for m in g.legal_moves():
                h = g.clone()
                h.apply(m)
                check_reachable(h)
    check_final(g)


@settings(max_examples=25)
@given(players=PLAYERS, seed=SEEDS)
def test_same_seed_and_moves_give_the_same_game(players, seed):
    rng = random.Random(seed ^ 1)
    a = thurn_ai.new_game(players=players, seed=seed)
    b = thurn_ai.new_game(players=players, seed=seed)
    target = [rng.randint(3, 7) for _ in range(players)]
    moves = []
    while not a.is_terminal():
        m = builder_move(a, rng, target)
        moves.append(m)
        a.apply(m)
    for m in moves:
        b.apply(b.move_str(m))                            # through the notation as well
    assert b.export() == a.export()
    c, e = thurn_ai.new_game(players=players, seed=seed), thurn_ai.new_game(players=players, seed=seed)
    c.playout()
    e.playout()
    assert c.export() == e.export()


@settings(max_examples=25)
@given(players=PLAYERS, seed=SEEDS)
def test_clones_never_share_state(players, seed):
    rng = random.Random(seed)
    g = thurn_ai.new_game(players=players, seed=seed)
    for _ in range(rng.randint(0, 3000)):
        if g.is_terminal():
            break
        g.apply_random()
    for _ in range(5):
        check_clone_independent(g, rng)
        if g.is_terminal():
            break


@settings(max_examples=25)
@given(players=PLAYERS, seed=SEEDS)
def test_determinize_keeps_what_the_player_knows(players, seed):
    rng = random.Random(seed)
    g = thurn_ai.new_game(players=players, seed=seed)
    target = [rng.randint(3, 7) for _ in range(players)]
    stops = sorted(rng.sample(range(1, 600), 4))
    moves = 0
    for stop in stops:
        while moves < stop and not g.is_terminal():
            g.apply(builder_move(g, rng, target))
            moves += 1
        check_determinize(g, rng)
    # across a whole determinization pass, hidden cards do get re-dealt (it is not a copy)
    d = g.export()
    changed = any(g.determinize(p, s).export()["hand"] != d["hand"]
                  for p in range(players) for s in range(20))
    hidden = any(sum(d["hand"][q]) - sum(d["known"][q]) for q in range(players))
    assert changed or not hidden or d["deck_n"] == 0


def test_determinize_during_an_opponents_discards_leaves_a_move():
    """Regression: discards come in city order, so a re-dealt hand of the discarding player could hold
    no card at or after the last city discarded — a dead end with no legal move. The re-dealt player
    may now discard in any order from there on (any 3 cards of the re-dealt hand can still be kept)."""
    g = build(routes={0: ["Zürich", "Sigmaringen"]},
              hands={0: ["Ulm", "Augsburg", "Ingolstadt", "Kempten", "Budweis", "Lodz", "Lodz"]})
    for m in ("right Ulm", "close", "done", "discard Budweis"):
        g.apply(m)
    assert g.phase == "discard" and g.current_player == 0
    for seed in range(40):
        h = g.determinize(1, seed)
        assert h.legal_moves(), f"no legal move after determinize(1, {seed})"
        while h.phase == "discard":
            h.apply(h.legal_moves()[0])
        assert sum(h.export()["hand"][0]) == 3 and total_cards(h.export()) == 66
