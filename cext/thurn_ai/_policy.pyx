# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled playout policies and evaluations, used by the search (thurn_ai._search).

* the officials a bot may not use (forbid=...);
* house values: what a house in each city is worth to each player (a point plus tile progress);
* the one-step rule of thumb (`heuristic` playouts; the tree's move order and the softmax part of the
  PUCT prior);
* the planning policy (`plan`): a compiled, simplified port of the heuristic bot's plan value, used as
  the PUCT prior's favourite move, as a playout policy and as an evaluation;
* the evaluations of a playout stopped at the horizon, and the rewards of a finished game;
* playouts.

Nothing here keeps state between calls except the caller's HouseValues cache. See docs/bots.md.
"""
from libc.string cimport memset
from libc.math cimport sqrt, log, tanh, exp
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, uint64_t

from thurn_ai._core cimport (
    StateData, ConfigData, GameState, gen_moves, apply_move, score_of, winner_of, nonzero_mask, count_bits, fit_mask,
    MAXC, MAXP, MAXT, MAXMOVES, MOVE_SHIFT,
    PH_DRAW, PH_PLAY, PH_AFTER, PH_HOUSES, PH_CARTWRIGHT, PH_DISCARD, PH_OVER,
    MV_DRAW, MV_DECK, MV_ADMIN, MV_LEFT, MV_RIGHT, MV_NEW, MV_HORSE, MV_CLOSE, MV_STOP, MV_HOUSE,
    MV_DONE, MV_CART, MV_NOCART, MV_DISCARD,
    OFF_NONE, OFF_POSTMASTER, OFF_ADMINISTRATOR, OFF_CARRIER, OFF_CARTWRIGHT, TK_ALL, TK_EACH, TK_FREE,
)
from thurn_ai._random cimport next_u64, below, unit

cdef extern from *:
    int __builtin_ctz(unsigned int x) nogil

DEF EVAL_SHARE = 0.8    # an evaluated (unfinished) playout's reward lies in [0.1, 0.9], a finished one's in [0, 1]


# ---------------------------------------------------------------- officials (forbid=...)

cdef inline int official_bit(const StateData* s, int m) noexcept nogil:
    """The official a move would use, as a bit (1 << OFF_x), 0 for an ordinary move; mirrors
    thurn_ai.officials.official_of (the forced Postmaster is no choice and counts as ordinary)."""
    cdef int kind = m >> MOVE_SHIFT
    if kind == MV_ADMIN:
        return 1 << OFF_ADMINISTRATOR
    if kind == MV_CART:
        return 1 << OFF_CARTWRIGHT
    if (kind == MV_DRAW or kind == MV_DECK) and s.phase == PH_PLAY:
        return 1 << OFF_POSTMASTER
    if (kind == MV_LEFT or kind == MV_RIGHT or kind == MV_NEW or kind == MV_HORSE) and s.phase == PH_AFTER:
        return 1 << OFF_CARRIER
    return 0


cdef int drop_forbidden(const StateData* s, int* moves, int n, int forbid) noexcept nogil:
    """Remove moves using a forbidden official, in place; keeps all moves if none would remain."""
    cdef int i, k = 0, m
    if forbid == 0:
        return n
    for i in range(n):
        if official_bit(s, moves[i]) & forbid == 0:
            k += 1
    if k == 0 or k == n:
        return n
    k = 0
    for i in range(n):
        m = moves[i]
        if official_bit(s, m) & forbid == 0:
            moves[k] = m
            k += 1
    return k


cdef int keep_officials(const StateData* s, int* moves, int n, int uses, int avoids) noexcept nogil:
    """Keep, in place, the moves that use an official of the bit set `uses` (if it is not 0) and none of
    `avoids`; may leave none (unlike drop_forbidden: a search restricted to one side of a decision must
    not silently search the other side)."""
    cdef int i, k = 0, m, bit
    for i in range(n):
        m = moves[i]
        bit = official_bit(s, m)
        if (uses == 0 or bit & uses) and bit & avoids == 0:
            moves[k] = m
            k += 1
    return k


# ---------------------------------------------------------------- heuristic playout policy

cdef inline uint32_t hand_mask(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    return nonzero_mask(s.hand[p], c.n_cities)


cdef inline int close_target(const StateData* s, const ConfigData* c, int p, int forbid) noexcept nogil:
    """Route length at which the policy closes: the next carriage's size (one less when the Cartwright
    can make up the difference), at least 3; 5 once carriages no longer matter (route tiles start at 5)."""
    cdef int nxt, size
    if c.n_carriages > 0:
        nxt = s.carriage[p] + 1
        if nxt < c.n_carriages:
            size = c.carriage_size[nxt]
            if c.cartwright and not (forbid & (1 << OFF_CARTWRIGHT)):
                size -= 1
            return size if size > 3 else 3
    return 5


cdef inline double progress_gain(int top, int have, int need) noexcept nogil:
    """Gain in top * (have / need)^2 from one more city or province (the tile itself when complete)."""
    cdef double a = <double>have / need, b = <double>(have + 1) / need
    return top * (b * b - a * a)


cdef inline int provinces_held(const ConfigData* c, int t, uint32_t h) noexcept nogil:
    """How many of the provinces an each-province tile stack `t` needs hold a house of the set `h`."""
    cdef int i, have = 0
    for i in range(c.n_provinces):
        if (c.stack_provs[t] >> i) & 1 and (h & c.province_mask[i]):
            have += 1
    return have


cdef const double* house_values(HouseValues* hv, const StateData* s, const ConfigData* c, int p) noexcept nogil:
    """Per city, what a house there is worth to player p: 0 with an own house, else 1 (a house placed is
    a point) plus the progress it makes toward the tiles p can still take (see tile_potential), the
    whole top value for the house that completes a group, and a free city's round tile. Recomputed only
    when p's houses or the tile stacks have changed since the last call."""
    cdef int t, x, i, key = 0, top
    cdef uint32_t h = s.houses[p], counts, open_provinces
    cdef double gain
    cdef double* v = hv.v[p]
    for t in range(c.n_stacks):
        key += s.stack_pos[t]
    if hv.stacks[p] == key and hv.houses[p] == h:
        return v
    hv.stacks[p] = key
    hv.houses[p] = h
    for x in range(c.n_cities):
        v[x] = <double>(1 - ((h >> x) & 1))      # 0 with an own house, else 1 (no branch to mispredict)
    # stack by stack (a profile of the 4-player search spent a fifth of its time here when this went city by
    # city): each stack's gain once, added to the cities it counts for; every city still gets its gains in
    # stack order, so the sums are the same numbers as before, bit for bit.
    for t in range(c.n_stacks):
        if s.stack_pos[t] >= c.stack_nvals[t] or s.tiles_n[p][t] > 0:
            continue
        top = c.stack_vals[t][s.stack_pos[t]]
        if c.stack_kind[t] == TK_ALL:
            gain = progress_gain(top, count_bits(h & c.stack_mask[t]), count_bits(c.stack_mask[t]))
            counts = c.stack_mask[t]
        elif c.stack_kind[t] == TK_EACH:     # a house in a province of the stack where p has none yet
            gain = progress_gain(top, provinces_held(c, t, h), count_bits(c.stack_provs[t]))
            open_provinces = 0
            for i in range(c.n_provinces):
                if (c.stack_provs[t] >> i) & 1 and (h & c.province_mask[i]) == 0:
                    open_provinces |= c.province_mask[i]
            counts = open_provinces
        elif c.stack_kind[t] == TK_FREE:
            gain = top
            counts = c.stack_mask[t]
        else:
            continue
        counts &= ~h
        while counts:
            x = __builtin_ctz(counts)
            v[x] += gain
            counts &= counts - 1
    return v


