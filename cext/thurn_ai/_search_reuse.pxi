# Reusing a searched tree for the searcher's next decision (Tree.reroot), and the root's early stop (the best
# move cannot be caught). Included by _search.pyx as text after the Tree class: one compilation unit.

cdef long reroot_tree(Tree tree, GameState state, path) except -1:
    # Tree.reroot
    cdef int moves[64]
    cdef int n = len(path), i, top
    if not tree.redeterminize:
        raise ValueError("only an ISMCTS tree can be rerooted")
    if state.s.phase == PH_OVER or state.s.current != tree.observer:
        raise ValueError("the new root must be a decision of the tree's observer")
    if n > 64:
        raise ValueError(f"a path of at most 64 moves, not {n}")
    for i in range(n):
        moves[i] = path[i]
    top = node_at(tree, moves, n)
    tree.root = state.s
    if top > 0 and keep_subtree(tree, top):
        return tree.nodes[0].visits
    if top != 0:
        tree.n_nodes = 0
        tree.add_node(-1, 0, -1)
    return tree.nodes[0].visits if top == 0 else 0


cdef inline int child_by(Tree tree, int node, int mover, int move) noexcept nogil:
    """The child of `node` reached by `mover` playing `move`, -1 if the tree has none."""
    cdef int ch = tree.nodes[node].child
    while ch >= 0 and not (tree.nodes[ch].move == move and tree.nodes[ch].mover == mover):
        ch = tree.nodes[ch].sibling
    return ch


cdef int node_at(Tree tree, const int* path, int n) noexcept nogil:
    """The node reached from the root by the moves of `path` (each taken by the observer), -1 if the tree
    does not hold that line."""
    cdef int node = 0, i
    for i in range(n):
        node = child_by(tree, node, tree.observer, path[i])
        if node < 0:
            return -1
    return node


cdef long visits_along_path(Tree tree, path) except -1:
    # Tree.visits_along: node_at's walk with each step's mover given
    cdef int node = 0, mover, move
    for mover, move in path:
        node = child_by(tree, node, mover, move)
        if node < 0:
            return 0
    return tree.nodes[node].visits


cdef bint keep_subtree(Tree tree, int top) noexcept nogil:
    """Make the subtree below `top` the whole tree, `top` its root (node 0), in place, every statistic as it
    was. A node is always added after its parent, so one pass in index order finds the subtree, and numbering
    the kept nodes in that order keeps parents before children and moves every node down or leaves it: the
    copy forward never overwrites a node not yet read. False if memory for the pass ran out (the tree is
    then left as it was)."""
    cdef int32_t* new_index = <int32_t*>malloc(tree.n_nodes * sizeof(int32_t))
    cdef int n = 0, k, p
    cdef Node nd
    if new_index == NULL:
        return False
    for k in range(tree.n_nodes):
        new_index[k] = -1
    for k in range(top, tree.n_nodes):
        p = tree.nodes[k].parent
        if k == top or (p >= top and new_index[p] >= 0):
            new_index[k] = n
            n += 1
    for k in range(top, tree.n_nodes):
        if new_index[k] < 0:
            continue
        nd = tree.nodes[k]
        nd.parent = new_index[nd.parent] if k != top else -1
        nd.child = new_index[nd.child] if nd.child >= 0 else -1
        nd.sibling = new_index[nd.sibling] if (k != top and nd.sibling >= 0) else -1
        tree.nodes[new_index[k]] = nd
    # the new root: no one moved into it (its value sums are the old mover's: unused at a root)
    tree.nodes[0].mover = -1
    tree.nodes[0].move = 0
    tree.nodes[0].official = 0
    tree.nodes[0].value = 0.0
    tree.nodes[0].wins = 0.0
    tree.nodes[0].score = 0.0
    tree.nodes[0].table = 0.0
    tree.n_nodes = n
    free(new_index)
    return True


cdef int best_lead(Tree tree) noexcept nogil:
    """The most visited root move's lead in visits over the second (its visits if it is alone; 0 without
    children): the iterations that could still change the most visited move. Only moves legal at the root
    count (a kept tree's root may hold moves of worlds the game did not take: reuse=turn)."""
    cdef int moves[MAXMOVES]
    cdef StateData s = tree.root
    cdef int n = gen_moves(&s, &tree.cfg.c, moves), i
    cdef uint32_t first = 0, second = 0, v
    cdef int ch = tree.nodes[0].child
    for i in range(n):
        tree.slot[moves[i]] = 1
    while ch >= 0:
        v = tree.nodes[ch].visits
        if tree.slot[tree.nodes[ch].move]:
            if v > first:
                second = first
                first = v
            elif v > second:
                second = v
        ch = tree.nodes[ch].sibling
    for i in range(n):
        tree.slot[moves[i]] = 0
    return <int>(first - second)


cdef double best_share(Tree tree) noexcept nogil:
    """The most visited root move's share of the root's visits (0 without children): how clear a favourite
    the search has. Only moves legal at the root count, as in best_lead."""
    cdef int moves[MAXMOVES]
    cdef StateData s = tree.root
    cdef int n = gen_moves(&s, &tree.cfg.c, moves), i
    cdef uint32_t first = 0, total = 0, v
    cdef int ch = tree.nodes[0].child
    for i in range(n):
        tree.slot[moves[i]] = 1
    while ch >= 0:
        v = tree.nodes[ch].visits
        if tree.slot[tree.nodes[ch].move]:
            total += v
            if v > first:
                first = v
        ch = tree.nodes[ch].sibling
    for i in range(n):
        tree.slot[moves[i]] = 0
    return <double>first / total if total > 0 else 0.0
