# The compiled board and rules (the Config class) and the house-set check for Python.
# Included by _core.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

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
