"""A host bot whose side at an official's offer is fixed by a rule, not by its own judgement:

    sided(side=always,official=postmaster,host=heuristic)     # takes the Postmaster whenever it is offered
    sided(side=card,iterations=1000,eval=learned,...)          # mcts held to the rule card's side at every offer
    sided(side=card,official=postmaster,host=heuristic)        # the card's Postmaster line only (= rulecard(only=...))

At a decision where an official is on offer and a move without it too (choice.choice_officials), the rule
picks the side -- `always`: use the official; `card`: what the rule card (rulecard.CARD) says for the hand
and route in view -- and the host plays its best move on that side: `mcts` searches with its root restricted
to that side (MCTSBot.restrict_root, its whole budget: one search a decision, as the unrestricted bot), the
`heuristic` plays its own move when it is on that side, else its planner's best there (rulecard.heuristic_move).
With `official`, only that official's offers are ruled; the host decides the others. Everywhere else the host
plays as itself.

The symmetric ablations (symmetric.py) seat it in every seat ("everyone uses X whenever offered"); the card
as a constraint on a strong player (card_play.py) seats the mcts host against unrestricted mcts. An offer
met is counted (offers, used) per official, as the rated and rulecard bots count theirs.

`sided` is registered when this module is imported; a tournament with worker processes needs it listed in
THURN_AI_BOT_MODULES (export_module, which the experiments call).
"""
from __future__ import annotations

from ...bots.base import Bot, Observation
from ...bots.heuristic import HeuristicBot
from ...bots.mcts import MCTSBot
from ...bots.search_options import SearchOptions
from ...bots.spec import BotSpec, register
from ...errors import BotSpecError
from ...game.officials import OFFICIALS, official_name, official_of
from .choice import choice_officials
from .rulecard import CARD, heuristic_move, offer_features

__all__ = ["SidedBot", "SIDES", "HOSTS", "BOT_MODULE", "export_module", "sided_spec"]

#: the rules that can pick the side: always use the official, or the rule card's line
SIDES = ("always", "card")
#: the bots that can play the side picked
HOSTS = ("mcts", "heuristic")
#: the module that registers `sided` (for THURN_AI_BOT_MODULES)
BOT_MODULE = __name__


class SidedBot(Bot):
    """A host bot (mcts or heuristic) whose side at an official's offer a rule picks (SIDES)."""

    spec = "sided"
    spec_options = frozenset(SearchOptions.names()) | {"host", "side", "official"}

    def __init__(self, seed: int = 0, forbid=frozenset(), host: str = "mcts", side: str = "card",
                 official: str | None = None, **options):
        if forbid:
            raise BotSpecError("sided: the rule picks the side at every offer it rules; it forbids no official")
        if host not in HOSTS:
            raise BotSpecError(f"sided: host is {' or '.join(HOSTS)}, not {host!r}")
        if side not in SIDES:
            raise BotSpecError(f"sided: side is {' or '.join(SIDES)}, not {side!r}")
        self.official = None if official is None else official_name(str(official))
        if official is not None and self.official is None:
            raise BotSpecError(f"sided: official names one official ({', '.join(OFFICIALS)}), not {official!r}")
        if side == "always" and self.official is None:
            raise BotSpecError("sided: side=always needs the official it always uses (official=postmaster)")
        if host == "heuristic" and options:
            raise BotSpecError(f"sided: the heuristic host takes no search options ({', '.join(sorted(options))})")
        super().__init__(seed=seed)
        self.side = side
        self.host: Bot = MCTSBot(seed=seed, **options) if host == "mcts" else HeuristicBot(seed=seed)
        #: offers the rule decided and how often it used the official there (per official)
        self.offers = dict.fromkeys(OFFICIALS, 0)
        self.used = dict.fromkeys(OFFICIALS, 0)

    def uses(self, state, official: str) -> bool:
        """Whether the rule takes `official` at this offer."""
        if self.side == "always":
            return True
        hand, route, _stage = offer_features(state)
        return CARD.says_use(state.n_players, official, hand, route)

    def choose(self, obs: Observation) -> int:
        state = obs.state
        offered = choice_officials(state)
        if not offered or (self.official is not None and offered[0] != self.official):
            return self.host.choose(obs)
        official = offered[0]
        use = self.uses(state, official)
        self.offers[official] += 1
        self.used[official] += use
        host = self.host
        if isinstance(host, MCTSBot):
            host.restrict_root(official, using=use)
            try:
                return host.choose(obs)
            finally:
                host.restrict_root(None)
        assert isinstance(host, HeuristicBot)
        side = [m for m in state.legal_moves() if (official_of(state, m) == official) == use]
        return heuristic_move(host, obs, side)


register("sided", SidedBot)


def export_module() -> None:
    """List this module in THURN_AI_BOT_MODULES (kept: what is listed there already), so the worker processes a
    tournament starts register `sided` too."""
    import os

    from ...bots.spec import BOT_MODULES_ENV, listed_modules, modules_listing
    listed = listed_modules(os.environ.get(BOT_MODULES_ENV, ""))
    if BOT_MODULE not in listed:
        os.environ[BOT_MODULES_ENV] = modules_listing([*listed, BOT_MODULE])


def sided_spec(host: BotSpec, side: str, official: str | None = None) -> BotSpec:
    """The sided bot's spec for a host spec (heuristic or an mcts spec, its options kept): sided_spec(heuristic,
    'always', 'postmaster') is sided(host=heuristic,side=always,official=postmaster)."""
    if host.name not in HOSTS:
        raise BotSpecError(f"sided: the host is {' or '.join(HOSTS)}, not {str(host)!r}")
    if host.option("forbid"):
        raise BotSpecError(f"sided: the host {str(host)!r} forbids an official; give an unrestricted one")
    extra = {"host": host.name, "side": side, **({"official": official} if official else {})}
    return BotSpec("sided", {**extra, **host.options})
