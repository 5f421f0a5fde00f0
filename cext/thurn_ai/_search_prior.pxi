# The tree's move priors from the planner and the learned model (Tree.tree_options asks them). Included by
# _search.pyx as text after the Tree class: one compilation unit.

cdef int plan_move(Tree tree, StateData* s, int node, const int* moves, int n) noexcept nogil:
    # the planning policy's move at node, asked once per node, in the first determinization that reaches it
    if tree.nodes[node].pmove < 0:
        tree.nodes[node].pmove = <int16_t>moves[plan_choice(s, &tree.cfg.c, moves, n, tree.forbid[s.current],
                                                           &tree.values)]
    return tree.nodes[node].pmove

cdef void handset_prior(Tree tree, StateData* s, int node, const int* moves, int n, double* prior) noexcept nogil:
    """The hand-set PUCT prior: the rule of thumb's softmax, with plan_prior of it moved to the planner's move."""
    cdef int i, pm
    move_priors(s, &tree.cfg.c, moves, n, tree.forbid[s.current], tree.prior_temp, &tree.values, prior)
    if tree.plan_prior > 0:
        pm = plan_move(tree, s, node, moves, n)
        for i in range(n):
            prior[i] *= 1.0 - tree.plan_prior
            if moves[i] == pm:
                prior[i] += tree.plan_prior


cdef void learned_priors(Tree tree, StateData* s, int node, const int* moves, int n, double* prior) noexcept nogil:
    """The PUCT prior from the learned model: its logits are computed once per node, for the moves of the
    first determinization that asks, and kept in the arena with their softmax; a move seen only in later
    determinizations gets the lowest logit kept, minus one. With prior_mix > 0, mixed with the hand-set prior."""
    cdef double logit[MAXMOVES]
    cdef double hand[MAXMOVES]
    cdef double plan_values[MAXMOVES]
    cdef int i, pidx = -1, first, cnt
    cdef bint same
    cdef Node* nd = &tree.nodes[node]
    if nd.pfirst < 0 and grow_arena(tree, 2 * n if tree.hand_cache else n):
        # the planner's move and its values of every move from one planning context (once per node)
        pidx = plan_values_choice(s, &tree.cfg.c, moves, n, tree.forbid[s.current], &tree.values, plan_values)
        if nd.pmove < 0:
            nd.pmove = <int16_t>moves[pidx]
        else:
            pidx = -1
            for i in range(n):
                if moves[i] == nd.pmove:
                    pidx = i
        prior_logits(s, &tree.cfg.c, &tree.prior_weights, moves, n, tree.forbid[s.current], pidx,
                     &tree.values, plan_values, logit)
        nd.pfirst = tree.pl_n
        nd.pcount = <uint8_t>n
        keep_logits(tree, moves, n, logit)
        if tree.hand_cache:     # the hand-set prior's log-priors of the same moves, after them (hand_cache)
            move_priors(s, &tree.cfg.c, moves, n, tree.forbid[s.current], tree.prior_temp, &tree.values, hand)
            hand_logits(hand, n, logit)
            keep_logits(tree, moves, n, logit)
    if nd.pfirst < 0:           # out of memory: the hand-set prior
        move_priors(s, &tree.cfg.c, moves, n, tree.forbid[s.current], tree.prior_temp, &tree.values, prior)
        return
    first = nd.pfirst
    cnt = nd.pcount
    same = same_moves(tree, first, cnt, moves, n)
    if not same:
        set_slots(tree, first, cnt, True)
    kept_softmax(tree, first, cnt, moves, n, same, prior)
    if tree.prior_mix > 0 and tree.hand_cache:
        cached_handset(tree, s, node, moves, n, first + cnt, cnt, same, hand)
    if not same:
        set_slots(tree, first, cnt, False)
    if tree.prior_mix > 0:
        if not tree.hand_cache:
            handset_prior(tree, s, node, moves, n, hand)
        for i in range(n):
            prior[i] = (1.0 - tree.prior_mix) * prior[i] + tree.prior_mix * hand[i]

cdef void kept_handset(Tree tree, StateData* s, int node, const int* moves, int n, double* prior) noexcept nogil:
    """The hand-set prior where the learned one has no weights, with hand_cache: its log-priors asked once per
    node (the first determinization that asks) and kept in the arena, as the learned logits. The entry has
    learned_priors' layout (n moves, then the hand-set part of the same moves; here the hand-set log-priors in
    both halves), so a node whose phase differs between worlds reads valid numbers either way."""
    cdef double hand[MAXMOVES]
    cdef double hl[MAXMOVES]
    cdef int first, cnt
    cdef bint same
    cdef Node* nd = &tree.nodes[node]
    if nd.pfirst < 0 and grow_arena(tree, 2 * n):
        move_priors(s, &tree.cfg.c, moves, n, tree.forbid[s.current], tree.prior_temp, &tree.values, hand)
        hand_logits(hand, n, hl)
        nd.pfirst = tree.pl_n
        nd.pcount = <uint8_t>n
        keep_logits(tree, moves, n, hl)
        keep_logits(tree, moves, n, hl)
    if nd.pfirst < 0:           # out of memory: asked afresh
        handset_prior(tree, s, node, moves, n, prior)
        return
    first = nd.pfirst
    cnt = nd.pcount
    same = same_moves(tree, first, cnt, moves, n)
    if not same:
        set_slots(tree, first, cnt, True)
    cached_handset(tree, s, node, moves, n, first + cnt, cnt, same, prior)
    if not same:
        set_slots(tree, first, cnt, False)


