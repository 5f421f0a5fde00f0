"""Kept for code that imported the officials from the bots package: they are a game fact and live in
thurn_ai.game.officials."""
from ..game.officials import OFFICIALS, official_of  # noqa: F401
