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

That makes each of its searches smaller than the standard bot's one, so a rated bot that loses could owe it
to the smaller searches alone. rating=search is the control that takes that out: at an offer it takes the
side the standard search's own move is on (use the official or not) and plays the best move of a search
restricted to that side with rate_iterations, the same search the rated bot plays its side's move from.
The two bots differ only in who picks the side: the rating, or the search itself (the player). The
validation plays it as the cells control-first and control-fresh on the same deals as the ratings' cells;
the rating's own effect is the paired difference between a rating's cell and its control's, readable both
ways: a rating that loses to its control picks worse sides than the player, one that wins picks better.

`rated` is registered as a bot when this module is imported (the study's runner imports it; a Dask
cluster's workers import it through register_on_cluster), so tournaments between processes can run it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
from scipy import stats as sps

from ...bots.base import Bot
from ...bots.mcts import MCTSBot
from ...bots.search_options import SearchOptions
from ...bots.spec import BotSpec, register
from ...errors import BotSpecError
from ...game.officials import OFFICIALS, official_name, official_of
from ...play.match import derive_seed
from ...stats.summary import mean_ci, versus_baseline
from .choice import ChoiceSettings, choice_officials, rate_decision, side_move
from .design import PRIMARY_OUTCOME, SEPARATE_BY, games_to_separate, with_holm
from .plan import StudyError, bot_for, parse_players, rotation_games
from ...game.rules import PLAYER_COUNTS

__all__ = ["RatedBot", "ValidationCell", "RATINGS", "CONTROLS", "CELLS", "SEARCHES_AT_AN_OFFER", "equal_budget",
           "rated_spec", "validation_spec", "check_cells", "register_on_cluster", "validation_games", "run_validation",
           "validation_table", "VALIDATION_COLUMNS"]

#: how the bot rates a decision: first = each side's most visited move by its own mean; fresh = that move
#: re-rated by an independent search
RATINGS = ("first", "fresh")
#: the searches a rating runs at an offer: one a side, and with fresh one more a side to re-rate
SEARCHES_AT_AN_OFFER = {"first": 2, "fresh": 4}
#: the control's "rating": the side the standard search's own move is on, then that side's restricted search
SEARCH_SIDE = "search"
#: the validation's control cells: {cell: the rating whose searches it copies} (rating=search, its side's
#: search of that rating's size at every offer: the same moves, the side picked by the search, not the rating)
CONTROLS = {f"control-{r}": r for r in RATINGS}
#: every cell the validation can play: the ratings and their controls
CELLS = RATINGS + tuple(CONTROLS)


@dataclass(frozen=True)
class ValidationCell:
    """One cell of the validation by play, as a value; its text is what --ratings and the saved rows say:

        first                           the rating at every offer, its searches sharing the standard budget
        control-first                   its control: the same searches, the side picked by the standard search
        first:administrator             the rating only at the Administrator's offers (the standard bot elsewhere)
        first:x2                        each rating search twice the equal budget (a dose-response step);
        control-first:x2                its control picks the side with a search of twice the standard budget,
                                        so both spend the same at an offer (compute-matched)

    The qualifiers combine (first:postmaster:x2). A cell and its control play the same deals."""
    rating: str
    control: bool = False
    official: str | None = None      # follow the rating only at this official's offers (None: every official)
    scale: int = 1                   # the rating searches' budget in multiples of the equal budget

    @classmethod
    def parse(cls, text: str | ValidationCell) -> ValidationCell:
        if isinstance(text, ValidationCell):
            return text
        head, *quals = str(text).strip().lower().split(":")
        control = head.startswith("control-")
        rating = head.removeprefix("control-")
        official, scale = None, 1
        for q in quals:
            if re.fullmatch(r"x[1-9][0-9]?", q):
                scale = int(q[1:])
            elif official_name(q) is not None and official is None:
                official = official_name(q)
            else:
                raise StudyError(f"validation cell {text!r}: {q!r} is neither an official nor a budget "
                                 "multiple (x2)")
        if rating not in RATINGS:
            raise StudyError(f"validation cell {text!r}: use {', '.join(CELLS)}, optionally with "
                             ":OFFICIAL and :xK (first:administrator, control-first:x2)")
        return cls(rating, control, official, scale)

    def __str__(self) -> str:
        return ("control-" if self.control else "") + self.rating + (f":{self.official}" if self.official else "") \
            + (f":x{self.scale}" if self.scale != 1 else "")

    @property
    def rating_cell(self) -> ValidationCell:
        """The rating's cell this cell is, or controls."""
        return replace(self, control=False)

    @property
    def control_cell(self) -> ValidationCell:
        """This cell's control (the same qualifiers, the side picked by the standard search)."""
        return replace(self, control=True)

    @property
    def folder(self) -> str:
        """The cell's folder name (no colons): first_administrator_x2."""
        return str(self).replace(":", "_")


class RatedBot(Bot):
    """Follows the officials study's rating at every offer of an official; elsewhere the standard mcts."""

    spec = "rated"
    spec_options = frozenset(SearchOptions.names()) | {"rating", "rate_iterations", "follow", "side_iterations"}

    def __init__(self, seed: int = 0, forbid=frozenset(), rating: str = "fresh", rate_iterations: int | None = None,
                 follow: str | None = None, side_iterations: int | None = None, **options):
        if forbid:
            raise BotSpecError("rated: a bot that follows the rating forbids no official")
        if rating not in RATINGS + (SEARCH_SIDE,):
            raise BotSpecError(f"rated: rating is {', '.join(RATINGS)} or {SEARCH_SIDE}, not {rating!r}")
        if follow is not None and official_name(str(follow)) is None:
            raise BotSpecError(f"rated: follow names one official ({', '.join(OFFICIALS)}), not {follow!r}")
        if side_iterations is not None and (rating != SEARCH_SIDE or int(side_iterations) < 1):
            raise BotSpecError("rated: side_iterations (a positive number) is the control's (rating=search)")
        super().__init__(seed=seed)
        self.standard = MCTSBot(seed=derive_seed("rated-standard", seed), **options)
        self.standard.spec = standard_text(options)
        self.rating = rating
        #: the one official whose offers the bot decides by the rating (None: every official's)
        self.follow = None if follow is None else official_name(str(follow))
        #: the control's side-picking search: the standard bot, or one of side_iterations (a compute-matched
        #: control for ratings whose searches are larger than the equal budget)
        self.side_search = self.standard if side_iterations is None else MCTSBot(
            seed=derive_seed("rated-side", seed), **{**options, "iterations": int(side_iterations)})
        self.settings = ChoiceSettings(bot=BotSpec("mcts", options), iterations=rate_iterations,
                                       fresh=rating == "fresh")
        #: offers met and how often the rating chose to use the official (per official)
        self.offers = dict.fromkeys(OFFICIALS, 0)
        self.used = dict.fromkeys(OFFICIALS, 0)

    def choose(self, obs) -> int:
        state = obs.state
        offered = choice_officials(state)
        if not offered or (self.follow is not None and offered[0] != self.follow):
            return self.standard.choose(obs)
        official = offered[0]
        if self.rating == SEARCH_SIDE:         # the control: the search's own side, that side's search's move
            self.offers[official] += 1
            using = official_of(state, self.side_search.choose(obs)) == official
            self.used[official] += using
            return state.parse_move(side_move(state, official, using, self.settings, self.rng.getrandbits(63)))
        r = rate_decision(state, self.settings, self.rng.getrandbits(63), [official])
        self.offers[official] += 1
        self.used[official] += r["best_official"] == official
        return state.parse_move(r["best"])


def standard_text(options: dict) -> str:
    """The mcts spec of these options (the standard bot the rated one plays as between offers)."""
    return str(BotSpec("mcts", options))


def rated_spec(standard: BotSpec, rating: str = "fresh", rate_iterations: int | None = None) -> BotSpec:
    """The rated bot's spec for a standard mcts spec: mcts(iterations=1000,...) ->
    rated(iterations=1000,...,rating=fresh) (rating=search: the control)."""
    if standard.name != "mcts":
        raise StudyError(f"the rated bot follows the mcts search's rating; the standard bot is {str(standard)!r}")
    if standard.option("forbid"):
        raise StudyError(f"the standard bot {str(standard)!r} forbids an official; give an unrestricted one")
    if rating not in RATINGS + (SEARCH_SIDE,):
        raise StudyError(f"rating is {', '.join(RATINGS)} or {SEARCH_SIDE}, not {rating!r}")
    extra = {"rating": rating, **({"rate_iterations": rate_iterations} if rate_iterations else {})}
    return BotSpec("rated", {**standard.options, **extra})


register("rated", RatedBot)


def equal_budget(standard: BotSpec, rating: str) -> int | None:
    """rate_iterations that give the rated bot the standard bot's budget at an offer: the standard mcts's
    iterations shared by the searches the rating runs there (1000 -> 500 with first, 250 with fresh); None
    when the standard bot's budget is in seconds (then the rating searches take the bot's own budget)."""
    if standard.option("time") is not None:
        return None
    iterations = int(standard.option("iterations", SearchOptions().iterations))
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


def check_cells(cells) -> tuple:
    """The validation cells asked for, checked and in their canonical text (StudyError naming a bad one)."""
    cells = tuple(str(ValidationCell.parse(c)) for c in cells)
    if not cells:
        raise StudyError(f"validation cells: none given; use {', '.join(CELLS)}")
    return cells


def validation_spec(standard: BotSpec, cell: str, same_budget: bool = True) -> BotSpec:
    """The rated bot's spec in the validation cell `cell` against `standard`: a rating (with same_budget,
    its searches at an offer share the standard bot's budget: equal_budget, times the cell's scale), or a
    rating's control (the side the standard search picks -- with a scale, a search of scale times the
    standard budget --, then that side's search of the size that rating's searches have); a cell with an
    official follows only that official's offers. Readers of saved games find the rated seat by it."""
    value = ValidationCell.parse(cell)
    iterations = equal_budget(standard, value.rating) if same_budget else None
    if iterations is not None:
        iterations *= value.scale
    spec = rated_spec(standard, SEARCH_SIDE if value.control else value.rating, iterations)
    if value.official:
        spec = spec.with_(follow=value.official)
    if value.control and value.scale != 1:
        standard_iterations = standard.option("iterations", SearchOptions().iterations)
        spec = spec.with_(side_iterations=int(standard_iterations) * value.scale)
    return spec


def validation_folder(out_dir, players: int, rating: str) -> Path:
    return Path(out_dir) / f"{players}p_rated_{ValidationCell.parse(rating).folder}"


def cells_at(ratings, players: int) -> tuple:
    """The validation cells played at `players`: `ratings` is one tuple for every count or {players: tuple}
    (a count it does not name plays none)."""
    if isinstance(ratings, dict):
        return check_cells(ratings[players]) if players in ratings else ()
    return check_cells(ratings)


def run_validation(standard, players=PLAYER_COUNTS, games=None, seed: int = 0, ratings=RATINGS, jobs=None,
                   out_dir=None, scheduler: str | None = None, progress: bool = False, log=print,
                   same_budget: bool = True) -> pd.DataFrame:
    """Per player count and cell (a rating, or a rating's control: CELLS; `ratings` one tuple or {players:
    tuple}), a tournament of the rated bot in one rotating seat against the standard bot (`standard`: a spec
    or {players: spec}) in the others: validation_games(n) games unless `games` (one number or {players: n})
    says otherwise, seed base + 100 n + 50 (its own deals, the same in every cell of a count: paired).
    same_budget: the rated bot's searches at an offer share the standard bot's budget (equal_budget); else
    each has it whole. Returns the tournaments' rows (run_tournament's columns) with `rating` (the cell) and
    `rated` columns."""
    from ...play.tournament import connect, run_tournament

    if scheduler:
        with connect(scheduler) as client:
            register_on_cluster(client)
    frames = []
    for n in parse_players(players):
        base = bot_for(standard, n)
        n_games = rotation_games(games if games is not None else validation_games(n), n)
        for rating in cells_at(ratings, n):
            spec = validation_spec(base, rating, same_budget)
            if log:
                log(f"[validation] {n} players, {rating}: {n_games} games of {spec} vs {base}, "
                    f"seed {seed + 100 * n + 50}")
            raw = run_tournament([str(spec)] + [str(base)] * (n - 1), players=n, games=n_games,
                                 seed=seed + 100 * n + 50, jobs=jobs, out_dir=None if out_dir is None else
                                 str(validation_folder(out_dir, n, rating)),
                                 resume="auto", progress=progress, scheduler=scheduler)
            frames.append(raw.assign(rating=rating, rated=raw["spec"] == str(spec)))
    return pd.concat(frames, ignore_index=True)


VALIDATION_COLUMNS = ("players", "rating", "games", "wins", "win_rate", "d_win", "d_win_lo", "d_win_hi", "p_win",
                      "p_win_holm", "margin", "margin_lo", "margin_hi")
#: a rating's cell against its control's, paired by deal (control_comparison)
CONTROL_COLUMNS = ("pairs", "d_control", "d_control_lo", "d_control_hi", "p_control", "p_control_holm")


def control_comparison(rows: pd.DataFrame, players: int, rating: str, outcome: str = PRIMARY_OUTCOME) -> dict:
    """A rating's cell against its control's at `players`, paired by deal: per game, the rated seat's win
    (`outcome`: design.OUTCOMES, the study's tie-break by default)
    in the rating's cell minus its win in the control's game with the same number and seat (the same deal,
    the same seat, the same opponents' seeds: only the rating differs). d_control is the mean difference in
    points of win rate (t interval), p_control a paired t test's; empty when the control was not played."""
    value = ValidationCell.parse(rating)
    if value.control:
        return {}
    control = str(value.control_cell)
    a = rows[(rows.players == players) & (rows.rating == rating) & rows.rated]
    c = rows[(rows.players == players) & (rows.rating == control) & rows.rated]
    if a.empty or c.empty:
        return {}
    keys = ["game", "seat"]
    m = a.merge(c[keys + [outcome] + (["game_seed"] if "game_seed" in c else [])], on=keys, suffixes=("", "_control"))
    if "game_seed" in m and "game_seed_control" in m and (m.game_seed != m.game_seed_control).any():
        raise StudyError(f"{players} players: {rating} and {control} dealt different games (not paired)")
    d = (m[outcome] - m[f"{outcome}_control"]).astype(float)
    mean, lo, hi = mean_ci(d)
    p = float(sps.ttest_1samp(d, 0.0).pvalue) if len(d) > 1 and d.std() > 0 else (1.0 if len(d) else math.nan)
    return {"pairs": len(d), "d_control": mean, "d_control_lo": lo, "d_control_hi": hi, "p_control": p}


def validation_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per player count and cell: the rated bot's wins against the standard bots, its win rate minus the
    fair 1/n (Wilson interval shifted by 1/n; binomial p-value, Holm-adjusted across the table), its score
    margin over the standard bots of the same game (t interval over games, points), its uses of each
    official per game beside the standard bots' (uses_<official>, std_uses_<official>), and for a rating
    whose control was played the paired difference to it (control_comparison; p Holm-adjusted across
    these comparisons)."""
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
        row.update(control_comparison(rows, int(n), rating))
        for o in OFFICIALS:
            if f"uses_{o}" in g:
                row[f"uses_{o}"] = float(r[f"uses_{o}"].mean())
                row[f"std_uses_{o}"] = float(std[f"uses_{o}"].mean())
        out.append(row)
    if not out:
        return pd.DataFrame(columns=VALIDATION_COLUMNS)
    def order(text):        # every official's cells, then by budget, each rating beside its control
        c = ValidationCell.parse(text)
        return (OFFICIALS.index(c.official) + 1 if c.official else 0, c.scale, RATINGS.index(c.rating), c.control)

    table = pd.DataFrame(out).sort_values(["players", "rating"], key=lambda c: c.map(order) if c.name == "rating"
                                          else c, kind="stable").reset_index(drop=True)
    table = with_holm(table, ["p_win"] + (["p_control"] if "p_control" in table else []))
    first = [*VALIDATION_COLUMNS, *[c for c in CONTROL_COLUMNS if c in table]]
    return table[[*first, *[c for c in table.columns if c not in first]]]
