# The learned move prior (expert iteration): per-move features and a conditional logit over them; its numpy
# twin is thurn_ai.learned.prior.PriorModel.probabilities, and a test holds the two to the same numbers.
# Included by _policy.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# ---------------------------------------------------------------- learned move prior
#
# P(move | position) = softmax over the legal moves of w[phase] . phi(position, move), one weight vector per
# decision phase (draw, play, after a card, discard) and player count, fitted to what a deep search chose
# (thurn_ai/studies/expert/). phi is PRIOR_FEATURES numbers per move, mostly by-products of the planner and
# the rule of thumb (named in thurn_ai/learned/prior.py, FEATURES, in this order). Features common to all
# moves of a decision would cancel in the softmax: every feature here differs between moves.

cdef inline int prior_phase(const StateData* s) noexcept nogil:
    """The learned prior's weight row for the decision at s (-1: none; the hand-set prior decides)."""
    if s.phase == PH_DRAW:
        return 0
    if s.phase == PH_PLAY:
        return 1
    if s.phase == PH_AFTER:
        return 2
    if s.phase == PH_DISCARD:
        return 3
    return -1


cdef void plan_move_values(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                           HouseValues* values, double* v) noexcept nogil:
    """The planner's value of the position after each move (NEG where it has none): draws by draw_values,
    cards by play_value, close and stop as plan_after weighs them -- the numbers plan_choice compares."""
    cdef PlanCtx x
    cdef int i
    if s.phase != PH_DRAW and s.phase != PH_PLAY and s.phase != PH_AFTER:
        for i in range(n):
            v[i] = NEG
        return
    plan_setup(&x, s, c, forbid, values)
    plan_values_with(&x, s, c, moves, n, forbid, v)


cdef int plan_values_choice(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                            HouseValues* values, double* v) noexcept nogil:
    """plan_move_values into v, and plan_choice's move (an index into moves), with one planning context: the
    choice reads the values instead of computing them again (the learned prior needs both at a new node)."""
    cdef PlanCtx x
    if n == 1 or (s.phase != PH_DRAW and s.phase != PH_PLAY and s.phase != PH_AFTER):
        plan_move_values(s, c, moves, n, forbid, values, v)
        return plan_choice(s, c, moves, n, forbid, values)
    plan_setup(&x, s, c, forbid, values)
    plan_values_with(&x, s, c, moves, n, forbid, v)
    return plan_decide(&x, s, c, moves, n, forbid, v)


cdef void plan_values_with(PlanCtx* xp, const StateData* s, const ConfigData* c, const int* moves, int n,
                           int forbid, double* v) noexcept nogil:
    # plan_move_values with its context set up (a draw, play or after-a-card decision)
    cdef PlanCtx* x = xp
    cdef double dv[MAXMOVES]
    cdef int i, kind, p = s.current, L = s.route_len[p]
    cdef bint cw_now = s.official == 0 and s.plays == 0
    cdef int after_plays = 1 if (s.plays == 0 and s.official == 0 and not (forbid & (1 << OFF_CARRIER))) else 0
    for i in range(n):
        v[i] = NEG
    if s.phase == PH_DRAW or (s.phase == PH_PLAY and not (forbid & (1 << OFF_POSTMASTER))):
        draw_values(x, moves, n, dv)
        for i in range(n):
            v[i] = dv[i]
    for i in range(n):
        kind = moves[i] >> MOVE_SHIFT
        if s.phase == PH_PLAY and (kind == MV_LEFT or kind == MV_RIGHT or kind == MV_NEW or kind == MV_HORSE):
            v[i] = play_value(x, moves[i], after_plays, cw_now)
        elif s.phase == PH_AFTER:
            if kind == MV_LEFT or kind == MV_RIGHT or kind == MV_HORSE or (kind == MV_NEW and L == 0):
                v[i] = play_value(x, moves[i], 0, False) + PLAN_COST
            elif kind == MV_CLOSE:
                v[i] = (close_value(x, s.route_mask[p], L, s.official == 0)
                        + x.next_weight * next_route_value(x, hand_mask(s, c, p)))
            elif kind == MV_STOP:
                v[i] = stop_value(x)


cdef inline double clip(double a, double lo, double hi) noexcept nogil:
    return lo if a < lo else (hi if a > hi else a)


