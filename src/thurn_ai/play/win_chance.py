"""What the win chance of an analysis means: the map that read the search's win share (or none), the search
that map was fitted for, whom the chance assumes in every seat, and how well it held out of fold.

A win map (thurn_ai/learned/win_map.py) records the search it was fitted for (thurn_ai.bots.default_search:
every option but the budget, the SHA-256 of its weights files). A search with the same identity reads its
share through the map: a calibrated chance. Another search with the learned evaluation reads it through the
same map too -- the nearest there is: it corrects the bias of the best move's share, which every such search
has -- but the chance is marked uncalibrated, with the map's search and the differences named: never a
silent mismatch. (A caller that needs a calibrated chance checks `calibrated`; analyse() refuses a chance
for heuristic opponents without it.) The budget is no part of the identity (the board searches for seconds,
not iterations): the map's budget is said beside its search.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..bots.base import Searcher
from ..bots.default_search import identity_differences, search_identity
from ..bots.spec import BotSpec, make_bot
from ..learned.win_map import OPPONENTS, WinMap, WinMapError, win_map_for

#: what an uncalibrated share is, by why there is no calibrated chance
NOT_A_PROBABILITY = "not a probability: the search's win share in the hand-set evaluation's units"
#: whom a calibrated chance is for, in a player's words, by the opponents its map assumes
FOR_WHOM = {"equal": "for players like the search",
            "heuristic": "if you play like the search and the others like the heuristic bot"}
#: what the ± of the one-line chance is (its details say it)
MARGIN_MEANS = "± is the noise of a search this short (a rough 95% margin): a longer search narrows it"


@dataclass(frozen=True)
class WinChance:
    """What win_prob means for one search at one player count.

    Attributes:
        opponents: whom the map was chosen for: 'equal' or 'heuristic' (thurn_ai.learned.win_map.OPPONENTS).
        win_map: the map that reads the search's share (None: the share is shown as it is).
        fitted_for: the spec of the search the map was fitted for (None: there is no map to read).
        differences: how this search differs from it, in words (() when it is that search: calibrated).
        seats: whom the calibrated chance assumes in every seat (the players of the map's games).
        held: how the chance held out of fold at this player count (slope, its interval, ECE, games), or None.
        learned: whether the search scores its playouts with the learned evaluation (a share that a map fitted
            for it can read).
    """
    opponents: str
    win_map: WinMap | None = None
    fitted_for: str | None = None
    differences: tuple = ()
    seats: str = ""
    held: dict | None = None
    learned: bool = False

    @property
    def calibrated(self) -> bool:
        """Whether the chance is calibrated: read through a map fitted for this very search."""
        return self.win_map is not None and not self.differences

    def chance(self, share: float, progress: float, players: int) -> float:
        """The number shown for a search's win share: mapped when calibrated, else the share itself."""
        return self.win_map.chance(share, progress, players) if self.win_map is not None else share

    def assumes(self) -> str:
        """Whom the chance assumes, in words (or why it is no calibrated chance)."""
        if self.calibrated:
            return f"{OPPONENTS[self.opponents][1]}; the map was fitted on games where {self.seats}"
        if not self.learned:
            return NOT_A_PROBABILITY
        if self.win_map is None:
            return "uncalibrated: the search's own win share (no win map for this player count)"
        return (f"uncalibrated for this search: its win share read through the map fitted for "
                f"{self.fitted_for}, and this search differs ({'; '.join(self.differences[:3])}); "
                "python experiments/calibrate.py refits the maps for the default search")

    def held_text(self) -> str:
        """How well the chance held out of fold, in words (slope and reliability, not the mean)."""
        h = self.held
        if not self.calibrated:
            return ""
        if not h or h.get("slope") is None:
            return "how well it held was not measured for this map"
        ci = h.get("slope_ci") or [float("nan")] * 2
        ece = f", ECE {h['ece']:.3f}" if h.get("ece") is not None else ""
        return (f"out of fold: calibration slope {h['slope']:.2f} [{ci[0]:.2f}, {ci[1]:.2f}] (1 is calibrated){ece}, "
                f"{h.get('games', '?')} games" + (f" ({h['source']})" if h.get("source") else ""))

    def to_dict(self) -> dict:
        """JSON form: calibrated, opponents, fitted_for, differences, seats, assumes, held."""
        return {"calibrated": self.calibrated, "mapped": self.win_map is not None, "opponents": self.opponents,
                "fitted_for": self.fitted_for,
                "differences": list(self.differences), "seats": self.seats if self.calibrated else None,
                "assumes": self.assumes(), "held": self.held if self.calibrated else None,
                "held_text": self.held_text() or None, "details": chance_details(self)}


def win_chance_for(spec: str | BotSpec, players: int, opponents: str = "equal") -> WinChance:
    """What the win chance of `spec`'s search means at this player count, with the shipped map for these
    opponents: calibrated when the map was fitted for this very search (its identity, the budget aside)."""
    if opponents not in OPPONENTS:
        raise WinMapError(f"unknown opponents {opponents!r}: one of {', '.join(OPPONENTS)}")
    bot = make_bot(spec)
    if not isinstance(bot, Searcher) or bot.value_weights is None:    # no learned evaluation: no win map reads it
        return WinChance(opponents)
    win_map = win_map_for(opponents)
    if win_map is None or not win_map.has(players):
        return WinChance(opponents, learned=True)
    fitted = win_map.identity
    differences = (identity_differences(fitted, search_identity(spec)) if fitted is not None
                   else ["the map does not name the search it was fitted for"])
    if differences:
        return WinChance(opponents, win_map, win_map.search, tuple(differences), learned=True)
    return WinChance(opponents, win_map, win_map.search, (), win_map.seats, win_map.held(players), learned=True)


def search_margin(win: float, visits: int) -> float | None:
    """A rough 95% margin of a win chance measured over `visits` of the search's games (a binomial's, its
    variance at least 1/(4 visits) so that a chance near 0 or 1 is not called exact); None without visits."""
    if not visits or visits <= 0 or not math.isfinite(win):
        return None
    return 1.96 * math.sqrt(max(win * (1 - win), 0.25 / visits) / visits)


def chance_line(chance: WinChance, win: float | None = None, visits: int | None = None) -> str:
    """The win chance in one line a player reads, as the board, `thurn-ai hint` and the review print it:
    'Win chance 39% (±1), for players like the search'. win: the chance (None: the line says only whom the
    chances are for, e.g. above a review's list); visits: the search's visits of the move (None: no ±).
    An uncalibrated chance says so in the line; chance_details() gives the rest ("how sure is this?")."""
    m = search_margin(win, visits) if win is not None and visits else None
    value = "" if win is None else f" {win:.0%}" + (f" (±{max(1, round(100 * m))})" if m is not None else "")
    if chance.calibrated:
        return (f"Win chance{value}, " if win is not None else "Win chances ") + FOR_WHOM[chance.opponents]
    if chance.win_map is not None:
        return f"Win chance{value}" + (", " if win is not None else "s: ") + "not calibrated for this search"
    return f"Win{value}" + (", " if win is not None else "s: ") + "in the search's own units, not a probability"


def chance_details(chance: WinChance) -> list[str]:
    """What lies behind chance_line(), one sentence a line: whom the chance assumes in every seat, how well it
    held on games it was not fitted on, what it means against weaker players, what the ± is."""
    out = [("A calibrated chance, " if chance.calibrated else "") + chance.assumes() + "."]
    if chance.calibrated:
        out.append(f"How well it held on games it was not fitted on ({chance.held_text()}).")
        if chance.opponents == "equal":
            out.append("Against weaker players it is too close to 1/n (the number of players): "
                       "the heuristic opponents' map reads it for them (hint --opponents heuristic).")
    out.append(MARGIN_MEANS[:1].upper() + MARGIN_MEANS[1:] + ".")
    return out
