# The playout loop (every player by one policy, to the end or the horizon) and the
# rewards of a finished game.
# Included by _policy.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

cdef inline int playout_move(StateData* s, const ConfigData* c, int kind, uint64_t* rng, const int* moves,
                             int n, int forbid, double eps, HouseValues* values) noexcept nogil:
    """The move the playout policy `kind` plays among moves[:n] (the player's `forbid`: what it plans without)."""
    if kind == PLAYOUT_PLAN:
        return plan_policy_move(s, c, moves, n, rng, forbid, eps, values)
    elif kind == PLAYOUT_HEURISTIC:
        return policy_move(s, c, moves, n, rng, forbid, eps, values)
    return moves[below(rng, n)]


cdef int playout(StateData* s, const ConfigData* c, int kind, uint64_t* rng, const int* forbid,
                 double eps, int stop_turn, HouseValues* values) noexcept nogil:
    """Play on from s, in place, until the game ends or `stop_turn`: every player by the policy `kind`
    (PLAYOUT_PLAN, PLAYOUT_HEURISTIC, with probability eps of a random move; PLAYOUT_RANDOM); moves a player
    may not use (forbid[player]) are left out. Returns the moves played."""
    cdef int moves[MAXMOVES]
    cdef int n, steps = 0
    while s.phase != PH_OVER and s.turn < stop_turn:
        n = gen_moves(s, c, moves)
        n = drop_forbidden(s, moves, n, forbid[s.current])
        apply_move(s, c, playout_move(s, c, kind, rng, moves, n, forbid[s.current], eps, values))
        steps += 1
    return steps


cdef int playout_turn(StateData* s, const ConfigData* c, int kind, uint64_t* rng, const int* forbid,
                      double eps, int stop_turn, int uses, int avoids, HouseValues* values) noexcept nogil:
    """Play the rest of the current turn as playout() does, with the turn's officials restricted as the
    search's turn scope restricts them (keep_turn_officials; the policy plans without the avoided ones).
    Returns the moves played."""
    cdef int moves[MAXMOVES]
    cdef int n, steps = 0, turn = s.turn
    while s.phase != PH_OVER and s.turn == turn and s.turn < stop_turn:
        n = gen_moves(s, c, moves)
        n = drop_forbidden(s, moves, n, forbid[s.current])
        n = keep_turn_officials(s, moves, n, uses, avoids)
        apply_move(s, c, playout_move(s, c, kind, rng, moves, n, forbid[s.current] | avoids, eps, values))
        steps += 1
    return steps


cdef void rewards(const StateData* s, const ConfigData* c, int kind, double* r, double* sc,
                  double scale) noexcept nogil:
    """Reward of every player at the end of a playout: 1 for the winner, 0 otherwise (reward=win), or
    0.5 + 0.5 tanh(margin / scale) where margin is the score minus the best other score
    (reward=margin), plus the raw scores."""
    cdef int p, q, w = winner_of(s, c)
    cdef double other
    for p in range(c.n_players):
        sc[p] = score_of(s, c, p)
    for p in range(c.n_players):
        if kind == REWARD_WIN:
            r[p] = 1.0 if p == w else 0.0
        else:
            other = -1e9
            for q in range(c.n_players):
                if q != p and sc[q] > other:
                    other = sc[q]
            r[p] = 0.5 + 0.5 * tanh((sc[p] - other) / scale)
            if kind == REWARD_MIXED:     # half the win, half the margin: a gradient even when behind
                r[p] = 0.5 * r[p] + (0.5 if p == w else 0.0)
