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
    first determinization that asks, and kept in the arena; a move seen only in later determinizations
    gets the lowest logit kept, minus one. With prior_mix > 0, mixed with the hand-set prior."""
    cdef double logit[MAXMOVES]
    cdef double hand[MAXMOVES]
    cdef double plan_values[MAXMOVES]
    cdef int i, k, pidx = -1, first, cnt
    cdef double low
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
        for i in range(n):
            tree.pl_move[tree.pl_n + i] = <int16_t>moves[i]
            tree.pl_logit[tree.pl_n + i] = logit[i]
        tree.pl_n += n
        if tree.hand_cache:     # the hand-set prior's log-priors of the same moves, after them (hand_cache)
            move_priors(s, &tree.cfg.c, moves, n, tree.forbid[s.current], tree.prior_temp, &tree.values, hand)
            for i in range(n):
                tree.pl_move[tree.pl_n + i] = <int16_t>moves[i]
                tree.pl_logit[tree.pl_n + i] = log(hand[i]) if hand[i] > 1e-300 else -700.0
            tree.pl_n += n
    if nd.pfirst < 0:           # out of memory: the hand-set prior
        move_priors(s, &tree.cfg.c, moves, n, tree.forbid[s.current], tree.prior_temp, &tree.values, prior)
        return
    first = nd.pfirst
    cnt = nd.pcount
    low = 1e300
    for k in range(cnt):
        tree.slot[tree.pl_move[first + k]] = <int16_t>(k + 1)
        if tree.pl_logit[first + k] < low:
            low = tree.pl_logit[first + k]
    for i in range(n):
        k = tree.slot[moves[i]]
        logit[i] = tree.pl_logit[first + k - 1] if k > 0 else low - 1.0
    softmax_into(logit, n, prior)
    if tree.prior_mix > 0 and tree.hand_cache:
        cached_handset(tree, s, node, moves, n, first + cnt, cnt, hand)
    for k in range(cnt):
        tree.slot[tree.pl_move[first + k]] = 0
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
    cdef int i, k, first, cnt
    cdef Node* nd = &tree.nodes[node]
    if nd.pfirst < 0 and grow_arena(tree, 2 * n):
        move_priors(s, &tree.cfg.c, moves, n, tree.forbid[s.current], tree.prior_temp, &tree.values, hand)
        nd.pfirst = tree.pl_n
        nd.pcount = <uint8_t>n
        for k in range(2):
            for i in range(n):
                tree.pl_move[tree.pl_n + i] = <int16_t>moves[i]
                tree.pl_logit[tree.pl_n + i] = log(hand[i]) if hand[i] > 1e-300 else -700.0
            tree.pl_n += n
    if nd.pfirst < 0:           # out of memory: asked afresh
        handset_prior(tree, s, node, moves, n, prior)
        return
    first = nd.pfirst
    cnt = nd.pcount
    for k in range(cnt):
        tree.slot[tree.pl_move[first + k]] = <int16_t>(k + 1)
    cached_handset(tree, s, node, moves, n, first + cnt, cnt, prior)
    for k in range(cnt):
        tree.slot[tree.pl_move[first + k]] = 0


cdef void cached_handset(Tree tree, StateData* s, int node, const int* moves, int n, int first, int cnt,
                         double* hand) noexcept nogil:
    """The hand-set prior from its log-priors kept at the node (hand_cache; the moves' slots are set): as the
    learned logits, from the first determinization that asked, a move seen only later the lowest minus one;
    plan_prior of it on the planner's move, as handset_prior."""
    cdef double hl[MAXMOVES]
    cdef double low = 1e300
    cdef int i, k, pm
    for k in range(cnt):
        if tree.pl_logit[first + k] < low:
            low = tree.pl_logit[first + k]
    for i in range(n):
        k = tree.slot[moves[i]]
        hl[i] = tree.pl_logit[first + k - 1] if k > 0 else low - 1.0
    softmax_into(hl, n, hand)
    if tree.plan_prior > 0:
        pm = plan_move(tree, s, node, moves, n)
        for i in range(n):
            hand[i] *= 1.0 - tree.plan_prior
            if moves[i] == pm:
                hand[i] += tree.plan_prior


cdef bint grow_arena(Tree tree, int n) noexcept nogil:
    # room for n more (move, logit) pairs; False when memory runs out
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
    tree.pl_cap = k
    return True
