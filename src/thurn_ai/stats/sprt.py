"""The sequential probability ratio test on paired games: the statistics alone (the games: studies/sprt.py).

One observation is one deal, scored as a paired difference d in [-1, 1]: how much more the focus seat won with
the candidate in it than with the baseline in it, on the same deal (2 players: the two games of a pair, the
bots' seats swapped, as Fishtest's pentanomial game pairs; 3-4 players: the candidate's game and the
baseline's game against the same opponents). The hypotheses are on the mean of d, in points (100 x):

    H0: mean d = elo0          (e.g. 0: no better)
    H1: mean d = elo1          (e.g. +3 points)

The log-likelihood ratio is the generalized SPRT of Fishtest's pentanomial model, exact for any discrete d:
under each hypothesis the distribution over the values seen is the maximum-likelihood one whose mean is the
hypothesis's (a constrained multinomial MLE: p_i = q_i / (1 + lambda (a_i - mu)), lambda solving the secular
equation sum_i q_i (a_i - mu) / (1 + lambda (a_i - mu)) = 0), and LLR = N sum_i q_i log(p1_i / p0_i). A small
pseudo-count at -1 and +1 keeps both means inside the values seen. Wald's bounds: the test accepts H1 when
LLR >= log((1 - beta) / alpha), accepts H0 when LLR <= log(beta / (1 - alpha)), else goes on.

    >>> t = SPRT(elo0=0, elo1=3, alpha=0.05, beta=0.05)
    >>> t.status([1, 0, -1, 1]).verdict
    'continue'

Every function takes arrays of counts with a leading batch axis as well, so a simulation runs thousands of
tests at once (simulate()).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

#: the pseudo-count added at each end of [-1, 1] (Fishtest regularises empty pentanomial cells alike)
PSEUDO = 1e-3
#: the values a paired difference takes are multiples of 1/12 (shares of 1, 1/2, 1/3, 1/4 and their differences)
GRID = 12
SUPPORT = np.arange(-GRID, GRID + 1) / GRID


def counts_of(diffs) -> np.ndarray:
    """Counts of paired differences on SUPPORT (values rounded to the nearest multiple of 1/GRID)."""
    d = np.asarray(diffs, dtype=float)
    if d.size and (np.abs(d) > 1 + 1e-9).any():
        raise ValueError("a paired difference lies in [-1, 1]")
    idx = np.rint(d * GRID).astype(int) + GRID
    return np.bincount(idx, minlength=len(SUPPORT)).astype(float)


def _constrained_mle(q: np.ndarray, mu) -> np.ndarray:
    """The distribution on SUPPORT nearest q (in likelihood) with mean mu: q_i / (1 + lam (a_i - mu)).

    q: (..., K) frequencies (rows sum to 1, positive at both ends); mu: scalar. The secular function is
    decreasing in lam on (-1/(1 - mu), 1/(1 + mu)) (the range where every weight stays positive), so its
    root is found by bisection, all rows at once."""
    a = SUPPORT - mu
    lo = np.full(q.shape[:-1], -1.0 / (1.0 - mu))
    hi = np.full(q.shape[:-1], 1.0 / (1.0 + mu))
    for _ in range(64):
        lam = (lo + hi) / 2
        f = (q * a / (1 + lam[..., None] * a)).sum(-1)
        lo = np.where(f > 0, lam, lo)
        hi = np.where(f > 0, hi, lam)
    lam = (lo + hi) / 2
    p = q / (1 + lam[..., None] * a)
    return p / p.sum(-1, keepdims=True)


def llr(counts, elo0: float, elo1: float) -> np.ndarray:
    """The generalized log-likelihood ratio of H1 (mean d = elo1 points) against H0 (elo0) for counts on
    SUPPORT, shape (K,) or (..., K)."""
    c = np.asarray(counts, dtype=float)
    n = c.sum(-1)
    reg = c.copy()
    reg[..., 0] += PSEUDO
    reg[..., -1] += PSEUDO
    q = reg / reg.sum(-1, keepdims=True)
    p0 = _constrained_mle(q, elo0 / 100)
    p1 = _constrained_mle(q, elo1 / 100)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(q > 0, q * np.log(p1 / p0), 0.0)
    return n * terms.sum(-1)


@dataclass(frozen=True)
class Status:
    """Where a test stands after `n` deals: its LLR, Wald's bounds and what it says."""
    n: int
    llr: float
    lower: float
    upper: float
    verdict: str          # 'accept H1', 'accept H0', 'continue' or 'truncated'
    mean: float           # the mean paired difference, points
    ci: tuple[float, float]   # its 95% t interval (naive: a sequential test's stopping biases it)


