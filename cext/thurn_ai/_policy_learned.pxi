# The learned evaluation (value features, game progress, win chances and scores
# from fitted weights; its numpy twin is thurn_ai.learned.model.ValueModel.predict).
# Included by _policy.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# ---------------------------------------------------------------- learned evaluation
#
# A model fitted to how games really ended (thurn_ai/learned/): for each player a few numbers about the
# position (value_features), weighted by weights that move linearly from the start of the game to its
# end (game_progress), give the players' win chances as a softmax and their expected final scores as a
# linear map. The numpy twin of evaluate_learned is thurn_ai.learned.model.ValueModel.predict; a test
# holds the two to the same numbers.

cdef double game_progress(const StateData* s, const ConfigData* c) noexcept nogil:
    """How far the game is toward its end, 0 to 1: the furthest player's share of houses placed or of
    the carriages (the game ends when one places them all or takes the last carriage); 1 once the end
    is triggered."""
    cdef double best = 0.0, a
    cdef int p
    if s.end_triggered:
        return 1.0
    for p in range(c.n_players):
        a = <double>(c.houses - s.houses_left[p]) / c.houses if c.houses > 0 else 0.0
        if a > best:
            best = a
        if c.n_carriages > 0 and c.carriage_ends_game:
            a = <double>(s.carriage[p] + 1) / c.n_carriages
            if a > best:
                best = a
    return best if best < 1.0 else 1.0


cdef void value_features(const StateData* s, const ConfigData* c, int p, HouseValues* values,
                         double* f) noexcept nogil:
    """The learned evaluation's VALUE_FEATURES numbers for player p (documented in
    thurn_ai/learned/features.py, FEATURES, in this order)."""
    cdef double score = score_of(s, c, p)
    f[0] = score
    f[1] = position_value(s, c, p, 0.0, values) - score
    f[2] = plan_position_value(s, c, p, 0, values) - score
    f[3] = tile_potential(s, c, p)
    f[4] = s.route_len[p]
    f[5] = s.hand_n[p]
    f[6] = s.houses_left[p]
    f[7] = s.carriage[p] + 1
    f[8] = 1.0 if p == s.current else 0.0
    f[9] = 1.0 if p > s.current else 0.0
    f[10] = 1.0 if s.end_triggered and p < s.current else 0.0
    f[11] = s.horse_total[p] if c.horses_variant else 0.0
    f[12] = route_tile_potential(s, c, p)


cdef inline void learned_rewards(const ConfigData* c, double* u, double top, const double* sc, int reward,
                                 double scale, double* r, double* win) noexcept nogil:
    """From each player's win logit u (top: their largest) and expected final score sc: the win chances
    (win: the softmax of u; u is overwritten) and the rewards (r) the search backs up -- like a finished
    game's rewards with the win replaced by its chance and the margin by the expected one."""
    cdef double total = 0.0, other, a
    cdef int p, q
    for p in range(c.n_players):
        u[p] = exp(u[p] - top)
        total += u[p]
    for p in range(c.n_players):
        win[p] = u[p] / total
        other = -1e9
        for q in range(c.n_players):
            if q != p and sc[q] > other:
                other = sc[q]
        a = 0.5 + 0.5 * tanh((sc[p] - other) / scale)
        if reward == REWARD_WIN:
            r[p] = win[p]
        elif reward == REWARD_MARGIN:
            r[p] = a
        else:
            r[p] = 0.5 * a + 0.5 * win[p]


cdef void evaluate_learned(const StateData* s, const ConfigData* c, const ValueWeights* w, int reward,
                           double scale, HouseValues* values, double* r, double* sc, double* win) noexcept nogil:
    """The learned model at a position where a playout stopped: win chances (win), expected final scores
    (sc) and the rewards (r) the search backs up -- like a finished game's rewards with the win replaced by
    its chance and the margin by the expected one."""
    cdef double f[VALUE_FEATURES]
    cdef double u[MAXP]
    cdef double t = game_progress(s, c), top = -1e300, a
    cdef int p, k
    for p in range(c.n_players):
        value_features(s, c, p, values, f)
        u[p] = 0.0
        sc[p] = w.score[0] + t * w.score[1]
        for k in range(VALUE_FEATURES):
            a = f[k] * (1.0 - t)
            u[p] += w.win[2 * k] * a + w.win[2 * k + 1] * f[k] * t
            sc[p] += w.score[2 + 2 * k] * a + w.score[3 + 2 * k] * f[k] * t
        if u[p] > top:
            top = u[p]
    learned_rewards(c, u, top, sc, reward, scale, r, win)
