"""Bots: one algorithm a module; made from specs (text, or BotSpec values) by make_bot()."""
from .base import Bot, Observation
from .spec import ENTRY_POINT_GROUP, BotSpec, known_bots, load_bot_module, make_bot, parse_spec, register, split_specs

__all__ = ["Bot", "Observation", "BotSpec", "make_bot", "parse_spec", "split_specs", "known_bots", "register",
           "load_bot_module", "ENTRY_POINT_GROUP"]
