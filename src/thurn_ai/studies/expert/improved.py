"""The improved policy of Gumbel AlphaZero as the move prior's learning target (Danihelka et al. 2022).

A PUCT teacher's visit shares are mostly its own prior: at 10,000 iterations the exploration term is as large
as the value gaps between siblings, so expert iteration on visit shares has a fixed point near the prior it
started from (docs/expert.md, "A value-based target"). The improved policy reads the teacher's values instead:

    pi'(a) = softmax over the moves of  log prior(a) + sigma(completed Q(a))

- the prior is the teacher's own root prior (`root_logits`: read off a search tree built with the teacher's
  spec, so it is the prior the teacher searched with, whichever that was);
- completed Q is the move's mean reward where the teacher visited it at least `min_visits` times, else the
  mixed value of mctx's `qtransform_completed_by_mix_value`: the root's value and the prior-weighted mean of
  the visited moves' values, weighted 1 : the visits (`completed_values`);
- sigma is the halving root's (`_search.root_score`: Q rescaled to [0, 1] over the completed values, times
  (50 + the most visits) x 0.1), the one definition the search and this target share.

With the teacher's 10,000 iterations the weight is 700-1000 logits a unit of rescaled Q, so the target is nearly
one-hot on the best completed value: the value-best move, not the most-visited one.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ... import _search
from ...bots import make_bot
from ...bots.spec import BotSpec

#: the fewest visits for the teacher's mean reward of a move to count as its value (fit.MIN_VISITS)
MIN_VISITS = 30
#: every root move is a candidate of the tree `root_logits` builds (the search's most)
_ALL_MOVES = 64


def completed_values(logits: np.ndarray, visits: np.ndarray, value: np.ndarray,
                     min_visits: int = MIN_VISITS) -> np.ndarray:
    """Each move's completed Q: its mean reward where visited at least min_visits times, else the mixed value
    (the root's mean reward + N x the prior-weighted mean of the visited moves' values) / (1 + N), N the
    visits of all moves. Where no move is visited that often, every move gets the root's mean reward."""
    visits = np.asarray(visits, dtype=float)
    value = np.asarray(value, dtype=float)
    total = visits.sum()
    root = float(visits @ value / total) if total > 0 else 0.0
    seen = visits >= max(min_visits, 1)
    if not seen.any():
        return np.full(len(value), root)
    prior = np.exp(np.asarray(logits, dtype=float) - np.max(logits))
    w = np.where(seen, prior, 0.0)
    weighted = float(w @ value / w.sum()) if w.sum() > 0 else float(value[seen].mean())
    mixed = (root + total * weighted) / (1.0 + total)
    return np.where(seen, value, mixed)


def improved_policy(logits, visits, value, min_visits: int = MIN_VISITS) -> np.ndarray:
    """softmax(logits + sigma(completed Q)) over one decision's moves: `logits` the teacher's log prior,
    `visits` and `value` its visits and mean rewards, all in the same order."""
    logits = np.asarray(logits, dtype=float)
    q = completed_values(logits, visits, value, min_visits)
    lo, hi, most = float(q.min()), float(q.max()), float(np.max(visits))
    score = np.array([_search.root_score(float(x), float(v), lo, hi, most) for x, v in zip(logits, q)])
    e = np.exp(score - score.max())
    return e / e.sum()


def root_logits(teacher: str | BotSpec, state, seed: int = 0) -> dict[int, float]:
    """{move: log prior} of the teacher's root at `state` (the player to move's information set): the prior
    the search `teacher` (an mcts spec) gives the root's moves, read off a tree built with it."""
    spec = BotSpec.parse(teacher).with_(root="halving", candidates=_ALL_MOVES)
    bot = make_bot(spec, seed)
    tree = bot._tree(state, seed, ismcts=True)
    tree.run(1)               # the candidates are set up by the first iteration
    return {int(m): float(lp) for m, lp, _ in tree.root_candidates()}


def logits_in_order(prior: dict[int, float], moves) -> np.ndarray:
    """The log priors of `moves` in their order; a move the root did not list gets the lowest minus one (as
    the search's arena does for a move seen only in a later determinization)."""
    low = min(prior.values(), default=0.0) - 1.0
    return np.array([prior.get(int(m), low) for m in moves], dtype=float)


def teacher_spec(meta: dict, folder) -> BotSpec:
    """The teacher spec of a teacher data folder's description (teacher.json), with a relative `pmodel` file
    found from the working folder or one of the data folder's parents (the data sets name it from the
    repository's root)."""
    spec = BotSpec.parse(meta["teacher"])
    pmodel = spec.option("pmodel")
    if pmodel and not Path(pmodel).is_absolute():
        for base in (Path.cwd(), *Path(folder).resolve().parents):
            if (base / pmodel).exists():
                return spec.with_(pmodel=str(base / pmodel))
    return spec
