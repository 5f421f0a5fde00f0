# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled playout policies and evaluations, used by the search (thurn_ai._search).

* the officials a bot may not use (forbid=...);
* house values: what a house in each city is worth to each player (a point plus tile progress);
* the one-step rule of thumb (`heuristic` playouts; the tree's move order and the softmax part of the
  PUCT prior);
* the planning policy (`plan`): a compiled, simplified port of the heuristic bot's plan value, used as
  the PUCT prior's favourite move, as a playout policy and as an evaluation;
* the evaluations of a playout stopped at the horizon, and the rewards of a finished game;
* playouts.

Nothing here keeps state between calls except the caller's HouseValues cache. See docs/bots.md.
"""
from libc.string cimport memset
from libc.math cimport sqrt, log, tanh, exp
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, uint64_t

from thurn_ai._core cimport (
    StateData, ConfigData, GameState, gen_moves, apply_move, score_of, winner_of, nonzero_mask, count_bits, fit_mask,
    load_le64,
    MAXC, MAXP, MAXT, MAXMOVES, MOVE_SHIFT,
    PH_DRAW, PH_PLAY, PH_AFTER, PH_HOUSES, PH_CARTWRIGHT, PH_DISCARD, PH_OVER,
    MV_DRAW, MV_DECK, MV_ADMIN, MV_LEFT, MV_RIGHT, MV_NEW, MV_HORSE, MV_CLOSE, MV_STOP, MV_HOUSE,
    MV_DONE, MV_CART, MV_NOCART, MV_DISCARD,
    OFF_NONE, OFF_POSTMASTER, OFF_ADMINISTRATOR, OFF_CARRIER, OFF_CARTWRIGHT, TK_ALL, TK_EACH, TK_FREE,
)
from thurn_ai._random cimport next_u64, below, unit

cdef extern from *:
    int __builtin_ctz(unsigned int x) nogil

DEF EVAL_SHARE = 0.8    # an evaluated (unfinished) playout's reward lies in [0.1, 0.9], a finished one's in [0, 1]


# The module's parts, in this order: textual includes, so one compilation unit (each file's first lines say why).
include "_policy_values.pxi"
include "_policy_heuristic.pxi"
include "_policy_plan.pxi"
include "_policy_playout.pxi"
include "_policy_learned.pxi"
include "_policy_prior.pxi"


# ---------------------------------------------------------------- helpers for Python, tests, benchmarks

PLAYOUT_KINDS = (PLAYOUT_RANDOM, PLAYOUT_HEURISTIC, PLAYOUT_PLAN)

def policy_choice(GameState state, uint64_t seed, int forbid=0, double eps=0.0, int kind=PLAYOUT_HEURISTIC):
    """The move the playout policy `kind` (a playout code: heuristic by default, thurn_ai._search.PLAYOUTS)
    plays for the player to move (a legal move code)."""
    cdef int moves[MAXMOVES]
    cdef int n
    cdef uint64_t rng = seed
    cdef HouseValues values
    if state.s.phase == PH_OVER:
        raise ValueError("the game is over")
    if kind not in PLAYOUT_KINDS:
        raise ValueError(f"kind must be a playout code, not {kind!r}")
    reset_values(&values)
    n = gen_moves(&state.s, &state.cfg.c, moves)
    n = drop_forbidden(&state.s, moves, n, forbid)
    return playout_move(&state.s, &state.cfg.c, kind, &rng, moves, n, forbid, eps, &values)


def policy_playout(GameState state, uint64_t seed, double eps=0.05):
    """Play the heuristic policy (all players) to the end of the game, in place; returns moves played."""
    cdef int forbid[MAXP]
    cdef uint64_t rng = seed
    cdef int n
    cdef HouseValues values
    reset_values(&values)
    memset(forbid, 0, sizeof(forbid))
    with nogil:
        n = playout(&state.s, &state.cfg.c, PLAYOUT_HEURISTIC, &rng, forbid, eps, NO_STOP_TURN, &values)
    return n


def policy_turn_playout(GameState state, uint64_t seed, int uses, int avoids, int kind=PLAYOUT_HEURISTIC,
                        double eps=0.05):
    """Play the rest of the current turn, in place, as a turn-restricted search's playout does (playout_turn:
    the officials of `uses` wherever one is on offer, none of `avoids`); returns the moves played."""
    cdef int forbid[MAXP]
    cdef uint64_t rng = seed
    cdef int n
    cdef HouseValues values
    if not (0 <= uses < 32 and 0 <= avoids < 32) or uses & avoids or kind not in PLAYOUT_KINDS:
        raise ValueError(f"uses and avoids are disjoint sets of official bits and kind a playout code, "
                         f"not {uses!r}, {avoids!r}, {kind!r}")
    reset_values(&values)
    memset(forbid, 0, sizeof(forbid))
    with nogil:
        n = playout_turn(&state.s, &state.cfg.c, kind, &rng, forbid, eps, NO_STOP_TURN, uses, avoids, &values)
    return n


def official_mask(names):
    """Bit set for Tree(forbid=...) from official names (postmaster, administrator, postal_carrier,
    cartwright)."""
    bits = {"postmaster": 1 << OFF_POSTMASTER, "administrator": 1 << OFF_ADMINISTRATOR,
            "postal_carrier": 1 << OFF_CARRIER, "cartwright": 1 << OFF_CARTWRIGHT}
    out = 0
    for name in names:
        out |= bits[name]
    return out


def plan_policy_choice(GameState state, int forbid=0):
    """The planning playout policy's move for the player to move (a legal move code; deterministic)."""
    cdef int moves[MAXMOVES]
    cdef int n
    cdef HouseValues values
    if state.s.phase == PH_OVER:
        raise ValueError("the game is over")
    reset_values(&values)
    n = gen_moves(&state.s, &state.cfg.c, moves)
    n = drop_forbidden(&state.s, moves, n, forbid)
    return moves[plan_choice(&state.s, &state.cfg.c, moves, n, forbid, &values)]


