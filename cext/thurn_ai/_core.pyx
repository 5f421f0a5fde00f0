# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled rules of Thurn und Taxis: state, move generation, moves, determinization, playouts.

All rules live here, in plain C functions over two structs: ConfigData (the board and rule switches,
immutable) and StateData (one position, a flat struct so a clone is one memcpy). The Python layer
(thurn_ai.game, .notation, .position) wraps them; nothing here allocates during play.

Cards are identical per city, so every pile (hands, display, deck, discard) is a count per city. The deck
is a multiset: a card drawn from it is uniformly random among the cards in it, which is the same
distribution as drawing from the top of a shuffled pile, and makes determinization a re-deal.
"""
from libc.string cimport memset, memmove
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, uint64_t
from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_SET_ITEM

from collections import namedtuple
from itertools import combinations

from thurn_ai._random cimport below


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


# ---------------------------------------------------------------- hidden information

cdef void determinize(StateData* s, const ConfigData* c, int observer, uint64_t seed) noexcept nogil:
    """Re-deal everything `observer` cannot see: opponents' cards not known to be in their hands and the
    deck are pooled and dealt again at random; the chance generator is reseeded."""
    cdef uint8_t pool[MAXC]
    cdef int pool_n = 0, p, x, k, hidden
    seed_generators(s, seed)
    for x in range(c.n_cities):
        pool[x] = s.deck[x]
        pool_n += s.deck[x]
    for p in range(c.n_players):
        if p == observer:
            continue
        for x in range(c.n_cities):
            k = s.hand[p][x] - s.known[p][x]
            pool[x] += k
            pool_n += k
            s.hand[p][x] = s.known[p][x]
    for p in range(c.n_players):
        if p == observer:
            continue
        hidden = s.hand_n[p]
        for x in range(c.n_cities):
            hidden -= s.known[p][x]
        for k in range(hidden):
            x = pick_from(pool, pool_n, &s.rng, c.n_cities)
            pool_n -= 1
            s.hand[p][x] += 1
    for x in range(c.n_cities):
        s.deck[x] = pool[x]
    s.deck_n = pool_n
    # A player discarding after a close does so in city order; a re-dealt hand may hold no card at or
    # after the last city discarded, which would leave no legal move. Let the order start over (it only
    # removes duplicate move sequences, so every legal outcome stays reachable).
    if s.phase == PH_DISCARD and s.current != observer:
        s.last_discard = 0


cdef int random_playout(StateData* s, const ConfigData* c) noexcept nogil:
    cdef int moves[MAXMOVES]
    cdef int n, steps = 0
    while s.phase != PH_OVER:
        n = gen_moves(s, c, moves)
        apply_move(s, c, moves[below(&s.prng, n)])
        steps += 1
    return steps


# ---------------------------------------------------------------- scoring

cdef int score_of(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    cdef int t, v = 0
    if c.n_carriages > 0 and s.carriage[p] >= 0:
        v += c.carriage_points[s.carriage[p]]
    for t in range(c.n_stacks):
        v += s.tiles_pts[p][t]
    return v - s.houses_left[p]


cdef inline int tie_distance(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    # Tie-break: the game-end tile holder, then the tied player nearest clockwise after them.
    cdef int ref = s.end_player if s.end_player >= 0 else 0
    return (p - ref + c.n_players) % c.n_players


cdef int winner_of(const StateData* s, const ConfigData* c) noexcept nogil:
    cdef int p, best = 0, v, bv = score_of(s, c, 0)
    for p in range(1, c.n_players):
        v = score_of(s, c, p)
        if v > bv or (v == bv and tie_distance(s, c, p) < tie_distance(s, c, best)):
            best = p
            bv = v
    return best


# ---------------------------------------------------------------- Python layer

cdef class Config:
    """Compiled form of Rules + Board (immutable, shared by every state of a game)."""

    def __init__(self, rules):
        board = rules.load_board()
        self.rules = rules
        self.board = board
        cdef ConfigData* c = &self.c
        memset(c, 0, sizeof(ConfigData))
        cdef int i, t, j
        c.n_players = rules.players
        c.cards_per_city = board.cards_per_city
        c.n_cards = board.n_cards
        for a, b in board.roads:
            c.adj[a] |= (<uint32_t>1) << b
            c.adj[b] |= (<uint32_t>1) << a
        fill_provinces(c, board)
        for i in range(c.n_cities):
            c.horses[i] = board.horses[i]
        variant = rules.resolved_variant
        c.horses_variant = variant == "horses"
        c.n_stacks = len(board.tiles)
        c.game_end_stack = -1
        for j in range(MAXC + 1):
            c.route_stack[j] = -1
        c.min_route_tile = 1000
        c.max_route_tile = -1
        kinds = {"route": TK_ROUTE, "each_province": TK_EACH, "all_cities": TK_ALL,
                 "free_city": TK_FREE, "game_end": TK_END}
        for t, st in enumerate(board.tiles):
            c.stack_kind[t] = kinds[st.kind]
            c.stack_nvals[t] = len(st.values)
            for j, v in enumerate(st.values):
                c.stack_vals[t][j] = v
            for x in st.cities:
                c.stack_mask[t] |= (<uint32_t>1) << x
            for q in rules.tile_provinces(st):     # the rules apply the all-provinces tile's reading
                c.stack_provs[t] |= (<uint32_t>1) << q
            if st.kind == "route":
                c.route_stack[min(st.length, MAXC)] = t
                c.min_route_tile = min(c.min_route_tile, st.length)
                c.max_route_tile = max(c.max_route_tile, st.length)
            elif st.kind == "game_end":
                c.game_end_stack = t
        if c.horses_variant:
            c.n_carriages = 0
            c.cartwright = False
            c.carriage_ends_game = False
        else:
            c.n_carriages = len(board.carriages)
            for i, (size, pts) in enumerate(board.carriages):
                c.carriage_size[i] = size
                c.carriage_points[i] = pts
            c.cartwright = True
            c.carriage_ends_game = True
        # the game's fixed numbers, from their home (thurn_ai.rules, read through the Rules object)
        c.houses = rules.houses
        c.hand_limit = rules.hand_limit
        c.display_size = rules.display_size
        c.min_close = rules.min_close
        c.max_horse_cards = rules.max_horse_cards
        c.base_horses = rules.base_horses
        c.max_turns = rules.max_turns


cdef void fill_provinces(ConfigData* c, board) except *:
    """The board's provinces as masks: n_cities, n_provinces, province[], province_mask[], free_mask."""
    cdef int i, q
    c.n_cities = board.n_cities
    c.n_provinces = len(board.provinces)
    for i in range(c.n_cities):
        q = board.city_province[i]
        c.province[i] = q
        if q < 0:
            c.free_mask |= (<uint32_t>1) << i
        else:
            c.province_mask[q] |= (<uint32_t>1) << i


