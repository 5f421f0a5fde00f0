# The one-step rule of thumb (`heuristic` playouts, the tree's move order, the
# softmax part of the PUCT prior) and the hand-set evaluation of a stopped playout (evaluate).
# Included by _policy.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# ---------------------------------------------------------------- heuristic playout policy (one step)

cdef int tree_moves(const StateData* s, const ConfigData* c, int* moves, int n, HouseValues* values) noexcept nogil:
    """The moves the tree considers: all, except that while houses are placed only the next city of a
    complete house set (house_starts) and `done`."""
    cdef int i, k = 0, m
    cdef uint32_t starts
    if s.phase != PH_HOUSES:
        return n
    starts = house_starts(s, c, s.current, house_values(values, s, c, s.current))
    for i in range(n):
        m = moves[i]
        if (m >> MOVE_SHIFT) != MV_HOUSE or (starts >> (m & 31)) & 1:
            moves[k] = m
            k += 1
    return k


cdef void score_moves(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                      HouseValues* values, double* out) noexcept nogil:
    """Rule-of-thumb scores of `moves` (all legal; higher is better): extend the route rather than abandon
    it, draw cards that fit, close at a sensible length, place as many houses as possible, keep connected
    cards. The playout policy plays the best; the tree tries moves in this order (see Tree)."""
    cdef int p = s.current, i, m, kind, x, L = s.route_len[p], target = 3
    cdef uint32_t hm, fm, fit_hand, fit_disp, plan = 0, bit
    cdef double v
    cdef bint need_horses = False, horses = c.horses_variant
    cdef const double* hv = house_values(values, s, c, p)
    hm = hand_mask(s, c, p)
    fm = fit_mask(s, c, p)
    fit_hand = fm & hm
    fit_disp = 0
    if s.phase == PH_DRAW or s.phase == PH_PLAY:
        fit_disp = nonzero_mask(s.display, c.n_cities) & fm
    if horses:
        need_horses = c.base_horses + s.horse_total[p] < L + 1
    if s.phase == PH_AFTER:
        target = close_target(s, c, p, forbid)
    elif s.phase == PH_HOUSES:
        plan = best_houses(s, c, p, hv)
    for i in range(n):
        m = moves[i]
        kind = m >> MOVE_SHIFT
        x = m & 31
        bit = (<uint32_t>1) << x
        v = 0.0
        if kind == MV_DRAW:
            if fm & bit:
                v = 10.0 + (5.0 if fit_hand == 0 else 0.0)
            else:
                v = count_bits(c.adj[x] & hm & ~bit)
            v += 2.0 * hv[x]
            if s.phase == PH_PLAY:       # Postmaster: only worth it when nothing in hand fits
                v = (v + 8.0) if (fit_hand == 0 and L > 0 and (fm & bit)) else -5.0
        elif kind == MV_DECK:
            v = 3.0
            if s.phase == PH_PLAY:
                v = (4.0 + L) if (fit_hand == 0 and L >= 2) else -5.0
        elif kind == MV_ADMIN:
            v = -20.0
        elif kind == MV_LEFT or kind == MV_RIGHT:
            v = 20.0 + 3.0 * hv[x]
            v += count_bits(c.adj[x] & hm & ~bit & ~s.route_mask[p])   # keeps the route going
            if s.phase == PH_AFTER:        # Postal Carrier: extend while short of a long route
                v = 32.0 if L < 7 else 8.0
            elif need_horses and (hm & ~fm & ~bit):
                v = 10.0                   # the horse move below is better now
        elif kind == MV_NEW:
            v = 6.0 + count_bits(c.adj[x] & hm & ~bit) + 2.0 * hv[x]
            if L > 0:
                v -= 3.0 * L               # abandoning a route throws its cards away
        elif kind == MV_HORSE:
            v = 1.0 + c.horses[x] - (10.0 if (fm & bit) else 0.0)
            if need_horses and L >= 2:
                v += 14.0 + c.horses[x]
            if s.phase == PH_AFTER:
                v = (27.0 + c.horses[x]) if (need_horses and L >= target - 1 and not (fm & bit)) else 1.0
        elif kind == MV_CLOSE:
            if s.end_triggered or L >= target:
                v = 30.0
            elif fit_hand == 0 and fit_disp == 0:
                v = 25.0
            else:
                v = 5.0
        elif kind == MV_STOP:
            v = 10.0
        elif kind == MV_HOUSE:
            v = (10.0 - x * 0.01) if (plan & bit) else -5.0     # lowest planned city first
        elif kind == MV_DONE:
            v = 0.0
        elif kind == MV_CART:
            v = 10.0
        elif kind == MV_NOCART:
            v = 0.0
        elif kind == MV_DISCARD:           # discard the card least connected to the rest of the hand
            v = -(count_bits(c.adj[x] & hm & ~bit) + 2.0 * hv[x])
            if s.hand[p][x] > 1:
                v += 1.5                   # a second copy can never join the same route
        out[i] = v


