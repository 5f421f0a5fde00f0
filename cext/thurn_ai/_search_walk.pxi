# Walking a searched tree: the searcher's own later decisions of the turn (Tree.own_nodes), the root's tables.
# Included by _search.pyx as text, not a module: one compilation unit with the Tree it reads.

cdef list own_nodes_of(Tree tree, int min_visits):
    """[(path, children)] for every node below the root that the observer reaches by its own moves of this
    turn and that is still its decision: `path` the moves from the root (a list), `children`
    [(move, visits, avail, value_sum, wins_sum, score_sum)] of its own moves there, as root_children().
    Only nodes visited at least `min_visits` times, and none below a card drawn (from the display or the
    deck) or the Administrator: the card that refills the display, or the one drawn, is hidden at the root,
    so the position there is not one position; where another player moves next, the turn is over."""
    out = []
    stack = [0]
    cdef int node, ch, kind
    cdef list children
    cdef uint32_t least = <uint32_t>max(min_visits, 1)
    while stack:
        node = stack.pop()
        children = []
        ch = tree.nodes[node].child
        while ch >= 0:
            if tree.nodes[ch].mover == tree.observer:
                children.append((tree.nodes[ch].move, tree.nodes[ch].visits, tree.nodes[ch].avail,
                                 tree.nodes[ch].value, tree.nodes[ch].wins, tree.nodes[ch].score))
                kind = tree.nodes[ch].move >> MOVE_SHIFT
                if tree.nodes[ch].visits >= least and kind != MV_DRAW and kind != MV_DECK and kind != MV_ADMIN:
                    stack.append(ch)
            ch = tree.nodes[ch].sibling
        if node > 0 and children:
            out.append((path_to(tree, node), children))
    out.sort(key=lambda row: row[0])
    return out


cdef list path_to(Tree tree, int node):
    # the moves from the root to `node`
    path = []
    while node > 0:
        path.append(tree.nodes[node].move)
        node = tree.nodes[node].parent
    path.reverse()
    return path


cdef list root_tables_of(Tree tree):
    """[(move, table_sum)] for every child of the root, in root_children's order: the sum over its visits of
    the other players' mean final (or evaluated) value -- the table the observer plays against (the review's
    margin over the table: thurn_ai.play.review_rating)."""
    out = []
    cdef int ch = tree.nodes[0].child
    while ch >= 0:
        out.append((tree.nodes[ch].move, tree.nodes[ch].table))
        ch = tree.nodes[ch].sibling
    return out
