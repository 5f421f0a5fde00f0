# Declarations of the compiled game core, so other Cython modules (search) can use the state directly.
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, uint64_t

cdef enum:
    MAXC = 32        # cities per board (city sets are 32-bit masks)
    MAXP = 4         # players
    MAXT = 24        # tile stacks
    MAXTV = 8        # tiles per stack
    MAXCAR = 8       # carriage sizes
    MAXMOVES = 192   # upper bound on legal moves in one decision
    MOVE_SHIFT = 5   # move = kind << MOVE_SHIFT | city

# Decision phases of a turn
cdef enum:
    PH_DRAW = 0       # first draw (or the forced Postmaster's second); Administrator allowed before it
    PH_PLAY = 1       # must play a card; may instead draw a second card with the Postmaster
    PH_AFTER = 2      # may play a second card (Postal Carrier), close the route, or stop
    PH_HOUSES = 3     # closing: place houses one city at a time, then done
    PH_CARTWRIGHT = 4 # closing: use the Cartwright for the next carriage or not
    PH_DISCARD = 5    # closing: discard down to the hand limit, one card at a time
    PH_OVER = 6

# Move kinds
cdef enum:
    MV_DRAW = 1       # take a face-up card (city)
    MV_DECK = 2       # take the top card of the deck
    MV_ADMIN = 3      # Administrator: replace the display
    MV_LEFT = 4       # play a card at the left end of the route
    MV_RIGHT = 5      # play a card at the right end (or onto a one-card route)
    MV_NEW = 6        # start a new route with a card (abandoning the current one)
    MV_HORSE = 7      # lay a card as a draught horse (horses variant)
    MV_CLOSE = 8      # close the route
    MV_STOP = 9       # end the turn without closing
    MV_HOUSE = 10     # place a house in a city of the closed route
    MV_DONE = 11      # no more houses
    MV_CART = 12      # use the Cartwright for the next carriage
    MV_NOCART = 13    # do not use the Cartwright
    MV_DISCARD = 14   # discard a card from hand after closing

cdef enum:
    OFF_NONE = 0
    OFF_POSTMASTER = 1
    OFF_ADMINISTRATOR = 2
    OFF_CARRIER = 3
    OFF_CARTWRIGHT = 4
    N_OFFICIALS = 5

cdef enum:
    TK_ROUTE = 0
    TK_EACH = 1
    TK_ALL = 2
    TK_FREE = 3
    TK_END = 4

cdef struct ConfigData:
    int n_players
    int n_cities
    int n_provinces
    int cards_per_city
    int n_cards
    uint32_t adj[MAXC]
    int8_t province[MAXC]
    uint32_t province_mask[MAXC]
    uint32_t free_mask
    uint8_t horses[MAXC]
    int n_stacks
    int8_t stack_kind[MAXT]
    uint32_t stack_mask[MAXT]
    uint32_t stack_provs[MAXT]
    int8_t stack_nvals[MAXT]
    int16_t stack_vals[MAXT][MAXTV]
    int8_t route_stack[MAXC + 1]
    int min_route_tile
    int max_route_tile
    int game_end_stack
    int n_carriages
    int8_t carriage_size[MAXCAR]
    int16_t carriage_points[MAXCAR]
    bint horses_variant
    bint cartwright
    bint carriage_ends_game
    int houses
    int hand_limit
    int display_size
    int min_close
    int max_horse_cards
    int base_horses
    int max_turns

cdef struct StateData:
    int8_t current
    int8_t phase
    int8_t official
    int8_t forced_pm
    int8_t draws
    int8_t plays
    int8_t last_house
    int8_t last_discard
    int8_t end_triggered
    int8_t end_player
    int8_t truncated
    int32_t turn
    uint32_t placed_now
    uint8_t hand[MAXP][MAXC]
    uint8_t known[MAXP][MAXC]
    int16_t hand_n[MAXP]
    uint8_t display[MAXC]
    int16_t display_n
    uint8_t deck[MAXC]
    int16_t deck_n
    uint8_t discard[MAXC]
    int16_t discard_n
    int8_t route[MAXP][MAXC]
    int8_t route_len[MAXP]
    uint32_t route_mask[MAXP]
    uint8_t horse_cards[MAXP][MAXC]
    int8_t horse_n[MAXP]
    int8_t horse_total[MAXP]
    uint32_t houses[MAXP]
    int8_t houses_left[MAXP]
    int8_t carriage[MAXP]
    int8_t stack_pos[MAXT]
    uint8_t tiles_n[MAXP][MAXT]
    int16_t tiles_pts[MAXP][MAXT]
    int16_t official_uses[MAXP][N_OFFICIALS]
    int16_t closes[MAXP]
    uint64_t rng        # chance: deck draws
    uint64_t prng       # random move choice in playouts (kept apart so chance stays reproducible)

