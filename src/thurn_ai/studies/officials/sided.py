"""A host bot whose side at an official's offer is fixed by a rule, not by its own judgement:

    sided(side=always,official=postmaster,host=heuristic)     # takes the Postmaster whenever it is offered
    sided(side=card,iterations=1000,eval=learned,...)          # mcts held to the rule card's side at every offer
    sided(host=heuristic,side=amend,official=postmaster,take=true,hand_max=3,route_max=2,fit=true)
                          # the heuristic, except it takes the Postmaster where the amendment's condition holds

The host plays its best move on the ruled side (mcts: its root restricted; heuristic: rulecard.heuristic_move)
and as itself elsewhere (side=amend: also at the offers the amendment does not rule; advice_play.Amendment).
Registered when this module is imported; worker processes need export_module."""
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

#: the rules that can pick the side: always use the official, the rule card's line, or an amendment of the
#: host's own rule (advice_play.Amendment: its official, take, bounds on hand and route, display fit)
SIDES = ("always", "card", "amend")
#: the amendment's options (side=amend)
AMEND_OPTIONS = ("take", "hand_min", "hand_max", "route_min", "route_max", "fit")
#: the bots that can play the side picked
HOSTS = ("mcts", "heuristic")
#: the module that registers `sided` (for THURN_AI_BOT_MODULES)
BOT_MODULE = __name__


class SidedBot(Bot):
    """A host bot (mcts or heuristic) whose side at an official's offer a rule picks (SIDES)."""

    spec = "sided"
    spec_options = frozenset(SearchOptions.names()) | {"host", "side", "official", *AMEND_OPTIONS}

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
        rule = {k: options.pop(k) for k in AMEND_OPTIONS if k in options}
        self.amendment = self._amendment(side, self.official, rule)
        if host == "heuristic" and options:
            raise BotSpecError(f"sided: the heuristic host takes no search options ({', '.join(sorted(options))})")
        super().__init__(seed=seed)
        self.side = side
        self.host: Bot = MCTSBot(seed=seed, **options) if host == "mcts" else HeuristicBot(seed=seed)
        #: offers the rule decided and how often it used the official there (per official)
        self.offers = dict.fromkeys(OFFICIALS, 0)
        self.used = dict.fromkeys(OFFICIALS, 0)

    @staticmethod
    def _amendment(side: str, official: str | None, rule: dict):
        """The Amendment of side=amend (None for the other sides, which take no amendment options)."""
        if side != "amend":
            if rule:
                raise BotSpecError(f"sided: {', '.join(rule)} belong to side=amend")
            return None
        from .advice_play import Amendment
        from .plan import StudyError
        if official is None or "take" not in rule:
            raise BotSpecError("sided: side=amend needs its official and take=true or take=false")
        try:
            return Amendment(official, **rule)
        except (StudyError, TypeError) as e:
            raise BotSpecError(f"sided: {e}") from None

    def uses(self, state, official: str) -> bool | None:
        """Whether the rule takes `official` at this offer (None: the amendment does not rule it)."""
        if self.side == "always":
            return True
        if self.amendment is not None:
            return self.amendment.at(state)
        hand, route, _stage = offer_features(state)
        return CARD.says_use(state.n_players, official, hand, route)

    def choose(self, obs: Observation) -> int:
        state = obs.state
        offered = choice_officials(state)
        if not offered or (self.official is not None and offered[0] != self.official):
            return self.host.choose(obs)
        official = offered[0]
        use = self.uses(state, official)
        if use is None:
            return self.host.choose(obs)
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