def value_features_of(GameState state):
    """(progress, [[feature, ...] per player]): the learned evaluation's inputs for a position (see
    thurn_ai/learned/features.py)."""
    cdef double f[VALUE_FEATURES]
    cdef HouseValues values
    cdef int p, k
    reset_values(&values)
    rows = []
    for p in range(state.cfg.c.n_players):
        value_features(&state.s, &state.cfg.c, p, &values, f)
        rows.append([f[k] for k in range(VALUE_FEATURES)])
    return game_progress(&state.s, &state.cfg.c), rows


cdef int fill_weights(ValueWeights* w, win, score) except -1:
    cdef int k
    if len(win) != VALUE_WEIGHTS or len(score) != VALUE_WEIGHTS + 2:
        raise ValueError(f"a value model has {VALUE_WEIGHTS} win and {VALUE_WEIGHTS + 2} score weights, "
                         f"not {len(win)} and {len(score)}")
    for k in range(VALUE_WEIGHTS):
        w.win[k] = win[k]
    for k in range(VALUE_WEIGHTS + 2):
        w.score[k] = score[k]
    return 0


def learned_value(GameState state, win_weights, score_weights, int reward=REWARD_MIXED, double scale=8.0):
    """The compiled learned evaluation of a position: (win chances, expected final scores, rewards), each
    a list over the players (for tests against the numpy model)."""
    cdef ValueWeights w
    cdef HouseValues values
    cdef double r[MAXP]
    cdef double sc[MAXP]
    cdef double win[MAXP]
    cdef int p, n = state.cfg.c.n_players
    fill_weights(&w, win_weights, score_weights)
    reset_values(&values)
    evaluate_learned(&state.s, &state.cfg.c, &w, reward, scale, &values, r, sc, win)
    return [win[p] for p in range(n)], [sc[p] for p in range(n)], [r[p] for p in range(n)]


#: the most hidden units a phase of the learned move prior may have (thurn_ai/learned/prior.py checks files)
MAX_PRIOR_HIDDEN = PRIOR_HIDDEN