cdef void reset_values(HouseValues* hv) noexcept nogil:
    cdef int p
    for p in range(MAXP):
        hv.stacks[p] = -1


cdef inline uint32_t lowest_bit(uint32_t a) noexcept nogil:
    return a & (~a + 1)


cdef uint32_t best_of(uint32_t a, const double* hv) noexcept nogil:
    """The city of the set `a` with the highest house value (the lowest on ties), as a bit."""
    cdef uint32_t best = 0, b
    cdef double bv = -1.0
    cdef int x
    while a:
        b = lowest_bit(a)
        x = __builtin_ctz(b)
        if hv[x] > bv:
            bv = hv[x]
            best = b
        a &= a - 1
    return best


cdef inline double set_value(uint32_t a, const double* hv) noexcept nogil:
    cdef double v = 0.0
    while a:
        v += hv[__builtin_ctz(a)]
        a &= a - 1
    return v


cdef inline uint32_t option_a_best(uint32_t placed, uint32_t avail, const ConfigData* c,
                                   const double* hv) noexcept nogil:
    """Option A's best additions: the best available city of each province not yet used, plus the best
    free city if none is placed yet."""
    cdef uint32_t t = 0, a, pm
    cdef int i
    for i in range(c.n_provinces):
        pm = c.province_mask[i]
        a = avail & pm
        if (placed & pm) == 0 and a:
            t |= best_of(a, hv)
    a = avail & c.free_mask
    if (placed & c.free_mask) == 0 and a:
        t |= best_of(a, hv)
    return t


cdef uint32_t best_houses(const StateData* s, const ConfigData* c, int p, const double* hv) noexcept nogil:
    """The most valuable legal set of houses (by house value) for the route being closed that extends the
    houses placed so far (placement goes in increasing city order, so only cities after the last one
    placed can be added)."""
    cdef uint32_t placed = s.placed_now
    cdef uint32_t above = 0xFFFFFFFF if s.last_house < 0 else (
        0 if s.last_house >= 31 else (<uint32_t>0xFFFFFFFF) << (s.last_house + 1))
    cdef uint32_t avail = s.route_mask[p] & ~s.houses[p] & ~placed & above
    cdef uint32_t best = placed, t, a, pm
    cdef double best_v = set_value(placed, hv), v
    cdef int i, left = s.houses_left[p]
    cdef bint a_ok = count_bits(placed & c.free_mask) <= 1
    # option B: every route city of one province
    for i in range(c.n_provinces):
        pm = c.province_mask[i]
        if placed & ~pm:
            continue
        t = placed | (avail & pm)
        v = set_value(t, hv)
        if v > best_v:
            best, best_v = t, v
    # option A: the best city of each province, plus the best free city
    if a_ok:
        for i in range(c.n_provinces):
            if count_bits(placed & c.province_mask[i]) > 1:
                a_ok = False
    if a_ok:
        t = placed | option_a_best(placed, avail, c, hv)
        v = set_value(t, hv)
        if v > best_v:
            best, best_v = t, v
    # never plan more houses than the supply holds: drop the least valuable
    while count_bits(best & ~placed) > left:
        t = best & ~placed
        a = t
        pm = lowest_bit(t)
        while a:
            if hv[__builtin_ctz(lowest_bit(a))] < hv[__builtin_ctz(pm)]:
                pm = lowest_bit(a)
            a &= a - 1
        best &= ~pm
    return best


