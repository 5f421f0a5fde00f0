"""Advice chosen by play (issue 53): the `heuristic` bot's own rule (card_play.HOST_RULE), amended where the
search departs from it, each amendment tested by paired play, the winner confirmed on fresh deals.

1. candidates: amendments with thresholds over hand size and route length and a display-fit line (a face-up card
   extends the route or not), drawn from the fitting half of the card's offers alone (rulecard.split_by_game):
   those that move the host's choice toward the search's at most of the offers they change (CANDIDATES);
2. fit: each candidate amendment in one rotating seat against `heuristic`, and `heuristic` in that seat on the
   same deals (FIT); the choice is the largest pooled paired win difference, adopted only if > 0 (choose);
   its stability: the fitting deals resampled (stability);
3. confirm: the chosen amendment against the host, on deals never used (CONFIRM), per count and pooled, Holm
   across the counts, a verdict in fixed words (VERDICTS).

An Amendment is played by the sided bot (sided(side=amend,...)): the heuristic's own move everywhere, except
at an offer of its official where its condition holds: there the side it names, and the host's best move on it."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd

from ...bots.features import View, bits
from ...bots.spec import BotSpec
from ...fileio import atomic_write_text
from ...game.officials import OFFICIAL_LABEL, OFFICIALS, official_name
from .plan import StudyError

__all__ = ["Amendment", "Candidate", "Design", "CANDIDATES", "FIT", "CONFIRM", "RESAMPLES", "STABILITY_SEED",
           "VERDICTS", "HOST", "CandidateRule", "display_fits", "offer_fits", "candidates", "write_candidates",
           "read_candidates", "play_design", "paired_wins", "pooled_table", "choose", "Choice", "write_choice",
           "read_choice", "stability", "confirm_table", "verdict"]

#: the host the amendments change, and the opponents of every game
HOST = "heuristic"


# ------------------------------------------------------------------------------------------ the amendment

def _range_words(lo: int | None, hi: int | None, unit: str) -> str:
    if lo is not None and hi is not None:
        return f"{lo} {unit}" if lo == hi else f"{lo}–{hi} {unit}"
    return f"≤ {hi} {unit}" if hi is not None else f"≥ {lo} {unit}"


@dataclass(frozen=True)
class Amendment:
    """At an offer of `official` where the player's hand holds hand_min..hand_max cards, the route
    route_min..route_max cities (None: no bound) and a face-up card extends the route or not (`fit`; None:
    either), take the official (take=True) or do without it (take=False); elsewhere the host's own choice."""

    official: str
    take: bool
    hand_min: int | None = None
    hand_max: int | None = None
    route_min: int | None = None
    route_max: int | None = None
    fit: bool | None = None

    def __post_init__(self):
        name = official_name(str(self.official))
        if name is None:
            raise StudyError(f"an amendment names an official ({', '.join(OFFICIALS)}), not {self.official!r}")
        object.__setattr__(self, "official", name)
        if not isinstance(self.take, bool) or not (self.fit is None or isinstance(self.fit, bool)):
            raise StudyError(f"an amendment's take is true or false, its fit true, false or unset, not "
                             f"{self.take!r} and {self.fit!r}")
        for lo, hi in ((self.hand_min, self.hand_max), (self.route_min, self.route_max)):
            if any(x is not None and (isinstance(x, bool) or not isinstance(x, int) or x < 0) for x in (lo, hi)):
                raise StudyError(f"an amendment's bounds are whole numbers from 0, not {lo!r} and {hi!r}")
            if lo is not None and hi is not None and lo > hi:
                raise StudyError(f"an amendment's lower bound {lo} is above its upper bound {hi}")

    def holds(self, hand, route, fit):
        """Whether the condition holds at these hand sizes, route lengths and display fits (numbers or arrays)."""
        out = np.ones(np.shape(hand), dtype=bool)
        for x, lo, hi in ((hand, self.hand_min, self.hand_max), (route, self.route_min, self.route_max)):
            if lo is not None:
                out &= np.asarray(x) >= lo
            if hi is not None:
                out &= np.asarray(x) <= hi
        if self.fit is not None:
            out &= np.asarray(fit, dtype=bool) == self.fit
        return bool(out) if out.ndim == 0 else out

    def says(self, official: str, hand: int, route: int, fit: bool) -> bool | None:
        """At an offer of `official`: True (take it) or False (do without) where the amendment rules, else None
        (the host's own choice)."""
        return self.take if official == self.official and self.holds(hand, route, fit) else None

    def at(self, state) -> bool | None:
        """says() at the offer of a position (the official on offer to the player to move; None: no offer)."""
        from .choice import choice_officials
        offered = choice_officials(state)
        if not offered or offered[0] != self.official:
            return None
        p = state.current_player
        hand, route = sum(state.hand(p).values()), len(state.route(p))
        if not self.holds(hand, route, True) and not self.holds(hand, route, False):
            return None                 # the bounds fail whatever the display: skip reading it
        return self.says(self.official, hand, route, display_fits(state))

    def words(self) -> str:
        """The amendment as a player reads it: 'also take the Postmaster with ≤ 3 cards in hand and a route of
        ≤ 2 cities'."""
        parts = []
        if self.hand_min is not None or self.hand_max is not None:
            parts.append(_range_words(self.hand_min, self.hand_max, "cards in hand"))
        if self.route_min is not None or self.route_max is not None:
            parts.append("a route of " + _range_words(self.route_min, self.route_max, "cities"))
        if self.fit is not None:
            parts.append("a face-up card extending the route" if self.fit else "no face-up card extending the route")
        verb = "also take" if self.take else "do without"
        return f"{verb} the {OFFICIAL_LABEL[self.official]}" + (" with " + " and ".join(parts) if parts else "")

    def options(self) -> dict:
        """The sided bot's options for this amendment (the bounds it sets; None left out)."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    def spec(self, host: BotSpec | str = HOST) -> BotSpec:
        """The host amended: sided(host=heuristic,side=amend,official=postmaster,take=true,hand_max=3,...) (its
        bot is registered by importing studies.officials.sided, or --bot-module thurn_ai.studies.officials.sided)."""
        host = BotSpec.parse(host)         # the sided bot checks the host (advice_play is below sided: no import)
        return BotSpec("sided", {"host": host.name, "side": "amend", **self.options(), **host.options})


def display_fits(state) -> bool:
    """Whether a face-up card extends the route of the player to move at either end (False without a route:
    there is nothing to extend)."""
    v = View(state)
    return any(v.display[x] for x in bits(v.fitting_mask()))


def offer_fits(offers: pd.DataFrame, records) -> pd.Series:
    """display_fits at each offer (columns source, game, game_seed, move, official, hand_size, route_len), its
    position rebuilt from the kept records (records/<source>.jsonl.gz), each game replayed once; StudyError where
    a rebuilt position is not the row's (another seed, the official not on offer, another hand or route)."""
    from ...play.match import record_walk
    from .choice import choice_officials
    from .records import kept_games

    out = pd.Series(False, index=offers.index, dtype=bool)
    for where, record, rows in kept_games(offers, records):
        at, last = dict(zip(rows.move, rows.itertuples())), int(rows.move.max())
        for i, state, _move in record_walk(record):
            row = at.get(i)
            if i > last:
                break
            if row is None:
                continue
            p = state.current_player
            if (row.official not in choice_officials(state) or sum(state.hand(p).values()) != row.hand_size
                    or len(state.route(p)) != row.route_len):
                raise StudyError(f"{where}, move {i}: the rebuilt position is not the offer's")
            out.loc[rows.index[rows.move == i]] = display_fits(state)
    return out


