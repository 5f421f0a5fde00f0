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

from dataclasses import dataclass

from ..bots.base import Searcher
from ..bots.default_search import identity_differences, search_identity
from ..bots.spec import BotSpec, make_bot
from ..learned.win_map import OPPONENTS, WinMap, WinMapError, win_map_for

#: what an uncalibrated share is, by why there is no calibrated chance
NOT_A_PROBABILITY = "not a probability: the search's win share in the hand-set evaluation's units"


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
                "held_text": self.held_text() or None}


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
