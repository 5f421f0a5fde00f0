"""What the learned evaluation reads of a position: a few numbers per player and how far the game is.

The numbers are computed in compiled code (cext/thurn_ai/_policy_learned.pxi, value_features) so the search can
use them at every leaf; this module names them and builds the model's inputs from them with numpy.
Each feature's weight moves linearly from the start of the game (progress 0) to its end (progress 1), so
the model's terms are every feature times (1 - progress) and times progress (`terms`).
"""
from __future__ import annotations

import numpy as np

from .. import _policy

#: the features, in the compiled order (value_features); "points" are victory points
FEATURES = (
    "score",           # points now (carriage, tiles, minus one a house not yet placed)
    "route_promise",   # what the route in progress promises by the hand-set rule (houses, next carriage)
    "plan_promise",    # what the planner expects from the route and the hand (the plan evaluation)
    "tile_potential",  # progress toward province tiles still open: top value x (share held)^2
    "route_length",    # cards in the route in progress
    "hand",            # cards in hand
    "houses_left",     # houses not yet placed
    "carriages",       # carriages taken (0 before the first)
    "to_move",         # 1 for the player whose turn it is
    "yet_to_move",     # 1 for a player after the mover in this round (one turn fewer taken so far)
    "done",            # 1 for a player whose last turn is over in the final round
    "horses",          # horses laid on the route (horses variant; 0 otherwise)
    "route_tiles",     # progress toward a route-length tile: best over lengths k of its value x (cards / k)^2
)
N_FEATURES = len(FEATURES)
N_TERMS = 2 * N_FEATURES


def position_features(state) -> tuple[float, np.ndarray]:
    """(progress 0-1, features as an array players x N_FEATURES) for a position."""
    progress, rows = _policy.value_features_of(state)
    return progress, np.asarray(rows, dtype=float)


def terms(features: np.ndarray, progress) -> np.ndarray:
    """The model's inputs: for features (..., players, N_FEATURES) and progress (...), each feature
    times (1 - progress) and times progress, interleaved (..., players, N_TERMS)."""
    f = np.asarray(features, dtype=float)
    t = np.asarray(progress, dtype=float)[..., None, None]
    out = np.empty(f.shape[:-1] + (N_TERMS,))
    out[..., 0::2] = f * (1.0 - t)
    out[..., 1::2] = f * t
    return out
