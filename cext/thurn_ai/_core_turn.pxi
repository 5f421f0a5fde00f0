# The turn's mechanics: the random generators, piles, tiles and carriages, the end of the game,
# the turn's flow and settle (the automatic steps between decisions).
# Included by _core.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

# random numbers: splitmix64 from _random.pxd (inline; the search uses the same generator, apart)

# The random-move generator (StateData.prng) is seeded with the chance seed xor this, so the two streams
# differ while one seed decides both (a position file stores both; thurn_ai.position reads this value).
cdef uint64_t SECOND_STREAM = 0x5DEECE66DULL


cdef inline void seed_generators(StateData* s, uint64_t seed) noexcept nogil:
    s.rng = seed
    s.prng = seed ^ SECOND_STREAM


# ---------------------------------------------------------------- piles

cdef inline int pick_from(uint8_t* counts, int total, uint64_t* rng, int n_cities) noexcept nogil:
    """Remove and return a uniformly random card from a count pile of `total` cards."""
    cdef int r = <int>below(rng, total)
    cdef int i
    for i in range(n_cities):
        if r < counts[i]:
            counts[i] -= 1
            return i
        r -= counts[i]
    return -1


cdef int deck_draw(StateData* s, const ConfigData* c) noexcept nogil:
    """A card from the deck; an empty deck is first refilled by shuffling the discard pile into it."""
    cdef int i
    if s.deck_n == 0:
        if s.discard_n == 0:
            return -1
        for i in range(c.n_cities):
            s.deck[i] = s.discard[i]
            s.discard[i] = 0
        s.deck_n = s.discard_n
        s.discard_n = 0
    s.deck_n -= 1
    return pick_from(s.deck, s.deck_n + 1, &s.rng, c.n_cities)


cdef void refill_display(StateData* s, const ConfigData* c) noexcept nogil:
    cdef int x
    while s.display_n < c.display_size:
        x = deck_draw(s, c)
        if x < 0:
            return
        s.display[x] += 1
        s.display_n += 1


cdef inline void leave_hand(StateData* s, int p, int x) noexcept nogil:
    # A known card (taken face up) stays known until a copy of that city leaves the hand.
    s.hand[p][x] -= 1
    s.hand_n[p] -= 1
    if s.known[p][x] > 0:
        s.known[p][x] -= 1


cdef inline void discard_route(StateData* s, int p) noexcept nogil:
    cdef int i
    for i in range(s.route_len[p]):
        s.discard[s.route[p][i]] += 1
    s.discard_n += s.route_len[p]
    s.route_len[p] = 0
    s.route_mask[p] = 0


# ---------------------------------------------------------------- tiles, carriages, end

cdef inline void take_tile(StateData* s, const ConfigData* c, int p, int t) noexcept nogil:
    s.tiles_pts[p][t] += c.stack_vals[t][s.stack_pos[t]]
    s.tiles_n[p][t] += 1
    s.stack_pos[t] += 1


cdef inline bint stack_has(const StateData* s, const ConfigData* c, int t) noexcept nogil:
    return s.stack_pos[t] < c.stack_nvals[t]


cdef void trigger_end(StateData* s, const ConfigData* c, int p) noexcept nogil:
    if s.end_triggered:
        return
    s.end_triggered = 1
    s.end_player = p
    if c.game_end_stack >= 0 and stack_has(s, c, c.game_end_stack):
        take_tile(s, c, p, c.game_end_stack)


cdef void take_carriage(StateData* s, const ConfigData* c, int p, int k) noexcept nogil:
    s.carriage[p] = k
    if k == c.n_carriages - 1 and c.carriage_ends_game:
        trigger_end(s, c, p)


cdef void award_tiles(StateData* s, const ConfigData* c, int p) noexcept nogil:
    cdef int t, L, i
    cdef bint ok
    cdef uint32_t h = s.houses[p]
    # route length: the stack for the length, else the next shorter one with tiles
    L = s.route_len[p]
    if L > c.max_route_tile:
        L = c.max_route_tile
    while L >= c.min_route_tile and L >= 0:
        t = c.route_stack[L]
        if t >= 0 and stack_has(s, c, t):
            take_tile(s, c, p, t)
            break
        L -= 1
    for t in range(c.n_stacks):
        if not stack_has(s, c, t):
            continue
        if c.stack_kind[t] == TK_ALL:
            if s.tiles_n[p][t] == 0 and (h & c.stack_mask[t]) == c.stack_mask[t]:
                take_tile(s, c, p, t)
        elif c.stack_kind[t] == TK_EACH:
            if s.tiles_n[p][t] == 0:
                ok = True
                for i in range(c.n_provinces):
                    if (c.stack_provs[t] >> i) & 1 and (h & c.province_mask[i]) == 0:
                        ok = False
                        break
                if ok:
                    take_tile(s, c, p, t)
        elif c.stack_kind[t] == TK_FREE:
            if s.placed_now & c.stack_mask[t]:
                take_tile(s, c, p, t)


# ---------------------------------------------------------------- turn flow

cdef inline bint can_draw(const StateData* s) noexcept nogil:
    return s.display_n + s.deck_n + s.discard_n > 0