cdef uint32_t house_starts(const StateData* s, const ConfigData* c, int p, const double* hv) noexcept nogil:
    """The cities that can come next in a complete house set (option B for each province, option A with
    the best city per province): the tree considers only these (and `done`) while placing houses, so it
    does not spend its iterations on sets it would leave unfinished."""
    cdef uint32_t placed = s.placed_now
    cdef uint32_t above = 0xFFFFFFFF if s.last_house < 0 else (
        0 if s.last_house >= 31 else (<uint32_t>0xFFFFFFFF) << (s.last_house + 1))
    cdef uint32_t avail = s.route_mask[p] & ~s.houses[p] & ~placed & above
    cdef uint32_t out = 0, t, a, pm
    cdef int i
    cdef bint a_ok = count_bits(placed & c.free_mask) <= 1
    for i in range(c.n_provinces):
        pm = c.province_mask[i]
        if (placed & ~pm) == 0 and (avail & pm):
            out |= lowest_bit(avail & pm)
        if count_bits(placed & pm) > 1:
            a_ok = False
    if a_ok:
        t = option_a_best(placed, avail, c, hv)
        if t:
            out |= lowest_bit(t)
    return out


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



# ---------------------------------------------------------------- planning playout policy ("plan")
#
# A compiled, simplified port of the rule-based `heuristic` bot's judgment (thurn_ai/bots/heuristic.py):
# every decision is scored by the *plan value* of the position it leads to -- the best way to go on with
# the route using only the cards already in hand (a small depth-first search over hand cards), valued
# as the houses, route tile and carriage of closing after the chain, minus a cost per card still to play,
# plus part of the best start of the next route among the cards left. Playouts that play like this are
# plausible games, which the search needs to judge a line (the one-step `heuristic` policy above throws
# routes away and scores a tenth of what the heuristic bot scores).

DEF PLAN_TURNS = 4          # how many turns ahead a plan may play cards from hand
DEF PLAN_COST = 0.5         # per card still to play (a turn spent on this route is not spent on the next)
DEF PLAN_NEXT = 0.4         # weight of the next route's start among the cards left
DEF PLAN_PARTIAL = 0.5      # share of the house value of a route that cannot be closed yet
DEF PLAN_SCARCE = 0.3       # bonus for a city that is a whole province by itself
DEF PLAN_PM_MARGIN = 0.1    # a second draw (Postmaster) must gain this much more than it forgoes
DEF NEG = -1e18
DEF PLAN_KEEP_DISPLAY = 0.85  # chance that a fitting face-up card is still there to take (eval=plan)
DEF PLAN_SEEN = 128         # route states remembered per plan search (more are searched again, correctly)

cdef struct PlanCtx:
    const StateData* s
    const ConfigData* c
    int p
    double hv[MAXC]
    double next_weight
    int turns_left
    bint cartwright_ok
    bint carrier_ok
    # per plan() call
    uint32_t hmask
    uint32_t dups
    int capacity
    int horse_slots
    int max_cards
    bint cw_now
    double best
    int best_n
    # small direct-mapped caches for one decision (the plan search asks the same masks many times)
    uint32_t nr_key[64]
    double nr_val[64]
    uint32_t he_key[64]
    double he_val[64]
    # route states (ends, cities) the plan search has visited in this plan() call: orders of the same
    # cards reach the same state, whose subtree is searched once (as the heuristic bot's `seen`)
    int n_seen
    int8_t seen_l[PLAN_SEEN]
    int8_t seen_r[PLAN_SEEN]
    uint32_t seen_m[PLAN_SEEN]


cdef inline int cache_slot(uint32_t key) noexcept nogil:
    return <int>((key * 0x9E3779B1u) >> 26)


cdef int turns_left_of(const StateData* s, const ConfigData* c) noexcept nogil:
    """A rough count of the mover's turns before the game ends (99: no end in sight)."""
    cdef int best = 99, o, need, k
    if s.end_triggered:
        return 0
    for o in range(c.n_players):
        if c.n_carriages > 0 and s.carriage[o] == c.n_carriages - 2:
            need = c.carriage_size[c.n_carriages - 1] - 2
            if need < 3:
                need = 3
            k = need - s.route_len[o]
            best = min(best, k if k > 1 else 1)
        if s.houses_left[o] <= 3:
            k = 3 - s.route_len[o]
            best = min(best, k if k > 1 else 1)
    return best


cdef inline double route_tile_value(const StateData* s, const ConfigData* c, int length) noexcept nogil:
    """The route tile a closed route of this length takes (its length's stack, else a shorter one)."""
    cdef int L = length, t
    if L > c.max_route_tile:
        L = c.max_route_tile
    while L >= c.min_route_tile and L >= 0:
        t = c.route_stack[L]
        if t >= 0 and s.stack_pos[t] < c.stack_nvals[t]:
            return c.stack_vals[t][s.stack_pos[t]]
        L -= 1
    return 0.0


cdef inline double carriage_gain(const StateData* s, const ConfigData* c, int p, int length,
                                 bint cartwright) noexcept nogil:
    cdef int nxt = s.carriage[p] + 1, size
    if c.n_carriages == 0 or nxt >= c.n_carriages:
        return 0.0
    size = c.carriage_size[nxt]
    if length >= size or (cartwright and length + 2 >= size):
        return c.carriage_points[nxt] - (c.carriage_points[nxt - 1] if nxt > 0 else 0)
    return 0.0


