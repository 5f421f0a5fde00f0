# The tree's node, the clock and the selection formulas (PUCT, UCB with availability counts).
# Included by _search.pyx as text, not a module: one compilation unit, so the C compiler inlines across the parts.

cdef inline double now_s(bint cpu=False) noexcept nogil:
    # wall-clock seconds, or (cpu) this thread's CPU seconds: a CPU budget is the same on a loaded machine
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID if cpu else CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# ---------------------------------------------------------------- the tree

cdef struct Node:
    int32_t parent
    int32_t child        # first child, -1 if none
    int32_t sibling      # next child of the same parent, -1 at the end
    int16_t move
    int8_t mover         # player who made the move leading here (-1 at the root)
    int8_t official      # the official that move used, as a bit (official_bit; 0: none)
    int16_t pmove        # the planning policy's move at this node (-1: not asked yet), for the prior
    int32_t pfirst       # the learned prior's logits of this node: first entry in the tree's arena (-1: none yet)
    uint8_t pcount       # ... and how many (the moves legal in the determinization that first asked)
    uint32_t visits
    uint32_t avail       # how often this move was available when the parent was visited
    double value         # sum of the mover's rewards
    double wins          # sum of the mover's wins (or estimated win chances, for playouts cut short)
    double score         # sum of the mover's final (or evaluated) values, for reporting
    double table         # sum of the other players' mean final (or evaluated) value, for the review's margin


# ---------------------------------------------------------------- the selection formulas

cdef inline double puct_value(double q, double c, double prior, double sqrt_n, uint32_t visits) noexcept nogil:
    """PUCT (as in AlphaZero): Q + c P sqrt(N) / (1 + n), N the parent's visits, n the child's."""
    return q + c * prior * sqrt_n / (1 + visits)


cdef inline double ucb_value(double value, uint32_t visits, uint32_t avail, double c) noexcept nogil:
    """UCB1 with availability counts (ISMCTS): the mean reward + c sqrt(ln(avail) / n); avail replaces
    the parent's visits, since a move is not available in every determinization."""
    return value / visits + c * sqrt(log(<double>avail) / visits)


cdef inline int puct_choice(const Node* nodes, int node, int n, const int* child_of, const double* prior,
                            double c, double fpu) noexcept nogil:
    """The move (index) of highest PUCT value; a child counts its availability as its parent's visits, a
    move not tried yet counts with the first-play urgency `fpu` as its Q and the parent's visits."""
    cdef int i, best = 0
    cdef double u, best_u = NO_VALUE, sq = sqrt(<double>(nodes[node].visits + 1))
    cdef const Node* nd
    for i in range(n):
        if child_of[i] >= 0:
            nd = &nodes[child_of[i]]
            u = puct_value(nd.value / nd.visits, c, prior[i], sqrt(<double>nd.avail), nd.visits)
        else:
            u = puct_value(fpu, c, prior[i], sq, 0)
        if u > best_u:
            best_u = u
            best = i
    return best


cdef inline int ucb_choice(const Node* nodes, int n, const int* child_of, double c) noexcept nogil:
    """The first move not tried yet (the moves come best first by the rule of thumb), else the move of
    highest UCB value."""
    cdef int i, best = 0
    cdef double u, best_u = NO_VALUE
    cdef const Node* nd
    for i in range(n):
        if child_of[i] < 0:
            return i
        nd = &nodes[child_of[i]]
        u = ucb_value(nd.value, nd.visits, nd.avail, c)
        if u > best_u:
            best_u = u
            best = i
    return best