cdef double best_house_value(const ConfigData* c, uint32_t open_cities, int left, const double* hv) noexcept nogil:
    """Value of the houses a closing could place on `open_cities` (route cities without an own house): the
    better of option A (the best city per province, plus the best free city) and option B (all of one
    province); at most `left` houses (then counted at the average value)."""
    cdef int i, na = 0, nb = 0, k
    cdef uint32_t a
    cdef double va = 0.0, vb = 0.0, v
    for i in range(c.n_provinces):
        a = open_cities & c.province_mask[i]
        if a:
            va += hv[__builtin_ctz(best_of(a, hv))]
            na += 1
            v = set_value(a, hv)
            if v > vb:
                vb = v
                nb = count_bits(a)
    a = open_cities & c.free_mask
    if a:
        va += hv[__builtin_ctz(best_of(a, hv))]
        na += 1
    if vb > va:
        va, na = vb, nb
    if na > left:
        va = va * left / na
    return va


cdef int policy_move(const StateData* s, const ConfigData* c, const int* moves, int n, uint64_t* rng,
                     int forbid, double eps, HouseValues* values) noexcept nogil:
    """The playout policy: the best-scored move (score_moves), ties broken at random; with probability
    eps a uniformly random move instead, so playouts do not all follow one line."""
    cdef double v[MAXMOVES]
    cdef double x, bv = -1e18
    cdef int i, best = 0
    if n == 1:
        return moves[0]
    if eps > 0 and unit(rng) < eps:
        return moves[below(rng, n)]
    score_moves(s, c, moves, n, forbid, values, v)
    for i in range(n):
        x = v[i] + unit(rng) * 0.5
        if x > bv:
            bv = x
            best = i
    return moves[best]


cdef void order_moves(const StateData* s, const ConfigData* c, int* moves, int n, int forbid,
                      uint64_t* rng, HouseValues* values) noexcept nogil:
    """Sort moves best first by score_moves (ties in random order)."""
    cdef double v[MAXMOVES]
    cdef double x
    cdef int i, j, m
    score_moves(s, c, moves, n, forbid, values, v)
    for i in range(n):
        v[i] += unit(rng) * 0.25
    for i in range(1, n):
        x = v[i]
        m = moves[i]
        j = i - 1
        while j >= 0 and v[j] < x:
            v[j + 1] = v[j]
            moves[j + 1] = moves[j]
            j -= 1
        v[j + 1] = x
        moves[j + 1] = m


cdef void move_priors(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                      double temp, HouseValues* values, double* out) noexcept nogil:
    """Softmax of the heuristic scores at temperature `temp`: the prior of each move for PUCT."""
    cdef double vmax = -1e300, total = 0.0
    cdef int i
    score_moves(s, c, moves, n, forbid, values, out)
    for i in range(n):
        if out[i] > vmax:
            vmax = out[i]
    for i in range(n):
        out[i] = exp((out[i] - vmax) / temp)
        total += out[i]
    for i in range(n):
        out[i] /= total


