# The network evaluation (eval=net): one hidden layer over the learned evaluation's inputs and the players'
# cities; its numpy twin is thurn_ai.learned.net.ValueNet.predict, and a test holds the two to the same numbers.
# Included by _policy.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# ---------------------------------------------------------------- network evaluation
#
# For each player p, the same small network (one per player count, thurn_ai/learned/net.py):
#   inputs   x_p: the learned evaluation's terms (each feature times 1 - progress and times progress), the
#            progress, then one input per city for p's houses and one per city of p's route in progress
#            (the city inputs are 0/1: only their set bits are read, a column of weights added per bit)
#   hidden   h = tanh(W x_p + b)
#   outputs  win logit a . h + c . x_p (win chances: their softmax over the players) and expected final
#            score s0 + s . h + d . x_p
# The rewards follow from them as from the learned evaluation's (learned_rewards). A leaf costs the learned
# evaluation's features plus hidden x (27 + set city bits) multiply-adds per player.


cdef inline void net_terms(const StateData* s, const ConfigData* c, int p, double t, HouseValues* values,
                           double* x) noexcept nogil:
    """The network's dense inputs for player p (NET_DENSE numbers: the learned terms, then the progress)."""
    cdef double f[VALUE_FEATURES]
    cdef int k
    value_features(s, c, p, values, f)
    for k in range(VALUE_FEATURES):
        x[2 * k] = f[k] * (1.0 - t)
        x[2 * k + 1] = f[k] * t
    x[NET_DENSE - 1] = t


cdef inline void add_city_columns(const NetWeights* w, uint32_t bits, int first, double* pre, double* lin_win,
                                  double* lin_score) noexcept nogil:
    """Add the weight columns of the city inputs set in `bits` (input index first + city)."""
    cdef int i, j
    while bits:
        i = first + __builtin_ctz(bits)
        for j in range(w.hidden):
            pre[j] += w.Wt[i][j]
        lin_win[0] += w.win_x[i]
        lin_score[0] += w.score_x[i]
        bits &= bits - 1


cdef void net_outputs(const StateData* s, const ConfigData* c, const NetWeights* w, int p, double t,
                      HouseValues* values, double* logit, double* score) noexcept nogil:
    """Player p's win logit and expected final score by the network."""
    cdef double x[NET_DENSE]
    cdef double pre[NET_HIDDEN]
    cdef double lw = 0.0, ls = w.score0, h
    cdef int i, j
    net_terms(s, c, p, t, values, x)
    for j in range(w.hidden):
        pre[j] = w.b[j]
    for i in range(NET_DENSE):
        if x[i] != 0.0:
            for j in range(w.hidden):
                pre[j] += w.Wt[i][j] * x[i]
            lw += w.win_x[i] * x[i]
            ls += w.score_x[i] * x[i]
    if w.cities:
        add_city_columns(w, s.houses[p], NET_DENSE, pre, &lw, &ls)
        add_city_columns(w, s.route_mask[p], NET_DENSE + MAXC, pre, &lw, &ls)
    for j in range(w.hidden):
        h = tanh(pre[j])
        lw += w.win_h[j] * h
        ls += w.score_h[j] * h
    logit[0] = lw
    score[0] = ls


cdef void evaluate_net(const StateData* s, const ConfigData* c, const NetWeights* w, int reward, double scale,
                       HouseValues* values, double* r, double* sc, double* win) noexcept nogil:
    """The network at a position where a playout stopped: win chances, expected final scores and rewards, as
    evaluate_learned gives them for the learned model."""
    cdef double u[MAXP]
    cdef double t = game_progress(s, c), top = -1e300
    cdef int p
    for p in range(c.n_players):
        net_outputs(s, c, w, p, t, values, &u[p], &sc[p])
        if u[p] > top:
            top = u[p]
    learned_rewards(c, u, top, sc, reward, scale, r, win)
