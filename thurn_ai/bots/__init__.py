"""Bots: one algorithm a module; made from spec strings by make_bot()."""
from .base import Bot, Observation
from .spec import known_bots, make_bot, parse_spec, split_specs

__all__ = ["Bot", "Observation", "make_bot", "parse_spec", "split_specs", "known_bots"]
