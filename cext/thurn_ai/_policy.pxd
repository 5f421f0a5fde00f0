# Declarations of the compiled playout policies and evaluations (_policy.pyx), for the search (_search.pyx).
from libc.stdint cimport int8_t, uint32_t, uint64_t
from thurn_ai._core cimport StateData, ConfigData, MAXC, MAXP, MAXT

cdef enum:
    # option codes, named for Python by thurn_ai._search (PLAYOUTS, REWARDS, SELECTS, EVALUATIONS)
    PLAYOUT_RANDOM = 0
    PLAYOUT_HEURISTIC = 1
    PLAYOUT_PLAN = 2
    REWARD_WIN = 0
    REWARD_MARGIN = 1
    REWARD_MIXED = 2
    SELECT_UCB = 0
    SELECT_PUCT = 1
    EVAL_SIMPLE = 0
    EVAL_PLAN = 1
    EVAL_LEARNED = 2
    # the learned evaluation (thurn_ai/learned/): features per player, and weights per feature at the
    # start of the game and their change to its end (a weight is w0 + progress * w1)
    VALUE_FEATURES = 13
    VALUE_WEIGHTS = 26
    # the learned move prior (thurn_ai/learned/prior.py): features per move, one weight row per decision
    # phase with a learned prior (draw, play, after a card, discard)
    PRIOR_FEATURES = 29
    PRIOR_PHASES = 4
    # the most hidden tanh units a phase's prior may have (a small MLP: logit + v . tanh(W phi + b))
    PRIOR_HIDDEN = 8
    # a playout's stop turn that no game reaches (play to the end): far above any max_turns * players
    NO_STOP_TURN = 1 << 30

    # house values kept per player: 1 << HOUSE_VALUE_BITS sets, direct-mapped by their inputs (see house_values)
    HOUSE_VALUE_BITS = 5
    HOUSE_VALUE_SETS = 1 << HOUSE_VALUE_BITS

cdef struct HouseValues:
    # What a house in each city is worth to each player (cached; see house_values): the values of the last few
    # distinct inputs (p's houses, every stack's position, the stacks p holds a tile of), and which set the last
    # call used, with the houses and the sum of the stack positions it was asked for
    double v[MAXP][HOUSE_VALUE_SETS][MAXC]
    uint32_t houses[MAXP][HOUSE_VALUE_SETS]
    uint32_t tiles[MAXP][HOUSE_VALUE_SETS]      # the stacks p holds a tile of (a bit each; all ones: set empty)
    int8_t stack_pos[MAXP][HOUSE_VALUE_SETS][MAXT]
    int last[MAXP]              # the set the last call for p used
    uint32_t last_houses[MAXP]  # p's houses then
    int last_stacks[MAXP]       # the sum of the stack positions then (-1: not asked yet)

cdef struct ValueWeights:
    # one player count's learned model: win chance softmax(sum_k win[k] x[k]) over the players, expected
    # final score score[0] + score[1] progress + sum_k score[2 + k] x[k], where x is value_terms()
    double win[VALUE_WEIGHTS]
    double score[VALUE_WEIGHTS + 2]

cdef struct PriorWeights:
    # one player count's learned move prior: logit = w[phase] . phi + sum_j v[phase][j] tanh(W[phase][j] . phi
    # + b[phase][j]) over the phase's hidden units (0: the conditional logit); has[phase] false: no learned
    # prior there
    double w[PRIOR_PHASES][PRIOR_FEATURES]
    bint has[PRIOR_PHASES]
    int hidden[PRIOR_PHASES]
    double W[PRIOR_PHASES][PRIOR_HIDDEN][PRIOR_FEATURES]
    double b[PRIOR_PHASES][PRIOR_HIDDEN]
    double v[PRIOR_PHASES][PRIOR_HIDDEN]

cdef void reset_values(HouseValues* hv) noexcept nogil
cdef int drop_forbidden(const StateData* s, int* moves, int n, int forbid) noexcept nogil
cdef int keep_officials(const StateData* s, int* moves, int n, int uses, int avoids) noexcept nogil
cdef int keep_turn_officials(const StateData* s, int* moves, int n, int uses, int avoids) noexcept nogil
cdef int official_bit(const StateData* s, int m) noexcept nogil
cdef int tree_moves(const StateData* s, const ConfigData* c, int* moves, int n, HouseValues* values) noexcept nogil
cdef void order_moves(const StateData* s, const ConfigData* c, int* moves, int n, int forbid,
                      uint64_t* rng, HouseValues* values) noexcept nogil
cdef void move_priors(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                      double temp, HouseValues* values, double* out) noexcept nogil
cdef int plan_choice(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                     HouseValues* values) noexcept nogil
cdef int playout(StateData* s, const ConfigData* c, int kind, uint64_t* rng, const int* forbid,
                 double eps, int stop_turn, HouseValues* values) noexcept nogil
cdef int playout_turn(StateData* s, const ConfigData* c, int kind, uint64_t* rng, const int* forbid,
                      double eps, int stop_turn, int uses, int avoids, HouseValues* values) noexcept nogil
cdef int evaluate(const StateData* s, const ConfigData* c, double* r, double* sc, double tile_weight,
                  double scale, HouseValues* values, bint use_plan, const int* forbid) noexcept nogil
cdef void rewards(const StateData* s, const ConfigData* c, int kind, double* r, double* sc,
                  double scale) noexcept nogil
cdef double game_progress(const StateData* s, const ConfigData* c) noexcept nogil
cdef void value_features(const StateData* s, const ConfigData* c, int p, HouseValues* values,
                         double* f) noexcept nogil
cdef void evaluate_learned(const StateData* s, const ConfigData* c, const ValueWeights* w, int reward,
                           double scale, HouseValues* values, double* r, double* sc, double* win) noexcept nogil
cdef int fill_weights(ValueWeights* w, win, score) except -1
cdef int prior_phase(const StateData* s) noexcept nogil
cdef void prior_logits(const StateData* s, const ConfigData* c, const PriorWeights* w, const int* moves, int n,
                       int forbid, int plan_index, HouseValues* values, const double* plan_values,
                       double* out) noexcept nogil
cdef int plan_values_choice(const StateData* s, const ConfigData* c, const int* moves, int n, int forbid,
                            HouseValues* values, double* v) noexcept nogil
cdef void softmax_into(const double* logits, int n, double* out) noexcept nogil
cdef int fill_prior_weights(PriorWeights* w, rows) except -1
