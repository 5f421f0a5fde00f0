"""The field: frozen reference bots that play differently, the yardstick a league rates a bot against
(thurn_ai.play.league; docs/league.md). Each name means one fixed way of playing, never weakened or retuned:
a rating in the field today means the same next year.

    >>> from thurn_ai.bots.field import FIELD, FIELD_SPECS
    >>> FIELD_SPECS[:3]
    ('heuristic', 'racer', 'closer')
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FieldBot:
    """One bot of the field: its spec and what it plays for (one line, as docs/bots.md lists it)."""
    spec: str
    plays_for: str
    search: bool = False        # a search (seconds a game) rather than a rule bot (milliseconds)


FIELD: tuple[FieldBot, ...] = (
    FieldBot("heuristic", "houses and tiles: plans routes from the cards in hand, never races for the 7-carriage"),
    FieldBot("racer", "the end: climbs the carriages and takes the 7-carriage when that leaves it ahead"),
    FieldBot("closer", "tempo: closes every route at 4 cards"),
    FieldBot("greedy", "the move in front of it: one immediate evaluation a decision, no plan"),
    FieldBot("pimc", "a search that sees a sampled deal as if it were open (determinized UCT, 1000 iterations)",
             search=True),
    FieldBot("anchor-handset", "the search with the hand-set move prior (1000 iterations)", search=True),
    FieldBot("anchor-1k", "the default search of November 2026 (1000 iterations)", search=True),
    FieldBot("anchor-3k", "the same search with three times the compute (3000 iterations)", search=True),
)
#: the field's specs, in FIELD's order
FIELD_SPECS: tuple[str, ...] = tuple(b.spec for b in FIELD)
#: the bot a league's ratings are anchored to (rated 0)
FIELD_ANCHOR = "heuristic"
