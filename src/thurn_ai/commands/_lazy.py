"""A module imported on first use, so that a command's --help (and `thurn-ai --help`) does not import
pandas, scipy or matplotlib through it."""
from __future__ import annotations

import importlib


class LazyModule:
    """Stands for the module `name`; the first attribute looked up imports it."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)