# ------------------------------------------------------------------------------------------ the candidates

#: the thresholds an amendment may set: cards in hand and cities in the route (an upper bound where it takes the
#: official, a lower bound where it does without; besides these, no bound)
HAND_LIMITS = tuple(range(1, 9))
ROUTE_LIMITS = tuple(range(1, 7))


@dataclass(frozen=True)
class CandidateRule:
    """Which amendments become candidates, fixed before the fit (2026-11-29). An amendment changes the host's
    choice at `changed` fitting offers, `toward` of them to the search's choice and `away` from it. Per official,
    side (take or do without) and display-fit line (a face-up card extends the route / none does / either), the
    amendment with the most `toward` (ties: fewer `away`, fewer bounds, fewer offers ruled) among those with
    toward >= min_toward and toward > majority * changed; at most `most` of these, the largest `toward` first.
    A 2/3 majority was tried first and found no amendment at all (docs/officials-design.md): the search's
    departures from the host are not concentrated where these three features can draw a line."""

    min_toward: int = 40
    majority: float = 1 / 2
    most: int = 6


CANDIDATES = CandidateRule()


@dataclass(frozen=True)
class Candidate:
    """An amendment with what it does at the fitting offers: the offers its condition holds at (`offers`), the
    host's choices it changes, and how many of those move to the search's choice (toward) or from it (away)."""

    amendment: Amendment
    offers: int
    changed: int
    toward: int
    away: int