cdef inline double houses_estimate(PlanCtx* x, uint32_t rmask) noexcept nogil:
    cdef int k = cache_slot(rmask)
    if x.he_key[k] != rmask:
        x.he_key[k] = rmask
        x.he_val[k] = best_house_value(x.c, rmask & ~x.s.houses[x.p], x.s.houses_left[x.p], x.hv)
    return x.he_val[k]


cdef double next_route_value(PlanCtx* x, uint32_t cards) noexcept nogil:
    """The best start of a next route among these cards: a path of at most 3, its house values plus half
    a point a card."""
    cdef const ConfigData* c = x.c
    cdef double best = 0.0, va, vb, vc
    cdef uint32_t ra, rb, rc
    cdef int a, b, d, k = cache_slot(cards)
    if x.nr_key[k] == cards:
        return x.nr_val[k]
    ra = cards
    while ra:
        a = __builtin_ctz(ra)
        ra &= ra - 1
        va = x.hv[a] + 0.5
        if va > best:
            best = va
        rb = cards & c.adj[a] & ~((<uint32_t>1) << a)
        while rb:
            b = __builtin_ctz(rb)
            rb &= rb - 1
            vb = va + x.hv[b] + 0.5
            if vb > best:
                best = vb
            rc = cards & (c.adj[a] | c.adj[b]) & ~((<uint32_t>1) << a) & ~((<uint32_t>1) << b)
            while rc:
                d = __builtin_ctz(rc)
                rc &= rc - 1
                vc = vb + x.hv[d] + 0.5
                if vc > best:
                    best = vc
    x.nr_key[k] = cards
    x.nr_val[k] = best
    return best


cdef double close_value(PlanCtx* x, uint32_t rmask, int length, bint cartwright) noexcept nogil:
    return (houses_estimate(x, rmask) + route_tile_value(x.s, x.c, length)
            + carriage_gain(x.s, x.c, x.p, length, cartwright and x.cartwright_ok))


cdef double plan_score(PlanCtx* x, uint32_t rmask, int length, uint32_t used, int n_cards) noexcept nogil:
    cdef const ConfigData* c = x.c
    cdef uint32_t left_cards = (x.hmask & ~used) | (used & x.dups), spare
    cdef int extra = 0, need, k, i, bestx, h
    cdef bint closable = length >= c.min_close
    cdef double val
    if closable and c.horses_variant and length > x.capacity:
        # lay the strongest spare cards as horses, one a turn
        need = length - x.capacity
        spare = left_cards & ~rmask
        while need > 0 and extra < x.horse_slots and spare:
            bestx = -1
            h = -1
            k = <int>spare
            while k:
                i = __builtin_ctz(<uint32_t>k)
                k &= k - 1
                if c.horses[i] > h:
                    h = c.horses[i]
                    bestx = i
            spare &= ~((<uint32_t>1) << bestx)
            need -= h
            extra += 1
        closable = need <= 0
    if n_cards + extra > x.max_cards:
        return NEG
    val = x.next_weight * next_route_value(x, left_cards)
    if closable:
        val += close_value(x, rmask, length, x.cw_now if n_cards == 0 else True)
    else:
        val += PLAN_PARTIAL * houses_estimate(x, rmask)
    return val - PLAN_COST * (n_cards + extra)


cdef void plan_visit(PlanCtx* x, int left, int right, int length, uint32_t rmask, uint32_t used,
                     int n_cards) noexcept nogil:
    cdef double v
    cdef uint32_t cand, a
    cdef int y, i
    for i in range(x.n_seen):
        if x.seen_m[i] == rmask and x.seen_l[i] == left and x.seen_r[i] == right:
            return
    if x.n_seen < PLAN_SEEN:
        x.seen_l[x.n_seen] = <int8_t>left
        x.seen_r[x.n_seen] = <int8_t>right
        x.seen_m[x.n_seen] = rmask
        x.n_seen += 1
    v = plan_score(x, rmask, length, used, n_cards)
    if v > x.best:
        x.best = v
        x.best_n = n_cards
    if n_cards >= x.max_cards:
        return
    cand = x.hmask & ~used & ~rmask
    if length == 0:
        a = cand
        while a:
            y = __builtin_ctz(a)
            a &= a - 1
            plan_visit(x, y, y, 1, (<uint32_t>1) << y, used | ((<uint32_t>1) << y), n_cards + 1)
        return
    a = cand & x.c.adj[right]
    while a:
        y = __builtin_ctz(a)
        a &= a - 1
        plan_visit(x, left, y, length + 1, rmask | ((<uint32_t>1) << y), used | ((<uint32_t>1) << y), n_cards + 1)
    if length > 1:
        a = cand & x.c.adj[left]
        while a:
            y = __builtin_ctz(a)
            a &= a - 1
            plan_visit(x, y, right, length + 1, rmask | ((<uint32_t>1) << y), used | ((<uint32_t>1) << y), n_cards + 1)