cdef double tile_potential(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    """Progress toward the province tiles the player can still take: for each such stack, its top value
    times (share of the required cities / provinces held)^2."""
    cdef double pot = 0.0, frac
    cdef int t, i, have, need
    cdef uint32_t h = s.houses[p]
    for t in range(c.n_stacks):
        if s.stack_pos[t] >= c.stack_nvals[t] or s.tiles_n[p][t] > 0:
            continue
        if c.stack_kind[t] == TK_ALL:
            have = count_bits(h & c.stack_mask[t])
            need = count_bits(c.stack_mask[t])
        elif c.stack_kind[t] == TK_EACH:
            have = provinces_held(c, t, h)
            need = count_bits(c.stack_provs[t])
        else:
            continue
        if need > 0:
            frac = <double>have / need
            pot += c.stack_vals[t][s.stack_pos[t]] * frac * frac
    return pot


cdef double route_tile_potential(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    """Progress toward a route-length tile (5, 6 and 7 cards on the South board): over the lengths k the route
    in progress can still close at, the tile closing at k would earn (award_tiles' rule: the stack for k, else
    the next shorter one with tiles left) times (cards now / k)^2; the best of them. 0 without a route or
    without route tiles left."""
    return route_tile_potential_at(s, c, s.route_len[p])


cdef double route_tile_potential_at(const StateData* s, const ConfigData* c, int L) noexcept nogil:
    """route_tile_potential of a route of L cards (the learned prior asks it of a route one card longer)."""
    cdef double best = 0.0, frac, v
    cdef int k, j, t, first
    if L == 0 or c.max_route_tile < c.min_route_tile:
        return 0.0
    first = L if L > c.min_route_tile else c.min_route_tile
    if first > c.max_route_tile:
        first = c.max_route_tile
    for k in range(first, c.max_route_tile + 1):
        v = 0.0
        j = k
        while j >= c.min_route_tile:
            t = c.route_stack[j]
            if t >= 0 and s.stack_pos[t] < c.stack_nvals[t]:
                v = c.stack_vals[t][s.stack_pos[t]]
                break
            j -= 1
        frac = <double>L / k if L < k else 1.0
        if v * frac * frac > best:
            best = v * frac * frac
    return best


cdef double position_value(const StateData* s, const ConfigData* c, int p, double tile_weight,
                           HouseValues* values) noexcept nogil:
    """Score now plus part of what the route in progress promises (its houses, and the next carriage if
    it is long enough) and tile_weight times tile_potential(): the evaluation at the end of a truncated
    playout."""
    cdef double v = score_of(s, c, p), route
    cdef int L = s.route_len[p]
    cdef uint32_t open_cities
    if L >= 3:
        open_cities = s.route_mask[p] & ~s.houses[p]
        route = 0.5 * best_house_value(c, open_cities, s.houses_left[p], house_values(values, s, c, p))
        route += 0.5 * carriage_gain(s, c, p, L, False)     # the next carriage, if the route is long enough
        if c.horses_variant and c.base_horses + s.horse_total[p] < L:
            route *= 0.5           # it still needs horse cards before it can be closed
        v += route
    else:
        v += 0.2 * L
    if tile_weight > 0:
        v += tile_weight * tile_potential(s, c, p)
    return v


cdef int evaluate(const StateData* s, const ConfigData* c, double* r, double* sc, double tile_weight,
                  double scale, HouseValues* values, bint use_plan, const int* forbid) noexcept nogil:
    """Rewards for a position where a playout stopped early: 0.5 + 0.5 EVAL_SHARE tanh(margin / scale)
    on position_value(); returns the player ahead. EVAL_SHARE < 1 keeps an unfinished game short of a
    finished one: a clear leader gains by ending the game (a win is 1), otherwise with a big lead every
    move looks the same and the leader may stall forever."""
    cdef int p, q, lead = 0
    cdef double other
    for p in range(c.n_players):
        if use_plan:
            sc[p] = plan_position_value(s, c, p, forbid[p] if forbid != NULL else 0, values)
            if tile_weight > 0:
                sc[p] += tile_weight * tile_potential(s, c, p)
        else:
            sc[p] = position_value(s, c, p, tile_weight, values)
        if sc[p] > sc[lead]:
            lead = p
    for p in range(c.n_players):
        other = -1e9
        for q in range(c.n_players):
            if q != p and sc[q] > other:
                other = sc[q]
        r[p] = 0.5 + 0.5 * EVAL_SHARE * tanh((sc[p] - other) / scale)
    return lead