def _amendments(official: str, take: bool, fit: bool | None):
    """Every threshold amendment of one official, side and display-fit line: take below upper bounds, do
    without above lower bounds (None: no bound on that)."""
    for h, r in product((None, *HAND_LIMITS), (None, *ROUTE_LIMITS)):
        yield (Amendment(official, True, hand_max=h, route_max=r, fit=fit) if take
               else Amendment(official, False, hand_min=h, route_min=r, fit=fit))


def _bounds(a: Amendment) -> int:
    return sum(x is not None for x in (a.hand_min, a.hand_max, a.route_min, a.route_max))


def _measured(a: Amendment, offers: pd.DataFrame) -> Candidate:
    of = offers[offers.official == a.official]
    ruled = a.holds(of.hand_size.to_numpy(), of.route_len.to_numpy(), of.display_fit.to_numpy(bool))
    changed = ruled & (of.host_used.to_numpy(bool) != a.take)
    toward = int((changed & (of.used.to_numpy(bool) == a.take)).sum())
    return Candidate(a, int(ruled.sum()), int(changed.sum()), toward, int(changed.sum()) - toward)


def candidates(offers: pd.DataFrame, rule: CandidateRule = CANDIDATES, split_seed: int | None = None
               ) -> tuple[Candidate, ...]:
    """The candidate amendments drawn from the fitting half of these offers alone (rulecard.split_by_game; the
    held-out half is never read, and its display_fit may be missing), chosen and ranked by CandidateRule.
    Columns: players, source, game, official, hand_size, route_len, display_fit, used = the search's choice,
    host_used = the heuristic's. Deterministic: the same offers, in any order, give the same list."""
    from .rulecard import SPLIT_SEED, split_by_game
    offers = offers[split_by_game(offers, SPLIT_SEED if split_seed is None else split_seed)]
    best = []
    for official, take, fit in product(OFFICIALS, (True, False), (None, True, False)):
        found = [c for c in (_measured(a, offers) for a in _amendments(official, take, fit))
                 if c.toward >= rule.min_toward and c.toward > rule.majority * c.changed]
        if found:
            best.append(min(found, key=lambda c: (-c.toward, c.away, _bounds(c.amendment), c.offers)))
    # sorted is stable: equal `toward` keep the groups' order
    return tuple(sorted(best, key=lambda c: -c.toward)[:rule.most])


def _amendment_from(d: dict) -> Amendment:
    """The Amendment of its fields as written (asdict)."""
    return Amendment(d["official"], d["take"], d.get("hand_min"), d.get("hand_max"), d.get("route_min"),
                     d.get("route_max"), d.get("fit"))


