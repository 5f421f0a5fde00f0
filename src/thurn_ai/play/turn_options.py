"""Which official this turn: the question a player faces at the start of a turn, answered side by side.

    >>> from thurn_ai.play.turn_options import which_official
    >>> for o in which_official(g, iterations=2000):       # g: a game at the start of a turn
    ...     print(o.option, o.move, o.win_prob, o.mean_score, o.uses_it)

A player may use at most one official a turn. For each choice -- no official this turn, or one official
that can still be used this turn (game.officials.possible_officials) -- a search holds the player to it for
the whole rest of the turn (SearchBot.restrict_turn: that official wherever it is offered and no other, or
none at all); later turns and the other players are free, each side played as well as the search can.

Each option is rated by its best line's first move **re-rated by an independent search** of the same
option with another seed: the first search's most visited move is the best of several noisy means and
reads high, the more so the more moves an option has; the second search's value of that same move does
not. An official's option that its best line never uses (a Cartwright needs a close at the right
length) is a turn without it: `uses_it` is False, and it is not a way to use that official.
The officials study rates recorded games' turns with the same function (studies/officials/turn_choice.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..bots.mcts import NO_OFFICIAL
from ..bots.spec import BotSpec
from ..errors import PositionError
from ..game.officials import possible_officials
from ..game.state import GameState
from .analysis import DEFAULT_SPEC, Turn, analyse
from .match import derive_seed

__all__ = ["TurnOption", "NO_OFFICIAL", "CAVEAT", "check_turn_question", "open_choices", "rate_turn_option",
           "which_official"]

#: What which_official's ratings are, as its own study found (docs/officials.md, "Validation by play"): said
#: wherever they are shown.
CAVEAT = ("These ratings are the search's estimates of each plan, not tested advice: the officials study "
          "(docs/officials.md, 'Validation by play') found that a bot following this kind of rating at every "
          "offer of an official loses to the search's own choices (at 2 players -6.5 points of win rate with "
          "the first rating, -14.2 with an independent re-rating, 2,182 games each). For a move to play, "
          "prefer the recommended turn of a plain `hint`.")

@dataclass(frozen=True)
class TurnOption:
    """One choice for the turn: `option` ('none' or an official), the first move of its best line, that
    move's value re-rated by an independent search (win_prob: a calibrated win chance when `calibrated`,
    else in the evaluation's units; mean_score: expected final score), whether its best line uses the
    official, the recommended rest of the turn, and the first search's own reading (first_win,
    first_score, its visits) beside the re-rating's visits of the move (fresh_visits; 0 -- and nan values
    -- when the second search never tried it)."""
    option: str
    move: str
    win_prob: float
    mean_score: float
    uses_it: bool
    recommended_turn: Turn
    calibrated: bool
    bot: str
    first_win: float
    first_score: float
    visits: int
    fresh_visits: int

    def to_dict(self) -> dict:
        return {"option": self.option, "move": self.move, "win_prob": self.win_prob,
                "mean_score": self.mean_score, "uses_it": self.uses_it,
                "recommended_turn": self.recommended_turn.to_dict(), "win_prob_calibrated": self.calibrated,
                "first_win": self.first_win, "first_score": self.first_score, "visits": self.visits,
                "fresh_visits": self.fresh_visits}


def open_choices(state: GameState) -> tuple[str, ...]:
    """The choices of official still open this turn: no official, and each official that can still be used."""
    return (NO_OFFICIAL, *possible_officials(state))


def rate_turn_option(state: GameState, option: str, bot: BotSpec, seed: int, again_seed: int,
                     iterations: int | None = None, seconds: float | None = None) -> TurnOption:
    """One option of the turn (see the module doc): searched with `seed`, re-rated with `again_seed`."""
    player = state.current_player
    a = analyse(state, player, bot=bot, iterations=iterations, seconds=seconds, seed=seed, turn=option)
    top = max(a.options, key=lambda x: x.visits)
    b = analyse(state, player, bot=bot, iterations=iterations, seconds=seconds, seed=again_seed, turn=option)
    again = next((o for o in b.options if o.notation == top.notation and o.visits > 0), None)
    return TurnOption(option=option, move=top.notation,
                      win_prob=again.win_prob if again else math.nan,
                      mean_score=again.mean_score if again else math.nan,
                      uses_it=option == NO_OFFICIAL or option in a.line_officials,
                      recommended_turn=a.recommended_turn, calibrated=bool(a.calibrated and b.calibrated),
                      bot=str(a.bot), first_win=top.win_prob, first_score=top.mean_score, visits=top.visits,
                      fresh_visits=again.visits if again else 0)


def check_turn_question(state: GameState, player: int | None = None) -> None:
    """PositionError naming why there is no choice of official to make now: the game is over, another seat
    is to move, an empty hand forces the Postmaster, or an official was already used this turn."""
    if state.is_terminal():
        raise PositionError("the game is over: there is no turn to choose an official for")
    if player is not None and player != state.current_player:
        raise PositionError(f"seat {state.current_player} is to move, not seat {player}")
    t = state.turn_state()
    if t.forced_pm:
        raise PositionError("an empty hand forces the Postmaster this turn: there is no official to choose")
    if t.official:
        raise PositionError("an official was already used this turn (one official a turn): ask at the turn's "
                            "start, or at a later decision before one is used")


def which_official(state: GameState, player: int | None = None, bot: BotSpec = DEFAULT_SPEC,
                   iterations: int | None = None, seconds: float | None = None, seed: int = 0,
                   on_rated=None) -> list[TurnOption]:
    """Every choice of official still open this turn for the player to move, best first ('none' always
    among them): options whose best line does not use their official come last. The same arguments give
    the same answer. The budget (iterations or seconds) is each search's: two per choice. PositionError
    when there is no choice (check_turn_question). on_rated(done, total), if given, is called after each
    choice is rated (a progress bar). Read the ratings with CAVEAT: following them did not win in play."""
    check_turn_question(state, player)
    again = derive_seed("which-official", seed)
    choices = open_choices(state)
    out = []
    for o in choices:
        out.append(rate_turn_option(state, o, bot, seed, again, iterations, seconds))
        if on_rated is not None:
            on_rated(len(out), len(choices))
    return sorted(out, key=lambda o: (not o.uses_it, -(o.win_prob if not math.isnan(o.win_prob) else -1.0),
                                      -o.mean_score))