cdef void cached_handset(Tree tree, StateData* s, int node, const int* moves, int n, int first, int cnt, bint same,
                         double* hand) noexcept nogil:
    """The hand-set prior from its log-priors kept at the node (hand_cache; see kept_softmax for `same`): as the
    learned logits, from the first determinization that asked, a move seen only later the lowest minus one;
    plan_prior of it on the planner's move, as handset_prior."""
    cdef int i, pm
    kept_softmax(tree, first, cnt, moves, n, same, hand)
    if tree.plan_prior > 0:
        pm = plan_move(tree, s, node, moves, n)
        for i in range(n):
            hand[i] *= 1.0 - tree.plan_prior
            if moves[i] == pm:
                hand[i] += tree.plan_prior


cdef inline void hand_logits(const double* hand, int n, double* out) noexcept nogil:
    # the hand-set prior's log-priors, as kept (a prior too small for a logarithm: -700)
    cdef int i
    for i in range(n):
        out[i] = log(hand[i]) if hand[i] > 1e-300 else -700.0


cdef void keep_logits(Tree tree, const int* moves, int n, const double* logits) noexcept nogil:
    # the (move, logit) pairs appended to the arena (grown beforehand), with the softmax of the logits: the
    # prior of every later visit whose moves are these moves (kept_softmax), the same numbers as computed then
    cdef int i
    for i in range(n):
        tree.pl_move[tree.pl_n + i] = <int16_t>moves[i]
        tree.pl_logit[tree.pl_n + i] = logits[i]
    softmax_into(logits, n, &tree.pl_prob[tree.pl_n])
    tree.pl_n += n


cdef inline bint same_moves(Tree tree, int first, int cnt, const int* moves, int n) noexcept nogil:
    # whether a visit's moves are the moves kept at the arena's [first, first + cnt), in the same order
    cdef int i
    if n != cnt:
        return False
    for i in range(n):
        if tree.pl_move[first + i] != moves[i]:
            return False
    return True


cdef inline void set_slots(Tree tree, int first, int cnt, bint on) noexcept nogil:
    # the kept moves' slots (their index + 1 among the kept moves), or cleared again
    cdef int k
    for k in range(cnt):
        tree.slot[tree.pl_move[first + k]] = <int16_t>(k + 1 if on else 0)


cdef void kept_softmax(Tree tree, int first, int cnt, const int* moves, int n, bint same, double* out) noexcept nogil:
    """The softmax over `moves` of the logits kept at the arena's [first, first + cnt): the one kept with them when
    the moves are the kept moves in order (`same`); else (the kept moves' slots set) each move's kept logit, a move
    not kept the lowest kept minus one."""
    cdef double logit[MAXMOVES]
    cdef double low = 1e300
    cdef int i, k
    if same:
        for i in range(n):
            out[i] = tree.pl_prob[first + i]
        return
    for k in range(cnt):
        if tree.pl_logit[first + k] < low:
            low = tree.pl_logit[first + k]
    for i in range(n):
        k = tree.slot[moves[i]]
        logit[i] = tree.pl_logit[first + k - 1] if k > 0 else low - 1.0
    softmax_into(logit, n, out)


cdef bint grow_arena(Tree tree, int n) noexcept nogil:
    # room for n more (move, logit, softmax) entries; False when memory runs out
    cdef int k
    cdef int16_t* m2
    cdef double* l2
    if tree.pl_n + n <= tree.pl_cap:
        return True
    k = FIRST_CAPACITY * 8 if tree.pl_cap == 0 else tree.pl_cap * 2
    while k < tree.pl_n + n:
        k *= 2
    m2 = <int16_t*>realloc(tree.pl_move, k * sizeof(int16_t))
    if m2 == NULL:
        return False
    tree.pl_move = m2
    l2 = <double*>realloc(tree.pl_logit, k * sizeof(double))
    if l2 == NULL:
        return False
    tree.pl_logit = l2
    l2 = <double*>realloc(tree.pl_prob, k * sizeof(double))
    if l2 == NULL:
        return False
    tree.pl_prob = l2
    tree.pl_cap = k
    return True
