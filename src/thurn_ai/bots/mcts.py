"""Information-Set MCTS (Cowling, Powley & Whitehouse 2012, single observer), compiled.

    mcts                                   1000 iterations, the defaults below
    mcts(iterations=3000)                  budget in iterations ...
    mcts(time=1.0)                         ... or in seconds per decision
    mcts(c=0.5,playout=plan,reward=margin,workers=2,eps=0.05,forbid=postmaster)

The search itself is thurn_ai._search.Tree (cext/thurn_ai/_search.pyx): one tree over the searcher's
information sets, a fresh determinization every iteration, PUCT with the compiled planning policy's move
as prior (select=puct, prior=0.8, c=1.0), availability counts, short heuristic playouts then an
evaluation (horizon=3), max^n rewards (reward=mixed: half win, half score margin). `workers=N` runs N
independent trees in threads (the compiled search releases the GIL) and adds up their root statistics
(root parallelism); the iteration budget is split between them, a time budget applies to each. Every
option is checked here, once; see docs/bots.md for what each means and how the defaults were chosen.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .. import _search
from ..errors import BotSpecError, ThurnError
from ..learned.model import DEFAULT_PATH, model_from
from ..learned.prior import prior_from
from ..game.notation import move_city, move_kind
from ..game.officials import OFFICIALS
from .base import Analyst, Bot, Observation, Searcher
from .infer import HandBeliefs
from .search_options import SearchOptions
from .search_result import RootMove, SearchResult
from .time_manager import FAVOURITE_AFTER, GameClock

_PLAYS = ("left", "right", "new", "horse", "discard")   # moves that take a card from the hand
#: the decisions planned=houses leaves to the planner (which agrees with deep searches on all of them)
_PLANNED_PHASES = ("houses", "cartwright")
#: restrict_turn's name for "no official this turn"
NO_OFFICIAL = "none"


#: What a plain `mcts` uses beyond the SearchOptions defaults (which pimc keeps): the strongest configuration
#: measured. The learned evaluation (learned minus hand-set against heuristic, pooled over the committed paired
#: cells: +3.4 points of win rate [-1.2, +8.0], results/learned/strength/; its win chances are calibrated among
#: equal players) and the learned move prior, mixed half and half with the hand-set one (expert iteration,
#: generation 1, results/expert/: against heuristic, paired, pooled over 2/3/4 players, +4.7 points [+1.4, +8.1]
#: at 1000 iterations and +6.4 [+3.2, +9.7] at 3000; head to head against the hand-set prior 60.0% [55.1, 64.7]
#: of 400 two-player games). The old default is one option away: policy=handset (and eval=simple).
MCTS_DEFAULTS: dict[str, Any] = {"eval": "learned", "policy": "learned", "mix": 0.5}

# The search `thurn-ai hint`, the board, analyse() and the studies name is these defaults at the hint's budget,
# written out: thurn_ai.bots.default_search.DEFAULT_SEARCH (its win chance says which search its map was
# fitted for).


class SearchBot(Bot, Analyst, Searcher):
    """Shared part of the compiled tree searches: budget, parameters, merging trees, analysis (it provides
    the Analyst and Searcher capabilities)."""

    spec = "search"

    #: the options a spec may set (thurn_ai.bots.spec reads this: they arrive through **options)
    spec_options = frozenset(SearchOptions.names())
    #: options this bot takes by default where they differ from SearchOptions' defaults
    default_options: dict = {}
    #: whether its trees can be kept for the next decision (reuse=): ISMCTS trees, not PIMC's worlds
    keeps_trees = False
    #: whether it can deal the hidden cards by inferred weights (infer=): ISMCTS, not PIMC's fixed worlds
    infers_hands = False
    #: whether it can spend a budget for the whole game (spend=game): its searches take budget()'s allotment
    paces_game = False

    def __init__(self, seed: int = 0, forbid=frozenset(), **options):
        super().__init__(seed=seed, forbid=forbid)
        unknown = sorted(set(options) - self.spec_options)
        if unknown:
            raise BotSpecError(f"{type(self).__name__}: no option {', '.join(unknown)} "
                               f"(known: {', '.join(sorted(self.spec_options))})")
        try:
            # every option checked once, there
            self.options = SearchOptions(**{**self._defaults_for(options), **options})
        except BotSpecError as e:
            raise BotSpecError(f"{type(self).__name__}: {e}") from None
        if self.options.reuse != "none" and not self.keeps_trees:
            raise BotSpecError(f"{type(self).__name__}: reuse={self.options.reuse}: its trees are not kept")
        if self.options.infer != "none" and not self.infers_hands:
            raise BotSpecError(f"{type(self).__name__}: infer={self.options.infer}: its worlds are dealt uniformly")
        # infer=policy: the weights of the opponents' hidden cards, learned from their moves (inform)
        self.beliefs = HandBeliefs(self.options.prior, self.options.temp) if self.options.infer == "policy" else None
        self.informed = self.beliefs is not None
        if self.options.spend == "game" and not self.paces_game:
            raise BotSpecError(f"{type(self).__name__}: spend=game: its searches do not take a decision's allotment")
        self.forbid_mask = _search.official_mask(self.forbid)
        self.official_filter = _search.OfficialFilter()     # see restrict_root and restrict_turn
        self.root_move = -1                                 # see restrict_root_move
        # the last search and its observation: analyse() and principal_variation() share a search
        self._last: tuple[Observation, SearchResult] | None = None
        # the searcher's own moves since its last search of this turn, and that search's trees (reuse=)
        self._line: _TurnLine | None = None
        # spend=game: the bank of the game being played (a new game starts a new one: GameClock.same_game)
        self.game_clock: GameClock | None = None

    def _defaults_for(self, options: dict) -> dict:
        """The bot's default options that apply with these: a prior (policy, mix) only where the selection
        has one (select=puct), so mcts(select=ucb) searches without it instead of refusing; and with
        policy=handset no default mix, so that mcts(policy=handset) is exactly the old search."""
        defaults = dict(self.default_options)
        if options.get("select", SearchOptions.select) != "puct":
            defaults.pop("policy", None)
            defaults.pop("mix", None)
        if options.get("policy") == "handset":      # the mix is the learned prior's: none without it
            defaults.pop("mix", None)
        return defaults

    # ---- what subclasses provide

    def _jobs(self, obs: Observation, seed: int) -> list[tuple]:
        """[(tree, iterations, seconds)] to run; their root statistics are added up."""
        raise NotImplementedError

    # the budget, typed (the search reads it from self.options; these are for callers: the hint, the server)
    @property
    def iterations(self) -> int:
        """Iterations per decision (when no time is set)."""
        return self.options.iterations

    @property
    def time(self) -> float | None:
        """Seconds per decision instead of iterations (None: the iterations count)."""
        return self.options.time

    @property
    def workers(self) -> int:
        """Trees searched in parallel threads."""
        return self.options.workers

    @property
    def clock(self) -> str:
        """What `time` counts: wall or cpu seconds."""
        return self.options.clock

    @property
    def value_weights(self) -> str | None:
        """The learned evaluation's weights file (the shipped one unless model= names another); None with
        another evaluation."""
        if self.options.eval != "learned":
            return None
        return self.options.model if self.options.model is not None else str(DEFAULT_PATH)

    def __getattr__(self, name):
        # the other options read as attributes (bot.c, bot.select, ...)
        options = self.__dict__.get("options")
        if options is not None and name in SearchBot.spec_options:
            return getattr(options, name)
        raise AttributeError(name)

    def inform(self, obs: Observation, player: int, move: int) -> None:
        if self.beliefs is not None:
            self.beliefs.observe(obs, player, move)

    def _tree(self, state, seed: int, ismcts: bool, obs: Observation | None = None):
        weights = prior = hands = None
        if self.options.eval == "learned":
            weights = model_from(self.options.model).weights_for(state.n_players)
        if self.options.policy == "learned":
            prior = prior_from(self.options.pmodel).weights_for(state.n_players)
        if self.beliefs is not None and obs is not None:
            hands = self.beliefs.weights(obs)
        tree = _search.Tree(state, seed & 0xFFFFFFFFFFFFFFFF, ismcts=ismcts, forbid=self.forbid_mask,
                            observer=state.current_player, officials=self.official_filter,
                            value_weights=weights, prior_weights=prior,
                            **self.options.tree_args(), root_move=self.root_move, hand_weights=hands)
        tree.hand_cache = self.options.hand_prior == "node"
        return tree

    def restrict_root(self, official: str | None, using: bool = True) -> None:
        """Make the next searches consider, at the decision at hand only, the moves that use `official`
        (using=True) or the moves that do not (using=False); None lifts the restriction. Later
        decisions in the tree and the playouts are not restricted. It rates one side of a decision
        with a search of its own (the officials study's value at the moment of choice); a side with
        no legal move is an error when the search starts."""
        if official is not None and official not in OFFICIALS:
            raise BotSpecError(f"no official {official!r} (officials: {', '.join(OFFICIALS)})")
        mask = _search.official_mask([official]) if official else 0
        self.official_filter = self.official_filter.with_root(*((mask, 0) if using else (0, mask)))
        self._last = None

    def restrict_root_move(self, move: int | None) -> None:
        """Make the next searches spend their whole budget on one legal move of the decision at hand (None:
        every move again); below it the search is free, so the move's value is that of the best continuation
        after it. A game review rates the played and the best move so, with equal effort
        (thurn_ai/play/review.py). An illegal move is an error when the search starts."""
        self.root_move = -1 if move is None else int(move)
        self._last = None

    def restrict_turn(self, official: str | None) -> None:
        """Make the next searches hold the player to move to one choice of official for the rest of the
        current turn, at every decision of that turn in the tree and in the playouts (later turns and the
        other players are free): `official` -- where it is on offer only the moves that use it, and no other
        official; NO_OFFICIAL ('none') -- no official at all (the forced Postmaster of an empty hand is no
        choice: it stays); None lifts the restriction. The officials study's turn question rates each
        choice with a search of its own (thurn_ai/studies/officials/turn_choice.py)."""
        if official is None:
            uses = avoids = 0
        elif official == NO_OFFICIAL:
            uses, avoids = 0, _search.official_mask(OFFICIALS)
        elif official in OFFICIALS:
            if official in self.forbid:
                raise BotSpecError(f"this bot forbids the {official}: it cannot search a turn with it")
            uses = _search.official_mask([official])
            avoids = _search.official_mask(OFFICIALS) & ~uses
        else:
            raise BotSpecError(f"no official {official!r} (officials: {', '.join(OFFICIALS)}, or {NO_OFFICIAL})")
        self.official_filter = self.official_filter.with_turn(uses, avoids)
        self._last = None

    # ---- searching

    def search(self, obs: Observation) -> SearchResult:
        """Run the search for the player to move (SearchResult: the root moves best first, the trees, the
        iterations). The last result is kept, so analyse() and principal_variation() on the same
        observation search once (and last_search(obs) reads it)."""
        if self._last is not None and self._last[0] is obs:
            return self._last[1]
        if obs.state.is_terminal():
            raise ThurnError("the game is over: nothing to search")
        clock = self._game_clock(obs.state)
        allotted = sum(self.budget(obs.state)) if clock else 0      # (iterations or seconds: the other is 0)
        started = self._clock_now()
        jobs, carried = self._reused_jobs(obs) or (self._jobs(obs, self.rng.getrandbits(64)), 0)
        cpu = self.options.clock == "cpu"
        settle = self.options.spend in ("phase", "game")
        # spend=game: a clear favourite stops the search too, once a part of its allotment is spent
        stops = dict(favourite=self.options.favourite, favourite_after=FAVOURITE_AFTER) if clock else {}

        def run(tree, iterations: int, seconds: float) -> int:
            if iterations <= 0 and seconds <= 0:      # a kept tree that already holds its budget
                return 0
            # (the early stops are the compiled tree's; a wrapper's run, the server's time limit, has none)
            if settle and isinstance(tree, _search.Tree):
                return tree.run(iterations, seconds, cpu, settle=True, **stops)
            return tree.run(iterations, seconds, cpu)
        if self.workers > 1 and len(jobs) > 1:
            with ThreadPoolExecutor(max_workers=self.workers) as pool:
                done = list(pool.map(lambda j: run(*j), jobs))
        else:
            done = [run(*j) for j in jobs]
        # A time budget shorter than one iteration (time=1e-9, or a slow machine) would leave a tree
        # without statistics and the search without a move: every tree searches at least once.
        done = [n or (0 if carried else tree.run(1, 0.0)) for n, (tree, _, _) in zip(done, jobs)]
        trees = tuple(j[0] for j in jobs)
        if clock:
            clock.spend(obs.state, allotted, sum(done) if self.options.game else self._clock_now() - started)
        result = SearchResult(moves=self._merge(obs, trees), trees=trees, iterations=sum(done), carried=carried,
                              allotted=allotted)
        self._last = (obs, result)
        return result

    def last_search(self, obs: Observation | None = None) -> SearchResult | None:
        """This bot's last search (None before the first); with `obs`, only if it searched that observation
        (the same object) -- else None: a forced move is played without a search."""
        if self._last is None or (obs is not None and self._last[0] is not obs):
            return None
        return self._last[1]

    @staticmethod
    def _merge(obs: Observation, trees) -> tuple[RootMove, ...]:
        stats: dict[int, list[float]] = {}
        # a kept tree's root may hold moves of worlds the game did not take (reuse=turn): legal ones only
        legal = set(obs.state.legal_moves())
        for tree in trees:
            for (move, visits, _avail, value, wins, score), (_, table) in zip(tree.root_children(),
                                                                             tree.root_tables()):
                if move not in legal:
                    continue
                s = stats.setdefault(move, [0, 0.0, 0.0, 0.0, 0.0])
                s[0] += visits
                s[1] += value
                s[2] += wins
                s[3] += score
                s[4] += table
        total = sum(s[0] for s in stats.values()) or 1
        rows: list[RootMove] = []
        for move, (visits, value, wins, score, table) in stats.items():
            n = max(visits, 1)
            rows.append(RootMove(move=move, notation=obs.state.move_str(move), visits=int(visits),
                                 share=visits / total, win_prob=wins / n, mean_score=score / n, value=value / n,
                                 mean_table=table / n))
        # most visits first; ties by mean reward, then by move code so the order is reproducible
        rows.sort(key=lambda r: (-r.visits, -r.value, r.move))
        return tuple(rows)

    # ---- the Bot interface and the analysis used by `thurn-ai hint`

    def choose(self, obs: Observation) -> int:
        moves = self.allowed_moves(obs.state)
        if len(moves) == 1:
            move = moves[0]
        elif ((self.options.planned == "houses" and obs.state.phase in _PLANNED_PHASES)
              or (self.options.spend == "game" and self.budget(obs.state) == (0, 0.0))):
            # the planner's move: a planned decision, or the game's budget is spent
            move = _search.plan_policy_choice(obs.state, self.forbid_mask)
            if move not in moves:           # (the planner keeps to the same officials: never seen)
                move = moves[0] if self.options.spend == "game" else self.search(obs).moves[0].move
        else:
            move = self.search(obs).moves[0].move
        self._note(obs, move)
        return move

    # ---- the budget and the tree kept through a turn (docs/search-budget.md)

    def budget(self, state) -> tuple[int, float]:
        """(iterations, seconds) the decision at `state` is searched with: the options' budget, a draw's
        `draws` times it with spend=phase; with spend=game what the game's bank allots it ((0, 0.0): the bank
        is spent)."""
        clock = self._game_clock(state)
        if clock is not None:
            allotted = clock.allot(state, self.options.planned, self.options.draws)
            # whole iterations, rounded down: the game's iterations are never exceeded
            return (0, allotted) if self.options.game_time else (int(allotted), 0.0)
        factor = self.options.draws if self.options.spend == "phase" and state.phase == "draw" else 1.0
        seconds = self.time * factor if self.time else 0.0
        return (0 if self.time else max(1, round(self.iterations * factor))), seconds

    def _game_clock(self, state) -> GameClock | None:
        """spend=game: the bank of the game `state` is in (a new one when it is not the last one's game)."""
        if self.options.spend != "game":
            return None
        clock = self.game_clock
        if clock is None or not clock.same_game(state):
            budget = self.options.game or self.options.game_time or 0.0     # (SearchOptions: one is given)
            clock = self.game_clock = GameClock.start(budget, state, self.options.planned)
        return clock

    def _clock_now(self) -> float:
        """The time game_time= counts: the searching thread's CPU seconds (clock=cpu) or wall seconds."""
        return time.thread_time() if self.options.clock == "cpu" else time.perf_counter()

    def _note(self, obs: Observation, move: int) -> None:
        """Remember the searcher's move for reuse=: after a search a new line starts from its root; a move
        made without a search (forced, planned) extends the line when it is the same turn's."""
        if self.options.reuse == "none" or not self.keeps_trees:
            return
        last = self._last
        if last is not None and last[0] is obs:
            self._line = _TurnLine(obs.state.clone(), obs.player, last[1].trees)
        line = self._line
        if line is None:
            return
        if not line.extend(obs, move):
            self._line = None

    def _reused_jobs(self, obs: Observation) -> tuple[list[tuple], int] | None:
        """The kept trees, rerooted at `obs`, with the iterations each still needs to reach its share of the
        budget, and the root visits carried over; None when nothing can be kept (reuse=none, another turn,
        or with reuse=silent something was revealed since)."""
        line, self._line = self._line, None
        if line is None or not line.leads_to(obs, exact=self.options.reuse == "silent"):
            return None
        iterations, seconds = self.budget(obs.state)
        n = len(line.trees)
        legal = set(obs.state.legal_moves())
        jobs, carried = [], 0
        for k, tree in enumerate(line.trees):
            tree.reroot(obs.state, line.path)
            # what was learned about the moves legal here (reuse=turn keeps moves of other worlds too)
            visits = sum(r[1] for r in tree.root_children() if r[0] in legal)
            carried += visits
            share = iterations // n + (1 if k < iterations % n else 0)
            jobs.append((tree, 0 if seconds else max(share - visits, 0), seconds))
        if carried == 0:            # the line left the trees: fresh trees (as without reuse)
            return None
        return jobs, carried

    def analyse(self, obs: Observation) -> tuple[RootMove, ...]:
        """The root moves best first (RootMove: move, notation, visits, share, win_prob, mean_score,
        value)."""
        return self.search(obs).moves

    def principal_variation(self, obs: Observation) -> list[int]:
        """The most-visited line of the player's own decisions for the rest of this turn.

        It starts with the best move and follows the most-visited children while the same player is to
        move. It stops before a move needing a card the player does not yet know to hold (after
        `draw deck` the tree mixes every possible card; cards already in hand or taken face up are
        certain)."""
        result = self.search(obs)
        if result.best is None:
            return []
        first = result.best.move
        tree = max(result.trees, key=lambda t: next((r[1] for r in t.root_children() if r[0] == first), 0))
        line = tree.principal_variation(first)
        p = obs.player
        hand = list(obs.state.export()["hand"][p])
        out = []
        for m in line:
            kind, x = move_kind(m), move_city(m)
            if kind in _PLAYS:
                if hand[x] == 0:
                    break
                hand[x] -= 1
            elif kind == "draw":
                hand[x] += 1
            out.append(m)
        return out

    def line_officials(self, obs: Observation) -> tuple[str, ...]:
        """The officials the searched line of the player's own decisions uses (in its order), read from the
        tree of the best move: unlike principal_variation() it goes on past a card drawn from the deck, so
        it tells whether the best line of a turn uses an official (a Postmaster after `draw deck`)."""
        result = self.search(obs)
        if result.best is None:
            return ()
        first = result.best.move
        tree = max(result.trees, key=lambda t: next((r[1] for r in t.root_children() if r[0] == first), 0))
        names = {_search.official_mask([o]): o for o in OFFICIALS}
        return tuple(names[bit] for _m, bit in tree.principal_variation(first, officials=True) if bit)


class _TurnLine:
    """The searcher's own moves since its last search (`path`), applied to a copy of that search's position
    (`state`), and that search's trees: what reuse= needs to keep a subtree for the next decision."""

    def __init__(self, state, player: int, trees: tuple):
        self.state = state
        self.player = player
        self.trees = trees
        self.path: list[int] = []

    def extend(self, obs: Observation, move: int) -> bool:
        """Add the searcher's `move` at `obs`; False when it cannot be on this line (another turn)."""
        s = self.state
        if (obs.player != self.player or s.is_terminal() or s.current_player != self.player
                or s.turn != obs.state.turn or not s.is_legal(move) or len(self.path) >= 64):
            return False
        s.apply(move)
        self.path.append(move)
        return True

    def leads_to(self, obs: Observation, exact: bool) -> bool:
        """Whether `obs` is the searcher's next decision on this line: the same player, the same turn, no one
        else moved; with `exact` also nothing revealed (the line's position looks the same to the searcher
        as `obs`: its own draws' cards and the display's refills as the search's world had them)."""
        s = self.state
        if (not self.path or s.is_terminal() or obs.player != self.player or s.current_player != self.player
                or s.turn != obs.state.turn):
            return False
        return not exact or s.observation(self.player) == obs.state.observation(self.player)


class MCTSBot(SearchBot):
    """Single-observer ISMCTS: one tree per worker, a new determinization every iteration."""

    spec = "mcts"
    default_options = MCTS_DEFAULTS
    keeps_trees = True
    infers_hands = True
    paces_game = True

    def _jobs(self, obs: Observation, seed: int) -> list[tuple]:
        n = self.workers
        iterations, seconds = self.budget(obs.state)
        out = []
        for k in range(n):
            iters = 0 if seconds else iterations // n + (1 if k < iterations % n else 0)
            if iters == 0 and not seconds:
                continue
            out.append((self._tree(obs.state, seed + k * 0x9E3779B97F4A7C15, ismcts=True, obs=obs), iters, seconds))
        return out
