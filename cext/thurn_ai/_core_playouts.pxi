# Hidden information and the end -- determinization (a re-deal for one observer),
# the uniform random playout, scores and the winner.
# Included by _core.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# ---------------------------------------------------------------- hidden information

cdef void determinize(StateData* s, const ConfigData* c, int observer, uint64_t seed) noexcept nogil:
    """Re-deal everything `observer` cannot see: opponents' cards not known to be in their hands and the
    deck are pooled and dealt again at random; the chance generator is reseeded."""
    cdef uint8_t pool[MAXC]
    cdef int pool_n = 0, p, x, k, hidden
    seed_generators(s, seed)
    for x in range(c.n_cities):
        pool[x] = s.deck[x]
        pool_n += s.deck[x]
    for p in range(c.n_players):
        if p == observer:
            continue
        for x in range(c.n_cities):
            k = s.hand[p][x] - s.known[p][x]
            pool[x] += k
            pool_n += k
            s.hand[p][x] = s.known[p][x]
    for p in range(c.n_players):
        if p == observer:
            continue
        hidden = s.hand_n[p]
        for x in range(c.n_cities):
            hidden -= s.known[p][x]
        for k in range(hidden):
            x = pick_from(pool, pool_n, &s.rng, c.n_cities)
            pool_n -= 1
            s.hand[p][x] += 1
    for x in range(c.n_cities):
        s.deck[x] = pool[x]
    s.deck_n = pool_n
    # A player discarding after a close does so in city order; a re-dealt hand may hold no card at or
    # after the last city discarded, which would leave no legal move. Let the order start over (it only
    # removes duplicate move sequences, so every legal outcome stays reachable).
    if s.phase == PH_DISCARD and s.current != observer:
        s.last_discard = 0


cdef int random_playout(StateData* s, const ConfigData* c) noexcept nogil:
    cdef int moves[MAXMOVES]
    cdef int n, steps = 0
    while s.phase != PH_OVER:
        n = gen_moves(s, c, moves)
        apply_move(s, c, moves[below(&s.prng, n)])
        steps += 1
    return steps


# ---------------------------------------------------------------- scoring

cdef int score_of(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    cdef int t, v = 0
    if c.n_carriages > 0 and s.carriage[p] >= 0:
        v += c.carriage_points[s.carriage[p]]
    for t in range(c.n_stacks):
        v += s.tiles_pts[p][t]
    return v - s.houses_left[p]


cdef inline int tie_distance(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    # Tie-break: the game-end tile holder, then the tied player nearest clockwise after them.
    cdef int ref = s.end_player if s.end_player >= 0 else 0
    return (p - ref + c.n_players) % c.n_players


cdef int winner_of(const StateData* s, const ConfigData* c) noexcept nogil:
    cdef int p, best = 0, v, bv = score_of(s, c, 0)
    for p in range(1, c.n_players):
        v = score_of(s, c, p)
        if v > bv or (v == bv and tie_distance(s, c, p) < tie_distance(s, c, best)):
            best = p
            bv = v
    return best