cdef double plan(PlanCtx* x, int left, int right, int length, uint32_t rmask, const uint8_t* hand,
                 int capacity, int horse_slots, int plays_now, bint cw_now) noexcept nogil:
    """Plan value of a route (ends left/right) with this hand; x.best_n is the best chain's length."""
    cdef int i
    x.hmask = 0
    x.dups = 0
    for i in range(x.c.n_cities):
        if hand[i]:
            x.hmask |= (<uint32_t>1) << i
            if hand[i] > 1:
                x.dups |= (<uint32_t>1) << i
    x.capacity = capacity
    x.horse_slots = horse_slots
    x.cw_now = cw_now
    if x.s.end_triggered:
        x.max_cards = plays_now
    else:
        x.max_cards = plays_now + min(max(x.turns_left - 1, 0) + 1, PLAN_TURNS)
    x.best = NEG
    x.best_n = 0
    x.n_seen = 0
    plan_visit(x, left, right, length, rmask, 0, 0)
    return x.best


cdef inline int plays_left_now(PlanCtx* x) noexcept nogil:
    cdef const StateData* s = x.s
    return (1 if s.plays == 0 else 0) + (1 if (s.official == 0 and x.carrier_ok) else 0)


cdef inline double current_plan(PlanCtx* x, const uint8_t* hand, int plays_now, bint cw_now) noexcept nogil:
    cdef const StateData* s = x.s
    cdef int p = x.p, L = s.route_len[p]
    return plan(x, s.route[p][0] if L else -1, s.route[p][L - 1] if L else -1, L, s.route_mask[p], hand,
                x.c.base_horses + s.horse_total[p], x.c.max_horse_cards - s.horse_n[p], plays_now, cw_now)


cdef void plan_setup(PlanCtx* x, const StateData* s, const ConfigData* c, int forbid,
                     HouseValues* values, int player=-1) noexcept nogil:
    cdef int i, q
    cdef const double* hv
    x.s = s
    x.c = c
    x.p = s.current if player < 0 else player
    memset(x.nr_key, 0xFF, sizeof(x.nr_key))      # 0xFFFFFFFF: no board has 32 cities, so never a key
    memset(x.he_key, 0xFF, sizeof(x.he_key))
    hv = house_values(values, s, c, x.p)
    for i in range(c.n_cities):
        x.hv[i] = hv[i]
        q = c.province[i]
        if hv[i] > 0 and q >= 0 and count_bits(c.province_mask[q]) == 1:
            x.hv[i] += PLAN_SCARCE
    x.turns_left = turns_left_of(s, c)
    x.next_weight = 0.0 if s.end_triggered else PLAN_NEXT * min(1.0, x.turns_left / 4.0)
    x.cartwright_ok = c.cartwright and not (forbid & (1 << OFF_CARTWRIGHT))
    x.carrier_ok = not (forbid & (1 << OFF_CARRIER))


cdef bint route_in_danger(PlanCtx* x) noexcept nogil:
    """The route holds 2+ cards and neither hand nor display can extend it."""
    cdef const StateData* s = x.s
    cdef uint32_t fm
    cdef int i
    if s.route_len[x.p] < 2:
        return False
    fm = fit_mask(s, x.c, x.p)
    if fm & hand_mask(s, x.c, x.p):
        return False
    for i in range(x.c.n_cities):
        if s.display[i] and (fm >> i) & 1:
            return False
    return True


cdef void draw_values(PlanCtx* x, const int* moves, int n, double* out) noexcept nogil:
    """Plan value after each draw move (the deck: expected over the cards left in it); others NEG."""
    cdef const StateData* s = x.s
    cdef const ConfigData* c = x.c
    cdef int p = x.p, i, m, kind, y, plays = plays_left_now(x)
    cdef uint8_t hand[MAXC]
    cdef double with_card[MAXC]
    cdef bint done[MAXC]
    cdef double base, base_next, total
    cdef uint32_t reach, hm = hand_mask(s, c, p), base_left
    for i in range(c.n_cities):
        hand[i] = s.hand[p][i]
        done[i] = False
    base = current_plan(x, hand, plays, s.official == 0)
    base_left = hm   # the chain's cards are not tracked; the hand approximates what is left
    base_next = next_route_value(x, base_left)
    reach = hm | fit_mask(s, c, p)
    for i in range(c.n_cities):
        if (hm >> i) & 1:
            reach |= c.adj[i]
    for i in range(n):
        m = moves[i]
        kind = m >> MOVE_SHIFT
        out[i] = NEG
        if kind != MV_DRAW and kind != MV_DECK:
            continue
        total = 0.0
        for y in range(c.n_cities):
            if kind == MV_DRAW:
                if y != (m & 31):
                    continue
            elif s.deck[y] == 0:
                continue
            if not done[y]:
                done[y] = True
                if s.route_len[p] and not ((reach >> y) & 1) and not c.horses_variant:
                    with_card[y] = base + x.next_weight * max(0.0, x.hv[y] + 0.5 - base_next)
                else:
                    hand[y] += 1
                    with_card[y] = current_plan(x, hand, plays, s.official == 0)
                    hand[y] -= 1
            total += with_card[y] * (1 if kind == MV_DRAW else s.deck[y])
        if kind == MV_DECK:
            out[i] = total / s.deck_n if s.deck_n > 0 else NEG
        else:
            out[i] = total


