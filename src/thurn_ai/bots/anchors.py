"""Frozen search anchors: named searches whose every option and weights file is pinned, so that a result
measured against them today means the same next year, whatever the defaults become. Strength claims and
adoptions are measured against them (and against `heuristic`, the fixed rule bot).

    anchor-1k        the default `mcts` of November 2026: learned prior (generation 1, half and half with the
                     hand-set one), learned evaluation, PUCT root, 1000 iterations
    anchor-3k        the same at 3000 iterations (three times the compute)
    anchor-10k       the same at 10,000 iterations
    anchor-handset   the hand-set prior's search (learned evaluation), 1000 iterations

A spec names them like any bot (`thurn-ai tournament --bots mcts,anchor-1k`); they take no options. The
weights they read are copies under thurn_ai/learned/anchors/, checked against the SHA-256 pinned here
before the first search.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BotSpecError
from ..fileio import sha256_of
from .mcts import MCTSBot
from .search_options import SearchOptions

FROZEN = Path(__file__).resolve().parent.parent / "learned" / "anchors"

#: every option of the November 2026 default search (SearchOptions' fields), the weights files aside
_DEFAULT_2026_11: dict[str, Any] = {
    "iterations": 1000, "time": None, "c": 1.0, "select": "puct", "prior": 0.8, "temp": 3.0,
    "playout": "heuristic", "eps": 0.05, "horizon": 3, "eval": "learned", "tiles": 1.0, "scale": 8.0,
    "reward": "mixed", "widen": 1.0, "workers": 1, "policy": "learned", "mix": 0.5, "clock": "wall",
    # options added later, pinned at what the anchors always did: a fresh tree and a flat budget everywhere
    "reuse": "none", "planned": "none", "spend": "flat", "draws": 2.0, "hand_prior": "visit",
    "infer": "none", "others": "search",
    "game": None, "game_time": None, "favourite": 0.8,
}
_PRIOR = ("prior_2026_11.json", "27125359df87d2e7e11c0bb165ef52df88f92f085710ed95fb1ab40313c3628d")
_VALUE = ("value_2026_11.json", "a2af28761311a46ed6f2fdfdf685decd8a7bfd9d3958f7d8fea508c8be92221e")


@dataclass(frozen=True)
class Anchor:
    """A frozen search: its bot name, what it is, every search option but the files, and the weights files
    (option -> (file name under learned/anchors/, SHA-256))."""
    name: str
    about: str
    options: dict[str, Any]
    files: dict[str, tuple[str, str]] = field(default_factory=dict)

    def search_options(self) -> SearchOptions:
        """The pinned options, the files as paths of the frozen copies (BotSpecError if one was changed)."""
        paths = {}
        for option, (name, sha256) in self.files.items():
            path = FROZEN / name
            if sha256_of(path) != sha256:
                raise BotSpecError(f"anchor {self.name}: {path.name} is not the pinned file (SHA-256 differs)")
            paths[option] = str(path)
        return SearchOptions(**{**self.options, **paths})


def _default_2026_11(iterations: int) -> dict[str, Any]:
    return {**_DEFAULT_2026_11, "iterations": iterations}


ANCHORS: dict[str, Anchor] = {a.name: a for a in (
    Anchor("anchor-1k", "the default mcts of November 2026, 1000 iterations", _default_2026_11(1000),
           {"pmodel": _PRIOR, "model": _VALUE}),
    Anchor("anchor-3k", "the default mcts of November 2026, 3000 iterations", _default_2026_11(3000),
           {"pmodel": _PRIOR, "model": _VALUE}),
    Anchor("anchor-10k", "the default mcts of November 2026, 10,000 iterations", _default_2026_11(10_000),
           {"pmodel": _PRIOR, "model": _VALUE}),
    Anchor("anchor-handset", "the hand-set prior's search (learned evaluation), 1000 iterations",
           {**_DEFAULT_2026_11, "policy": "handset", "mix": 0.0, "pmodel": None}, {"model": _VALUE}),
)}


class AnchorBot(MCTSBot):
    """An `mcts` whose options are an anchor's, fixed: a spec gives it none."""

    spec_options = frozenset()
    anchor: Anchor

    def __init__(self, seed: int = 0, forbid=frozenset()):
        super().__init__(seed=seed, forbid=forbid)
        self.options = self.anchor.search_options()

    def _defaults_for(self, options: dict) -> dict:
        return {}


def anchor_bots() -> dict[str, type[AnchorBot]]:
    """{name: bot class} of every anchor, for the bot registry."""
    return {name: type(f"AnchorBot_{name.replace('-', '_')}", (AnchorBot,), {"spec": name, "anchor": anchor})
            for name, anchor in ANCHORS.items()}