@dataclass(frozen=True)
class SPRT:
    """A test declared before its games: the bounds on the mean paired difference (points), the error
    rates, and how often it looks (every `batch` deals) and when it gives up (`max_deals`, None: never)."""
    elo0: float = 0.0
    elo1: float = 3.0
    alpha: float = 0.05
    beta: float = 0.05
    batch: int = 1
    max_deals: int | None = None

    def __post_init__(self):
        if not (-100 < self.elo0 < self.elo1 < 100):
            raise ValueError(f"the bounds need -100 < elo0 < elo1 < 100 points, not [{self.elo0}, {self.elo1}]")
        for name in ("alpha", "beta"):
            x = getattr(self, name)
            if not 0 < x < 0.5:
                raise ValueError(f"{name} must lie in (0, 0.5), not {x}")
        if not isinstance(self.batch, int) or self.batch < 1:
            raise ValueError(f"batch must be a positive whole number, not {self.batch!r}")
        if self.max_deals is not None and (not isinstance(self.max_deals, int) or self.max_deals < self.batch
                                           or self.max_deals % self.batch):
            raise ValueError(f"max_deals must be a whole multiple of batch ({self.batch}), not {self.max_deals!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) LLR bounds."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def to_dict(self) -> dict:
        return asdict(self)

    def looks(self, n: int) -> list[int]:
        """The deal counts at which the test looks, up to n deals."""
        return list(range(self.batch, n + 1, self.batch))

    def status(self, diffs) -> Status:
        """The test run over these paired differences in order: it stops at the first look whose LLR
        crosses a bound (later deals are ignored); 'truncated' at max_deals without a crossing."""
        d = np.asarray(diffs, dtype=float)
        lower, upper = self.bounds
        last = 0
        value = 0.0
        for n in self.looks(len(d)):
            last = n
            value = float(llr(counts_of(d[:n]), self.elo0, self.elo1))
            if value >= upper or value <= lower:
                return self._status(d[:n], value, "accept H1" if value >= upper else "accept H0")
            if self.max_deals is not None and n >= self.max_deals:
                return self._status(d[:n], value, "truncated")
        return self._status(d[:last] if last else d[:0], value, "continue")

    def _status(self, d, value: float, verdict: str) -> Status:
        lower, upper = self.bounds
        return Status(n=len(d), llr=value, lower=lower, upper=upper, verdict=verdict,
                      mean=100 * float(d.mean()) if len(d) else 0.0, ci=mean_interval(d))


def mean_interval(d, level: float = 0.95) -> tuple[float, float]:
    """The t interval of the mean paired difference, points (nan with fewer than 2 deals)."""
    d = np.asarray(d, dtype=float)
    if len(d) < 2:
        return (math.nan, math.nan)
    from statsmodels.stats.weightstats import DescrStatsW
    lo, hi = DescrStatsW(d).tconfint_mean(alpha=1 - level)
    return (100 * float(lo), 100 * float(hi))


def verdict_line(test: SPRT, status: Status, candidate: str, baseline: str) -> str:
    """What a person reads: the verdict, in words, with the evidence."""
    lower, upper = status.lower, status.upper
    what = {"accept H1": f"{candidate} is stronger than {baseline}: H1 (+{test.elo1:g} points) accepted",
            "accept H0": f"{candidate} is not stronger than {baseline}: H0 ({test.elo0:+g} points) accepted",
            "truncated": f"no verdict: {candidate} against {baseline} reached {test.max_deals} deals undecided",
            "continue": f"no verdict yet: {candidate} against {baseline} goes on"}[status.verdict]
    lo, hi = status.ci
    return (f"{what}; LLR {status.llr:+.2f} in [{lower:.2f}, {upper:.2f}] after {status.n} deals; "
            f"paired difference {status.mean:+.1f} points [{lo:+.1f}, {hi:+.1f}] "
            f"(alpha {test.alpha:g}, beta {test.beta:g})")


def simulate(test: SPRT, probs, runs: int = 1000, max_deals: int = 100_000, seed: int = 0) -> dict:
    """Run `runs` tests at once on paired differences drawn from probs (on SUPPORT, shape (K,)): the share
    that accepted H1, accepted H0 or reached max_deals, and the mean and quantiles of their deals.

    A test looks every test.batch deals, as on real games. Runs that have stopped are left alone."""
    rng = np.random.default_rng(seed)
    probs = np.asarray(probs, dtype=float)
    probs = probs / probs.sum()
    lower, upper = test.bounds
    counts = np.zeros((runs, len(SUPPORT)))
    stopped = np.zeros(runs, dtype=int)      # 0 going on, 1 H1, -1 H0
    length = np.zeros(runs, dtype=int)
    n = 0
    while n < max_deals and (stopped == 0).any():
        going = stopped == 0
        counts[going] += rng.multinomial(test.batch, probs, size=int(going.sum()))
        n += test.batch
        value = llr(counts[going], test.elo0, test.elo1)
        idx = np.flatnonzero(going)
        up, down = value >= upper, value <= lower
        stopped[idx[up]] = 1
        stopped[idx[down]] = -1
        length[idx[up | down]] = n
    length[stopped == 0] = n
    return {"runs": runs, "accept_h1": float((stopped == 1).mean()), "accept_h0": float((stopped == -1).mean()),
            "undecided": float((stopped == 0).mean()), "mean_deals": float(length.mean()),
            "median_deals": float(np.median(length)), "p90_deals": float(np.quantile(length, 0.9))}


def with_mean(probs, mu: float) -> np.ndarray:
    """The distribution nearest `probs` (on SUPPORT) whose mean paired difference is mu points: the
    constrained MLE above, so a simulation at a bound keeps the spread of real games."""
    q = np.asarray(probs, dtype=float) + 0.0
    q[0] += PSEUDO
    q[-1] += PSEUDO
    q = q / q.sum()
    return _constrained_mle(q, mu / 100)