cdef double play_value(PlanCtx* x, int m, int after_plays, bint cw_now) noexcept nogil:
    """Plan value after playing the card of move m (left/right/new/horse)."""
    cdef const StateData* s = x.s
    cdef const ConfigData* c = x.c
    cdef int p = x.p, kind = m >> MOVE_SHIFT, y = m & 31, L = s.route_len[p], i
    cdef uint8_t hand[MAXC]
    cdef double v
    for i in range(c.n_cities):
        hand[i] = s.hand[p][i]
    hand[y] -= 1
    if kind == MV_HORSE:
        v = plan(x, s.route[p][0] if L else -1, s.route[p][L - 1] if L else -1, L, s.route_mask[p], hand,
                 c.base_horses + s.horse_total[p] + c.horses[y], c.max_horse_cards - s.horse_n[p] - 1,
                 after_plays, cw_now)
    elif kind == MV_NEW:
        v = plan(x, y, y, 1, (<uint32_t>1) << y, hand, c.base_horses + s.horse_total[p],
                 c.max_horse_cards - s.horse_n[p], after_plays, cw_now)
    elif kind == MV_LEFT:
        v = plan(x, y, s.route[p][L - 1], L + 1, s.route_mask[p] | ((<uint32_t>1) << y), hand,
                 c.base_horses + s.horse_total[p], c.max_horse_cards - s.horse_n[p], after_plays, cw_now)
    else:
        v = plan(x, s.route[p][0] if L else y, y, L + 1, s.route_mask[p] | ((<uint32_t>1) << y), hand,
                 c.base_horses + s.horse_total[p], c.max_horse_cards - s.horse_n[p], after_plays, cw_now)
    return v


cdef double stop_value(PlanCtx* x) noexcept nogil:
    """Going on with the route: the best plan that plays more hand cards, or, with nothing in hand that
    fits, the chance that a fitting face-up card is still there next turn."""
    cdef const StateData* s = x.s
    cdef const ConfigData* c = x.c
    cdef int p = x.p, L = s.route_len[p], i, bx = -1
    cdef double v, keep, grown, lost
    cdef uint32_t fm
    v = current_plan(x, s.hand[p], 0, False)
    if x.best_n > 0:
        return v
    if L < c.min_close or (c.horses_variant and c.base_horses + s.horse_total[p] < L):
        return v                          # cannot close yet: nothing to lose by waiting
    fm = fit_mask(s, c, p)
    for i in range(c.n_cities):
        if s.display[i] and (fm >> i) & 1 and (bx < 0 or x.hv[i] > x.hv[bx]):
            bx = i
    if bx < 0 or x.turns_left <= 1:
        return NEG
    keep = (5.0 / 6.0) ** (c.n_players - 1)
    grown = close_value(x, s.route_mask[p] | ((<uint32_t>1) << bx), L + 1, True) - PLAN_COST
    lost = x.next_weight * next_route_value(x, hand_mask(s, c, p))
    return keep * grown + (1 - keep) * lost


cdef int argmax_move(const int* moves, int n, const double* v) noexcept nogil:
    """The best-valued move; ties to the lowest move code (as the heuristic bot)."""
    cdef int i, best = -1
    for i in range(n):
        if v[i] > NEG and (best < 0 or v[i] > v[best] or (v[i] == v[best] and moves[i] < moves[best])):
            best = i
    return best


cdef inline int plan_draw(PlanCtx* x, const int* moves, int n, double* v) noexcept nogil:
    """The draw phase: the Administrator when only a fitting card saves the route, else the best draw."""
    cdef int i, best
    for i in range(n):
        if (moves[i] >> MOVE_SHIFT) == MV_ADMIN:
            # six fresh cards beat one or two blind draws when only a fitting card saves the route
            if route_in_danger(x):
                return i
    draw_values(x, moves, n, v)
    best = argmax_move(moves, n, v)
    return best if best >= 0 else 0


cdef inline int plan_cartwright(const StateData* s, const ConfigData* c, const int* moves, int n) noexcept nogil:
    """The Cartwright, except for the game-ending last carriage while another player is ahead."""
    cdef int i, q, p = s.current
    cdef double base
    for i in range(n):
        if (moves[i] >> MOVE_SHIFT) == MV_NOCART and s.carriage[p] + 1 == c.n_carriages - 1 and not s.end_triggered:
            # the last carriage ends the game: not while behind
            base = score_of(s, c, p) + carriage_gain(s, c, p, c.carriage_size[c.n_carriages - 1], True) + 1
            for q in range(c.n_players):
                if q != p and score_of(s, c, q) > base:
                    return i
    for i in range(n):
        if (moves[i] >> MOVE_SHIFT) == MV_CART:
            return i
    return 0


cdef inline int plan_play(PlanCtx* x, const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                          double* v) noexcept nogil:
    """The play phase: a second draw (the Postmaster) when it gains more than what it costs, else the
    card of best plan value."""
    cdef int i, kind, best, length, p = s.current, L = s.route_len[p]
    cdef double base, gain, forgone
    cdef bint cw_now = s.official == 0 and s.plays == 0, has_draw = False
    cdef int after_plays = 1 if (s.plays == 0 and s.official == 0 and x.carrier_ok) else 0
    for i in range(n):
        kind = moves[i] >> MOVE_SHIFT
        if kind == MV_DRAW or kind == MV_DECK:
            has_draw = True
    if has_draw and not (forbid & (1 << OFF_POSTMASTER)):
        draw_values(x, moves, n, v)
        best = argmax_move(moves, n, v)
        if best >= 0:
            base = current_plan(x, s.hand[p], plays_left_now(x), s.official == 0)
            gain = v[best] - base
            forgone = 0.0
            if x.best_n >= 2 and x.carrier_ok:
                forgone += PLAN_COST
            length = L + x.best_n
            if x.cartwright_ok and x.best_n <= 1 and length >= 3 and c.n_carriages > 0 and \
                    s.carriage[p] + 1 < c.n_carriages and \
                    length < c.carriage_size[s.carriage[p] + 1] <= length + 2:
                forgone += carriage_gain(s, c, p, length, True)
            if route_in_danger(x) or not (fit_mask(s, c, p) & hand_mask(s, c, p)):
                forgone = 0.0
            if gain > forgone + PLAN_PM_MARGIN:
                return best
    for i in range(n):
        kind = moves[i] >> MOVE_SHIFT
        if kind == MV_LEFT or kind == MV_RIGHT or kind == MV_NEW or kind == MV_HORSE:
            v[i] = play_value(x, moves[i], after_plays, cw_now)
        else:
            v[i] = NEG
    best = argmax_move(moves, n, v)
    return best if best >= 0 else 0


