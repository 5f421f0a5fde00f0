# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled search: Information-Set MCTS and determinized UCT (PIMC). The playout policies, evaluations
and rewards it uses are in _policy.pyx.

One `Tree` is one search. Its nodes live in a growable C array (no Python object per node); children are
a linked list through node indices. Every iteration copies the root position, optionally re-deals what
the searcher cannot see (`determinize`), walks down the tree, adds one node, plays on with the heuristic
playout policy (for `horizon` turns of each player, then scores the position with evaluate(), or to the
end of the game) and backs the result up. All of that runs without the GIL, so several trees can search
in parallel threads (root parallelism; the Python layer merges their root statistics). See docs/bots.md.

ISMCTS (Cowling, Powley & Whitehouse 2012, single observer): the tree is over the searcher's information
sets -- a node is a sequence of moves, whatever the hidden cards were -- and each iteration samples a new
determinization. Which moves exist depends on the determinization (an opponent's cards, the searcher's
own deck draws), so each child counts how often it was *available* when its parent was visited, and UCB
uses that count instead of the parent's visits. Each node keeps the rewards of the player who moved into
it (max^n), which works for 2-4 players.

PIMC / determinized UCT is the same code with one fixed determinization per tree (every child is then
available whenever its parent is visited, so the availability count equals the parent's visits: plain UCT).
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.math cimport sqrt, log, INFINITY
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID
from cpython.exc cimport PyErr_CheckSignals

from thurn_ai._core cimport (
    StateData, ConfigData, GameState, Config, gen_moves, apply_move, determinize, winner_of,
    MAXP, MAXC, MAXMOVES, PH_OVER, MOVE_SHIFT, MV_DRAW, MV_DECK, MV_ADMIN,
)
from thurn_ai._policy cimport (
    HouseValues, reset_values, drop_forbidden, keep_officials, keep_turn_officials, official_bit, tree_moves, order_moves, move_priors, plan_choice, playout,
    playout_turn, evaluate, rewards, evaluate_learned, fill_weights, ValueWeights, NO_STOP_TURN,
    PLAYOUT_RANDOM, PLAYOUT_HEURISTIC, PLAYOUT_PLAN, REWARD_WIN, REWARD_MARGIN, REWARD_MIXED, SELECT_UCB, SELECT_PUCT,
    EVAL_SIMPLE, EVAL_PLAN, EVAL_LEARNED, PriorWeights, prior_phase, prior_logits, softmax_into, fill_prior_weights,
    plan_values_choice,
)
from thurn_ai._random cimport next_u64

# the policies as Python functions (tests, the bots, benchmarks) keep their old home here too
from threading import current_thread as _current_thread, main_thread as _main_thread

from thurn_ai._policy import official_mask, plan_policy_choice, policy_choice, policy_playout

# The option codes by name, for thurn_ai.bots.search_options (which reads them from here)
PLAYOUTS = {"random": PLAYOUT_RANDOM, "heuristic": PLAYOUT_HEURISTIC, "plan": PLAYOUT_PLAN}
REWARDS = {"win": REWARD_WIN, "margin": REWARD_MARGIN, "mixed": REWARD_MIXED}
SELECTS = {"ucb": SELECT_UCB, "puct": SELECT_PUCT}
EVALUATIONS = {"simple": EVAL_SIMPLE, "plan": EVAL_PLAN, "learned": EVAL_LEARNED}

cdef enum:
    MOVE_CODES = 512          # move codes are kind << 5 | city with kind < 16
    FIRST_CAPACITY = 1024     # nodes allocated at first; the array doubles when full
    # node indices are int32 (parent, child, sibling): the array stops growing here, well before they
    # could overflow (an iteration that cannot add its node ends the search, as out of memory does)
    MAX_NODES = 1 << 30
    CLOCK_EVERY = 16          # a timed search reads the clock every 16 iterations (an iteration is ~10 µs+)
    # a search in the main thread looks for a signal every this many iterations (~10-50 ms), so Ctrl-C
    # stops a long search at once (looking changes nothing else: the same tree)
    SIGNAL_SLICE = 1024

include "_search_filter.pxi"


# below every selection value, so the first move considered always becomes the best so far
cdef double NO_VALUE = -1e300
# the first-play urgency of PUCT before any sibling was tried: a reward halfway between loss and win
cdef double FPU_UNTRIED = 0.5


include "_search_nodes.pxi"


cdef class Tree:
    """One search tree (ISMCTS, or UCT on one fixed determinization). Build, run(), read the root."""
    cdef Node* nodes
    cdef readonly int n_nodes
    cdef int cap
    cdef Config cfg
    cdef StateData root
    cdef readonly int observer
    cdef uint64_t rng
    cdef double c_explore
    cdef int playout
    cdef int reward
    cdef double eps
    cdef double widen
    cdef int select
    cdef double prior_temp
    cdef int horizon
    cdef double tile_weight
    cdef double scale
    cdef int evaluation
    cdef ValueWeights value_weights
    cdef PriorWeights prior_weights
    cdef bint learned_prior
    cdef double prior_mix
    cdef public bint hand_cache     # the hand-set prior's share kept per node as the learned logits (hand_cache=)
    # the learned prior's (move, logit) pairs of every node that asked, in one growable arena, with the softmax of
    # each node's kept logits (its prior whenever a visit's moves are the kept moves: computed once, not every visit)
    cdef int16_t* pl_move
    cdef double* pl_logit
    cdef double* pl_prob
    cdef int pl_n
    cdef int pl_cap
    cdef double plan_prior
    cdef HouseValues values
    cdef bint redeterminize
    cdef bint weighted_hands            # hand_weights given: determinize_weighted (_search_infer.pxi)
    cdef double hand_w[MAXP][MAXC]
    cdef int forbid[MAXP]
    cdef OfficialBits officials
    cdef int root_move                  # >= 0: the root decision searches this one move only (-1: all)
    cdef bint others_planner            # the other players' moves in the tree are the planner's (others=planner)
    cdef int16_t slot[MOVE_CODES]
    cdef readonly long iterations
    cdef readonly long playout_moves
    # a signal seen by a search in the main thread (run raises it)
    cdef bint watch_signals
    cdef object interrupted

    def __cinit__(self):
        self.nodes = NULL
        self.n_nodes = 0
        self.cap = 0
        self.pl_move = NULL
        self.pl_logit = NULL
        self.pl_prob = NULL
        self.pl_n = 0
        self.pl_cap = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.pl_move)
        free(self.pl_logit)
        free(self.pl_prob)

    def __init__(self, GameState state, uint64_t seed, *, double c, int select, double plan_prior,
                 double prior_temp, int playout, double eps, int horizon, int evaluation, double tile_weight,
                 double scale, int reward, double widen, bint ismcts=True, int forbid=0, int observer=-1,
                 OfficialFilter officials=None, value_weights=None, prior_weights=None, double prior_mix=0.0,
                 int root_move=-1, hand_weights=None, bint others_planner=False):
        """Search from `state` for `observer` (default: the player to move). The options are described,
        defaulted and checked once in thurn_ai.bots.search_options.SearchOptions, whose tree_args() gives these
        arguments (numbers, and the codes of PLAYOUTS, REWARDS, SELECTS and EVALUATIONS above; value_weights:
        the learned model's (win, score) weights for this player count, needed by the learned evaluation).
        ismcts=True re-deals what the observer cannot see every iteration; ismcts=False searches `state` as it
        is (perfect information: pass a determinization). `forbid` is a bit set of officials (1 << official
        code) the observer never uses, in the tree and in playouts. `officials` (an OfficialFilter; None keeps
        every move) restricts the observer's moves at the root decision or through its current turn by the
        officials they use; a root it leaves without a move is an error. `prior_weights` (with select=PUCT):
        the learned move prior's phases for this player count (thurn_ai.learned.prior), used where its
        phase has weights, mixed with the hand-set prior: P = (1 - prior_mix) P_learned + prior_mix P_handset.
        root_move >= 0 (any legal move of the root): the whole budget goes through it, free below (a PUCT root;
        the review's rating). hand_weights[p][city] (a row per player, positive; the observer's row unread):
        each iteration deals the opponents' hidden cards by these weights (determinize_weighted) instead of
        uniformly (infer=policy; thurn_ai.bots.infer). others_planner=True: in the tree, every other player's
        decision is the planner's move in that determinization (one child, no search: a table of players who
        play like the planner; the review's table model, docs/review.md); the observer's are searched."""
        # Numbers are checked where the user gives them (SearchOptions); the tree checks only what would
        # make it read or write outside its arrays: the option codes, the seats and the official bits,
        # a root left without moves. (A NaN or an absurd number only makes the search bad: the selection
        # below always picks some move.)
        for key, code, table in (("select", select, SELECTS), ("playout", playout, PLAYOUTS),
                                 ("reward", reward, REWARDS), ("evaluation", evaluation, EVALUATIONS)):
            if code not in table.values():
                raise ValueError(f"{key} must be one of the codes {sorted(table.values())}, not {code!r}")
        if not 0 <= forbid < 32:
            raise ValueError(f"forbid must be a set of official bits (0-31), not {forbid!r}")
        if not -1 <= observer < state.cfg.c.n_players:
            raise ValueError(f"observer must be a player of this game, not {observer!r}")
        if state.s.phase == PH_OVER:
            raise ValueError("the game is over: nothing to search")
        self.cfg = state.cfg
        self.root = state.s
        self.observer = state.s.current if observer < 0 else observer
        self.rng = seed
        self.c_explore = c
        self.playout = playout
        self.reward = reward
        self.eps = eps
        self.widen = widen
        self.select = select
        self.prior_temp = prior_temp
        # a horizon no game reaches is no horizon (and must not overflow the playout's stop turn)
        self.horizon = horizon if horizon < NO_STOP_TURN // MAXP else 0
        self.tile_weight = tile_weight
        self.evaluation = evaluation
        if evaluation == EVAL_LEARNED:
            if value_weights is None:
                raise ValueError("the learned evaluation needs value_weights (win, score)")
            fill_weights(&self.value_weights, value_weights[0], value_weights[1])
        self.plan_prior = plan_prior
        self.learned_prior = prior_weights is not None
        if self.learned_prior:
            fill_prior_weights(&self.prior_weights, prior_weights)
        if not 0.0 <= prior_mix <= 1.0:
            raise ValueError(f"prior_mix must be from 0 to 1, not {prior_mix!r}")
        self.prior_mix = prior_mix
        self.scale = scale
        reset_values(&self.values)
        self.redeterminize = ismcts
        self.weighted_hands = hand_weights is not None
        if self.weighted_hands:
            fill_hand_weights(self.hand_w, hand_weights, self.cfg.c.n_players, self.cfg.c.n_cities)
        memset(self.forbid, 0, sizeof(self.forbid))
        self.forbid[self.observer] = forbid
        if officials is None:
            memset(&self.officials, 0, sizeof(self.officials))
        else:
            self.officials = officials.bits      # checked when the filter was made
        if (self.officials.root_uses or self.officials.root_avoids) and self.root_options() == 0:
            raise ValueError("no move of the root decision is left by root_uses / root_avoids")
        self.root_move = root_move
        self.others_planner = others_planner
        if root_move >= 0:
            if not is_legal_move(&self.root, &self.cfg.c, root_move):
                raise ValueError(f"root_move {root_move!r} is no legal move of the root decision")
        memset(self.slot, 0, sizeof(self.slot))
        self.iterations = 0
        self.playout_moves = 0
        self.n_nodes = 0
        if self.add_node(-1, 0, -1) < 0:
            raise MemoryError()

    cdef int add_node(self, int parent, int move, int mover) noexcept nogil:
        cdef Node* grown
        cdef int k
        if self.n_nodes == self.cap:
            if self.cap >= MAX_NODES:
                return -1
            k = FIRST_CAPACITY if self.cap == 0 else self.cap * 2
            grown = <Node*>realloc(self.nodes, k * sizeof(Node))
            if grown == NULL:
                return -1
            self.nodes = grown
            self.cap = k
        k = self.n_nodes
        self.n_nodes += 1
        self.nodes[k].parent = parent
        self.nodes[k].child = -1
        self.nodes[k].sibling = -1
        self.nodes[k].move = <int16_t>move
        self.nodes[k].mover = <int8_t>mover
        self.nodes[k].official = 0
        self.nodes[k].visits = 0
        self.nodes[k].avail = 1
        self.nodes[k].value = 0.0
        self.nodes[k].wins = 0.0
        self.nodes[k].score = 0.0
        self.nodes[k].table = 0.0
        self.nodes[k].pmove = -1
        self.nodes[k].pfirst = -1
        self.nodes[k].pcount = 0
        if parent >= 0:
            self.nodes[k].sibling = self.nodes[parent].child
            self.nodes[parent].child = k
        return k

    cdef int root_options(self) noexcept nogil:
        # the root's moves left by the restriction (the observer's own decision: the same in every
        # determinization)
        cdef int moves[MAXMOVES]
        cdef StateData s = self.root
        cdef int n = gen_moves(&s, &self.cfg.c, moves)
        if self.officials.turn_uses | self.officials.turn_avoids:
            n = keep_turn_officials(&s, moves, n, self.officials.turn_uses, self.officials.turn_avoids)
        return keep_officials(&s, moves, n, self.officials.root_uses, self.officials.root_avoids)

    cdef bint iterate(self) noexcept nogil:
        """One iteration: a determinization, selection and expansion, a playout, the backup."""
        cdef StateData s = self.root
        if self.redeterminize and self.weighted_hands:
            determinize_weighted(&s, &self.cfg.c, self.observer, next_u64(&self.rng), self.hand_w)
        elif self.redeterminize:
            determinize(&s, &self.cfg.c, self.observer, next_u64(&self.rng))
        return self.play_from(&s, 0)

    cdef bint play_from(self, StateData* s, int node) noexcept nogil:
        """The rest of an iteration from `node` (s its position, determinized): selection and expansion, a
        playout, the backup. False if the tree is out of memory."""
        cdef double r[MAXP]
        cdef double sc[MAXP]
        cdef double win[MAXP]
        node = self.select_expand(s, node)
        if node < 0:
            return False
        self.play_out(s, r, sc, win)
        self.backup(node, r, sc, win)
        self.iterations += 1
        return True

    cdef int tree_options(self, StateData* s, int node, int* moves, double* prior) noexcept nogil:
        """The moves the tree considers at `node` in this determinization, in place; with PUCT their
        prior (the rule of thumb's softmax, plan_prior of it moved to the planning policy's move), with
        UCB in the rule of thumb's order, cut by progressive widening below the root."""
        cdef const ConfigData* c = &self.cfg.c
        cdef int mover = s.current, n, i
        if node == 0 and self.root_move >= 0:
            moves[0] = self.root_move
            prior[0] = 1.0
            return 1
        n = gen_moves(s, c, moves)
        n = drop_forbidden(s, moves, n, self.forbid[mover])
        if self.others_planner and mover != self.observer and n > 1:
            moves[0] = moves[plan_choice(s, c, moves, n, self.forbid[mover], &self.values)]
            prior[0] = 1.0
            return 1
        if self.in_scope(s):
            n = keep_turn_officials(s, moves, n, self.officials.turn_uses, self.officials.turn_avoids)
        if node == 0 and (self.officials.root_uses | self.officials.root_avoids):
            n = keep_officials(s, moves, n, self.officials.root_uses, self.officials.root_avoids)
        n = tree_moves(s, c, moves, n, &self.values)
        if self.select == SELECT_PUCT:
            if n > 1 and self.learned_prior and prior_phase(s) >= 0 and self.prior_weights.has[prior_phase(s)]:
                learned_priors(self, s, node, moves, n, prior)
            elif n > 1 and self.hand_cache:
                kept_handset(self, s, node, moves, n, prior)
            elif n > 1:
                handset_prior(self, s, node, moves, n, prior)
            else:
                prior[0] = 1.0
        elif n > 1:
            # untried moves are expanded best first, and below the root only the best few are
            # considered until the node has been visited often (progressive widening)
            order_moves(s, c, moves, n, self.forbid[mover], &self.rng, &self.values)
            if node != 0 and self.widen > 0:
                if 1.0 + self.widen * sqrt(<double>self.nodes[node].visits) < n:
                    n = 1 + <int>(self.widen * sqrt(<double>self.nodes[node].visits))
        return n

    cdef inline bint in_scope(self, const StateData* s) noexcept nogil:
        # a decision of the root player's current turn, under a turn restriction
        return ((self.officials.turn_uses | self.officials.turn_avoids) != 0 and s.turn == self.root.turn
                and s.phase != PH_OVER)

    cdef int select_expand(self, StateData* s, int node) noexcept nogil:
        """Walk down from `node` (s its position), applying the chosen moves to s, until a move not yet in
        the tree (added as a new node) or the end of the game; returns the last node (-1: out of memory)."""
        cdef const ConfigData* c = &self.cfg.c
        cdef int moves[MAXMOVES]
        cdef int child_of[MAXMOVES]
        cdef double prior[MAXMOVES]
        cdef int n, ch, best, mover, bit
        cdef double fpu
        while s.phase != PH_OVER:
            mover = s.current
            n = self.tree_options(s, node, moves, prior)
            fpu = self.match_children(node, moves, n, child_of)
            if self.select == SELECT_PUCT:
                best = puct_choice(self.nodes, node, n, child_of, prior, self.c_explore, fpu)
            else:
                best = ucb_choice(self.nodes, n, child_of, self.c_explore)
            ch = child_of[best]
            if ch < 0:
                # expansion: one new node an iteration; the official its move uses is read before the move
                # (it depends on the phase), and only here, not at every step of the walk down
                bit = official_bit(s, moves[best])
                apply_move(s, c, moves[best])
                ch = self.add_node(node, moves[best], mover)
                if ch >= 0:
                    self.nodes[ch].official = <int8_t>bit
                return ch
            apply_move(s, c, moves[best])
            node = ch
        return node

    cdef double match_children(self, int node, const int* moves, int n, int* child_of) noexcept nogil:
        """child_of[i]: the child of `node` for moves[i] (-1 if not in the tree yet); counts each such
        child as available once more. Returns the mean value of the tried children (PUCT's first-play
        urgency), FPU_UNTRIED if none was tried."""
        cdef int i, k, ch
        cdef double q_sum = 0.0
        cdef uint32_t q_n = 0
        cdef Node* nd
        for i in range(n):
            self.slot[moves[i]] = <int16_t>(i + 1)      # slot = index in moves + 1
            child_of[i] = -1
        ch = self.nodes[node].child
        while ch >= 0:
            nd = &self.nodes[ch]
            k = self.slot[nd.move]
            if k > 0:
                child_of[k - 1] = ch
                nd.avail += 1
                q_sum += nd.value
                q_n += nd.visits
            ch = nd.sibling
        for i in range(n):
            self.slot[moves[i]] = 0
        return q_sum / q_n if q_n > 0 else FPU_UNTRIED

    cdef void play_out(self, StateData* s, double* r, double* sc, double* win) noexcept nogil:
        """Play on from s (to the end, or `horizon` turns of each player) and score it: r the rewards,
        sc the scores (final or evaluated), win 1/0 for a finished game, else the evaluation's
        estimate (reported as win_prob)."""
        cdef const ConfigData* c = &self.cfg.c
        cdef int stop_turn, i, w
        if s.phase != PH_OVER:
            stop_turn = s.turn + self.horizon * c.n_players if self.horizon > 0 else NO_STOP_TURN
            if self.in_scope(s):       # the rest of the restricted turn first
                self.playout_moves += playout_turn(s, c, self.playout, &self.rng, self.forbid, self.eps, stop_turn,
                                                   self.officials.turn_uses, self.officials.turn_avoids,
                                                   &self.values)
            self.playout_moves += playout(s, c, self.playout, &self.rng, self.forbid, self.eps, stop_turn,
                                          &self.values)
        if s.phase == PH_OVER:
            rewards(s, c, self.reward, r, sc, self.scale)
            w = winner_of(s, c)
            for i in range(c.n_players):
                win[i] = 1.0 if i == w else 0.0
        elif self.evaluation == EVAL_LEARNED:
            evaluate_learned(s, c, &self.value_weights, self.reward, self.scale, &self.values, r, sc, win)
        else:
            evaluate(s, c, r, sc, self.tile_weight, self.scale, &self.values, self.evaluation == EVAL_PLAN,
                     self.forbid)
            for i in range(c.n_players):
                win[i] = r[i]

    cdef void backup(self, int node, const double* r, const double* sc, const double* win) noexcept nogil:
        """Each node on the path learns the reward of the player who moved into it (max^n)."""
        cdef Node* nd
        cdef int i, n = self.cfg.c.n_players
        cdef double total = 0.0
        for i in range(n):
            total += sc[i]
        while node >= 0:
            nd = &self.nodes[node]
            nd.visits += 1
            if nd.mover >= 0:
                nd.value += r[nd.mover]
                nd.wins += win[nd.mover]
                nd.score += sc[nd.mover]
                nd.table += (total - sc[nd.mover]) / (n - 1)
            node = nd.parent

    cdef bint signalled(self, long done) noexcept nogil:
        """In the main thread, every SIGNAL_SLICE iterations: whether a signal's handler raised (Ctrl-C's
        KeyboardInterrupt), kept in self.interrupted for run() to raise once the search has stopped."""
        if not self.watch_signals or done == 0 or done % SIGNAL_SLICE != 0:
            return False
        with gil:
            try:
                PyErr_CheckSignals()
            except BaseException as e:
                self.interrupted = e
                return True
        return False

    cdef long run_c(self, long iterations, double seconds, bint cpu, bint settle=False, double favourite=0.0,
                    double favourite_after=0.0) noexcept nogil:
        cdef long done = 0
        cdef double start = 0.0, deadline = 0.0
        if seconds > 0:
            start = now_s(cpu)
            deadline = start + seconds
        while True:
            if iterations > 0 and done >= iterations:
                break
            if seconds > 0 and done % CLOCK_EVERY == 0 and now_s(cpu) >= deadline:
                break
            if settle and iterations > 0 and done % CLOCK_EVERY == 0 and best_lead(self) > iterations - done:
                break
            # the clear favourite: after `favourite_after` of the budget, stop once one move holds `favourite` of
            # the root's visits (the budget is the iterations if given, else the seconds)
            if (favourite > 0 and done > 0 and done % CLOCK_EVERY == 0
                    and (done >= favourite_after * iterations if iterations > 0
                         else now_s(cpu) >= start + favourite_after * seconds)
                    and best_share(self) >= favourite):
                break
            if self.signalled(done) or not self.iterate():
                break
            done += 1
        return done

    def run(self, long iterations=0, double seconds=0.0, bint cpu=False, bint settle=False, double favourite=0.0,
            double favourite_after=0.0):
        """Search for `iterations` iterations, or `seconds` (whichever is given; both: the first reached);
        cpu=True: `seconds` of this thread's CPU time instead of wall-clock time. settle=True stops an
        iteration budget once the most visited root move cannot be overtaken in the iterations left.
        favourite > 0 stops once `favourite_after` (a fraction) of the budget is spent and the most visited
        root move holds at least `favourite` of the root's visits (a clear favourite; spend=game).
        Releases the GIL, so trees can run in parallel threads. Returns the iterations done. In the main
        thread a signal (Ctrl-C) stops the search within SIGNAL_SLICE iterations and its exception is raised."""
        cdef long done
        # (how much a user may ask is SearchOptions' business; here only a budget that could never end)
        if iterations < 0 or not 0.0 <= seconds < INFINITY:   # NaN fails too
            raise ValueError(f"iterations must be 0 or more and seconds a finite number, 0 or more, "
                             f"not {iterations!r} and {seconds!r}")
        if iterations <= 0 and seconds <= 0:
            raise ValueError("give iterations or seconds")
        if not (0.0 <= favourite <= 1.0 and 0.0 <= favourite_after <= 1.0):
            raise ValueError(f"favourite and favourite_after must be fractions, not {favourite!r} and "
                             f"{favourite_after!r}")
        self.watch_signals = _current_thread() is _main_thread()     # signals go to the main thread only
        self.interrupted = None
        with nogil:
            done = self.run_c(iterations, seconds, cpu, settle, favourite, favourite_after)
        if self.interrupted is not None:
            error, self.interrupted = self.interrupted, None
            raise error
        return done

    def reroot(self, GameState state, path):
        """Keep the subtree reached by `path` (the observer's own moves since the root) as the tree, rooted at
        `state` (the position after them, the observer to move), every statistic as it was; returns the root
        visits carried over (0: the tree did not hold that line and starts afresh). Sound where those moves
        revealed nothing its worlds did not share: the caller decides (thurn_ai.bots.mcts, reuse=). A root_move
        restriction belongs to the old root's decision: the new root searches all its moves."""
        self.root_move = -1
        return reroot_tree(self, state, path)

    def visits_along(self, path):
        """The visits of the node reached from the root by `path`, a sequence of (mover, move) pairs (any
        player's moves, the observer's and the others' as seen: a deck draw is one move whatever card it
        drew); 0 if the tree does not hold that line, the root's visits for an empty path. Reads only: what
        a tree kept across the other players' turns would still hold (experiments/carry_across_turns.py)."""
        return visits_along_path(self, path)

    def root_children(self):
        """[(move, visits, avail, value_sum, wins_sum, score_sum)] for every child of the root."""
        out = []
        cdef int ch = self.nodes[0].child
        cdef Node nd
        while ch >= 0:
            nd = self.nodes[ch]
            out.append((nd.move, nd.visits, nd.avail, nd.value, nd.wins, nd.score))
            ch = self.nodes[ch].sibling
        return out

    def root_tables(self):
        """[(move, table_sum)] for every child of the root, in root_children's order (see _search_walk.pxi)."""
        return root_tables_of(self)

    cdef list line_nodes(self, int first_move, int min_visits):
        # the nodes of the principal variation (see principal_variation)
        out = []
        cdef int node = 0, ch, best, bv
        cdef Node* nd
        while True:
            best = -1
            bv = min_visits - 1
            ch = self.nodes[node].child
            while ch >= 0:
                nd = &self.nodes[ch]
                if nd.mover == self.observer:
                    if node == 0 and first_move >= 0:
                        if nd.move == first_move:
                            best = ch
                            break
                    elif <int>nd.visits > bv:
                        best = ch
                        bv = nd.visits
                ch = nd.sibling
            if best < 0:
                break
            out.append(best)
            node = best
        return out

    def principal_variation(self, int first_move=-1, int min_visits=1, bint officials=False):
        """The most-visited line of the observer's own decisions from the root until another player is
        to move (starting with `first_move` if given, e.g. the move chosen from merged trees); with
        officials=True, (move, official bit) pairs: the official each move of the line used (0: none)."""
        if officials:
            return [(self.nodes[k].move, self.nodes[k].official) for k in self.line_nodes(first_move, min_visits)]
        return [self.nodes[k].move for k in self.line_nodes(first_move, min_visits)]

    def own_nodes(self, int min_visits=1):
        """[(path, children)] for every node below the root that the observer reaches by its own moves of
        this turn and that is still its decision (see _search_walk.pxi)."""
        return own_nodes_of(self, min_visits)

    def turn_officials(self):
        """{official bit: visits} over the tree's moves of the root player's current turn that used an
        official (the nodes reached from the root by that player's moves only)."""
        cdef int k, p
        cdef bint mine
        out = {}
        for k in range(1, self.n_nodes):
            mine = True
            p = k
            while p > 0:
                if self.nodes[p].mover != self.root.current:
                    mine = False
                    break
                p = self.nodes[p].parent
            if mine and self.nodes[k].official:
                out[self.nodes[k].official] = out.get(self.nodes[k].official, 0) + self.nodes[k].visits
        return out


include "_search_prior.pxi"
include "_search_walk.pxi"
include "_search_reuse.pxi"
include "_search_infer.pxi"