cdef extern from *:
    int __builtin_ctz(unsigned int x) nogil

# eight bytes as one little-endian word, in one load (the compiler did not merge the eight byte loads of
# a[k] | a[k + 1] << 8 | ...)
cdef extern from *:
    """
    #include <string.h>
    static inline uint64_t thurn_load_le64(const uint8_t* p) {
        uint64_t w;
        memcpy(&w, p, 8);
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
    #endif
        return w;
    }
    """
    uint64_t load_le64 "thurn_load_le64"(const uint8_t* p) nogil

# the zero counts of MAXC (32) counts as a set, with SSE2 (every x86-64 has it): two 16-byte compares with zero
cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #define THURN_HAS_SSE2 1
    static inline uint32_t thurn_zero_counts(const uint8_t* a) {
        const __m128i zero = _mm_setzero_si128();
        uint32_t lo = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)a), zero));
        uint32_t hi = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(a + 16)), zero));
        return lo | hi << 16;
    }
    #else
    #define THURN_HAS_SSE2 0
    static inline uint32_t thurn_zero_counts(const uint8_t* a) { (void)a; return 0; }
    #endif
    """
    bint HAS_SSE2 "THURN_HAS_SSE2"
    uint32_t zero_counts "thurn_zero_counts"(const uint8_t* a) nogil


cdef inline int count_bits(uint32_t x) noexcept nogil:
    """The number of cities in a set: the branch-free bit count, inline (without a popcount instruction,
    which a portable build cannot assume, __builtin_popcount is a library call: 5% of the search's time)."""
    x = x - ((x >> 1) & 0x55555555u)
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u)
    x = (x + (x >> 4)) & 0x0F0F0F0Fu
    return <int>((x * 0x01010101u) >> 24)


cdef inline uint32_t nonzero_mask(const uint8_t* a, int n) noexcept nogil:
    """The cities x < n with a[x] != 0 (a: MAXC counts, a hand or the display) as a set. With SSE2 (every
    x86-64), all 32 counts in two compares with zero; else eight counts at a time without a branch each: each
    count's "not zero" lands in the top bit of its byte, and one multiply gathers the eight top bits into the
    low byte order of the cities. (The count-by-count loop was a third of the move generator's time in a
    profile of the search; the eight-at-a-time loop still a seventh of a search iteration's instructions.)"""
    cdef uint32_t out = 0
    cdef uint64_t w
    cdef int k
    if HAS_SSE2:
        out = ~zero_counts(a)
    else:
        for k in range(0, n, 8):
            w = load_le64(a + k)
            w = (((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w) & 0x8080808080808080ULL
            out |= (<uint32_t>((w * 0x0002040810204081ULL) >> 56)) << k
    return out if n >= 32 else out & ((<uint32_t>1 << n) - 1)


cdef inline uint32_t fit_mask(const StateData* s, const ConfigData* c, int p) noexcept nogil:
    """The cities that fit p's route: next to one of its ends and not on it (0 without a route)."""
    cdef int n = s.route_len[p]
    if n == 0:
        return 0
    return (c.adj[s.route[p][0]] | c.adj[s.route[p][n - 1]]) & ~s.route_mask[p]

cdef int gen_moves(const StateData* s, const ConfigData* c, int* out) noexcept nogil
cdef void apply_move(StateData* s, const ConfigData* c, int m) noexcept nogil
cdef void determinize(StateData* s, const ConfigData* c, int observer, uint64_t seed) noexcept nogil
cdef int random_playout(StateData* s, const ConfigData* c) noexcept nogil
cdef int score_of(const StateData* s, const ConfigData* c, int p) noexcept nogil
cdef int winner_of(const StateData* s, const ConfigData* c) noexcept nogil

cdef class Config:
    cdef ConfigData c
    cdef readonly object rules
    cdef readonly object board

cdef class GameState:
    cdef StateData s
    cdef Config cfg
    cpdef GameState clone(self)