cdef inline int plan_after(PlanCtx* x, const StateData* s, const ConfigData* c, const int* moves, int n,
                           double* v) noexcept nogil:
    """After a card: a second card (the Postal Carrier), close, or stop, by plan value; near the end of
    the game a close comes first (unless a card that extends the route is better)."""
    cdef int i, kind, best, p = s.current, L = s.route_len[p]
    cdef bint can_close = False
    for i in range(n):
        if (moves[i] >> MOVE_SHIFT) == MV_CLOSE:
            can_close = True
    for i in range(n):
        kind = moves[i] >> MOVE_SHIFT
        if kind == MV_LEFT or kind == MV_RIGHT or kind == MV_HORSE or (kind == MV_NEW and L == 0):
            v[i] = play_value(x, moves[i], 0, False) + PLAN_COST
        else:
            v[i] = NEG
    if can_close and (s.end_triggered or x.turns_left <= 1):
        if s.end_triggered:
            best = argmax_move(moves, n, v)
            if best >= 0 and ((moves[best] >> MOVE_SHIFT) == MV_LEFT or (moves[best] >> MOVE_SHIFT) == MV_RIGHT):
                return best
        for i in range(n):
            if (moves[i] >> MOVE_SHIFT) == MV_CLOSE:
                return i
    for i in range(n):
        kind = moves[i] >> MOVE_SHIFT
        if kind == MV_CLOSE:
            v[i] = (close_value(x, s.route_mask[p], L, s.official == 0)
                    + x.next_weight * next_route_value(x, hand_mask(s, c, p)))
        elif kind == MV_STOP:
            v[i] = stop_value(x)
    best = argmax_move(moves, n, v)
    if best < 0:
        for i in range(n):
            if (moves[i] >> MOVE_SHIFT) == MV_STOP:
                return i
        return 0
    return best


cdef int plan_choice(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                     HouseValues* values) noexcept nogil:
    """The planning policy's move (an index into moves)."""
    cdef PlanCtx x
    cdef double v[MAXMOVES]
    if n == 1:
        return 0
    if s.phase == PH_HOUSES or s.phase == PH_DISCARD:
        score_moves(s, c, moves, n, forbid, values, v)
        return argmax_move(moves, n, v)
    plan_setup(&x, s, c, forbid, values)
    if s.phase == PH_DRAW:
        return plan_draw(&x, moves, n, v)
    if s.phase == PH_CARTWRIGHT:
        return plan_cartwright(s, c, moves, n)
    if s.phase == PH_PLAY:
        return plan_play(&x, s, c, moves, n, forbid, v)
    return plan_after(&x, s, c, moves, n, v)


cdef double plan_position_value(const StateData* s, const ConfigData* c, int p, int forbid,
                                HouseValues* values) noexcept nogil:
    """Score now plus what the planner expects from p's route and hand (at least 0): the evaluation of
    a position where a playout stopped early (eval=plan). A route that no card in hand extends counts
    only with the chance of keeping it: a player must play a card every turn, so unless p may close
    right now, it survives only if a fitting card is drawn first (a fitting face-up card: likely; else
    two draws from the deck)."""
    cdef PlanCtx x
    cdef double v, keep = 1.0, q
    cdef int L = s.route_len[p], i, fit_deck = 0
    cdef uint32_t fm
    cdef bint display_fits = False
    plan_setup(&x, s, c, forbid, values, p)
    v = current_plan(&x, s.hand[p], 1, True)
    if x.best_n == 0 and L > 0 and not (p == s.current and s.phase == PH_AFTER):
        fm = fit_mask(s, c, p)
        for i in range(c.n_cities):
            if (fm >> i) & 1:
                if s.display[i]:
                    display_fits = True
                fit_deck += s.deck[i]
        if display_fits:
            keep = PLAN_KEEP_DISPLAY
        else:
            q = <double>fit_deck / s.deck_n if s.deck_n > 0 else 0.0
            keep = 1.0 - (1.0 - q) * (1.0 - q)
        v *= keep
    return score_of(s, c, p) + (v if v > 0 else 0.0)


cdef int plan_policy_move(const StateData* s, const ConfigData* c, const int* moves, int n, uint64_t* rng,
                          int forbid, double eps, HouseValues* values) noexcept nogil:
    """The planning policy in playouts: its move, or with probability eps a uniformly random one."""
    if n == 1:
        return moves[0]
    if eps > 0 and unit(rng) < eps:
        return moves[below(rng, n)]
    return moves[plan_choice(s, c, moves, n, forbid, values)]


