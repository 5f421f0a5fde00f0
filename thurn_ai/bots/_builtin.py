"""Registers the built-in bots beyond 'random'. Each bot module is one algorithm."""
from .spec import register

# Bots are added here as they are written: register("greedy", GreedyBot), ...
