"""The map from a search's win share to a calibrated win chance: the number the hint shows.

A search with the learned evaluation reports, for each move, the mean of its iterations' outcomes (a
playout cut at the horizon counts the model's win chance). For the best move that mean is not yet a
probability: the best move is the one the search liked most, so its mean is biased upwards, and a few
thousand iterations blur a sharp position. The hint therefore shows
    logit(chance) = a + (b0 + b1 * t) * logit(share)
with t the game's progress (0 at the start, 1 at the end) and one (a, b0, b1) per player count, fitted by
maximum likelihood to how held-out games ended (`python experiments/calibrate.py` refits both maps for the
default search; the shipped ones came from `python experiments/learned_value.py --part calibrate`).

A map knows its search: `meta["search"]` (the spec, every option written out), `meta["identity"]` (every
option but the budget and the SHA-256 of the weights files: thurn_ai.bots.default_search.search_identity),
`meta["budget"]`, `meta["seats"]` (who played the games it was fitted on) and `meta["held"]` (per player
count, how its chance held out of fold: slope, intercept, ECE). thurn_ai.play.win_chance reads a search's
share through it calibrated only when the identities match; another budget gets the same map, which was not
measured there.

Whom the chance assumes: the shipped map (win_map.json) is fitted on a mixture that is mostly self-play,
so its chance holds among equal players; against weaker opponents it is too close to 1/n. A second map
(win_map_heuristic.json, `OPPONENTS`) assumes the player to move plays like the search and every other
seat is the `heuristic` bot: the shipped map shifted by one logit shift for all player counts, fitted on
held-out games of that kind (`python experiments/learned_value.py --part opponents`; the report says why
one shift and not a map per player count).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ThurnError
from ..fileio import atomic_write_text, load_json, short_repr
from ..game.rules import PLAYER_COUNTS, player_counts_text

#: the map shipped with the package: a chance among equal players (every seat plays like the search)
DEFAULT_PATH = Path(__file__).with_name("win_map.json")
#: the second map: the player to move plays like the search, every other seat is the `heuristic` bot
#: (the shipped map shifted in logit, fitted on held-out games of that kind; docs/learned.md)
HEURISTIC_PATH = Path(__file__).with_name("win_map_heuristic.json")
#: whom a map's chance assumes: name -> (file, what the chance assumes, in words)
OPPONENTS = {
    "equal": (DEFAULT_PATH, "among equal players: every seat plays like the search"),
    "heuristic": (HEURISTIC_PATH, "you play like the search, every other seat is the rule-based heuristic bot"),
}
FORMAT = "thurn-ai win map"
#: the largest size of a map's parameter: logit coefficients; beyond, the chance is 0 or 1 everywhere
#: (1e308 would overflow to inf)
MAX_PARAM = 100.0
_EDGE = 1e-4          # shares of exactly 0 or 1 (a decided game) have no logit


class WinMapError(ThurnError):
    """A win-map file that cannot be used."""


def _logit(p) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=float), _EDGE, 1 - _EDGE)
    return np.log(p / (1 - p))


def _design(share, progress) -> np.ndarray:
    """Columns (1, logit(share), t * logit(share)): the map is linear in (a, b0, b1) on them."""
    x = _logit(share)
    t = np.asarray(progress, dtype=float)
    return np.stack([np.ones_like(x), x, t * x], axis=-1)


@dataclass(frozen=True)
class WinMap:
    params: dict                     # players -> (a, b0, b1)
    meta: dict = field(default_factory=dict)

    def has(self, players: int) -> bool:
        return players in self.params

    def chance(self, share, progress, players: int):
        """The calibrated win chance for a search's win share (scalars or arrays) at a game progress."""
        if players not in self.params:
            raise WinMapError(f"the win map has no parameters for {players} players")
        z = _design(share, progress) @ np.asarray(self.params[players])
        out = 1 / (1 + np.exp(-z))
        return float(out) if np.ndim(out) == 0 else out

    # ---- what the map was fitted for (its meta; maps fitted before they recorded it name none)

    @property
    def search(self) -> str | None:
        """The spec of the search whose win shares the map was fitted to (every option written out)."""
        return self.meta.get("search")

    @property
    def identity(self) -> dict | None:
        """That search's identity (thurn_ai.bots.default_search.search_identity: every option but the budget,
        the SHA-256 of its weights files): a search with another identity reads the map uncalibrated."""
        return self.meta.get("identity")

    @property
    def seats(self) -> str:
        """Whom the chance assumes in every seat, in words: who played the games the map was fitted on."""
        return str(self.meta.get("seats") or "not recorded")

    def held(self, players: int) -> dict | None:
        """How the chance held out of fold at this player count (slope and its interval, intercept, ECE,
        games, positions, where it was measured), or None when it was not measured."""
        return (self.meta.get("held") or {}).get(str(players))

    def shifted(self, shift: float, meta: dict | None = None) -> "WinMap":
        """This map with `shift` added to every logit (the same shift at every player count):
        logit(chance') = logit(chance) + shift, still of the form a + (b0 + b1 t) logit(share)."""
        return WinMap(params={n: (a + float(shift), b0, b1) for n, (a, b0, b1) in self.params.items()},
                      meta=dict(meta or {}))

    @classmethod
    def fit(cls, share, won, progress, players, meta: dict | None = None) -> "WinMap":
        """Maximum-likelihood (a, b0, b1) for each player count in `players` (arrays of one length)."""
        from scipy.optimize import minimize

        share, won = np.asarray(share, float), np.asarray(won, float)
        progress, players = np.asarray(progress, float), np.asarray(players)
        params = {}
        for n in np.unique(players):
            m = players == n
            x, y = _design(share[m], progress[m]), won[m]

            def loss(w, x=x, y=y):
                z = x @ w
                # log(1 + e^z) - y z, and its gradient, stable for large |z|
                return float((np.logaddexp(0, z) - y * z).mean()), x.T @ (1 / (1 + np.exp(-z)) - y) / len(y)

            res = minimize(loss, np.array([0.0, 1.0, 0.0]), jac=True, method="L-BFGS-B")
            params[int(n)] = tuple(float(v) for v in res.x)
        return cls(params=params, meta=dict(meta or {}))

    # ---- file

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": 1, "form": "logit(chance) = a + (b0 + b1 t) logit(share)",
                "params": {str(n): list(p) for n, p in sorted(self.params.items())}, "meta": self.meta}

    def save(self, path=None) -> None:
        atomic_write_text(Path(path) if path is not None else DEFAULT_PATH,
                          json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, d) -> "WinMap":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise WinMapError("not a thurn-ai win map")
        if d.get("version", 1) != 1:
            raise WinMapError(f"win map version {d.get('version')!r}: this thurn-ai reads version 1")
        raw, meta = d.get("params") or {}, d.get("meta") or {}
        if not isinstance(raw, dict) or not isinstance(meta, dict):
            raise WinMapError("a win map's params and meta are objects")
        params = {}
        for key, p in raw.items():
            try:
                n = int(key)
                if not isinstance(p, list) or any(isinstance(v, (bool, str)) for v in p):
                    raise TypeError
                p = tuple(float(v) for v in p)
            except (TypeError, ValueError, OverflowError):
                raise WinMapError(f"win map for {short_repr(key)} players: malformed parameters") from None
            if n not in PLAYER_COUNTS:
                raise WinMapError(f"win map for {short_repr(key)} players: a game has {player_counts_text()} players")
            if len(p) != 3 or not (np.abs(p) <= MAX_PARAM).all():
                raise WinMapError(f"win map for {n} players: needs three numbers (a, b0, b1) of at most "
                                  f"{MAX_PARAM:g} in size")
            params[n] = p
        if not params:
            raise WinMapError("the win map holds no parameters")
        return cls(params=params, meta=dict(meta))

    @classmethod
    def load(cls, path=None) -> "WinMap":
        """The map in a file (default: the one shipped with the package)."""
        return cls.from_dict(load_json(Path(path) if path is not None else DEFAULT_PATH, "win map", WinMapError))


_loaded: dict = {}


def opponents_names() -> tuple:
    return tuple(OPPONENTS)


def win_map_for(opponents: str = "equal") -> WinMap | None:
    """The shipped map whose chance assumes these opponents (OPPONENTS: 'equal' or 'heuristic'), read
    once; None when its file has not been fitted. An unknown name is a WinMapError."""
    if opponents not in OPPONENTS:
        raise WinMapError(f"unknown opponents {opponents!r}: one of {', '.join(OPPONENTS)}")
    if opponents not in _loaded:
        path = OPPONENTS[opponents][0]
        if not path.exists():
            return None
        _loaded[opponents] = WinMap.load(path)
    return _loaded[opponents]


def assumes(opponents: str = "equal") -> str:
    """Whom the chance of that map assumes, in words."""
    if opponents not in OPPONENTS:
        raise WinMapError(f"unknown opponents {opponents!r}: one of {', '.join(OPPONENTS)}")
    return OPPONENTS[opponents][1]


def default_win_map() -> WinMap | None:
    """The shipped map (among equal players), read once; None before one has been fitted."""
    return win_map_for("equal")
