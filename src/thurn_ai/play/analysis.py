"""Analysis of a position for a program or a notebook: what `thurn-ai hint` prints, as data.

    >>> import thurn_ai
    >>> from thurn_ai.play.analysis import analyse
    >>> from thurn_ai.bots.spec import BotSpec
    >>> g = thurn_ai.new_game(players=3, seed=7)
    >>> a = analyse(g, iterations=2000)        # the player to move; the default search (DEFAULT_SEARCH)
    >>> a.best.notation, a.best.win_prob       # the most visited option
    >>> [(o.notation, o.share) for o in a.options]
    >>> a.recommended_turn.moves, a.recommended_turn.then
    >>> a.principal_variation, a.bot           # the searched line; the exact bot spec used
    >>> analyse(g, bot=BotSpec.parse("pimc(worlds=20)"), iterations=2000)   # another search (a BotSpec)
    >>> a.to_dict()                            # JSON-ready (the form `thurn-ai hint --json` prints)

The search sees only what the player to move may know: hidden cards are re-dealt at random (seeded by
`seed`), so a complete position and that player's view give the same answer. See docs/analysis.md.

Whom the win chance assumes (`Analysis.assumes`, `Analysis.chance`): by default (opponents='equal') it is
calibrated among equal players -- every seat plays like the search the shipped map was fitted for; against
weaker opponents it is too close to 1/n. A search the map was not fitted for shows its own win share, marked
uncalibrated (play/win_chance.py).
`analyse(g, opponents="heuristic")` maps the same search through a second map, fitted on held-out games
where the player to move plays like the search and every other seat is the rule-based `heuristic` bot
(docs/learned.md, "Equal players, not weaker ones").
"""
from __future__ import annotations

from dataclasses import dataclass

from ..bots import make_bot
from ..bots.base import Analyst, Observation
from ..bots.default_search import DEFAULT_SEARCH, written_out
from ..bots.spec import BotSpec
from ..errors import BotSpecError, PositionError
from ..fileio import short_repr
from ..game.state import GameState
from ..learned.features import position_features
from ..learned.win_map import OPPONENTS, WinMapError
from .match import derive_seed
from .win_chance import WinChance, chance_line, win_chance_for
from ..game.notation import move_kind
from ..game.officials import official_of

__all__ = ["analyse", "Analysis", "Option", "Turn", "bot_spec", "describe_turn", "DEFAULT_BOT",
           "DEFAULT_SPEC", "DEFAULT_ITERATIONS"]

DEFAULT_BOT = "mcts"
#: the search analyse() runs by default: mcts written out as the default search (bot_spec, DEFAULT_SEARCH)
DEFAULT_SPEC = BotSpec(DEFAULT_BOT)
#: the hint's budget: the default search's (thurn_ai.bots.default_search)
DEFAULT_ITERATIONS = DEFAULT_SEARCH.option("iterations")


@dataclass(frozen=True)
class Option:
    """One move of the decision at hand, as the search rated it.

    Attributes:
        move: the move's code (GameState.apply takes it).
        notation: the move as text, e.g. `draw Ulm` (GameState.move_str).
        official: the official it uses: None, 'postmaster', 'administrator', 'postal_carrier' or 'cartwright'.
        visits: the search's visits of the move at the root.
        share: visits / all root visits (the search's preference; options come sorted by it).
        win_prob: the player's chance of winning after it. With the learned evaluation
            (Analysis.calibrated) the search's win share mapped to a probability calibrated on held-out games
            (thurn_ai.learned.win_map); otherwise the share of playouts "won" in the hand-set evaluation's
            units, not a probability (docs/learned.md).
        mean_score: the mean final score of its playouts (those cut short: the evaluation's expected or
            estimated score).
        search_win: the search's own win share (evaluation units, before any map).
    """
    move: int
    notation: str
    official: str | None
    visits: int
    share: float
    win_prob: float
    mean_score: float
    search_win: float | None = None

    def to_dict(self) -> dict:
        """JSON form: `move` is the notation (as `thurn-ai hint --json` prints it)."""
        return {"move": self.notation, "official": self.official, "visits": self.visits,
                "share": self.share, "win_prob": self.win_prob, "mean_score": self.mean_score,
                "search_win": self.search_win}


@dataclass(frozen=True)
class Turn:
    """The recommended rest of the turn: the moves the player to move makes now, up to what is not theirs
    to decide (a card from the deck, the next player's turn).

    Attributes:
        moves: the moves in notation, e.g. ('left Augsburg', 'left Kempten', 'stop').
        codes: the same moves as codes.
        officials: the official each move uses (None for none), one per move.
        then: what comes after them, in words: 'the turn ends', 'the game ends', 'the rest depends on the
            card drawn from the deck', or 'decide again (PHASE)'.
    """
    moves: tuple
    codes: tuple
    officials: tuple
    then: str

    def to_dict(self) -> dict:
        return {"moves": list(self.moves), "officials": list(self.officials), "then": self.then}