def write_candidates(path, found: tuple[Candidate, ...], source: str) -> None:
    """The candidate list as JSON (rank order), with the rule and bands that drew it and where its offers came
    from: what the fit plays, written before any fitting game."""
    rows = [{"label": f"c{i + 1}", **asdict(c.amendment), "words": c.amendment.words(),
             "spec": str(c.amendment.spec()), "offers": c.offers, "changed": c.changed, "toward": c.toward,
             "away": c.away} for i, c in enumerate(found)]
    doc = {"rule": asdict(CANDIDATES), "hand_limits": HAND_LIMITS, "route_limits": ROUTE_LIMITS, "source": source,
           "candidates": rows}
    atomic_write_text(Path(path), json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def read_candidates(path) -> dict[str, Candidate]:
    """{label: Candidate} of a written candidate list, in rank order; StudyError without one."""
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"{path}: no candidate list yet (run --part candidates first)")
    rows = json.loads(path.read_text(encoding="utf-8"))["candidates"]
    return {r["label"]: Candidate(_amendment_from(r), r["offers"], r["changed"], r["toward"], r["away"])
            for r in rows}


# ------------------------------------------------------------------------------------------ the designs

@dataclass(frozen=True)
class Design:
    """Games a count (whole seat rotations of the amended seat) and the base seed: a count's tournaments
    all play seed + 100 * players, so every cell of a count plays the same deals (paired)."""

    games: tuple[tuple[int, int], ...]
    seed: int

    def games_at(self, players: int) -> int:
        return dict(self.games)[players]

    def seed_at(self, players: int) -> int:
        return self.seed + 100 * players


#: the fit's design, fixed before any fitting game (2026-11-28): every candidate and the control, 400 / 402 /
#: 400 games a count, seed 53100 (tournaments 53300 / 53400 / 53500; no other study uses them)
FIT = Design(((2, 400), (3, 402), (4, 400)), 53100)
#: the confirmation's design, fixed before any of its games (2026-11-28): the chosen amendment and the control,
#: 600 games a count, seed 53700 (tournaments 53900 / 54000 / 54100; never used elsewhere); paired wins by the
#: rules' tie-break, 95% t intervals, Holm across the three counts; the pooled test is the advice's verdict
CONFIRM = Design(((2, 600), (3, 600), (4, 600)), 53700)
#: the resamples of the fitting deals for the choice's stability, and their seed
RESAMPLES = 2000
STABILITY_SEED = 53
#: the verdict's words, fixed before the confirmation's games
VERDICTS = {"wins": "wins in play", "none": "no difference detected", "loses": "loses in play"}
ALPHA = 0.05


def play_design(cells: dict[str, str], design: Design, players: int, out_dir=None, jobs: int = 1,
                games: int | None = None) -> pd.DataFrame:
    """The cells' specs ({cell: spec}), each in one rotating seat against the host, and the host in that seat on
    the same deals (cell 'control'): the focus seat's rows (rulecard.play_cells). games: a pilot's number."""
    from .rulecard import play_cells
    rows = play_cells(HOST, players, games or design.games_at(players), design.seed_at(players), jobs=jobs,
                      out_dir=out_dir, cards=cells, control_bot=HOST)
    return rows[rows.focus].reset_index(drop=True)


# ------------------------------------------------------------------------------------------ reading the games

def paired_wins(rows: pd.DataFrame) -> dict[int, pd.DataFrame]:
    """Per player count, a frame of the paired win differences (the rules' tie-break, design.PRIMARY_OUTCOME):
    one row a deal (index: game), one column a cell, the cell's focus seat's win minus the control's in that
    seat on the same deal; StudyError where a cell lacks a deal the control has or dealt another game."""
    from .design import PRIMARY_OUTCOME
    from .rulecard import CONTROL_CELL

    out = {}
    for n, g in rows[rows.focus].groupby("players", sort=True):
        control = g[g.cell == CONTROL_CELL].set_index("game").sort_index()
        if control.empty:
            raise StudyError(f"{n} players: no control games")
        cols = {}
        for cell, c in g[g.cell != CONTROL_CELL].groupby("cell", sort=False):
            c = c.set_index("game").reindex(control.index)
            if c.game_seed.isna().any() or (c.game_seed != control.game_seed).any():
                raise StudyError(f"{n} players, {cell}: its deals are not the control's (not paired)")
            cols[cell] = (c[PRIMARY_OUTCOME] - control[PRIMARY_OUTCOME]).astype(float)
        out[int(n)] = pd.DataFrame(cols, index=control.index)
    return out


