# The halving root (Tree(root=ROOT_HALVING)): its candidates, its paired iterations, its rounds. Included by
# _search.pyx as text after the Tree class, whose run_c calls run_halving: one compilation unit.

# ---- Sequential Halving at the root
#
# Gumbel AlphaZero's root (Danihelka et al. 2022) without the Gumbel noise, as a player needs it: the
# prior's top m moves are the candidates; each round gives every survivor the same number of iterations
# and keeps the better half by score = log prior + sigma(q), until the budget is spent; the move played is
# the best survivor by that score (bots.mcts, over the merged trees). An iteration of a round
# starts with the candidate's move forced at the root, the usual PUCT tree below it. Common random numbers
# (Veness, Lanctot & Bowling 2011): within a round, the k-th iteration of every survivor uses the same
# determinization and the same playout random numbers, so the siblings' difference is measured on the same
# worlds and luck (half the variance of an unpaired difference here).

cdef bint setup_candidates(Tree tree) noexcept nogil:
    """The root's candidates: its moves (as PUCT would see them) by prior, best first, the top m, each
    with its node. False if the tree runs out of memory."""
    cdef StateData s = tree.root
    cdef int moves[MAXMOVES]
    cdef double prior[MAXMOVES]
    cdef int order[MAXMOVES]
    cdef int n, i, k, ch
    if tree.redeterminize:
        determinize(&s, &tree.cfg.c, tree.observer, next_u64(&tree.sh_rng))
    n = tree.tree_options(&s, 0, moves, prior)
    if n == 1:
        prior[0] = 1.0
    for i in range(n):
        order[i] = i
    order_by(order, n, prior)
    tree.sh_m = n if n < tree.n_candidates else tree.n_candidates
    for k in range(tree.sh_m):
        i = order[k]
        tree.sh_move[k] = moves[i]
        tree.sh_logit[k] = log(prior[i]) if prior[i] > 1e-300 else -690.0
        tree.sh_stage[k] = 0
        ch = tree.nodes[0].child           # a child made by an earlier run is kept
        while ch >= 0 and tree.nodes[ch].move != moves[i]:
            ch = tree.nodes[ch].sibling
        if ch < 0:
            ch = tree.add_node(0, moves[i], tree.observer)
            if ch < 0:
                return False
            tree.nodes[ch].official = <int8_t>official_bit(&s, moves[i])
        tree.sh_child[k] = ch
    return True

cdef bint iterate_root(Tree tree, int k, uint64_t world, uint64_t luck) noexcept nogil:
    """One iteration through candidate k: determinization `world`, playout random numbers `luck`."""
    cdef StateData s = tree.root
    if tree.n_trace < TRACE:
        tree.trace_k[tree.n_trace] = k
        tree.trace_world[tree.n_trace] = world
        tree.n_trace += 1
    if tree.redeterminize:
        determinize(&s, &tree.cfg.c, tree.observer, world)
    apply_move(&s, &tree.cfg.c, tree.sh_move[k])
    tree.rng = luck
    return tree.play_from(&s, tree.sh_child[k])


cdef void order_by(int* index, int n, const double* key) noexcept nogil:
    """Sort index[0..n) by key[index[i]], highest first; ties keep their order (insertion sort: n is small)."""
    cdef int i, j, t
    for i in range(1, n):
        t = index[i]
        j = i - 1
        while j >= 0 and key[index[j]] < key[t]:
            index[j + 1] = index[j]
            j -= 1
        index[j + 1] = t

cdef void halve(Tree tree, int* alive, int n_alive) noexcept nogil:
    """Order the survivors best first by score (halving_score) and advance the better half a round."""
    cdef double score[MAXMOVES]
    cdef double q[MAXMOVES]
    cdef double lo = 1e300, hi = -1e300, max_n = 0
    cdef int i, k
    cdef Node* nd
    for i in range(tree.sh_m):
        nd = &tree.nodes[tree.sh_child[i]]
        q[i] = nd.value / nd.visits if nd.visits > 0 else 0.0
        if nd.visits > 0:
            lo = q[i] if q[i] < lo else lo
            hi = q[i] if q[i] > hi else hi
            max_n = nd.visits if nd.visits > max_n else max_n
    for i in range(n_alive):
        k = alive[i]
        nd = &tree.nodes[tree.sh_child[k]]
        score[k] = halving_score(tree.sh_logit[k], q[k] if nd.visits > 0 else lo, lo, hi, max_n)
    order_by(alive, n_alive, score)
    for i in range((n_alive + 1) // 2):
        tree.sh_stage[alive[i]] += 1

cdef long run_halving(Tree tree, long iterations, double seconds, bint cpu) noexcept nogil:
    """Sequential Halving over the candidates for `iterations` (exactly; fewer only if memory runs out)
    or `seconds`. Rounds: ceil(log2 m); a round gives each of its survivors (remaining budget) /
    (remaining rounds x survivors) paired iterations; what is left after the last round goes to its
    survivors. A time budget first plays PROBE_ROUNDS paired iterations of every candidate to measure the
    speed, plans the rounds for the iterations the time allows, and stops at the deadline wherever it is
    (the survivors of that round are the choice)."""
    cdef int alive[MAXMOVES]
    cdef int n_alive, rounds = 0, i, j, per
    cdef long done = 0, budget = iterations
    cdef double start = 0.0, deadline = 0.0, elapsed
    cdef uint64_t world, luck
    if tree.sh_m == 0 and not setup_candidates(tree):
        return 0
    n_alive = tree.sh_m
    for i in range(n_alive):
        alive[i] = i
        tree.sh_stage[i] = 0
    while (1 << rounds) < n_alive:
        rounds += 1
    if seconds > 0:
        start = now_s(cpu)
        deadline = start + seconds
        for j in range(PROBE_ROUNDS):
            if now_s(cpu) >= deadline or (iterations > 0 and done >= iterations):
                return done
            world = next_u64(&tree.sh_rng)
            luck = next_u64(&tree.sh_rng)
            for i in range(n_alive):
                if (iterations > 0 and done >= iterations) or tree.signalled(done):
                    return done
                if not iterate_root(tree, alive[i], world, luck):
                    return done
                done += 1
        elapsed = now_s(cpu) - start
        budget = <long>(done * seconds / elapsed) if elapsed > 0 else done * 1000
        if iterations > 0 and iterations < budget:
            budget = iterations
    while True:
        if n_alive > 1 and rounds > 0:
            per = <int>((budget - done) // (rounds * n_alive))
            per = per if per > 1 else 1
        else:
            per = -1                        # the last survivors: until the budget is spent
        j = 0
        while per < 0 or j < per:
            if done >= budget or (seconds > 0 and now_s(cpu) >= deadline):
                return done
            world = next_u64(&tree.sh_rng)
            luck = next_u64(&tree.sh_rng)
            for i in range(n_alive):
                if done >= budget or tree.signalled(done):
                    return done
                if not iterate_root(tree, alive[i], world, luck):
                    return done
                done += 1
            j += 1
        halve(tree, alive, n_alive)
        n_alive = (n_alive + 1) // 2
        rounds -= 1