@dataclass(frozen=True)
class Analysis:
    """The result of analyse(): what `thurn-ai hint` prints, as data (`to_dict()`: as `hint --json`).

    Attributes:
        player: the seat analysed (the player to move).
        bot: the exact bot spec that searched (a BotSpec; str() gives its text).
        iterations: the search's visits at the root.
        options: the decision's moves as Option values, the most visited first (`best` is the first).
        recommended_turn: the rest of the turn the search recommends (a Turn).
        principal_variation: the searched line of the player's own decisions, in notation.
        seed: the seed the search and its re-deals used (the same arguments give the same Analysis).
        calibrated: whether win_prob is a calibrated win chance (the learned evaluation scored the search's
            playouts and the shipped win map read its win share; results/learned/report.md) or a share in
            evaluation units.
        line_officials: the officials the searched line uses (past deck draws too), for a search that can
            tell; () otherwise.
        opponents: whom the calibrated chance assumes: 'equal' (every seat plays like the search) or
            'heuristic' (the other seats are the rule-based heuristic bot); see `assumes`.
        chance: what win_prob means (a WinChance: the search the map was fitted for, whom it assumes in
            every seat, how well it held out of fold; or why it is uncalibrated).
    """
    player: int
    bot: BotSpec
    iterations: int
    options: tuple
    recommended_turn: Turn
    principal_variation: tuple
    seed: int
    calibrated: bool = False
    line_officials: tuple = ()
    opponents: str = "equal"
    chance: WinChance | None = None

    @property
    def assumes(self) -> str:
        """Whom win_prob assumes, in words (or why it is no calibrated chance)."""
        return (self.chance or WinChance(self.opponents)).assumes()

    @property
    def best(self) -> Option:
        """The most visited option: the search's choice."""
        return self.options[0]

    def to_dict(self) -> dict:
        """JSON-ready data: player, bot, iterations, options, recommended_turn, principal_variation,
        best, seed."""
        return {"player": self.player, "bot": str(self.bot), "iterations": self.iterations,
                "options": [o.to_dict() for o in self.options],
                "recommended_turn": self.recommended_turn.to_dict(),
                "principal_variation": list(self.principal_variation), "best": self.best.to_dict(),
                "seed": self.seed, "win_prob_calibrated": self.calibrated,
                "win_prob_opponents": self.opponents if self.calibrated else None,
                "win_prob_assumes": self.assumes,
                "win_chance": (self.chance or WinChance(self.opponents)).to_dict(),
                "win_chance_line": self.chance_line()}

    def chance_line(self) -> str:
        """The best option's win chance in one line ('Win chance 39% (±1), for players like the search';
        thurn_ai.play.win_chance.chance_line)."""
        return chance_line(self.chance or WinChance(self.opponents), self.best.win_prob, self.best.visits)


def bot_spec(bot: BotSpec = DEFAULT_SPEC, iterations: int | None = None, seconds: float | None = None,
             players: int = 2) -> BotSpec:
    """The bot spec a search runs with: `iterations` / `seconds` override the spec's own budget; `mcts`
    is the default search (thurn_ai.bots.default_search.DEFAULT_SEARCH, the same at every player count)
    under the options the spec sets itself, every option that makes the search written out, and
    DEFAULT_ITERATIONS when no budget is given at all."""
    spec = bot
    if (iterations is not None or seconds is not None) and ("iterations" in spec.options or "time" in spec.options):
        make_bot(spec)     # the spec's own budget is replaced, but a bad one is still an error, not dropped
    if spec.name == DEFAULT_BOT:
        spec = written_out(spec)
    if iterations is not None:
        spec = spec.with_(iterations=iterations).without("time")
    if seconds is not None:
        spec = spec.with_(time=seconds)
    if iterations is None and seconds is None and "iterations" not in spec.options and "time" not in spec.options \
            and spec.name == DEFAULT_BOT:
        spec = spec.with_(iterations=DEFAULT_ITERATIONS)
    return spec