cdef int fill_prior_weights(PriorWeights* w, rows) except -1:
    """rows: PRIOR_PHASES entries, each None (no learned prior in that phase) or a phase's prior with
    attributes w (PRIOR_FEATURES weights) and W, b, v (None: the conditional logit; else H rows of
    PRIOR_FEATURES weights, H biases, H output weights, H <= PRIOR_HIDDEN): thurn_ai.learned.prior.PhasePrior."""
    cdef int ph, j, k, h
    if len(rows) != PRIOR_PHASES:
        raise ValueError(f"a prior model has {PRIOR_PHASES} phase rows, not {len(rows)}")
    memset(w, 0, sizeof(PriorWeights))
    for ph in range(PRIOR_PHASES):
        row = rows[ph]
        w.has[ph] = row is not None
        if row is None:
            continue
        if len(row.w) != PRIOR_FEATURES:
            raise ValueError(f"a prior model's phase row has {PRIOR_FEATURES} weights, not {len(row.w)}")
        for k in range(PRIOR_FEATURES):
            w.w[ph][k] = row.w[k]
        if row.W is None:
            continue
        h = len(row.W)
        if h > PRIOR_HIDDEN or len(row.b) != h or len(row.v) != h \
                or any(len(unit) != PRIOR_FEATURES for unit in row.W):
            raise ValueError(f"a prior model's hidden layer needs at most {PRIOR_HIDDEN} units, each with "
                             f"{PRIOR_FEATURES} weights, a bias and an output weight")
        w.hidden[ph] = h
        for j in range(h):
            w.b[ph][j] = row.b[j]
            w.v[ph][j] = row.v[j]
            for k in range(PRIOR_FEATURES):
                w.W[ph][j][k] = row.W[j][k]
    return 0


cdef int search_decision(GameState state, int forbid, int* moves, HouseValues* values, int* pidx) except -1:
    """The moves the search considers at the decision of the player to move (as Tree.tree_options filters
    them) and, in pidx, the planner's choice among them; values is reset for this state."""
    cdef int n
    if state.s.phase == PH_OVER:
        raise ValueError("the game is over")
    reset_values(values)
    n = gen_moves(&state.s, &state.cfg.c, moves)
    n = drop_forbidden(&state.s, moves, n, forbid)
    n = tree_moves(&state.s, &state.cfg.c, moves, n, values)
    pidx[0] = plan_choice(&state.s, &state.cfg.c, moves, n, forbid, values)
    return n


def prior_features_of(GameState state, int forbid=0):
    """(phase row or -1, moves, [[feature, ...] per move]): the learned prior's inputs at the decision of the
    player to move, over the moves the search considers there (see thurn_ai/learned/prior.py)."""
    cdef int moves[MAXMOVES]
    cdef double f[MAXMOVES * PRIOR_FEATURES]
    cdef int n, i, k, pidx
    cdef HouseValues values
    n = search_decision(state, forbid, moves, &values, &pidx)
    prior_features(&state.s, &state.cfg.c, moves, n, forbid, pidx, &values, NULL, f)
    return (prior_phase(&state.s), [moves[i] for i in range(n)],
            [[f[i * PRIOR_FEATURES + k] for k in range(PRIOR_FEATURES)] for i in range(n)])


def learned_prior_of(GameState state, rows, int forbid=0):
    """(moves, probabilities): the compiled learned prior at the decision of the player to move (for tests
    against the numpy model); rows as fill_prior_weights takes them."""
    cdef PriorWeights w
    cdef int moves[MAXMOVES]
    cdef double logit[MAXMOVES]
    cdef double prob[MAXMOVES]
    cdef int n, i, pidx
    cdef HouseValues values
    fill_prior_weights(&w, rows)
    n = search_decision(state, forbid, moves, &values, &pidx)
    prior_logits(&state.s, &state.cfg.c, &w, moves, n, forbid, pidx, &values, NULL, logit)
    softmax_into(logit, n, prob)
    return [moves[i] for i in range(n)], [prob[i] for i in range(n)]