def valid_house_set(where, uint32_t cities):
    """Whether a set of cities (a bit mask) is one legal house placement: the engine's own rule
    (houses_valid), for the layers above (the position checker, illegal-move messages). `where` is a
    Config or a Board."""
    cdef ConfigData tmp
    if isinstance(where, Config):
        return houses_valid(&(<Config>where).c, cities)
    memset(&tmp, 0, sizeof(ConfigData))
    fill_provinces(&tmp, where)
    return houses_valid(&tmp, cities)


# ---------------------------------------------------------------- what the layers above provide
#
# The core imports nothing from the package: notation (move <-> text), positions (JSON dicts) and the
# error types live above it and are installed here by thurn_ai.game when the package is imported
# (importing thurn_ai._core imports the package first). Pickling is registered from above too (copyreg).

_above = {}


def install(*, notation_error, illegal_move_error, parse_move, move_to_str, position_to_dict):
    """Called once by thurn_ai.game: the functions and error type the core's methods delegate to."""
    _above.update(notation_error=notation_error, illegal_move_error=illegal_move_error, parse_move=parse_move,
                  move_to_str=move_to_str, position_to_dict=position_to_dict)


cdef object _from_above(str name):
    try:
        return _above[name]
    except KeyError:
        raise RuntimeError("thurn_ai._core is used without the thurn_ai package: import thurn_ai first") from None


def _move_code(move):
    """The int code of a move given as a number; a float, None or anything else is not a move (a float
    must not be truncated into some legal code)."""
    import operator
    if isinstance(move, bool):
        raise _from_above("notation_error")(f"not a move: {move!r}")
    try:
        return operator.index(move)
    except TypeError:
        raise _from_above("notation_error")(f"not a move: {move!r} (give a move code or its notation)") from None


