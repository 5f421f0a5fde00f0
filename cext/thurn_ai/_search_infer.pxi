# Hands inferred from the opponents' moves (infer=policy; docs/search-budget.md): the evidence a move gives
# about its player's hidden cards under a policy model, and the determinization that deals each opponent's
# hidden cards by weight. Included by _search.pyx as text.

from thurn_ai._core cimport MV_LEFT, MV_RIGHT, MV_NEW, MV_HORSE, MV_DISCARD, PH_HOUSES, PH_CARTWRIGHT
from thurn_ai._random cimport unit

# the deal's own stream, apart from the chance generators determinize() seeds from the same seed
cdef uint64_t WEIGHTED_STREAM = 0xD1B54A32D192ED03ULL


cdef inline bint plays_card(int m) noexcept nogil:
    cdef int kind = m >> MOVE_SHIFT
    return kind == MV_LEFT or kind == MV_RIGHT or kind == MV_NEW or kind == MV_HORSE or kind == MV_DISCARD


cdef int hidden_pool(const StateData* s, const ConfigData* c, int observer, int* pool) noexcept nogil:
    """pool[x]: the cards of city x the observer cannot place (the deck and the opponents' cards not known
    to be in their hands); returns their number."""
    cdef int p, x, n = 0
    for x in range(c.n_cities):
        pool[x] = s.deck[x]
        for p in range(c.n_players):
            if p != observer:
                pool[x] += s.hand[p][x] - s.known[p][x]
        n += pool[x]
    return n


cdef void determinize_weighted(StateData* s, const ConfigData* c, int observer, uint64_t seed,
                               const double (*weight)[MAXC]) noexcept nogil:
    """determinize(), but each opponent p's hidden cards are drawn one at a time from the pool of hidden
    cards with probability proportional to count x weight[p][city] (a weighted urn, without replacement);
    the rest is the deck. Known cards stay, every hand size, the deck's count and each city's total are
    exact. The chance generators are reseeded as determinize() does it (it runs first)."""
    cdef int pool[MAXC]
    cdef int p, x, k, hidden, pool_n
    cdef double total, r
    cdef uint64_t rng = seed ^ WEIGHTED_STREAM
    determinize(s, c, observer, seed)        # the reseeding and the discard order; its deal is replaced
    pool_n = hidden_pool(s, c, observer, pool)
    for p in range(c.n_players):
        if p == observer:
            continue
        for x in range(c.n_cities):
            s.hand[p][x] = s.known[p][x]
    for p in range(c.n_players):
        if p == observer:
            continue
        hidden = s.hand_n[p]
        for x in range(c.n_cities):
            hidden -= s.known[p][x]
        for k in range(hidden):
            total = 0.0
            for x in range(c.n_cities):
                total += pool[x] * weight[p][x]
            r = unit(&rng) * total
            x = 0
            while x < c.n_cities - 1 and (pool[x] == 0 or r >= pool[x] * weight[p][x]):
                r -= pool[x] * weight[p][x]
                x += 1
            while pool[x] == 0:          # rounding at the end of the scan: the last city with a card
                x -= 1
            pool[x] -= 1
            pool_n -= 1
            s.hand[p][x] += 1
    for x in range(c.n_cities):
        s.deck[x] = pool[x]
    s.deck_n = pool_n


cdef int fill_hand_weights(double (*out)[MAXC], weights, int n_players, int n_cities) except -1:
    """out[p][x] from weights[p][x] (a sequence per player of a weight per city, each positive and finite)."""
    cdef int p, x
    cdef double w
    if len(weights) != n_players:
        raise ValueError(f"hand_weights must give a row per player ({n_players}), not {len(weights)}")
    for p in range(n_players):
        if len(weights[p]) != n_cities:
            raise ValueError(f"hand_weights[{p}] must give a weight per city ({n_cities})")
        for x in range(n_cities):
            w = weights[p][x]
            if not 0.0 < w < INFINITY:
                raise ValueError(f"hand weights must be positive and finite, not {w!r}")
            out[p][x] = w
    return 0


def weighted_determinization(GameState state, int observer, uint64_t seed, weights):
    """The position as determinize_weighted() deals it for `observer` (weights[p][city], a row per player;
    the observer's row is not read): what a Tree with hand_weights samples each iteration."""
    cdef double w[MAXP][MAXC]
    cdef GameState out = state.clone()
    if not 0 <= observer < state.cfg.c.n_players:
        raise ValueError(f"observer must be a player of this game, not {observer!r}")
    fill_hand_weights(w, weights, state.cfg.c.n_players, state.cfg.c.n_cities)
    determinize_weighted(&out.s, &out.cfg.c, observer, seed, w)
    return out