cdef int playout(StateData* s, const ConfigData* c, int kind, uint64_t* rng, const int* forbid,
                 double eps, int stop_turn, HouseValues* values) noexcept nogil:
    """Play on from s, in place, until the game ends or `stop_turn`: every player by the policy `kind`
    (PLAYOUT_PLAN, PLAYOUT_HEURISTIC, with probability eps of a random move; PLAYOUT_RANDOM); moves a
    player may not use (forbid[player]) are left out. Returns the moves played."""
    cdef int moves[MAXMOVES]
    cdef int n, m, steps = 0
    while s.phase != PH_OVER and s.turn < stop_turn:
        n = gen_moves(s, c, moves)
        n = drop_forbidden(s, moves, n, forbid[s.current])
        if kind == PLAYOUT_PLAN:
            m = plan_policy_move(s, c, moves, n, rng, forbid[s.current], eps, values)
        elif kind == PLAYOUT_HEURISTIC:
            m = policy_move(s, c, moves, n, rng, forbid[s.current], eps, values)
        else:
            m = moves[below(rng, n)]
        apply_move(s, c, m)
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


cdef void evaluate_learned(const StateData* s, const ConfigData* c, const ValueWeights* w, int reward,
                           double scale, HouseValues* values, double* r, double* sc, double* win) noexcept nogil:
    """The learned model at a position where a playout stopped: win chances (win), expected final scores
    (sc) and the rewards (r) the search backs up -- like a finished game's rewards with the win replaced by
    its chance and the margin by the expected one."""
    cdef double f[VALUE_FEATURES]
    cdef double u[MAXP]
    cdef double t = game_progress(s, c), top = -1e300, total = 0.0, other, a
    cdef int p, q, k
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


# ---------------------------------------------------------------- helpers for Python, tests, benchmarks

def policy_choice(GameState state, uint64_t seed, int forbid=0, double eps=0.0):
    """The heuristic playout policy's move for the player to move (a legal move code)."""
    cdef int moves[MAXMOVES]
    cdef int n
    cdef uint64_t rng = seed
    cdef HouseValues values
    if state.s.phase == PH_OVER:
        raise ValueError("the game is over")
    reset_values(&values)
    n = gen_moves(&state.s, &state.cfg.c, moves)
    n = drop_forbidden(&state.s, moves, n, forbid)
    return policy_move(&state.s, &state.cfg.c, moves, n, &rng, forbid, eps, &values)


def policy_playout(GameState state, uint64_t seed, double eps=0.05):
    """Play the heuristic policy (all players) to the end of the game, in place; returns moves played."""
    cdef int forbid[MAXP]
    cdef uint64_t rng = seed
    cdef int n
    cdef HouseValues values
    reset_values(&values)
    memset(forbid, 0, sizeof(forbid))
    with nogil:
        n = playout(&state.s, &state.cfg.c, PLAYOUT_HEURISTIC, &rng, forbid, eps, NO_STOP_TURN, &values)
    return n


def official_mask(names):
    """Bit set for Tree(forbid=...) from official names (postmaster, administrator, postal_carrier,
    cartwright)."""
    bits = {"postmaster": 1 << OFF_POSTMASTER, "administrator": 1 << OFF_ADMINISTRATOR,
            "postal_carrier": 1 << OFF_CARRIER, "cartwright": 1 << OFF_CARTWRIGHT}
    out = 0
    for name in names:
        out |= bits[name]
    return out


def plan_policy_choice(GameState state, int forbid=0):
    """The planning playout policy's move for the player to move (a legal move code; deterministic)."""
    cdef int moves[MAXMOVES]
    cdef int n
    cdef HouseValues values
    if state.s.phase == PH_OVER:
        raise ValueError("the game is over")
    reset_values(&values)
    n = gen_moves(&state.s, &state.cfg.c, moves)
    n = drop_forbidden(&state.s, moves, n, forbid)
    return moves[plan_choice(&state.s, &state.cfg.c, moves, n, forbid, &values)]


def value_features_of(GameState state):
    """(progress, [[feature, ...] per player]): the learned evaluation's inputs for a position (see
    thurn_ai/learned/features.py)."""
    cdef double f[VALUE_FEATURES]
    cdef HouseValues values
    cdef int p, k
    reset_values(&values)
    rows = []
    for p in range(state.cfg.c.n_players):
        value_features(&state.s, &state.cfg.c, p, &values, f)
        rows.append([f[k] for k in range(VALUE_FEATURES)])
    return game_progress(&state.s, &state.cfg.c), rows


cdef int fill_weights(ValueWeights* w, win, score) except -1:
    cdef int k
    if len(win) != VALUE_WEIGHTS or len(score) != VALUE_WEIGHTS + 2:
        raise ValueError(f"a value model has {VALUE_WEIGHTS} win and {VALUE_WEIGHTS + 2} score weights, "
                         f"not {len(win)} and {len(score)}")
    for k in range(VALUE_WEIGHTS):
        w.win[k] = win[k]
    for k in range(VALUE_WEIGHTS + 2):
        w.score[k] = score[k]
    return 0


def learned_value(GameState state, win_weights, score_weights, int reward=REWARD_MIXED, double scale=8.0):
    """The compiled learned evaluation of a position: (win chances, expected final scores, rewards), each
    a list over the players (for tests against the numpy model)."""
    cdef ValueWeights w
    cdef HouseValues values
    cdef double r[MAXP]
    cdef double sc[MAXP]
    cdef double win[MAXP]
    cdef int p, n = state.cfg.c.n_players
    fill_weights(&w, win_weights, score_weights)
    reset_values(&values)
    evaluate_learned(&state.s, &state.cfg.c, &w, reward, scale, &values, r, sc, win)
    return [win[p] for p in range(n)], [sc[p] for p in range(n)], [r[p] for p in range(n)]