def analyse(state: GameState, player: int | None = None, bot: BotSpec = DEFAULT_SPEC,
            iterations: int | None = None, seconds: float | None = None, seed: int = 0,
            official: str | None = None, using: bool = True, turn: str | None = None,
            opponents: str = "equal") -> Analysis:
    """Search `state` for the player to move and rank the options of the decision at hand.

    player: the seat to move (None: whoever is to move; another seat is an error, a search plans for
    the player to move). bot: the spec of a bot that can analyse (bots.base.Analyst), a BotSpec
    (BotSpec.parse("pimc(worlds=20)") reads its text);
    iterations / seconds: the budget (see bot_spec()). seed: the search's seed and the seed of
    re-dealing what the player cannot see. official: rank only the options that use this official
    (using=True) or only those that do not (using=False) -- the whole budget goes to that side of the
    decision; later decisions are not restricted. turn: hold the whole rest of the current turn to one
    choice of official (an official's name, or 'none'; SearchBot.restrict_turn). opponents: whom the win
    chance assumes -- 'equal' (default: calibrated among equal players, every seat playing like the search;
    against weaker opponents too close to 1/n) or 'heuristic' (the player to move plays like the search,
    every other seat is the rule-based heuristic bot: a second map, fitted on held-out games of that kind);
    the result's `opponents` and `assumes` say which. It changes only win_prob, never the search. The same
    arguments give the same Analysis."""
    if not isinstance(bot, BotSpec):        # a spec's text is read where it comes in: BotSpec.parse(text)
        raise BotSpecError(f"bot must be a BotSpec (BotSpec.parse reads a spec's text), not {type(bot).__name__} "
                           f"{short_repr(bot)}")
    if opponents not in OPPONENTS:
        raise WinMapError(f"unknown opponents {opponents!r}: one of {', '.join(OPPONENTS)}")
    if state.is_terminal():
        raise PositionError("the game is over: there is no move to analyse")
    to_move = state.current_player
    if player is None:
        player = to_move
    elif player != to_move:
        raise PositionError(f"seat {to_move} is to move, not seat {player}: an analysis is for the player "
                            "to move")
    spec = bot_spec(bot, iterations, seconds, state.n_players)
    chance = win_chance_for(spec, state.n_players, opponents)
    if opponents != "equal" and not chance.calibrated:     # a chance against these opponents was asked for
        raise WinMapError(f"opponents={opponents!r} asks for a calibrated win chance: the learned evaluation "
                          f"(eval=learned) read through a map fitted for this search; bot {str(spec)!r} has none: "
                          f"{chance.assumes()}")
    searcher = make_bot(spec, derive_seed("hint-bot", seed))
    if not isinstance(searcher, Analyst):
        raise BotSpecError(f"bot {str(spec)!r} cannot analyse a position (it is no search); "
                           "use a search bot such as mcts or pimc")
    if official is not None:
        if not any((official_of(state, m) == official) == using for m in state.legal_moves()):
            raise PositionError(f"no legal move {'uses' if using else 'avoids'} the {official.replace('_', ' ')} "
                                "at this decision")
        searcher.restrict_root(official, using)
    if turn is not None:
        searcher.restrict_turn(turn)
    obs = Observation(state, player, derive_seed("hint-observation", seed))
    rows = searcher.analyse(obs)
    if not rows:
        raise PositionError("the search found no move to rank")
    progress = position_features(state)[0] if chance.win_map is not None else 0.0

    n = state.n_players
    options = tuple(Option(move=r.move, notation=state.move_str(r.move), official=official_of(state, r.move),
                           visits=int(r.visits), share=float(r.share),
                           win_prob=chance.chance(float(r.win_prob), progress, n),
                           mean_score=float(r.mean_score), search_win=float(r.win_prob)) for r in rows)
    line = [rows[0].move]
    got = list(searcher.principal_variation(obs))
    if got and got[0] == rows[0].move:
        line = got
    return Analysis(player=player, bot=spec, iterations=sum(o.visits for o in options), options=options,
                    recommended_turn=describe_turn(state, line),
                    principal_variation=tuple(state.move_str(m) for m in (got or line)), seed=seed,
                    calibrated=chance.calibrated, opponents=opponents, chance=chance,
                    line_officials=tuple(searcher.line_officials(obs)))


def describe_turn(state: GameState, line: list[int]) -> Turn:
    """The moves of `line` (codes) the player to move can make now, in notation, and what they still
    wait for (a card from the deck, the new display, the rest of the turn), by replaying them on a copy of
    `state`. The line stops at a move that shows cards nobody has seen yet (a draw from the deck, the
    Administrator's new display): the search's moves after it were for cards it imagined."""
    s = state.clone()
    p = s.current_player
    moves, codes, officials = [], [], []
    for m in line:
        if s.is_terminal() or s.current_player != p or not s.is_legal(m):
            break
        officials.append(official_of(s, m))
        moves.append(s.move_str(m))
        codes.append(m)
        s.apply(m)
        if move_kind(m) in ("deck", "administrator"):
            break
    if s.is_terminal():
        then = "the game ends"
    elif s.current_player != p:
        then = "the turn ends"
    elif codes and move_kind(codes[-1]) == "deck":
        then = "the rest depends on the card drawn from the deck"
    elif codes and move_kind(codes[-1]) == "administrator":
        then = "draw from the new display (its cards are not known before it is laid out)"
    else:
        then = f"decide again ({s.phase})"
    return Turn(moves=tuple(moves), codes=tuple(codes), officials=tuple(officials), then=then)