cdef double model_probability(const StateData* s, const ConfigData* c, int move, double plan_prior,
                              double temp, HouseValues* values) noexcept nogil:
    """The policy model's probability of `move` at s (its player to move): the hand-set PUCT prior, the rule
    of thumb's softmax at `temp` with plan_prior of it moved to the planner's move; 0 if it is not legal."""
    cdef int moves[MAXMOVES]
    cdef double prior[MAXMOVES]
    cdef int n, i, k = -1, pm
    n = gen_moves(s, c, moves)
    for i in range(n):
        if moves[i] == move:
            k = i
    if k < 0:
        return 0.0
    if n == 1:
        return 1.0
    move_priors(s, c, moves, n, 0, temp, values, prior)
    pm = plan_choice(s, c, moves, n, 0, values)
    return (1.0 - plan_prior) * prior[k] + (plan_prior if pm == k else 0.0)


cdef void set_hypothesis(StateData* s, const ConfigData* c, int player, int played, int x) noexcept nogil:
    """player's hand: its known cards, the hidden card its move plays (played >= 0) and one card of x."""
    cdef int y
    s.hand_n[player] = 0
    for y in range(c.n_cities):
        s.hand[player][y] = s.known[player][y]
        s.hand_n[player] += s.known[player][y]
    if played >= 0:
        s.hand[player][played] += 1
        s.hand_n[player] += 1
    s.hand[player][x] += 1
    s.hand_n[player] += 1


def hand_evidence(GameState state, int viewer, int player, int move, double plan_prior=0.8, double temp=3.0):
    """What `player`'s `move` (made at `state`, `player` to move) says about its hidden cards to `viewer`
    (another seat; `state` is its Observation, in which the player's hand was dealt at random, so the move
    need not be legal there: only what the viewer may know is read -- the player's known cards,
    hand size, route, the display -- and the totals of the cards hidden from it, which every deal of its
    view shares), under the policy model (model_probability): for each city x, log P(move | the player's
    hand is its known cards, the card the move plays if that was hidden, and one card of x); None for a city
    with no card hidden from the viewer. None instead of the list when the move says nothing: no hidden card
    besides the one it plays, a forced move, or the houses and the Cartwright (they do not depend on the
    hand)."""
    cdef GameState hypo = state.clone()
    cdef StateData* s = &hypo.s
    cdef const ConfigData* c = &hypo.cfg.c
    cdef int pool[MAXC]
    cdef int moves[MAXMOVES]
    cdef int x, hidden, played = -1
    cdef double p
    cdef HouseValues values
    if not 0 <= viewer < c.n_players or viewer == player:
        raise ValueError("hand_evidence needs a viewer other than the player who moves")
    if s.phase == PH_OVER or s.current != player:
        raise ValueError("hand_evidence needs a position with `player` to move")
    if s.phase == PH_HOUSES or s.phase == PH_CARTWRIGHT or gen_moves(s, c, moves) < 2:
        return None
    hidden = s.hand_n[player]
    for x in range(c.n_cities):
        hidden -= s.known[player][x]
    if plays_card(move) and s.known[player][move & ((1 << MOVE_SHIFT) - 1)] == 0:
        played = move & ((1 << MOVE_SHIFT) - 1)      # a hidden card, now shown: in every hypothesis
        hidden -= 1
    if hidden <= 0:
        return None
    hidden_pool(s, c, viewer, pool)
    if played >= 0:
        pool[played] -= 1
    reset_values(&values)
    out = []
    for x in range(c.n_cities):
        if pool[x] <= 0:
            out.append(None)
            continue
        set_hypothesis(s, c, player, played, x)
        p = model_probability(s, c, move, plan_prior, temp, &values)
        if p <= 0.0:        # not a move of that hand (the hypothetical hand is smaller): the model cannot say
            return None
        out.append(log(p))
    return out


def hidden_cards(GameState state, int player):
    """How many of `player`'s cards are hidden from the others (its hand minus its known cards)."""
    cdef int x, n = state.s.hand_n[player]
    if not 0 <= player < state.cfg.c.n_players:
        raise ValueError(f"player must be a player of this game, not {player!r}")
    for x in range(state.cfg.c.n_cities):
        n -= state.s.known[player][x]
    return n
