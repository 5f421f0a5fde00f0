"""The officials study, validated by play: a bot that follows the study's rating, against the standard bot.

    rated(iterations=1000,eval=learned,rating=fresh)     # the spec: mcts's options, and the rating

At each decision where an official is on offer (thurn_ai.studies.officials.choice.choice_officials), the
`rated` bot runs the same two root-restricted searches the study rates that decision with (one whose
root may only use the official, one whose root may only do without it; rate_decision) and plays the best
move of the side the rating prefers; at every other decision it plays as the standard bot (mcts with the
same options). rating=first prefers by each side's most visited move's own mean (the study's first
rating), rating=fresh by that move re-rated by an independent search (the unbiased rating). If following
the rating wins more than the standard bot, the standard bot misuses the officials; if it wins less, the
rating is wrong where it disagrees with the search's own play (docs/officials.md, "Validation by play").

At an offer the bot runs two searches (four with rating=fresh) of rate_iterations each (default: its own
budget) where the standard bot runs one. The validation gives it the standard bot's budget there
(equal_budget: 1000 iterations -> two searches of 500, or four of 250), so a difference in play is the
rating's, not more search.

`rated` is registered as a bot when this module is imported (the study's runner imports it; a Dask
cluster's workers import it through register_on_cluster), so tournaments between processes can run it.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ...bots.base import Bot
from ...bots.mcts import MCTSBot
from ...bots.search_options import SearchOptions
from ...bots.spec import parse_spec, register
from ...errors import BotSpecError
from ...game.officials import OFFICIALS
from ...play.match import derive_seed
from ...stats.summary import mean_ci, versus_baseline
from .choice import ChoiceSettings, choice_officials, rate_decision
from .design import SEPARATE_BY, games_to_separate, with_holm
from .plan import StudyError, bot_for, parse_players, rotation_games
from ...game.rules import PLAYER_COUNTS

__all__ = ["RatedBot", "RATINGS", "SEARCHES_AT_AN_OFFER", "equal_budget", "rated_spec", "validation_spec",
           "register_on_cluster", "validation_games", "run_validation",
           "validation_table", "VALIDATION_COLUMNS"]

#: how the bot rates a decision: first = each side's most visited move by its own mean; fresh = that move
#: re-rated by an independent search
RATINGS = ("first", "fresh")
#: the searches a rating runs at an offer: one a side, and with fresh one more a side to re-rate
SEARCHES_AT_AN_OFFER = {"first": 2, "fresh": 4}


class RatedBot(Bot):
    """Follows the officials study's rating at every offer of an official; elsewhere the standard mcts."""

    spec = "rated"
    spec_options = frozenset(SearchOptions.names()) | {"rating", "rate_iterations"}

    def __init__(self, seed: int = 0, forbid=frozenset(), rating: str = "fresh", rate_iterations: int | None = None,
                 **options):
        if forbid:
            raise BotSpecError("rated: a bot that follows the rating forbids no official")
        if rating not in RATINGS:
            raise BotSpecError(f"rated: rating is {' or '.join(RATINGS)}, not {rating!r}")
        super().__init__(seed=seed)
        self.standard = MCTSBot(seed=derive_seed("rated-standard", seed), **options)
        self.standard.spec = standard_text(options)
        self.settings = ChoiceSettings(bot=self.standard.spec, iterations=rate_iterations, fresh=rating == "fresh")
        #: offers met and how often the rating chose to use the official (per official)
        self.offers = dict.fromkeys(OFFICIALS, 0)
        self.used = dict.fromkeys(OFFICIALS, 0)

    def choose(self, obs) -> int:
        state = obs.state
        offered = choice_officials(state)
        if not offered:
            return self.standard.choose(obs)
        official = offered[0]
        r = rate_decision(state, self.settings, self.rng.getrandbits(63), [official])
        self.offers[official] += 1
        self.used[official] += r["best_official"] == official
        return state.parse_move(r["best"])


def standard_text(options: dict) -> str:
    """The mcts spec of these options (the standard bot the rated one plays as between offers)."""
    def text(v):
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    return "mcts" + ("(" + ",".join(f"{k}={text(v)}" for k, v in options.items()) + ")" if options else "")


def rated_spec(standard: str, rating: str = "fresh", rate_iterations: int | None = None) -> str:
    """The rated bot's spec for a standard mcts spec: 'mcts(iterations=1000,...)' ->
    'rated(iterations=1000,...,rating=fresh)'."""
    name, kwargs = parse_spec(standard)
    if name != "mcts":
        raise StudyError(f"the rated bot follows the mcts search's rating; the standard bot is {standard!r}")
    if kwargs.get("forbid"):
        raise StudyError(f"the standard bot {standard!r} forbids an official; give an unrestricted one")
    if rating not in RATINGS:
        raise StudyError(f"rating is {' or '.join(RATINGS)}, not {rating!r}")
    s = standard.strip()
    inner = s[s.index("(") + 1:-1].strip() if s.endswith(")") else ""
    extra = f"rating={rating}" + (f",rate_iterations={rate_iterations}" if rate_iterations else "")
    return f"rated({inner + ',' if inner else ''}{extra})"


register("rated", RatedBot)


