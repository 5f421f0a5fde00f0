# Move generation (gen_moves) and applying a legal move (apply_move).
# Included by _core.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# ---------------------------------------------------------------- move generation

cdef inline int add_cities(int* out, int n, int kind, uint32_t cities) noexcept nogil:
    """Append the move `kind` for every city of a set, in city order (lowest first); returns the count."""
    cdef int x
    while cities:
        x = __builtin_ctz(cities)
        cities &= cities - 1
        out[n] = kind << MOVE_SHIFT | x
        n += 1
    return n


cdef inline int gen_draws(const StateData* s, const ConfigData* c, int p, int* out, int n) noexcept nogil:
    """A face-up card, the deck, and before the first draw the Administrator."""
    n = add_cities(out, n, MV_DRAW, nonzero_mask(s.display, c.n_cities))
    if s.deck_n + s.discard_n > 0:
        out[n] = MV_DECK << MOVE_SHIFT
        n += 1
    if s.phase == PH_DRAW and s.draws == 0 and s.official == OFF_NONE and s.hand_n[p] > 0:
        out[n] = MV_ADMIN << MOVE_SHIFT
        n += 1
    return n


cdef inline int gen_plays(const StateData* s, const ConfigData* c, int p, bint second, int* out,
                          int n) noexcept nogil:
    """Each card of the hand: a new route, either end of the route where it fits, a draught horse. A
    second card (the Postal Carrier) cannot start a new route over an existing one."""
    cdef int x, L = s.route_len[p]
    cdef uint32_t cities = nonzero_mask(s.hand[p], c.n_cities)
    while cities:
        x = __builtin_ctz(cities)
        cities &= cities - 1
        if not second or L == 0:
            out[n] = MV_NEW << MOVE_SHIFT | x
            n += 1
        if L > 0 and not ((s.route_mask[p] >> x) & 1):
            if L > 1 and (c.adj[s.route[p][0]] >> x) & 1:
                out[n] = MV_LEFT << MOVE_SHIFT | x
                n += 1
            if (c.adj[s.route[p][L - 1]] >> x) & 1:
                out[n] = MV_RIGHT << MOVE_SHIFT | x
                n += 1
        if c.horses_variant and s.horse_n[p] < c.max_horse_cards:
            out[n] = MV_HORSE << MOVE_SHIFT | x
            n += 1
    return n


cdef inline int gen_houses(const StateData* s, const ConfigData* c, int p, int* out, int n) noexcept nogil:
    """A house in each city that keeps the placement legal, then "done"."""
    cdef int x
    cdef uint32_t cities = house_candidates(s, p)
    while cities:
        x = __builtin_ctz(cities)
        cities &= cities - 1
        if houses_valid(c, s.placed_now | ((<uint32_t>1) << x)):
            out[n] = MV_HOUSE << MOVE_SHIFT | x
            n += 1
    out[n] = MV_DONE << MOVE_SHIFT
    return n + 1


cdef int gen_moves(const StateData* s, const ConfigData* c, int* out) noexcept nogil:
    """The legal moves of the player to move, into out (MAXMOVES long); returns their number."""
    cdef int n = 0, x, p = s.current
    if s.phase == PH_DRAW or (s.phase == PH_PLAY and s.draws == 1 and s.official == OFF_NONE
                              and not s.forced_pm):
        n = gen_draws(s, c, p, out, n)
    if s.phase == PH_PLAY:
        n = gen_plays(s, c, p, False, out, n)
    elif s.phase == PH_AFTER:
        if s.official == OFF_NONE and s.plays == 1:     # a second card: the Postal Carrier
            n = gen_plays(s, c, p, True, out, n)
        if can_close(s, c, p):
            out[n] = MV_CLOSE << MOVE_SHIFT
            n += 1
        out[n] = MV_STOP << MOVE_SHIFT
        n += 1
    elif s.phase == PH_HOUSES:
        n = gen_houses(s, c, p, out, n)
    elif s.phase == PH_CARTWRIGHT:
        out[n] = MV_CART << MOVE_SHIFT
        out[n + 1] = MV_NOCART << MOVE_SHIFT
        n += 2
    elif s.phase == PH_DISCARD:
        for x in range(c.n_cities):
            if discard_ok(s, c, p, x):
                out[n] = MV_DISCARD << MOVE_SHIFT | x
                n += 1
    return n


# ---------------------------------------------------------------- applying a (legal) move

cdef void apply_move(StateData* s, const ConfigData* c, int m) noexcept nogil:
    cdef int kind = m >> MOVE_SHIFT, x = m & ((1 << MOVE_SHIFT) - 1), p = s.current, L, y
    if kind == MV_DRAW or kind == MV_DECK:
        if kind == MV_DRAW:
            s.display[x] -= 1
            s.display_n -= 1
            s.known[p][x] += 1
        else:
            x = deck_draw(s, c)
        s.hand[p][x] += 1
        s.hand_n[p] += 1
        s.draws += 1
        if s.phase == PH_PLAY:          # a second draw: the Postmaster
            s.official = OFF_POSTMASTER
            s.official_uses[p][OFF_POSTMASTER] += 1
        elif not (s.forced_pm and s.draws < 2):
            s.phase = PH_PLAY
        refill_display(s, c)
    elif kind == MV_ADMIN:
        s.official = OFF_ADMINISTRATOR
        s.official_uses[p][OFF_ADMINISTRATOR] += 1
        for y in range(c.n_cities):
            s.discard[y] += s.display[y]
            s.display[y] = 0
        s.discard_n += s.display_n
        s.display_n = 0
        refill_display(s, c)
    elif kind == MV_LEFT or kind == MV_RIGHT or kind == MV_NEW or kind == MV_HORSE:
        if s.phase == PH_AFTER:         # a second card: the Postal Carrier
            s.official = OFF_CARRIER
            s.official_uses[p][OFF_CARRIER] += 1
        leave_hand(s, p, x)
        L = s.route_len[p]
        if kind == MV_HORSE:
            s.horse_cards[p][x] += 1
            s.horse_n[p] += 1
            s.horse_total[p] += c.horses[x]
        else:
            if kind == MV_NEW:
                discard_route(s, p)
                L = 0
            if kind == MV_LEFT:
                memmove(&s.route[p][1], &s.route[p][0], L)
                s.route[p][0] = x
            else:
                s.route[p][L] = x
            s.route_len[p] = L + 1
            s.route_mask[p] |= (<uint32_t>1) << x
        s.plays += 1
        s.phase = PH_AFTER
    elif kind == MV_CLOSE:
        s.phase = PH_HOUSES
        s.placed_now = 0
        s.last_house = -1
    elif kind == MV_STOP:
        end_turn(s, c)
    elif kind == MV_HOUSE:
        s.houses[p] |= (<uint32_t>1) << x
        s.houses_left[p] -= 1
        s.placed_now |= (<uint32_t>1) << x
        s.last_house = x
        if s.houses_left[p] == 0:
            trigger_end(s, c, p)
    elif kind == MV_DONE:
        finish_houses(s, c, p)
    elif kind == MV_CART:
        s.official = OFF_CARTWRIGHT
        s.official_uses[p][OFF_CARTWRIGHT] += 1
        take_carriage(s, c, p, s.carriage[p] + 1)
        finish_close(s, c, p)
    elif kind == MV_NOCART:
        finish_close(s, c, p)
    elif kind == MV_DISCARD:
        leave_hand(s, p, x)
        s.discard[x] += 1
        s.discard_n += 1
        s.last_discard = x
    settle(s, c)
