# The Python-facing GameState class -- the turn's scalar fields by name, the typed
# accessors, export()/load(), moves and playouts for Python -- and the compiled benchmark loops.
# Included by _core.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

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