cdef inline bint can_close(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    if s.route_len[p] < c.min_close:
        return False
    if c.horses_variant and c.base_horses + s.horse_total[p] < s.route_len[p]:
        return False
    return True


cdef bint can_second_play(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    cdef int x
    if s.official != OFF_NONE or s.plays != 1 or s.hand_n[p] == 0:
        return False
    if c.horses_variant and s.horse_n[p] < c.max_horse_cards:
        return True
    if s.route_len[p] == 0:
        return True
    return (nonzero_mask(s.hand[p], c.n_cities) & fit_mask(s, c, p)) != 0


cdef inline bint houses_valid(const ConfigData* c, uint32_t S) noexcept nogil:
    """A set of cities is a legal placement: option A (at most one city per province, plus at most one
    free city) or option B (cities of a single province)."""
    cdef int i
    cdef bint a = count_bits(S & c.free_mask) <= 1
    if a:
        for i in range(c.n_provinces):
            if count_bits(S & c.province_mask[i]) > 1:
                a = False
                break
    if a:
        return True
    for i in range(c.n_provinces):
        if (S & ~c.province_mask[i]) == 0:
            return True
    return False


cdef inline uint32_t house_candidates(const StateData* s, int p) noexcept nogil:
    """The cities where p may still place a house before the province rule is checked: after the last
    house placed this turn, on p's route, without p's house, and only while p has a house left. The
    loops over cities test houses_valid only for these."""
    cdef uint32_t after = 0xFFFFFFFFu if s.last_house < 0 else ~(((<uint32_t>2) << s.last_house) - 1)
    if s.houses_left[p] <= 0:
        return 0
    return after & s.route_mask[p] & ~s.houses[p]


cdef void start_turn(StateData* s, const ConfigData* c) noexcept nogil:
    cdef int p = s.current
    s.official = OFF_NONE
    s.draws = 0
    s.plays = 0
    s.forced_pm = s.hand_n[p] == 0
    if s.forced_pm:
        s.official = OFF_POSTMASTER
        s.official_uses[p][OFF_POSTMASTER] += 1
    s.phase = PH_DRAW


cdef void end_turn(StateData* s, const ConfigData* c) noexcept nogil:
    s.turn += 1
    if s.end_triggered and s.current == c.n_players - 1:
        s.phase = PH_OVER
        return
    if s.turn >= c.max_turns * c.n_players:
        s.truncated = 1
        s.phase = PH_OVER
        return
    s.current = (s.current + 1) % c.n_players
    start_turn(s, c)


cdef void finish_close(StateData* s, const ConfigData* c, int p) noexcept nogil:
    cdef int x
    discard_route(s, p)
    if s.horse_n[p]:
        for x in range(c.n_cities):
            s.discard[x] += s.horse_cards[p][x]
            s.horse_cards[p][x] = 0
        s.discard_n += s.horse_n[p]
        s.horse_n[p] = 0
        s.horse_total[p] = 0
    s.closes[p] += 1
    s.phase = PH_DISCARD
    s.last_discard = 0


cdef void finish_houses(StateData* s, const ConfigData* c, int p) noexcept nogil:
    cdef int nxt
    award_tiles(s, c, p)
    if c.n_carriages > 0:
        nxt = s.carriage[p] + 1
        if nxt < c.n_carriages:
            if s.route_len[p] >= c.carriage_size[nxt]:
                take_carriage(s, c, p, nxt)
            elif c.cartwright and s.official == OFF_NONE and s.route_len[p] + 2 >= c.carriage_size[nxt]:
                s.phase = PH_CARTWRIGHT
                return
    finish_close(s, c, p)


cdef inline bint discard_ok(const StateData* s, const ConfigData* c, int p, int x) noexcept nogil:
    # Discards come in city order, so each set of discards is one sequence of moves; a city is allowed
    # only if enough cards at or after it remain to finish the reduction.
    cdef int need = s.hand_n[p] - c.hand_limit
    cdef int have = 0, i
    if x < s.last_discard or s.hand[p][x] == 0:
        return False
    for i in range(x, c.n_cities):
        have += s.hand[p][i]
    return have >= need


cdef void settle(StateData* s, const ConfigData* c) noexcept nogil:
    """Run the automatic steps until a real decision (two or more options, or a forced draw) is due."""
    cdef int p, x
    cdef bint any_house
    cdef uint32_t cities
    while True:
        p = s.current
        if s.phase == PH_DRAW:
            if can_draw(s):
                return
            s.draws = 2          # nothing at all to draw: the draw is skipped
            s.phase = PH_PLAY
        elif s.phase == PH_PLAY:
            if s.hand_n[p] > 0:
                return
            if s.draws == 1 and s.official == OFF_NONE and not s.forced_pm and can_draw(s):
                return
            s.phase = PH_AFTER     # nothing to play (only when nothing could be drawn)
        elif s.phase == PH_AFTER:
            if can_second_play(s, c, p) or can_close(s, c, p):
                return
            end_turn(s, c)
        elif s.phase == PH_HOUSES:
            any_house = False
            cities = house_candidates(s, p)
            while cities:
                x = __builtin_ctz(cities)
                cities &= cities - 1
                if houses_valid(c, s.placed_now | ((<uint32_t>1) << x)):
                    any_house = True
                    break
            if any_house:
                return
            finish_houses(s, c, p)
        elif s.phase == PH_DISCARD:
            if s.hand_n[p] > c.hand_limit:
                return
            end_turn(s, c)
        else:
            return