def _t_row(d) -> dict:
    """mean, 95% t interval and the one-sample t test's p of paired differences, and the difference they
    detect with 80% power at the 5% level from their observed spread (statsmodels' paired t power)."""
    from scipy import stats as sps

    from ...stats.summary import mean_ci
    from ...stats.summary import detectable_difference
    d = np.asarray(d, dtype=float)
    m, lo, hi = mean_ci(d)
    spread = d.std(ddof=1) if len(d) > 1 else 0.0
    p = float(sps.ttest_1samp(d, 0.0).pvalue) if len(d) > 1 and spread > 0 else 1.0
    detectable = detectable_difference(len(d), spread) if spread > 0 else float("nan")
    return {"games": len(d), "d_win": m, "d_win_lo": lo, "d_win_hi": hi, "p": p, "detectable": detectable}


def pooled_table(diffs: dict[int, pd.DataFrame]) -> pd.DataFrame:
    """Per cell: its paired win difference at each count and pooled over the counts (every deal one pair;
    players = 0 marks the pooled row), each with its 95% t interval and p."""
    cells = list(dict.fromkeys(c for d in diffs.values() for c in d.columns))
    out = []
    for cell in cells:
        for n, d in diffs.items():
            out.append({"cell": cell, "players": n, **_t_row(d[cell])})
        out.append({"cell": cell, "players": 0, **_t_row(np.concatenate([d[cell].to_numpy() for d in diffs.values()]))})
    return pd.DataFrame(out)


@dataclass(frozen=True)
class Choice:
    """The fit's choice: the candidate with the largest pooled paired win difference, adopted only if it is > 0
    (label and amendment None: the advice is the host's own rule), with that difference and its interval."""

    label: str | None
    amendment: Amendment | None
    d_win: float
    d_win_lo: float
    d_win_hi: float
    games: int
    best: str              # the candidate with the largest difference, adopted or not

    def words(self) -> str:
        if self.amendment is None:
            return "the heuristic's own rule: no candidate amendment won more than it on the fitting deals"
        return self.amendment.words()


def choose(pooled: pd.DataFrame, candidates: dict[str, Candidate]) -> Choice:
    """The Choice of pooled_table's pooled rows: the largest d_win (a tie: the candidate ranked first in
    `candidates`), adopted if > 0."""
    rows = pooled[pooled.players == 0].set_index("cell")
    order = [c for c in candidates if c in rows.index]
    if not order:
        raise StudyError("no candidate's games to choose from")
    best = max(order, key=lambda c: (rows.d_win[c], -order.index(c)))
    r = rows.loc[best]
    adopted = r.d_win > 0
    return Choice(best if adopted else None, candidates[best].amendment if adopted else None, float(r.d_win),
                  float(r.d_win_lo), float(r.d_win_hi), int(r.games), best)


def write_choice(path, choice: Choice, fit_games: dict[int, int]) -> None:
    """The fit's choice as JSON: what the confirmation plays (read_choice), never refitted."""
    doc = {**asdict(choice), "amendment": None if choice.amendment is None else asdict(choice.amendment),
           "words": choice.words(), "spec": None if choice.amendment is None else str(choice.amendment.spec()),
           "fit_games": {str(n): g for n, g in fit_games.items()}}
    atomic_write_text(Path(path), json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def read_choice(path) -> Choice:
    """The fit's committed choice; StudyError when there is none yet (the confirmation waits for the fit)."""
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"{path}: the fit has not chosen yet (run --part fit first); the confirmation plays "
                         "only the fit's committed choice")
    d = json.loads(path.read_text(encoding="utf-8"))
    a = None if d["amendment"] is None else _amendment_from(d["amendment"])
    return Choice(d["label"], a, d["d_win"], d["d_win_lo"], d["d_win_hi"], d["games"], d["best"])


