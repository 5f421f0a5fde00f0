"""A budget for a bot's whole game, spent decision by decision as a chess engine spends its clock
(`spend=game`, docs/search-budget.md).

The bank holds what is left of the game's budget (`game=` iterations, or `game_time=` seconds). Each searched
decision gets an allotment: the bank divided by the searched decisions expected still to come (estimated from
the position: `decisions_left`), weighted by phase (a draw gets `draws` times a play), at least a floor while the
bank lasts and at most a cap of the bank. What a search does not spend (it stopped early) stays in the bank.
The arithmetic is plain functions of plain values, so it is tested on constructed numbers
(tests/core/test_search_time.py); `GameClock` is the bank a bot keeps through one game.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..game.notation import move_kind

#: Searched decisions of the seat still to come, counting the one at hand, as a linear function of the position:
#: (constant, own turns played, fewest houses left of any player, mean houses left, the longest carriage's
#: index (-1: none yet)), for each `planned` choice (with planned=houses the houses and the Cartwright are not
#: searched). Least squares over every searched decision of `mcts` and `anchor-1k` in the league's recorded
#: games (results/league/games, 2-4 players); fit and error: experiments/time_manager.py --part estimate,
#: results/time_manager/README.md.
DECISIONS_LEFT = {
    "houses": (71.67, -2.36, -0.65, 0.40, -5.39),
    "none": (76.10, -2.58, -0.29, 0.73, -5.83),
}
#: once the game's end is triggered (the round finishes) the seat's turn at hand is its last: the searched
#: decisions left in it, on average in the same games
DECISIONS_LEFT_AT_END = {"houses": 1.93, "none": 2.49}
#: the share of searched decisions that offer a draw (same games): what a draw's weight adds to the decisions left
DRAW_SHARE = {"houses": 0.576, "none": 0.455}
#: the estimate never goes below this many decisions before the end is triggered (a game can run longer than
#: the fit's average game)
MIN_DECISIONS_LEFT = 2.0

#: a searched decision gets at least this fraction of the game's even share (the budget over the decisions
#: expected at the first search), while the bank lasts; the decisions expected after it keep as much each
FLOOR = 0.25
#: and at most this fraction of the bank: one decision cannot take most of the rest
CAP = 0.5
#: the clear-favourite stop applies once this fraction of a decision's allotment is spent
FAVOURITE_AFTER = 0.25
#: the least share of its allotment a search is taken to use: the allotments grow by at most 1 / MIN_USAGE
MIN_USAGE = 0.25


def decisions_left(state, planned: str) -> float:
    """The seat to move's searched decisions expected from `state` to the end of the game, the one at hand
    included (at least 1)."""
    e = state.export()
    if e["end_triggered"]:
        return max(1.0, DECISIONS_LEFT_AT_END[planned])
    houses_left = e["houses_left"]
    c, per_turn, fewest, mean, carriage = DECISIONS_LEFT[planned]
    left = (c + per_turn * (state.turn // state.n_players) + fewest * min(houses_left)
            + mean * sum(houses_left) / len(houses_left) + carriage * max(e["carriage"]))
    return max(MIN_DECISIONS_LEFT, left)


def offers_draw(state) -> bool:
    """Whether the decision at `state` is a draw: the draw phase, or a card play where the Postmaster offers
    the turn's extra draw."""
    return state.phase == "draw" or any(move_kind(m) == "draw" for m in state.legal_moves())


def mean_weight(draws: float, planned: str) -> float:
    """The mean phase weight of a searched decision: a draw (offers_draw) weighs `draws`, the others 1."""
    return DRAW_SHARE[planned] * draws + 1.0 - DRAW_SHARE[planned]


def usage(spent: float, allotted: float) -> float:
    """The share of their allotments the game's searches have used so far (they stop early; with reuse= the
    visits carried over are free), at least MIN_USAGE; 1 before any search."""
    if allotted <= 0:
        return 1.0
    return min(1.0, max(MIN_USAGE, spent / allotted))


def allotment(bank: float, left: float, weight: float, mean: float, floor: float, used: float = 1.0,
              cap: float = CAP) -> float:
    """What a decision of phase weight `weight` gets from `bank` with `left` searched decisions expected (it
    included; their mean weight `mean`), when searches use the share `used` of what they are given: its
    weighted share of the bank over `used`; at most `cap` of the bank and no more than leaves `floor` for each
    decision expected after it; at least `floor`; never more than the bank."""
    if bank <= 0:
        return 0.0
    left = max(left, 1.0)
    share = bank * weight / (left * mean * used)
    upper = min(cap * bank, bank - floor * (left - 1.0))
    return min(bank, max(floor, min(share, upper)))


@dataclass
class GameClock:
    """The bank of one seat's game: `budget` (iterations or seconds) and what is left of it. `floor` is fixed
    at the first search, from the decisions then expected."""

    budget: float
    bank: float
    floor: float
    seat: int
    players: int
    turn: int = 0
    houses: int = 0          # the seat's houses placed: a game's are never taken back
    spent: float = 0.0
    allotted: float = 0.0    # what the searches so far were given (their usage: spent / allotted)
    searches: int = 0

    @classmethod
    def start(cls, budget: float, state, planned: str) -> "GameClock":
        floor = FLOOR * budget / decisions_left(state, planned)
        seat = state.current_player
        return cls(budget=budget, bank=budget, floor=floor, seat=seat, players=state.n_players,
                   turn=state.turn, houses=_houses(state, seat))

    def same_game(self, state) -> bool:
        """Whether `state` can be a later position of this clock's game: the same seat and players, the turn
        not gone back, none of the seat's houses gone (a bot reused for a new game starts a new clock)."""
        return (state.current_player == self.seat and state.n_players == self.players
                and state.turn >= self.turn and _houses(state, self.seat) >= self.houses)

    def allot(self, state, planned: str, draws: float) -> float:
        """The allotment of the decision at `state` (0: the bank is empty)."""
        weight = draws if offers_draw(state) else 1.0
        return allotment(self.bank, decisions_left(state, planned), weight, mean_weight(draws, planned),
                         self.floor, usage(self.spent, self.allotted))

    def spend(self, state, allotted: float, amount: float) -> None:
        """Take what a search at `state`, given `allotted`, spent out of the bank."""
        self.turn = state.turn
        self.houses = _houses(state, self.seat)
        self.bank -= amount
        self.spent += amount
        self.allotted += allotted
        self.searches += 1


def _houses(state, seat: int) -> int:
    return len(state.export()["houses"][seat])
