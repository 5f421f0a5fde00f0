"""Two frozen variants of `heuristic` that contest the end of the game, for the field (bots/field.py).

    racer    heads for the 7-carriage: every carriage a close takes is worth RACE_BONUS points more to its
             plans, it closes as soon as the route takes the next carriage, and one close from the last
             carriage it ends the game when that leaves it ahead (never when behind)
    closer   closes every route at CLOSE_AT cards (`heuristic(close_at=4)`, named and frozen)

`heuristic` never takes a 7-carriage (review 6: none in 31,252 seat-games against searches), so a win against
it mostly measures how often a search ends the game on its terms; these two make the field race back.
Both take no options (forbid= aside): a name means one fixed way of playing, so a rating against it today
means the same next year. Deterministic like `heuristic`; `heuristic` itself is not changed by them.
"""
from __future__ import annotations

from ..game.rules import CARTWRIGHT_REACH, MIN_CLOSE
from .features import View
from .heuristic import HeuristicBot, Planner

#: points a close is worth more to the racer for each carriage it takes (a carriage is 1 point on the
#: board; the race is worth more: it brings the end, and the game-end tile, nearer)
RACE_BONUS = 2.0
#: points the racer adds to a close that takes the last carriage while that leaves it ahead
END_BONUS = 10.0
#: the closer's route length
CLOSE_AT = 4


class RacerPlanner(Planner):
    """heuristic's planner with carriages worth more, and the end taken when ahead."""

    def _turns_left(self) -> int:
        """As heuristic's, but the racer's own reach of the last carriage does not shorten its horizon: it
        means to end the game itself, on a route long enough to leave it ahead (heuristic would close short
        routes, expecting the end)."""
        v = self.v
        if v.end_triggered:
            return 0
        best = 99
        cars = v.info.carriages
        for o in range(v.n_players):
            route_len = len(v.routes[o])
            if o != v.p and cars and v.carriage_by_player[o] == len(cars) - 2:
                best = min(best, max(1, max(cars[-1][0] - CARTWRIGHT_REACH, MIN_CLOSE) - route_len))
            if v.houses_left_by_player[o] <= MIN_CLOSE:
                best = min(best, max(1, MIN_CLOSE - route_len))
        return best

    def ends_game(self, length: int, cartwright: bool) -> bool:
        """Whether closing a route of this length takes the last carriage (the end of the game)."""
        v = self.v
        cars = v.info.carriages
        return (bool(cars) and v.carriage + 1 == len(cars) - 1
                and v.carriage_gain(length, cartwright and self.cartwright_ok) > 0)

    def ahead_after_end(self, rmask: int, length: int, cartwright: bool) -> bool:
        """Closing this route (its houses, tiles, the last carriage and the game-end tile) leaves the player
        not behind anyone's score of now."""
        v = self.v
        mine = v.scores[v.p] + super().route_close_value(rmask, length, cartwright) + 1
        return mine >= max(s for o, s in enumerate(v.scores) if o != v.p)

    def race_bonus(self, rmask: int, length: int, cartwright: bool) -> float:
        v = self.v
        if v.carriage_gain(length, cartwright and self.cartwright_ok) <= 0:
            return 0.0
        if self.ends_game(length, cartwright):
            return RACE_BONUS + END_BONUS if self.ahead_after_end(rmask, length, cartwright) else -END_BONUS
        return RACE_BONUS

    def route_close_value(self, rmask: int, length: int, cartwright: bool) -> float:
        return super().route_close_value(rmask, length, cartwright) + self.race_bonus(rmask, length, cartwright)

    def close_value(self) -> float:
        v = self.v
        return super().close_value() + self.race_bonus(v.route_mask, len(v.route), v.official == 0)

    def _should_close_now(self) -> bool:
        if super()._should_close_now():
            return True
        v = self.v
        length, cartwright = len(v.route), v.official == 0
        # the last carriage in reach and the close leaves the racer ahead: end the game now
        return self.ends_game(length, cartwright) and self.race_bonus(v.route_mask, length, cartwright) > 0


class RacerBot(HeuristicBot):
    """`heuristic` that races for the 7-carriage and ends the game when ahead (module doc)."""

    spec = "racer"

    def __init__(self, seed: int = 0, forbid=frozenset()):
        super().__init__(seed=seed, forbid=forbid)

    def planner(self, view: View) -> Planner:
        return RacerPlanner(view, self)


class CloserBot(HeuristicBot):
    """`heuristic` that closes every route at CLOSE_AT cards (module doc)."""

    spec = "closer"

    def __init__(self, seed: int = 0, forbid=frozenset()):
        super().__init__(seed=seed, forbid=forbid, close_at=CLOSE_AT)