# ---------------------------------------------------------------- the turn's scalar fields, by name
# The scalar fields of StateData (everything that is not a pile, a route or a per-player array), named
# once: GameState.turn_state() reads them as a TurnState, export() and load() by these names.
# read_turn / write_turn below are the only code that lists the struct fields, in this order.

TURN_FIELDS = ("current", "phase", "official", "forced_pm", "draws", "plays", "last_house", "last_discard",
               "end_triggered", "end_player", "truncated", "turn", "placed_now", "display_n", "deck_n",
               "discard_n", "rng", "prng")
TurnState = namedtuple("TurnState", TURN_FIELDS)
TurnState.__doc__ = ("The scalar fields of a state, by name (codes: phase in PHASES, official in 1 + the "
                     "index in OFFICIALS, placed_now a bit set of cities, rng/prng the two generators).")


cdef extern from "Python.h":
    object PyType_GenericAlloc(PyTypeObject* type, Py_ssize_t n)


cdef object read_turn(const StateData* s):
    # The TurnState is filled in place (every position dict reads one: the namedtuple's own __new__ would
    # build a tuple and copy it, ~0.6 µs more a call).
    cdef tuple values = (
        s.current, s.phase, s.official, s.forced_pm, s.draws, s.plays, s.last_house, s.last_discard,
        s.end_triggered, s.end_player, s.truncated, s.turn, s.placed_now, s.display_n, s.deck_n,
        s.discard_n, s.rng, s.prng)
    cdef Py_ssize_t i, n = len(values)       # (the test of TURN_FIELDS checks that this is its length)
    cdef object t = PyType_GenericAlloc(<PyTypeObject*>TurnState, n)
    for i in range(n):
        Py_INCREF(values[i])
        PyTuple_SET_ITEM(t, i, values[i])
    return t


cdef int write_turn(StateData* s, values) except -1:
    (s.current, s.phase, s.official, s.forced_pm, s.draws, s.plays, s.last_house, s.last_discard,
     s.end_triggered, s.end_player, s.truncated, s.turn, s.placed_now, s.display_n, s.deck_n,
     s.discard_n, s.rng, s.prng) = values
    return 0


# ---------------------------------------------------------------- typed accessors (read-only)
# GameState.hand(p), route(p), houses(p), tiles(p), ... read one field of the struct and name its cities,
# without export(); turn_state() and the private _cards/_player_parts/... give thurn_ai.position what a position
# dict needs in a few calls (see docs/analysis.md).

Tile = namedtuple("Tile", "stack value")
Tile.__doc__ = "One tile a player holds: the id of its stack (as in the board file) and its value."


cdef inline list _card_list(const uint8_t* counts, int nc, tuple names):
    """The cards of a count pile as city names, a name once per card, in board order."""
    cdef list out = []
    cdef int x, k
    for x in range(nc):
        for k in range(counts[x]):
            out.append(names[x])
    return out


cdef inline dict _card_counts(const uint8_t* counts, int nc, tuple names):
    """A count pile as {city: count} for the cities it holds, in board order."""
    cdef dict out = {}
    cdef int x
    for x in range(nc):
        if counts[x]:
            out[names[x]] = counts[x]
    return out


cdef inline list _mask_names(uint32_t mask, int nc, tuple names):
    cdef list out = []
    cdef int x
    for x in range(nc):
        if (mask >> x) & 1:
            out.append(names[x])
    return out


cdef inline int _seat(GameState g, player) except -1:
    cdef int n = g.cfg.c.n_players
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
        raise ValueError(f"player must be a seat from 0 to {n - 1}, not {player!r}")
    return player


def _split_tiles(taken, holders):
    """The ways to share the values `taken` from one stack among `holders` [(count, points)]: a list of
    assignments, each a tuple of sorted value tuples (one per holder). The engine keeps count and points
    per player and stack; this recovers the single tiles (several ways only in rare ties)."""
    out = []
    n = len(taken)

    def assign(i, left, chosen):
        if i == len(holders):
            if not left:
                out.append(tuple(chosen))
            return
        count, points = holders[i]
        for combo in combinations(left, count):
            if sum(taken[j] for j in combo) == points:
                rest = [j for j in left if j not in combo]
                assign(i + 1, rest, chosen + [tuple(sorted((taken[j] for j in combo), reverse=True))])
    assign(0, list(range(n)), [])
    return out


