"""The one search every strong use names: DEFAULT_SEARCH, the default `mcts` at the hint's budget.

    >>> from thurn_ai.bots.default_search import DEFAULT_SEARCH
    >>> str(DEFAULT_SEARCH)          # mcts(select=puct,...,eval=learned,policy=learned,mix=0.5,iterations=2000)

`mcts` with no options, `thurn-ai hint`, the board's Hint and "Which official?", `analyse()` and the
officials study's rating search all search with it (each can name another spec). It is derived from mcts's
own defaults (bots/mcts.py MCTS_DEFAULTS), so when they change every use follows; the options that make the
search are written out (`written_out`), so a saved spec text names the search it was, whatever the
defaults become. `search_identity` is what a win map records of the search it was fitted for: every option
but the budget, and the SHA-256 of the weights files the search reads (thurn_ai/learned/win_map.py).
"""
from __future__ import annotations

from typing import Any

from ..errors import BotSpecError
from ..fileio import sha256_of
from ..learned.model import DEFAULT_PATH as VALUE_PATH
from ..learned.prior import DEFAULT_PATH as PRIOR_PATH
from .base import Searcher
from .search_options import SearchOptions
from .mcts import MCTS_DEFAULTS, MCTSBot
from .spec import BotSpec, make_bot

#: the hint's budget: iterations a decision of `thurn-ai hint` and analyse() when none is given
HINT_ITERATIONS = 2000
#: the options a written-out mcts spec names (with MCTS_DEFAULTS' keys where they apply)
_NAMED = ("select", "prior", "c", "reward", "playout", "horizon", "eval", "policy")
#: options that say how long a search runs and where it spends that, not what it computes: not part of its
#: identity; and options that act only in play (choose(): the tree kept through a turn, the planner's houses),
#: never in the search an analysis (the hint) makes
BUDGET = ("iterations", "time", "clock", "spend", "draws", "reuse", "planned", "game", "game_time", "favourite")
#: options added after the shipped win maps were fitted: an identity names them only where they differ from
#: their default (identity_differences reads a missing option as its default)
NAMED_WHEN_SET = ("hand_prior", "infer", "others")
#: options that name weights files: the identity holds the files' SHA-256 instead of their paths
FILES = {"model": ("value", VALUE_PATH), "pmodel": ("prior", PRIOR_PATH)}


def written_out(spec: str | BotSpec) -> BotSpec:
    """An mcts spec with the options that make its search written out (the bot's values: mcts's defaults
    under the spec's own options), the spec's own options kept where they are; other bots as they are.
    A prior's mix only where the search has the learned prior (as the bot's own defaults apply, bots/mcts.py
    _defaults_for)."""
    spec = BotSpec.parse(spec)
    if spec.name != "mcts":
        return spec
    # the mcts class itself, not make_bot: the registry loads plugin modules (THURN_AI_BOT_MODULES), and one
    # that imports this module while DEFAULT_SEARCH is being computed would find it half made (an import loop)
    not_options = sorted(set(spec.options) - MCTSBot.spec_options)
    if not_options:
        raise BotSpecError(f"bad bot spec {str(spec)!r}: mcts has no option {', '.join(not_options)}")
    options = MCTSBot(**spec.options).options
    keys = [*_NAMED, *(k for k in MCTS_DEFAULTS if k not in _NAMED)]
    if options.policy != "learned":
        keys = [k for k in keys if k != "mix"]
    return BotSpec("mcts", {**{k: getattr(options, k) for k in keys}, **spec.options})


#: the default search: mcts's defaults at the hint's budget, every option that makes it written out
DEFAULT_SEARCH: BotSpec = written_out(BotSpec("mcts", {"iterations": HINT_ITERATIONS}))


def search_identity(spec: str | BotSpec) -> dict[str, Any]:
    """What makes a search's win shares what they are, as data: {"bot", "options": every option but the
    budget and the file paths, "files": {"value"/"prior": SHA-256 of the weights file it reads}}. Two
    searches with equal identities differ at most in their budget."""
    spec = BotSpec.parse(spec)
    bot = make_bot(spec)
    if not isinstance(bot, Searcher):          # no search: its spec's options are all it is
        return {"bot": spec.name, "options": dict(spec.options), "files": {}}
    options = bot.options
    defaults = SearchOptions().to_dict()
    values = {k: v for k, v in options.to_dict().items() if k not in BUDGET and k not in FILES
              and not (k in NAMED_WHEN_SET and v == defaults[k])}
    files = {}
    if options.eval == "learned":
        files["value"] = sha256_of(options.model or VALUE_PATH)
    if options.policy == "learned":
        files["prior"] = sha256_of(options.pmodel or PRIOR_PATH)
    return {"bot": spec.name, "options": values, "files": files}


def identity_differences(fitted: dict, asked: dict) -> list[str]:
    """How the search `asked` differs from the search a map was `fitted` for (both search_identity values),
    in words; [] when they are the same search. An option the fitted identity does not name (added to the
    search later) must have its default value."""
    if fitted.get("bot") != asked.get("bot"):
        return [f"bot {asked.get('bot')}, not {fitted.get('bot')}"]
    out = []
    defaults = SearchOptions().to_dict()
    theirs = fitted.get("options") or {}
    for key, value in (asked.get("options") or {}).items():
        want = theirs.get(key, defaults.get(key))
        if value != want:
            out.append(f"{key}={value}, not {want}")
    mine, fitted_files = asked.get("files") or {}, fitted.get("files") or {}
    for what in sorted(set(mine) | set(fitted_files)):
        if mine.get(what) != fitted_files.get(what):
            out.append(f"the {what} weights differ (SHA-256)")
    return out
