# The officials' filter of a search: which moves of the searching player its tree keeps (OfficialFilter).
# Included by _search.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

cdef struct OfficialBits:
    # OfficialFilter's bit sets, read by the tree without the GIL
    int root_uses
    int root_avoids
    int turn_uses
    int turn_avoids


cdef class OfficialFilter:
    """Which moves of the searching player a Tree keeps, by the officials they use (bit sets of 1 << official
    code, as official_mask gives them). At the root decision only (later decisions are free): the moves using
    an official of `root_uses` (when it is set) and using none of `root_avoids`. At every decision of the root
    player's current turn, in the tree and in the playout's rest of that turn: where an official of
    `turn_uses` is on offer only the moves using it, elsewhere the moves using none of `turn_avoids`; later
    turns are free. The forced Postmaster of an empty hand is no choice and is not restricted. The default
    filter keeps every move. (The officials study rates one side of a decision, or one choice of official for
    a turn, with a search of its own: thurn_ai.bots.mcts.SearchBot.restrict_root / restrict_turn.)"""
    cdef OfficialBits bits

    def __init__(self, int root_uses=0, int root_avoids=0, int turn_uses=0, int turn_avoids=0):
        for key, uses, avoids in (("root", root_uses, root_avoids), ("turn", turn_uses, turn_avoids)):
            if not (0 <= uses < 32 and 0 <= avoids < 32) or uses & avoids:
                raise ValueError(f"{key}_uses and {key}_avoids must be disjoint sets of official bits (0-31), "
                                 f"not {uses!r} and {avoids!r}")
        self.bits.root_uses = root_uses
        self.bits.root_avoids = root_avoids
        self.bits.turn_uses = turn_uses
        self.bits.turn_avoids = turn_avoids

    @property
    def root_uses(self) -> int:
        return self.bits.root_uses

    @property
    def root_avoids(self) -> int:
        return self.bits.root_avoids

    @property
    def turn_uses(self) -> int:
        return self.bits.turn_uses

    @property
    def turn_avoids(self) -> int:
        return self.bits.turn_avoids

    def with_root(self, int uses=0, int avoids=0):
        """This filter with the root decision's sets replaced (0, 0: the root free again)."""
        return OfficialFilter(uses, avoids, self.bits.turn_uses, self.bits.turn_avoids)

    def with_turn(self, int uses=0, int avoids=0):
        """This filter with the current turn's sets replaced (0, 0: the turn free again)."""
        return OfficialFilter(self.bits.root_uses, self.bits.root_avoids, uses, avoids)

    def _key(self):
        return (self.bits.root_uses, self.bits.root_avoids, self.bits.turn_uses, self.bits.turn_avoids)

    def __bool__(self):
        return any(self._key())

    def __eq__(self, other):
        return isinstance(other, OfficialFilter) and self._key() == (<OfficialFilter>other)._key()

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):
        return OfficialFilter, self._key()

    def __repr__(self):
        return "OfficialFilter(root_uses={}, root_avoids={}, turn_uses={}, turn_avoids={})".format(*self._key())


cdef bint is_legal_move(const StateData* root, const ConfigData* c, int move) noexcept nogil:
    # whether `move` is a legal move at `root` (Tree's root_move must be one)
    cdef int moves[MAXMOVES]
    cdef StateData s = root[0]
    cdef int n = gen_moves(&s, c, moves), i
    for i in range(n):
        if moves[i] == move:
            return True
    return False
