# The planning policy (`plan`): the prior's favourite move, a playout policy and
# an evaluation (plan_position_value).
# Included by _policy.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

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


cdef inline void known_draw_values(const int* moves, int n, const double* known, double* v) noexcept nogil:
    # draw_values' numbers from plan_move_values' (the draws' values; NEG for every other move)
    cdef int i, kind
    for i in range(n):
        kind = moves[i] >> MOVE_SHIFT
        v[i] = known[i] if (kind == MV_DRAW or kind == MV_DECK) else NEG


cdef inline int plan_draw(PlanCtx* x, const int* moves, int n, double* v, const double* known) noexcept nogil:
    """The draw phase: the Administrator when only a fitting card saves the route, else the best draw.
    known: the move values plan_move_values computed for this decision (NULL: computed here)."""
    cdef int i, best
    for i in range(n):
        if (moves[i] >> MOVE_SHIFT) == MV_ADMIN:
            # six fresh cards beat one or two blind draws when only a fitting card saves the route
            if route_in_danger(x):
                return i
    if known == NULL:
        draw_values(x, moves, n, v)
    else:
        known_draw_values(moves, n, known, v)
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
                          double* v, const double* known) noexcept nogil:
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
        if known == NULL:
            draw_values(x, moves, n, v)
        else:
            known_draw_values(moves, n, known, v)
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
            v[i] = play_value(x, moves[i], after_plays, cw_now) if known == NULL else known[i]
        else:
            v[i] = NEG
    best = argmax_move(moves, n, v)
    return best if best >= 0 else 0


cdef inline int plan_after(PlanCtx* x, const StateData* s, const ConfigData* c, const int* moves, int n,
                           double* v, const double* known) noexcept nogil:
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
            v[i] = play_value(x, moves[i], 0, False) + PLAN_COST if known == NULL else known[i]
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
            if known != NULL:
                v[i] = known[i]
            else:
                v[i] = (close_value(x, s.route_mask[p], L, s.official == 0)
                        + x.next_weight * next_route_value(x, hand_mask(s, c, p)))
        elif kind == MV_STOP:
            v[i] = stop_value(x) if known == NULL else known[i]
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
    return plan_decide(&x, s, c, moves, n, forbid, NULL)


cdef int plan_decide(PlanCtx* x, const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                     const double* known) noexcept nogil:
    """plan_choice after its setup, in the draw, Cartwright, play and after-a-card phases; known: the move
    values plan_move_values computed with the same context (NULL: computed here). The same numbers either
    way, so the same move: the learned prior asks for both once (plan_values_choice)."""
    cdef double v[MAXMOVES]
    if s.phase == PH_DRAW:
        return plan_draw(x, moves, n, v, known)
    if s.phase == PH_CARTWRIGHT:
        return plan_cartwright(s, c, moves, n)
    if s.phase == PH_PLAY:
        return plan_play(x, s, c, moves, n, forbid, v, known)
    return plan_after(x, s, c, moves, n, v, known)


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