cdef void prior_features(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                         int plan_index, HouseValues* values, const double* plan_values, double* f) noexcept nogil:
    """PRIOR_FEATURES numbers per move into f (row i at f + i * PRIOR_FEATURES); plan_index: the planner's
    move (plan_choice), computed by the caller, which asks it anyway for the hand-set prior; plan_values:
    plan_move_values' numbers if the caller has them (plan_values_choice), else NULL."""
    cdef double rot[MAXMOVES]
    cdef double pv[MAXMOVES]
    cdef double best_rot = NEG, best_pv = NEG, ohv, deny_hv, deny_tile, own_step
    cdef double tile_step[MAXP]
    cdef int i, k, m, kind, x, q, p = s.current, L = s.route_len[p], deny, tl = turns_left_of(s, c)
    cdef uint32_t bit, hm = hand_mask(s, c, p), fm = fit_mask(s, c, p), qfm
    cdef const double* hv
    cdef const double* qhv
    cdef double* row
    score_moves(s, c, moves, n, forbid, values, rot)
    if plan_values == NULL:
        plan_move_values(s, c, moves, n, forbid, values, pv)
    else:
        for i in range(n):
            pv[i] = plan_values[i]
    hv = house_values(values, s, c, p)
    for i in range(n):
        if rot[i] > best_rot:
            best_rot = rot[i]
        if pv[i] > best_pv:
            best_pv = pv[i]
    # how much nearer one card more brings each player's route to a route-length tile: the same for every
    # move of the decision, so once here (route_tile_step, denies_route_tile)
    for q in range(c.n_players):
        tile_step[q] = (route_tile_potential_at(s, c, s.route_len[q] + 1)
                        - route_tile_potential_at(s, c, s.route_len[q]))
    own_step = tile_step[p] / 5.0
    for i in range(n):
        m = moves[i]
        kind = m >> MOVE_SHIFT
        x = m & 31
        bit = (<uint32_t>1) << x
        row = f + i * PRIOR_FEATURES
        for k in range(PRIOR_FEATURES):
            row[k] = 0.0
        row[0] = 1.0 if i == plan_index else 0.0
        row[1] = clip((rot[i] - best_rot) / 10.0, -3.0, 0.0)
        if pv[i] > NEG:
            row[2] = clip(pv[i] - best_pv, -5.0, 0.0)
            row[3] = 1.0
        row[4] = 1.0 if kind == MV_DRAW else 0.0
        row[5] = 1.0 if kind == MV_DECK else 0.0
        row[6] = 1.0 if kind == MV_ADMIN else 0.0
        row[7] = 1.0 if (kind == MV_LEFT or kind == MV_RIGHT) else 0.0
        row[8] = 1.0 if kind == MV_NEW else 0.0
        row[9] = 1.0 if kind == MV_HORSE else 0.0
        row[10] = 1.0 if kind == MV_CLOSE else 0.0
        row[11] = 1.0 if kind == MV_STOP else 0.0
        row[12] = 1.0 if kind == MV_DISCARD else 0.0
        row[13] = 1.0 if official_bit(s, m) == (1 << OFF_POSTMASTER) else 0.0
        row[14] = 1.0 if official_bit(s, m) == (1 << OFF_CARRIER) else 0.0
        if kind == MV_DRAW or kind == MV_DISCARD or kind == MV_LEFT or kind == MV_RIGHT or kind == MV_NEW \
                or kind == MV_HORSE:
            row[15] = 1.0 if fm & bit else 0.0
            row[16] = count_bits(c.adj[x] & hm & ~bit) / 3.0
            row[17] = hv[x]
            row[22] = 1.0 if s.hand[p][x] > (0 if kind == MV_DRAW else 1) else 0.0
        if kind == MV_DRAW or kind == MV_DISCARD:
            # what taking (or giving up) the card denies the others: whose route it would extend, and the
            # most a house there is worth to one of them
            deny = 0
            deny_hv = 0.0
            deny_tile = 0.0
            for q in range(c.n_players):
                if q == p:
                    continue
                qfm = fit_mask(s, c, q)
                if qfm & bit:
                    deny += 1
                    qhv = house_values(values, s, c, q)
                    ohv = qhv[x]
                    if ohv > deny_hv:
                        deny_hv = ohv
                    if tile_step[q] > deny_tile:
                        deny_tile = tile_step[q]
            row[18] = deny
            row[19] = deny_hv
            # the route-length tile the card would bring nearer to an opponent (the most of them): what a
            # long route gains from one card more, 0 for a short one (route_tile_potential_at, / 5)
            row[28] = deny_tile / 5.0
        if kind == MV_LEFT or kind == MV_RIGHT:
            row[20] = (L + 1) / 5.0
            # how much nearer the card brings the route to a route-length tile (route_tile_potential_at, / 5)
            row[27] = own_step
        elif kind == MV_NEW:
            row[20] = 0.2
        elif kind == MV_CLOSE:
            row[20] = L / 5.0           # (a stop keeps the route: 0, so close vs stop sees the length)
        if kind == MV_CLOSE:
            row[21] = 1.0 if (s.end_triggered or tl <= 2) else 0.0
        if kind == MV_DECK:
            row[23] = s.deck_n / 20.0
        # where the planner's favourite is one of the kinds a deep search most often overrules (a second
        # draw instead of a card, a stop instead of a close, a blind draw instead of a face-up card)
        if i == plan_index:
            row[24] = row[13]
            row[25] = row[11]
            row[26] = row[5]


cdef void prior_logits(const StateData* s, const ConfigData* c, const PriorWeights* w, const int* moves, int n,
                       int forbid, int plan_index, HouseValues* values, const double* plan_values,
                       double* out) noexcept nogil:
    """The learned prior's logit of each move (w . phi, plus v . tanh(W phi + b) where the phase has hidden
    units); 0 for every move where the phase has no weights."""
    cdef double f[MAXMOVES * PRIOR_FEATURES]
    cdef int i, j, k, ph = prior_phase(s), h
    cdef double a, x
    cdef double z[PRIOR_HIDDEN]
    cdef const double* phi
    if ph < 0 or not w.has[ph]:
        for i in range(n):
            out[i] = 0.0
        return
    prior_features(s, c, moves, n, forbid, plan_index, values, plan_values, f)
    for i in range(n):
        phi = &f[i * PRIOR_FEATURES]
        a = 0.0
        for k in range(PRIOR_FEATURES):
            a += w.w[ph][k] * phi[k]
        h = w.hidden[ph]
        if h > 0:
            # most features of a move are 0: the hidden units' sums skip them
            for j in range(h):
                z[j] = w.b[ph][j]
            for k in range(PRIOR_FEATURES):
                x = phi[k]
                if x != 0.0:
                    for j in range(h):
                        z[j] += w.W[ph][j][k] * x
            for j in range(h):
                a += w.v[ph][j] * tanh(z[j])
        out[i] = a


cdef void softmax_into(const double* logits, int n, double* out) noexcept nogil:
    cdef int i
    cdef double top = NEG, total = 0.0
    for i in range(n):
        if logits[i] > top:
            top = logits[i]
    for i in range(n):
        out[i] = exp(logits[i] - top)
        total += out[i]
    for i in range(n):
        out[i] /= total