cdef class GameState:
    """One position of a game. Use thurn_ai.new_game() to make one; see thurn_ai.game for the API."""

    def __init__(self, Config config, uint64_t seed=0):
        self.cfg = config
        cdef StateData* s = &self.s
        cdef ConfigData* c = &config.c
        cdef int p, x
        memset(s, 0, sizeof(StateData))
        seed_generators(s, seed)
        for x in range(c.n_cities):
            s.deck[x] = c.cards_per_city
        s.deck_n = c.n_cards
        for p in range(MAXP):
            s.houses_left[p] = c.houses if p < c.n_players else 0
            s.carriage[p] = -1
        s.end_player = -1
        s.last_house = -1
        refill_display(s, c)
        s.current = 0
        start_turn(s, c)
        settle(s, c)

    cpdef GameState clone(self):
        """An independent copy (one struct copy)."""
        cdef GameState g = GameState.__new__(GameState)
        g.s = self.s
        g.cfg = self.cfg
        return g

    @property
    def config(self):
        return self.cfg

    @property
    def rules(self):
        return self.cfg.rules

    @property
    def board(self):
        return self.cfg.board

    @property
    def n_players(self):
        return self.cfg.c.n_players

    @property
    def current_player(self):
        """The seat to move (seats play clockwise from seat 0, the start player)."""
        return self.s.current

    @property
    def turn(self):
        """Turns completed so far (all players together)."""
        return self.s.turn

    def is_terminal(self):
        return self.s.phase == PH_OVER

    def legal_moves(self):
        """The legal moves of the player to move, as move codes (see thurn_ai.notation)."""
        cdef int moves[MAXMOVES]
        cdef int n = 0, i
        if self.s.phase == PH_OVER:
            return []
        n = gen_moves(&self.s, &self.cfg.c, moves)
        return [moves[i] for i in range(n)]

    def is_legal(self, int move):
        cdef int moves[MAXMOVES]
        cdef int n, i
        if self.s.phase == PH_OVER:
            return False
        n = gen_moves(&self.s, &self.cfg.c, moves)
        for i in range(n):
            if moves[i] == move:
                return True
        return False

    def apply(self, move):
        """Apply a move (a code from legal_moves() or its notation, e.g. 'draw Ulm', 'right Lodz').
        An illegal move raises IllegalMoveError and leaves the state unchanged."""
        cdef int m
        if isinstance(move, str):
            code = self.parse_move(move)
        else:
            code = _move_code(move)
        # codes outside the C int range cannot be legal (and must not overflow the conversion)
        if not 0 <= code < (1 << 16) or not self.is_legal(code):
            raise _from_above("illegal_move_error")(self, code)
        m = code
        apply_move(&self.s, &self.cfg.c, m)

    def parse_move(self, str text):
        """The move code of a move in notation (NotationError if it cannot be read); `left X` on a
        one-card route is `right X` (the same move there)."""
        return _from_above("parse_move")(self.cfg.board, text, self)

    def move_str(self, int move):
        """The notation of a move code."""
        return _from_above("move_to_str")(self.cfg.board, move)

    @property
    def phase(self):
        """The kind of decision due: draw, play, after_play, houses, cartwright, discard or over."""
        return PHASES[self.s.phase]

    def to_dict(self, viewer=None):
        """The position as JSON-ready data (see docs/position-format.md); with `viewer`, only what that
        player may know."""
        return _from_above("position_to_dict")(self, viewer)

    def observation(self, int player):
        """Exactly what `player` may know, as a position dict (opponents' hands as sizes plus known
        cards, the deck unknown)."""
        return _from_above("position_to_dict")(self, player)

    def __repr__(self):
        return (f"<GameState {self.cfg.board.name} {self.cfg.c.n_players}p turn {self.s.turn} "
                f"player {self.s.current} {self.phase}>")

    def apply_random(self):
        """Apply one uniformly random legal move (using the state's generator); returns it."""
        cdef int moves[MAXMOVES]
        cdef int n, m
        n = gen_moves(&self.s, &self.cfg.c, moves)
        m = moves[below(&self.s.prng, n)]
        apply_move(&self.s, &self.cfg.c, m)
        return m

    def playout(self):
        """Play uniformly random moves to the end in compiled code; returns the number of moves."""
        cdef int n
        with nogil:
            n = random_playout(&self.s, &self.cfg.c)
        return n

    def determinize(self, int observer, uint64_t seed):
        """A copy in which everything `observer` cannot see is re-dealt at random (and the chance
        generator reseeded): a state consistent with everything that player knows."""
        cdef GameState g = self.clone()
        determinize(&g.s, &g.cfg.c, observer, seed)
        return g

    def reseed(self, uint64_t seed):
        """Reseed chance (deck draws) and the random-move generator."""
        seed_generators(&self.s, seed)

    def score(self, int player):
        return score_of(&self.s, &self.cfg.c, player)

    def scores(self):
        """Current score of every player: highest carriage + tiles - houses not placed."""
        return [score_of(&self.s, &self.cfg.c, p) for p in range(self.cfg.c.n_players)]

    def winner(self):
        """The winner by score and the tie-break (meaningful once the game is over)."""
        return winner_of(&self.s, &self.cfg.c)

    def ranking(self):
        """Seats from first to last place, ties broken as the rules say."""
        n = self.cfg.c.n_players
        sc = self.scores()
        ref = self.s.end_player if self.s.end_player >= 0 else 0
        return sorted(range(n), key=lambda p: (-sc[p], (p - ref) % n))

    # ---- typed accessors (read-only, no export()): see docs/analysis.md ----

    def hand(self, player):
        """The cards in `player`'s hand as {city: count}, in board order (the whole state: a hidden hand
        too; a player's view is observation()/to_dict(viewer))."""
        cdef int p = _seat(self, player)
        return _card_counts(self.s.hand[p], self.cfg.c.n_cities, self.cfg.board.cities)

    def known(self, player):
        """The cards of `player`'s hand every player knows (taken face up): {city: count}."""
        cdef int p = _seat(self, player)
        return _card_counts(self.s.known[p], self.cfg.c.n_cities, self.cfg.board.cities)

    def route(self, player):
        """`player`'s route as city names from its left end to its right end."""
        cdef int p = _seat(self, player)
        cdef tuple names = self.cfg.board.cities
        cdef int i
        return [names[self.s.route[p][i]] for i in range(self.s.route_len[p])]

    def houses(self, player):
        """The cities where `player` has a house (a set of city names)."""
        cdef int p = _seat(self, player)
        return set(_mask_names(self.s.houses[p], self.cfg.c.n_cities, self.cfg.board.cities))

    def houses_left(self, player):
        """Houses `player` has not placed yet (each costs a point at the end)."""
        cdef int p = _seat(self, player)
        return self.s.houses_left[p]

    def horse_cards(self, player):
        """Cards `player` laid as draught horses (horses variant): {city: count}."""
        cdef int p = _seat(self, player)
        return _card_counts(self.s.horse_cards[p], self.cfg.c.n_cities, self.cfg.board.cities)

    def carriage(self, player):
        """The size of `player`'s carriage (3..7 on the packaged boards), None before the first one (and
        always in the horses variant, which has no carriages)."""
        cdef int p = _seat(self, player)
        cdef int k = self.s.carriage[p]
        return self.cfg.board.carriages[k][0] if k >= 0 and self.cfg.c.n_carriages > 0 else None

    def tiles(self, player):
        """The tiles `player` holds, one Tile(stack, value) each, in board order of the stacks; two
        tiles from one stack are two entries. The engine keeps a count and a sum per stack; the single
        values are recovered from the values taken from the stack and what the other players hold,
        which decides them except in rare ties (two players each holding several tiles of one stack
        with other splits adding up the same); then the split giving the lower seats the higher
        values is returned (the points are right either way; a CloseLog records the real tiles)."""
        cdef int p = _seat(self, player)
        cdef ConfigData* c = &self.cfg.c
        cdef int t, q, j
        out = []
        stacks = self.cfg.board.tiles
        for t in range(c.n_stacks):
            if self.s.tiles_n[p][t] == 0:
                continue
            sid = stacks[t].id
            if self.s.tiles_n[p][t] == 1:
                out.append(Tile(sid, self.s.tiles_pts[p][t]))
                continue
            taken = [c.stack_vals[t][j] for j in range(self.s.stack_pos[t])]
            seats = [q for q in range(c.n_players) if self.s.tiles_n[q][t]]
            ways = _split_tiles(taken, [(self.s.tiles_n[q][t], self.s.tiles_pts[q][t]) for q in seats])
            if ways:
                values = max(ways)[seats.index(p)]
            else:       # a loaded position whose tiles do not add up: keep the points
                values = [self.s.tiles_pts[p][t]] + [0] * (self.s.tiles_n[p][t] - 1)
            out.extend(Tile(sid, v) for v in values)
        return out

    def official_uses(self, player):
        """How often `player` used each official: {official: count} (see thurn_ai.officials)."""
        cdef int p = _seat(self, player)
        cdef int k
        return {OFFICIALS[k - 1]: self.s.official_uses[p][k] for k in range(1, N_OFFICIALS)}

    def closes(self, player):
        """Routes `player` has closed."""
        cdef int p = _seat(self, player)
        return self.s.closes[p]

    def display(self):
        """The face-up cards, as city names (a name once per card), in board order."""
        return _card_list(self.s.display, self.cfg.c.n_cities, self.cfg.board.cities)

    # private, for thurn_ai.position (a position dict in a few calls)

    def turn_state(self):
        """The scalar fields of the state as a TurnState (named fields, see TURN_FIELDS): whose turn, the
        phase and what was done in it, the pile sizes, the end of the game, the generators."""
        return read_turn(&self.s)

    def _cards(self, int which, int player=0):
        """A pile as a list of city names: 0 a hand, 1 its known cards, 2 horse cards, 3 the display."""
        cdef int p = _seat(self, player)
        cdef int nc = self.cfg.c.n_cities
        names = self.cfg.board.cities
        if which == 0:
            return _card_list(self.s.hand[p], nc, names)
        if which == 1:
            return _card_list(self.s.known[p], nc, names)
        if which == 2:
            return _card_list(self.s.horse_cards[p], nc, names)
        return _card_list(self.s.display, nc, names)

    def _pile_counts(self, int which):
        """{city: count} of the deck (0) or the discard pile (1)."""
        if which == 0:
            return _card_counts(self.s.deck, self.cfg.c.n_cities, self.cfg.board.cities)
        return _card_counts(self.s.discard, self.cfg.c.n_cities, self.cfg.board.cities)

    def _city_names(self, uint32_t mask):
        return _mask_names(mask, self.cfg.c.n_cities, self.cfg.board.cities)

    def _player_parts(self, int player):
        """(hand size, known, route, horse cards, houses, houses_left, carriage index, {stack index:
        (count, points)}, official uses, closes) of one seat; card piles as lists of names."""
        cdef int p = _seat(self, player)
        cdef StateData* s = &self.s
        cdef ConfigData* c = &self.cfg.c
        cdef int nc = c.n_cities, t, i
        names = self.cfg.board.cities
        return (s.hand_n[p], _card_list(s.known[p], nc, names),
                [names[s.route[p][i]] for i in range(s.route_len[p])],
                _card_list(s.horse_cards[p], nc, names), _mask_names(s.houses[p], nc, names),
                s.houses_left[p], s.carriage[p],
                {t: (s.tiles_n[p][t], s.tiles_pts[p][t]) for t in range(c.n_stacks) if s.tiles_n[p][t]},
                [s.official_uses[p][i] for i in range(1, N_OFFICIALS)], s.closes[p])

    def _stack_tails(self):
        """[the values still in each stack, top first] per stack, in board order."""
        cdef ConfigData* c = &self.cfg.c
        cdef int t, j
        return [[c.stack_vals[t][j] for j in range(self.s.stack_pos[t], c.stack_nvals[t])]
                for t in range(c.n_stacks)]

    # ---- raw access for the Python layer (positions, observations, notation) ----

    def export(self):
        """Every field of the state as plain Python values (used by thurn_ai.position)."""
        cdef StateData* s = &self.s
        cdef ConfigData* c = &self.cfg.c
        n, nc, nt = c.n_players, c.n_cities, c.n_stacks
        d = read_turn(s)._asdict()
        d["hand"] = [[s.hand[p][x] for x in range(nc)] for p in range(n)]
        d["known"] = [[s.known[p][x] for x in range(nc)] for p in range(n)]
        d["display"] = [s.display[x] for x in range(nc)]
        d["deck"] = [s.deck[x] for x in range(nc)]
        d["discard"] = [s.discard[x] for x in range(nc)]
        d["route"] = [[s.route[p][i] for i in range(s.route_len[p])] for p in range(n)]
        d["horse_cards"] = [[s.horse_cards[p][x] for x in range(nc)] for p in range(n)]
        d["houses"] = [[x for x in range(nc) if (s.houses[p] >> x) & 1] for p in range(n)]
        d["houses_left"] = [s.houses_left[p] for p in range(n)]
        d["carriage"] = [s.carriage[p] for p in range(n)]
        d["stack_pos"] = [s.stack_pos[t] for t in range(nt)]
        d["tiles_n"] = [[s.tiles_n[p][t] for t in range(nt)] for p in range(n)]
        d["tiles_pts"] = [[s.tiles_pts[p][t] for t in range(nt)] for p in range(n)]
        d["official_uses"] = [[s.official_uses[p][k] for k in range(1, N_OFFICIALS)] for p in range(n)]
        d["closes"] = [s.closes[p] for p in range(n)]
        return d

    def load(self, dict d):
        """Set every field from a dict in the form export() gives (validation is the caller's job)."""
        cdef StateData* s = &self.s
        cdef ConfigData* c = &self.cfg.c
        cdef int p, x, t, i
        n, nc, nt = c.n_players, c.n_cities, c.n_stacks
        memset(s, 0, sizeof(StateData))
        write_turn(s, [d[f] for f in TURN_FIELDS])
        for p in range(MAXP):
            s.carriage[p] = -1
        for p in range(n):
            s.hand_n[p] = 0
            for x in range(nc):
                s.hand[p][x] = d["hand"][p][x]
                s.hand_n[p] += s.hand[p][x]
                s.known[p][x] = d["known"][p][x]
                s.horse_cards[p][x] = d["horse_cards"][p][x]
                s.horse_n[p] += s.horse_cards[p][x]
                s.horse_total[p] += s.horse_cards[p][x] * c.horses[x]
            s.route_len[p] = len(d["route"][p])
            for i, x in enumerate(d["route"][p]):
                s.route[p][i] = x
                s.route_mask[p] |= (<uint32_t>1) << x
            for x in d["houses"][p]:
                s.houses[p] |= (<uint32_t>1) << x
            s.houses_left[p] = d["houses_left"][p]
            s.carriage[p] = d["carriage"][p]
            for t in range(nt):
                s.tiles_n[p][t] = d["tiles_n"][p][t]
                s.tiles_pts[p][t] = d["tiles_pts"][p][t]
            for k in range(1, N_OFFICIALS):
                s.official_uses[p][k] = d["official_uses"][p][k - 1]
            s.closes[p] = d["closes"][p]
        for x in range(nc):
            s.display[x] = d["display"][x]
            s.deck[x] = d["deck"][x]
            s.discard[x] = d["discard"][x]
        for t in range(nt):
            s.stack_pos[t] = d["stack_pos"][t]

    def settle(self):
        """Run automatic steps (used after load() of a position saved mid-decision)."""
        settle(&self.s, &self.cfg.c)


