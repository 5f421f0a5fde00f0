"""Exceptions raised by thurn-ai. Each carries one message meant for a person."""
import difflib


def did_you_mean(word: str, known) -> str:
    """' (did you mean 'mcts'?)' for a mistyped name among `known`, or '' when none is close."""
    close = difflib.get_close_matches(str(word).lower(), [str(k) for k in known], n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


class ThurnError(ValueError):
    """Base class: bad input a user can fix (the CLI prints it without a traceback)."""


class BoardError(ThurnError):
    """A board file is malformed or inconsistent."""


class RulesError(ThurnError):
    """An impossible rule combination (e.g. the horses variant on a board without horses)."""


class NotationError(ThurnError):
    """A move or city name that cannot be parsed."""


class IllegalMoveError(ThurnError):
    """A well-formed move that is not legal in the position."""


class PositionError(ThurnError):
    """A position file that is malformed or describes an impossible position. `problems`: each problem
    found, as thurn_ai.position.Problem values (kind, field, message); empty when the file could not be
    read at all (the message says why)."""

    def __init__(self, message: str, problems: tuple | list = ()):
        super().__init__(message)
        self.problems = tuple(problems)


class BotSpecError(ThurnError):
    """A bot specification string that cannot be understood."""


class TournamentError(ThurnError):
    """Impossible tournament settings, an output folder that cannot be used or resumed, or a worker backend
    (a Dask scheduler) that cannot be reached."""


class BotFailure(ThurnError):
    """A plugin bot (one not of this package) failed while playing: its choose() raised or exited."""