def stability(diffs: dict[int, pd.DataFrame], candidates: dict[str, Candidate], resamples: int = RESAMPLES,
              seed: int = STABILITY_SEED) -> pd.Series:
    """How often each candidate would be chosen (choose's rule: the largest pooled difference, > 0) when the
    fitting deals are resampled with replacement within each count (one deal carries every cell's pair with
    it): a share per candidate label, and 'none' for the resamples where no candidate beats the host."""
    order = [c for c in candidates if all(c in d.columns for d in diffs.values())]
    rng = np.random.default_rng(seed)
    totals = np.zeros((resamples, len(order)))
    games = 0
    for n in sorted(diffs):
        d = diffs[n][order].to_numpy(float)                  # deals x candidates
        pick = rng.integers(0, len(d), size=(resamples, len(d)))
        totals += d[pick].sum(axis=1)
        games += len(d)
    means = totals / games
    best = np.argmax(means, axis=1)                        # argmax takes the first of equal values: rank order
    chosen = np.where(means[np.arange(resamples), best] > 0, best, len(order))
    counts = np.bincount(chosen, minlength=len(order) + 1) / resamples
    return pd.Series(counts, index=[*order, "none"], name="chosen")


# ------------------------------------------------------------------------------------------ the confirmation

def verdict(d_win: float, p: float, alpha: float = ALPHA) -> str:
    """The fixed words of a paired difference: wins / loses in play where its (Holm-adjusted) p < alpha."""
    if not p < alpha:
        return VERDICTS["none"]
    return VERDICTS["wins"] if d_win > 0 else VERDICTS["loses"]


def confirm_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The confirmation's table: per count the amended seat minus the host's on the same deals (paired wins,
    95% t interval, p, Holm across the three counts, its verdict), and the pooled row (players 0; the advice's
    verdict, one test)."""
    from .design import holm

    table = pooled_table(paired_wins(rows))
    per_count = table.players > 0
    table["p_holm"] = np.nan
    table.loc[per_count, "p_holm"] = holm(table.p[per_count])
    table.loc[~per_count, "p_holm"] = table.p[~per_count]
    table["verdict"] = [verdict(d, p) for d, p in zip(table.d_win, table.p_holm)]
    return table


# ------------------------------------------------------------------------------------------ findings

def numbers(found: dict[str, Candidate], fit: pd.DataFrame | None = None, stable: pd.Series | None = None,
            confirmed: pd.DataFrame | None = None, prefix: str = "") -> dict:
    """The folder's findings as named numbers: per candidate the offers it moves toward the search
    ('candidates.<label>.toward'); the fit's pooled paired differences and how often each is chosen in the
    resamples ('<prefix>fit.<label>.pooled', '<prefix>stability.<label>'); the confirmation's per count and pooled
    ('<prefix>confirm.<n>p', '<prefix>confirm.pooled', each with '.detectable': its power from the observed
    spread)."""
    from ..findings import Number

    out = {}
    for label, c in found.items():
        says = f"fitting offers moved toward the search: {c.amendment.words()}"
        out[f"candidates.{label}.toward"] = Number(c.toward, unit="number", digits=0, says=says)
    if fit is not None:
        for r in fit[fit.players == 0].itertuples():
            out[f"{prefix}fit.{r.cell}.pooled"] = Number(r.d_win, r.d_win_lo, r.d_win_hi, "pp", 1, int(r.games),
                                                         "the amended host minus the host, paired wins, pooled")
    if stable is not None:
        for label, share in stable.items():
            says = ("no candidate beats the host in the resampled fitting deals" if label == "none"
                    else "chosen in the resampled fitting deals")
            out[f"{prefix}stability.{label}"] = Number(float(share), unit="share", digits=1, says=says)
    if confirmed is not None:
        for r in confirmed.itertuples():
            key = f"{prefix}confirm.{'pooled' if r.players == 0 else f'{r.players}p'}"
            out[key] = Number(r.d_win, r.d_win_lo, r.d_win_hi, "pp", 1, int(r.games),
                              f"the chosen amendment minus the host on fresh deals: {r.verdict}")
            if np.isfinite(getattr(r, "detectable", np.nan)):
                out[f"{key}.detectable"] = Number(r.detectable, unit="size", digits=1, games=int(r.games),
                                                  says="the difference these deals detect with 80% power at the 5% "
                                                       "level, from the observed spread")
    return out
