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

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .. import _search
from ..errors import BotSpecError, ThurnError
from ..learned.model import DEFAULT_PATH, model_from
from ..learned.prior import prior_from
from ..game.notation import move_city, move_kind
from ..game.officials import OFFICIALS
from .base import Analyst, Bot, Observation, Searcher
from .search_options import SearchOptions
from .search_result import RootMove, SearchResult

_PLAYS = ("left", "right", "new", "horse", "discard")   # moves that take a card from the hand
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
        self.forbid_mask = _search.official_mask(self.forbid)
        self.official_filter = _search.OfficialFilter()     # see restrict_root and restrict_turn
        self.root_move = -1                                 # see restrict_root_move
        # the last search and its observation: analyse() and principal_variation() share a search
        self._last: tuple[Observation, SearchResult] | None = None

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

    def _tree(self, state, seed: int, ismcts: bool):
        weights = prior = None
        if self.options.eval == "learned":
            weights = model_from(self.options.model).weights_for(state.n_players)
        if self.options.policy == "learned":
            prior = prior_from(self.options.pmodel).weights_for(state.n_players)
        return _search.Tree(state, seed & 0xFFFFFFFFFFFFFFFF, ismcts=ismcts, forbid=self.forbid_mask,
                            observer=state.current_player, officials=self.official_filter,
                            value_weights=weights, prior_weights=prior,
                            **self.options.tree_args(), root_move=self.root_move)

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
        jobs = self._jobs(obs, self.rng.getrandbits(64))
        cpu = self.options.clock == "cpu"
        if self.workers > 1 and len(jobs) > 1:
            with ThreadPoolExecutor(max_workers=self.workers) as pool:
                done = list(pool.map(lambda j: j[0].run(j[1], j[2], cpu), jobs))
        else:
            done = [tree.run(it, sec, cpu) for tree, it, sec in jobs]
        # A time budget shorter than one iteration (time=1e-9, or a slow machine) would leave a tree
        # without statistics and the search without a move: every tree searches at least once.
        done = [n or tree.run(1, 0.0) for n, (tree, _, _) in zip(done, jobs)]
        trees = tuple(j[0] for j in jobs)
        result = SearchResult(moves=self._merge(obs, trees), trees=trees, iterations=sum(done))
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
        for tree in trees:
            for move, visits, _avail, value, wins, score in tree.root_children():
                s = stats.setdefault(move, [0, 0.0, 0.0, 0.0])
                s[0] += visits
                s[1] += value
                s[2] += wins
                s[3] += score
        total = sum(s[0] for s in stats.values()) or 1
        rows: list[RootMove] = []
        for move, (visits, value, wins, score) in stats.items():
            n = max(visits, 1)
            rows.append(RootMove(move=move, notation=obs.state.move_str(move), visits=int(visits),
                                 share=visits / total, win_prob=wins / n, mean_score=score / n, value=value / n))
        # most visits first; ties by mean reward, then by move code so the order is reproducible
        rows.sort(key=lambda r: (-r.visits, -r.value, r.move))
        return tuple(rows)

    # ---- the Bot interface and the analysis used by `thurn-ai hint`

    def choose(self, obs: Observation) -> int:
        moves = self.allowed_moves(obs.state)
        if len(moves) == 1:
            return moves[0]
        return self.search(obs).moves[0].move

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


class MCTSBot(SearchBot):
    """Single-observer ISMCTS: one tree per worker, a new determinization every iteration."""

    spec = "mcts"
    default_options = MCTS_DEFAULTS

    def _jobs(self, obs: Observation, seed: int) -> list[tuple]:
        n = self.workers
        seconds = self.time or 0.0
        out = []
        for k in range(n):
            iters = 0 if self.time else self.iterations // n + (1 if k < self.iterations % n else 0)
            if iters == 0 and not self.time:
                continue
            out.append((self._tree(obs.state, seed + k * 0x9E3779B97F4A7C15, ismcts=True), iters, seconds))
        return out