def bench_playouts(GameState state, int n, uint64_t seed):
    """n random playouts from clones of `state`, all in compiled code; returns total moves played."""
    cdef GameState g
    cdef long total = 0
    cdef int i
    cdef StateData tmp
    with nogil:
        for i in range(n):
            tmp = state.s
            seed_generators(&tmp, seed + <uint64_t>i * 0x9E3779B97F4A7C15ULL)
            total += random_playout(&tmp, &state.cfg.c)
    return total


def bench_legal_moves(GameState state, int n):
    """Generate the legal moves n times in compiled code; returns the total count (for timing)."""
    cdef int moves[MAXMOVES]
    cdef long total = 0
    cdef int i
    with nogil:
        for i in range(n):
            total += gen_moves(&state.s, &state.cfg.c, moves)
    return total


# Constants for the Python layer (the enum values above, by name)
SHIFT = MOVE_SHIFT
SECOND_GENERATOR = SECOND_STREAM
KINDS = {"draw": MV_DRAW, "deck": MV_DECK, "administrator": MV_ADMIN, "left": MV_LEFT,
         "right": MV_RIGHT, "new": MV_NEW, "horse": MV_HORSE, "close": MV_CLOSE, "stop": MV_STOP,
         "house": MV_HOUSE, "done": MV_DONE, "cartwright": MV_CART, "no_cartwright": MV_NOCART,
         "discard": MV_DISCARD}
PHASES = ("draw", "play", "after_play", "houses", "cartwright", "discard", "over")
OFFICIALS = ("postmaster", "administrator", "postal_carrier", "cartwright")
