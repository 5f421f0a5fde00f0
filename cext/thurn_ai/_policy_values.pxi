# The officials a bot may not use (forbid=...) and house values (what a house in
# each city is worth to a player), with the best house sets they lead to.
# Included by _policy.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# ---------------------------------------------------------------- officials (forbid=...)

cdef int official_bit(const StateData* s, int m) noexcept nogil:
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


cdef int keep_turn_officials(const StateData* s, int* moves, int n, int uses, int avoids) noexcept nogil:
    """A whole turn's restriction at one of its decisions, in place: where a move using an official of
    `uses` is on offer, only those moves; elsewhere every move using none of `avoids`. A decision whose
    every move would use an avoided official keeps its moves (none does in these rules: drawing, stopping
    and not using the Cartwright are always there), so a decision never ends up without a move."""
    cdef int i
    if uses:
        for i in range(n):
            if official_bit(s, moves[i]) & uses:
                return keep_officials(s, moves, n, uses, avoids)
    for i in range(n):
        if official_bit(s, moves[i]) & avoids == 0:
            return keep_officials(s, moves, n, 0, avoids)
    return n


# ---------------------------------------------------------------- house values

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
    whole top value for the house that completes a group, and a free city's round tile. The last call's values
    are used again while p's houses and the sum of the stack positions are the same as then (a sum two different
    stack positions can share: the values are then those of the last call's stacks, as they always were); else
    the values of the same inputs kept from an earlier call, or computed afresh (the same numbers either way:
    the values depend on these inputs only)."""
    cdef int t, key = stack_sum(s, c.n_stacks), k
    cdef uint32_t h = s.houses[p], tiles = 0, mix = 0
    if hv.last_stacks[p] == key and hv.last_houses[p] == h:
        return hv.v[p][hv.last[p]]
    hv.last_stacks[p] = key
    hv.last_houses[p] = h
    for t in range(c.n_stacks):
        mix = mix * 31 + <uint8_t>s.stack_pos[t]
        if s.tiles_n[p][t] > 0:
            tiles |= (<uint32_t>1) << t
    k = <int>(((h ^ (tiles * 0x9E3779B1u) ^ (mix * 0x85EBCA6Bu)) * 0x9E3779B1u) >> (32 - HOUSE_VALUE_BITS))
    hv.last[p] = k
    if hv.houses[p][k] != h or hv.tiles[p][k] != tiles or not same_stacks(hv.stack_pos[p][k], s.stack_pos,
                                                                           c.n_stacks):
        hv.houses[p][k] = h
        hv.tiles[p][k] = tiles
        for t in range(c.n_stacks):
            hv.stack_pos[p][k][t] = s.stack_pos[t]
        compute_house_values(s, c, p, hv.v[p][k])
    return hv.v[p][k]


cdef inline int stack_sum(const StateData* s, int n) noexcept nogil:
    # the sum of the first n stack positions, eight at a time (a position is at most MAXTV, so no byte of the
    # multiply's partial sums carries into the next: the same number as adding them one by one)
    cdef int k, total = 0
    cdef uint64_t w
    for k in range(0, n, 8):
        w = load_le64(<const uint8_t*>s.stack_pos + k)
        if n - k < 8:
            w &= ((<uint64_t>1) << (8 * (n - k))) - 1
        total += <int>((w * 0x0101010101010101ULL) >> 56)
    return total


cdef inline bint same_stacks(const int8_t* a, const int8_t* b, int n) noexcept nogil:
    cdef int t
    for t in range(n):
        if a[t] != b[t]:
            return False
    return True


cdef void compute_house_values(const StateData* s, const ConfigData* c, int p, double* v) noexcept nogil:
    # house_values' numbers for s, into v
    cdef int t, x, i, top
    cdef uint32_t h = s.houses[p], counts, open_provinces
    cdef double gain
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


cdef void reset_values(HouseValues* hv) noexcept nogil:
    cdef int p, k
    for p in range(MAXP):
        hv.last_stacks[p] = -1
        for k in range(HOUSE_VALUE_SETS):
            hv.tiles[p][k] = 0xFFFFFFFFu


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