def equal_budget(standard: str, rating: str) -> int | None:
    """rate_iterations that give the rated bot the standard bot's budget at an offer: the standard mcts's
    iterations shared by the searches the rating runs there (1000 -> 500 with first, 250 with fresh); None
    when the standard bot's budget is in seconds (then the rating searches take the bot's own budget)."""
    _, kwargs = parse_spec(standard)
    if kwargs.get("time") is not None:
        return None
    iterations = int(kwargs.get("iterations", SearchOptions().iterations))
    return max(1, iterations // SEARCHES_AT_AN_OFFER[rating])


# ------------------------------------------------------------------------------------------ the cluster

def _import_rated():
    import thurn_ai.studies.officials.rated  # noqa: F401  (registers the bot in a worker)


def register_on_cluster(client) -> None:
    """Make every worker of a Dask cluster, present and future, know the `rated` bot (a worker plugin
    that imports this module), so run_tournament(scheduler=...) can play it."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class ImportRated(WorkerPlugin):
        name = "thurn-ai-officials-rated"

        def setup(self, worker):
            _import_rated()

    client.register_plugin(ImportRated())


# ------------------------------------------------------------------------------------------ the games

def validation_games(players: int, difference: float = SEPARATE_BY) -> int:
    """Games of the validation at this player count, fixed before the run: enough to find a win rate
    `difference` away from the fair 1/n (games_to_separate), rounded up to whole seat rotations."""
    return rotation_games(games_to_separate(players, difference), players)


def validation_spec(standard: str, rating: str, same_budget: bool = True) -> str:
    """The rated bot's spec in the validation against `standard` (with same_budget, its searches at an offer
    share the standard bot's budget: equal_budget). Readers of saved games find the rated seat by it."""
    return rated_spec(standard, rating, equal_budget(standard, rating) if same_budget else None)


def validation_folder(out_dir, players: int, rating: str) -> Path:
    return Path(out_dir) / f"{players}p_rated_{rating}"


def run_validation(standard, players=PLAYER_COUNTS, games=None, seed: int = 0, ratings=RATINGS, jobs=None,
                   out_dir=None, scheduler: str | None = None, progress: bool = False, log=print,
                   same_budget: bool = True) -> pd.DataFrame:
    """Per player count and rating, a tournament of the rated bot in one rotating seat against the standard
    bot (`standard`: a spec or {players: spec}) in the others: validation_games(n) games unless `games`
    (one number or {players: n}) says otherwise, seed base + 100 n + 50 (its own deals). same_budget: the
    rated bot's searches at an offer share the standard bot's budget (equal_budget); else each has it
    whole. Returns the tournaments' rows (run_tournament's columns) with `rating` and `rated` columns."""
    from ...play.tournament import connect, run_tournament

    if scheduler:
        with connect(scheduler) as client:
            register_on_cluster(client)
    frames = []
    for n in parse_players(players):
        base = bot_for(standard, n)
        n_games = rotation_games(games if games is not None else validation_games(n), n)
        for rating in ratings:
            spec = validation_spec(base, rating, same_budget)
            if log:
                log(f"[validation] {n} players, rating={rating}: {n_games} games of {spec} vs {base}, "
                    f"seed {seed + 100 * n + 50}")
            raw = run_tournament([spec] + [base] * (n - 1), players=n, games=n_games, seed=seed + 100 * n + 50,
                                 jobs=jobs, out_dir=None if out_dir is None else
                                 str(validation_folder(out_dir, n, rating)),
                                 resume="auto", progress=progress, scheduler=scheduler)
            frames.append(raw.assign(rating=rating, rated=raw["spec"] == spec))
    return pd.concat(frames, ignore_index=True)


VALIDATION_COLUMNS = ("players", "rating", "games", "wins", "win_rate", "d_win", "d_win_lo", "d_win_hi", "p_win",
                      "p_win_holm", "margin", "margin_lo", "margin_hi")


def validation_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per player count and rating: the rated bot's wins against the standard bots, its win rate minus the
    fair 1/n (Wilson interval shifted by 1/n; binomial p-value, Holm-adjusted across the table), its score
    margin over the standard bots of the same game (t interval over games, points), and its uses of each
    official per game beside the standard bots' (uses_<official>, std_uses_<official>)."""
    out = []
    for (n, rating), g in rows.groupby(["players", "rating"], sort=True):
        r, std = g[g.rated], g[~g.rated]
        k, m = int(r.win.sum()), len(r)
        if m != g.game.nunique():
            raise StudyError(f"{n} players, rating={rating}: expected one rated seat per game")
        d, lo, hi, p = versus_baseline(k, m, 1 / n)
        margin = r.set_index("game").score - std.groupby("game").score.mean().reindex(r.game).to_numpy()
        mm, mlo, mhi = mean_ci(margin) if m else (math.nan,) * 3
        row = {"players": int(n), "rating": rating, "games": m, "wins": k, "win_rate": k / m if m else math.nan,
               "d_win": d, "d_win_lo": lo, "d_win_hi": hi, "p_win": p, "margin": mm, "margin_lo": mlo,
               "margin_hi": mhi}
        for o in OFFICIALS:
            if f"uses_{o}" in g:
                row[f"uses_{o}"] = float(r[f"uses_{o}"].mean())
                row[f"std_uses_{o}"] = float(std[f"uses_{o}"].mean())
        out.append(row)
    table = with_holm(pd.DataFrame(out), ["p_win"])
    return table[[*VALIDATION_COLUMNS, *[c for c in table.columns if c not in VALIDATION_COLUMNS]]] if len(table) \
        else pd.DataFrame(columns=VALIDATION_COLUMNS)
