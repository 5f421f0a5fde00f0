"""Statistics of tournament results (the DataFrame of thurn_ai.play.tournament: one row per player per game).

summarize(df) returns a dict of DataFrames:
    overview     games, players, bots, truncated games
    bots         per bot: win rate with ties shared and its 95% Wilson interval, the rules' win rate (with the
                 tie-break), mean score with its 95% t interval, mean rank, OpenSkill rating
    components   per bot: mean score parts (carriage, each tile stack, tiles, unplaced houses, closed routes)
    officials    per bot: mean uses per game of each official, in total and per phase (early/middle/late)
    seats        per seat: win rate (95% CI) and mean score against the fair share 1/players
    seat_bots    per bot and seat: win rate (every bot's seat advantage)
    length       game length in turns: all games and the games each bot played
    pairwise     (three or more bots) per ordered pair: the share of meetings the first outscored the second
    ratings      per bot: OpenSkill Plackett-Luce mu, sigma and the conservative rating mu - 3 sigma

Win rates count a tie on the top score as shared (1/k to each of k tied players), so they measure play
rather than the tie-break. Each row (a bot in a seat of a game) is one trial; when one bot holds several
seats of a game those trials are negatively correlated, which makes the intervals slightly conservative.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..game.officials import OFFICIALS, STAGES
from ..play.match import USE_COLUMNS
from ..errors import ThurnError

CONFIDENCE = 0.95
NEEDED = ["game", "seat", "bot", "players", "score", "rank", "win", "win_share", "turns", "truncated"]


class StatsError(ThurnError):
    """Results that cannot be summarized (missing columns, mixed player counts, no games)."""


# ---------------------------------------------------------------- intervals (from scipy)

def wilson_interval(successes: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a proportion (scipy.stats.binomtest). A fractional count (shared ties)
    takes the lower bound of the whole count below it and the upper bound of the one above, so the
    interval covers both."""
    if n <= 0:
        return (math.nan, math.nan)
    s = round(float(successes), 9)
    low = sps.binomtest(math.floor(s), n).proportion_ci(confidence, method="wilson").low
    high = sps.binomtest(math.ceil(s), n).proportion_ci(confidence, method="wilson").high
    return (float(low), float(high))


def clustered_proportion_interval(successes, sizes, confidence: float = CONFIDENCE, resamples: int = 1999,
                                  seed: int = 0) -> tuple[float, float]:
    """The interval of a proportion pooled over clusters whose members are not independent (the decisions
    of one game): k_i successes out of m_i per cluster, the proportion sum(k) / sum(m). A percentile
    bootstrap that resamples whole clusters (scipy.stats.bootstrap, fixed seed) carries the correlation
    within a cluster; the result is widened to cover the Wilson interval over all members, which keeps an
    honest width at 0% or 100% where every resample agrees. Fewer than two clusters: the Wilson interval."""
    k = np.asarray(successes, dtype=float)
    m = np.asarray(sizes, dtype=float)
    keep = m > 0
    k, m = k[keep], m[keep]
    low, high = wilson_interval(k.sum(), int(m.sum()), confidence)
    if len(m) < 2 or math.isnan(low):
        return (low, high)

    def pooled(k_, m_, axis=-1):
        return k_.sum(axis=axis) / m_.sum(axis=axis)

    res = sps.bootstrap((k, m), pooled, paired=True, vectorized=True, n_resamples=resamples,
                        confidence_level=confidence, method="percentile", random_state=seed)
    b_low, b_high = res.confidence_interval
    return (float(min(low, b_low)), float(max(high, b_high)))


def cluster_bootstrap(clusters: int, statistic, resamples: int, seed: int = 0) -> np.ndarray:
    """The bootstrap distribution of statistic(picked), resampling whole clusters (the games of a study):
    picked is an array of `clusters` cluster indices drawn with replacement (scipy.stats.bootstrap over
    the indices, generator numpy.random.default_rng(seed)); statistic returns a number or an array of
    them. Shape (resamples,) or (number of statistics, resamples). The officials study's turn table
    and the learned evaluation's calibration (studies/learned/calibration.game_bootstrap) resample through it."""
    res = sps.bootstrap((np.arange(clusters),), lambda idx: statistic(np.asarray(idx, dtype=int)),
                        vectorized=False, n_resamples=resamples, method="percentile",
                        random_state=np.random.default_rng(seed))
    return np.asarray(res.bootstrap_distribution)


def mean_interval(values, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Student's t interval of a mean (scipy.stats.t); a single value has none."""
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return (math.nan, math.nan)
    m = float(x.mean())
    sem = float(sps.sem(x))
    if sem == 0:
        return (m, m)
    low, high = sps.t.interval(confidence, len(x) - 1, loc=m, scale=sem)
    return (float(low), float(high))


def mean_ci(x) -> tuple[float, float, float]:
    """Mean and t interval of independent values (identical values: the interval is the value)."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean()) if len(x) else math.nan
    lo, hi = mean_interval(x)
    return (m, m, m) if len(x) == 1 else (m, lo, hi)


# ---------------------------------------------------------------- differences and tests (from scipy)

def t_interval(d: np.ndarray, level: float = 0.95) -> dict[str, float]:
    """{'low', 'high', 'p'}: the t interval (95% unless `level` says) of the mean of per-game values `d` (two
    or more) and the p-value of a one-sample t test against 0 (scipy)."""
    t = sps.ttest_1samp(d, 0.0)
    ci = t.confidence_interval(level)
    return {"low": float(ci.low), "high": float(ci.high), "p": float(t.pvalue)}


def detectable_difference(games: int, sd: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The paired win-share difference `games` paired games detect with this power (two-sided t test of
    per-game differences whose standard deviation is `sd`: the observed spread of the paired differences,
    which `paired` and `pooled` pass)."""
    from statsmodels.stats.power import TTestPower
    return float(TTestPower().solve_power(nobs=games, alpha=alpha, power=power) * sd) if games > 1 else np.nan


def newcombe(k1: int, n1: int, k2: int, n2: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """CI of p1 - p2 for independent proportions: Newcombe's hybrid score interval, from the two Wilson
    intervals (statsmodels.stats.proportion.confint_proportions_2indep, method 'newcomb')."""
    from statsmodels.stats.proportion import confint_proportions_2indep
    if n1 <= 0 or n2 <= 0:
        raise StatsError(f"a difference of proportions needs trials on both sides, not {n1} and {n2}")
    low, high = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff",
                                           alpha=1 - confidence)
    return (float(low), float(high))


def welch(a, b) -> tuple[float, float, float, float]:
    """mean(a) - mean(b), its Welch t interval and p-value."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = float(a.mean() - b.mean())
    if len(a) < 2 or len(b) < 2 or (a.var() == 0 and b.var() == 0):
        return d, d, d, (1.0 if d == 0 else 0.0)
    t = sps.ttest_ind(a, b, equal_var=False)
    ci = t.confidence_interval(CONFIDENCE)
    return d, float(ci.low), float(ci.high), float(t.pvalue)


def binomial_p(successes: int, n: int, p: float) -> float:
    """Two-sided binomial test of `successes` in `n` trials against the proportion p."""
    return float(sps.binomtest(successes, n, p).pvalue)


def versus_baseline(successes: int, n: int, baseline: float) -> tuple[float, float, float, float]:
    """A proportion minus an exact baseline (no sampling error, e.g. the fair share 1/players): the
    difference, its Wilson interval shifted by the baseline, and the binomial test's p-value."""
    lo, hi = wilson_interval(successes, n)
    return successes / n - baseline, lo - baseline, hi - baseline, binomial_p(successes, n, baseline)


def equal_counts_p(counts) -> float:
    """The chi-square test's p-value of 'every count has the same expectation' (nan when all are 0)."""
    counts = np.asarray(counts)
    return float(sps.chisquare(counts).pvalue) if counts.sum() else math.nan


def excludes_zero(low: float, high: float) -> bool:
    """Whether an interval lies wholly above or below 0 (a nan bound excludes nothing)."""
    return low > 0 or high < 0


# ---------------------------------------------------------------- ratings (OpenSkill)

RATING_ORDERS = 8   # game orders the ratings are averaged over (see openskill_ratings)


def openskill_ratings(df: pd.DataFrame, bots: list[str], orders: int = RATING_ORDERS) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings. Each seat of a game is one team and places come from the scores
    (equal scores share a place). A bot holding several seats of a game gets the evidence of every seat:
    the changes of mu add up, and so do the precisions (1/sigma^2). tau = 0: a bot's strength does not
    drift. OpenSkill rates one game at a time, so its result depends on the order of the games (by about
    its own sigma in our checks) although the game numbers mean nothing; mu and sigma are therefore
    averaged over `orders` seeded random orders of the games."""
    from openskill.models import PlackettLuce
    model = PlackettLuce(tau=0.0)
    games = [(list(g["bot"]), list(g["score"]))
             for _, g in df.sort_values(["game", "seat"]).groupby("game", sort=True)]
    rng = np.random.default_rng(20061)
    mus, sigmas = [], []
    for _ in range(orders):
        current = {b: model.rating(name=b) for b in bots}
        for i in rng.permutation(len(games)):
            seated, scores = games[i]
            ranks = [1 + sum(o > s for o in scores) for s in scores]
            rated = model.rate([[current[b]] for b in seated], ranks=ranks)
            delta_mu = dict.fromkeys(seated, 0.0)
            gain_precision = dict.fromkeys(seated, 0.0)
            for b, (r,) in zip(seated, rated):
                delta_mu[b] += r.mu - current[b].mu
                gain_precision[b] += r.sigma ** -2 - current[b].sigma ** -2
            for b in delta_mu:
                old = current[b]
                precision = max(old.sigma ** -2 + gain_precision[b], 1e-12)
                current[b] = model.rating(mu=old.mu + delta_mu[b], sigma=precision ** -0.5, name=b)
        mus.append([current[b].mu for b in bots])
        sigmas.append([current[b].sigma for b in bots])
    out = pd.DataFrame({"mu": np.mean(mus, axis=0), "sigma": np.mean(sigmas, axis=0)},
                       index=pd.Index(bots, name="bot"))
    out["rating"] = out["mu"] - 3 * out["sigma"]
    return out


# ---------------------------------------------------------------- tables

def _rate_row(wins: pd.Series) -> dict:
    n = len(wins)
    low, high = wilson_interval(wins.sum(), n)
    return {"win_rate": wins.mean(), "win_low": low, "win_high": high}


def _score_row(scores: pd.Series) -> dict:
    low, high = mean_interval(scores)
    return {"mean_score": scores.mean(), "score_low": low, "score_high": high}


def _bots_in_order(df: pd.DataFrame) -> list[str]:
    """Bots in the order they first sit down (the order of the tournament's specs)."""
    return list(pd.unique(df.sort_values(["game", "seat"])["bot"]))


def _pairwise(df: pd.DataFrame, bots: list[str]) -> pd.DataFrame:
    """For every ordered pair of bots: over all pairs of their seats in the same game, the share in which
    the first scored more (equal scores count half)."""
    seats = df[["game", "seat", "bot", "score"]]
    pairs = seats.merge(seats, on="game", suffixes=("", "_opp"))
    pairs = pairs[pairs["bot"] != pairs["bot_opp"]]
    pairs = pairs.assign(beat=(np.sign(pairs["score"] - pairs["score_opp"]) + 1) / 2)
    rows = []
    for a in bots:
        for b in bots:
            if a == b:
                continue
            beat = pairs.loc[(pairs["bot"] == a) & (pairs["bot_opp"] == b), "beat"]
            low, high = wilson_interval(beat.sum(), len(beat))
            rows.append({"bot": a, "opponent": b, "meetings": len(beat),
                         "share": beat.mean() if len(beat) else math.nan, "low": low, "high": high})
    return pd.DataFrame(rows)


def check_results(df: pd.DataFrame) -> None:
    if not isinstance(df, pd.DataFrame):
        raise StatsError("expected a DataFrame of tournament results")
    lacking = [c for c in NEEDED if c not in df.columns]
    if lacking:
        raise StatsError(f"the results lack the columns {', '.join(lacking)}")
    if df.empty:
        raise StatsError("the results hold no games")
    if df["players"].nunique() != 1:
        raise StatsError("the results mix player counts; summarize each player count separately")


def summarize(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Statistics of tournament results (see the module doc for the tables)."""
    check_results(df)
    bots = _bots_in_order(df)
    players = int(df["players"].iloc[0])
    by_bot = df.groupby("bot", sort=False)
    per_game = df.drop_duplicates("game")

    ratings = openskill_ratings(df, bots)
    rows = []
    for b in bots:
        d = by_bot.get_group(b)
        rows.append({"bot": b, "spec": d["spec"].iloc[0] if "spec" in d else b, "games": len(d),
                     **_rate_row(d["win_share"]), "tiebreak_win_rate": d["win"].mean(),
                     **_score_row(d["score"]), "score_sd": d["score"].std(), "mean_rank": d["rank"].mean()})
    table = pd.DataFrame(rows).set_index("bot").join(ratings)
    table = table.sort_values(["win_rate", "mean_score"], ascending=False, kind="stable")
    order = list(table.index)

    parts = ([c for c in ["carriage"] if c in df] + [c for c in df.columns if c.startswith("tile_")]
             + [c for c in ["tiles", "houses_unplaced", "closes", "score"] if c in df])
    components = by_bot[parts].mean().loc[order]

    officials = by_bot[[c for c in USE_COLUMNS if c in df]].mean().loc[order]
    officials.columns = [c.removeprefix("uses_") for c in officials.columns]

    seat_rows = []
    for seat, d in df.groupby("seat", sort=True):
        seat_rows.append({"seat": seat, "games": len(d), **_rate_row(d["win_share"]),
                          "fair": 1 / players, **_score_row(d["score"])})
    seats = pd.DataFrame(seat_rows).set_index("seat")
    seat_bots = df.pivot_table(index="bot", columns="seat", values="win_share", aggfunc="mean").loc[order]
    seat_bots.columns = [f"seat_{s}" for s in seat_bots.columns]

    length_rows = []
    for name, d in [("all games", per_game)] + [(b, df[df["game"].isin(by_bot.get_group(b)["game"])]
                                                  .drop_duplicates("game")) for b in order]:
        low, high = mean_interval(d["turns"])
        length_rows.append({"games_of": name, "games": len(d), "mean_turns": d["turns"].mean(),
                            "turns_low": low, "turns_high": high, "median_turns": d["turns"].median(),
                            "min_turns": d["turns"].min(), "max_turns": d["turns"].max(),
                            "truncated": int(d["truncated"].sum())})
    length = pd.DataFrame(length_rows).set_index("games_of")

    overview = pd.DataFrame([{"games": df["game"].nunique(), "players": players, "bots": len(bots),
                              "rows": len(df), "truncated_games": int(per_game["truncated"].sum())}])
    out = {"overview": overview, "bots": table, "components": components, "officials": officials,
           "seats": seats, "seat_bots": seat_bots, "length": length, "ratings": ratings.loc[order]}
    if len(bots) >= 3:
        out["pairwise"] = _pairwise(df, order)
    return out


# ---------------------------------------------------------------- output

def summary_to_json(summary: dict[str, pd.DataFrame]) -> dict:
    """Plain JSON-ready data: each table as a list of records (missing values as null)."""
    out = {}
    for name, table in summary.items():
        t = table.reset_index() if table.index.name else table
        out[name] = json.loads(t.to_json(orient="records", double_precision=6))
    return out


def _pct(x) -> str:
    return "   –" if pd.isna(x) else f"{100 * x:4.1f}"


def _num(x, width=5, digits=1) -> str:
    return f"{'–':>{width}}" if pd.isna(x) else f"{x:{width}.{digits}f}"


#: the score parts' rows in words (tile stacks are named by format_summary's tile_names)
PART_LABELS = {"carriage": "carriage (points)", "tiles": "all tiles (points)",
               "houses_unplaced": "houses not placed (minus points)", "closes": "routes closed",
               "score": "final score"}


def _table(header: list[str], rows: list[list[str]], first_left: bool = True) -> list[str]:
    """Rows of text cells under a header, each column as wide as its widest cell (the first column
    left-aligned, the others right-aligned)."""
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 and first_left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(header)] + [line(r) for r in rows]


def _results_lines(bots: pd.DataFrame, width: int, skill_parts: bool) -> list[str]:
    """The result table: a row a bot (seats, win %, mean score, mean rank, rating; skill_parts: OpenSkill's
    mu and sigma too)."""
    skill = f"{'rating':>8}" + (f"{'mu':>7}{'sigma':>7}" if skill_parts else "")
    lines = [f"{'bot':<{width}}{'seats':>6}  {'win % (95% CI)':<20}{'mean score (95% CI)':<23}{'mean rank':>9}{skill}"]
    for b, r in bots.iterrows():
        win = f"{_pct(r['win_rate'])} ({_pct(r['win_low']).strip()}–{_pct(r['win_high']).strip()})"
        score = f"{_num(r['mean_score'])} ({_num(r['score_low'], 0).strip()}–{_num(r['score_high'], 0).strip()})"
        lines.append(f"{b:<{width}}{r['games']:>6}  {win:<20}{score:<23}{r['mean_rank']:>9.2f}"
                     f"{r['rating']:>8.1f}" + (f"{r['mu']:>7.1f}{r['sigma']:>7.2f}" if skill_parts else ""))
    return lines


def format_summary(summary: dict[str, pd.DataFrame], title: str = "",
                   tile_names: dict[str, str] | None = None, verbose: bool = True, more: str = "") -> str:
    """The summary as a readable plain-text report: every column labelled, every row named in words
    (tile_names: {stack id: name}, e.g. render.text.tile_names(board); without it the ids, spaced).
    verbose=False: the first screen only -- the result table with a short legend, then `more` (where the
    rest is: the score parts, officials, seats, game lengths and pairings)."""
    from ..game.officials import OFFICIAL_LABEL
    if tile_names is None:
        from ..render.text import tile_names_of_ids
        tile_names = tile_names_of_ids([c.removeprefix("tile_") for c in summary["components"].columns
                                        if c.startswith("tile_")])
    ov = summary["overview"].iloc[0]
    bots = summary["bots"]
    width = max(12, max(len(b) for b in bots.index) + 2)
    lines = []
    if title:
        lines.append(title)
    lines.append(f"{ov['games']} games, {ov['players']} players, {ov['bots']} bots"
                 + (f", {ov['truncated_games']} stopped by the turn limit" if ov["truncated_games"] else ""))
    lines += ["", *_results_lines(bots, width, verbose)]
    if not verbose:
        lines.append("seats: games played; win %: ties shared; mean rank: 1 = first; rating: skill, higher is better")
        return "\n".join(lines + ([""] + [more] if more else []))
    lines.append("seats: the seats the bot held over all games (a bot seated twice in a game counts twice); "
                 "win %: ties on the top score shared; mean rank: 1 = first (the rules' tie-break); "
                 "rating: OpenSkill mu - 3 sigma")

    comp = summary["components"]
    names = [PART_LABELS.get(c) or "tile: " + tile_names.get(c.removeprefix("tile_"),
                                                              c.removeprefix("tile_").replace("_", " "))
             for c in comp.columns]       # parts as rows: the list is long
    rows = [[name] + [f"{comp.loc[b, c]:.2f}" for b in comp.index] for name, c in zip(names, comp.columns)]
    lines += ["", "score parts (mean per game; tiles in points, by stack):"]
    lines += ["  " + line for line in _table(["part"] + list(comp.index), rows)]

    off = summary["officials"]
    lines += ["", "officials (uses per game: total = early / middle / late):"]
    for b, r in off.iterrows():
        cells = []
        for o in OFFICIALS:
            stages = " / ".join(f"{r[o + '_' + s]:.1f}" for s in STAGES)
            cells.append(f"{OFFICIAL_LABEL[o]} {r[o]:.1f} = {stages}")
        lines.append(f"  {b:<{width}}" + "   ".join(cells))

    seats = summary["seats"]
    lines += ["", "seats (all bots):"]
    for s, r in seats.iterrows():
        lines.append(f"  seat {s}: win {_pct(r['win_rate'])}% ({_pct(r['win_low']).strip()}–"
                     f"{_pct(r['win_high']).strip()}), fair {_pct(r['fair']).strip()}%, "
                     f"mean score {_num(r['mean_score'], 0)} ({_num(r['score_low'], 0)}–"
                     f"{_num(r['score_high'], 0)})  [{int(r['games'])} games]")
    sb = summary["seat_bots"] * 100
    lines += ["", "win % of each bot by its seat (seat 0 starts):"]
    lines += ["  " + line for line in _table(["bot"] + [c.replace("_", " ") for c in sb.columns],
                                             [[b] + [_pct(x / 100).strip() for x in r] for b, r in sb.iterrows()])]

    length = summary["length"]
    lines += ["", "game length in turns (95% CI: of the mean):"]
    rows = [[name, f"{int(r['games'])}", _num(r["mean_turns"], 0).strip(),
             f"{_num(r['turns_low'], 0).strip()}–{_num(r['turns_high'], 0).strip()}",
             _num(r["median_turns"], 0).strip(), f"{r['min_turns']:.0f}", f"{r['max_turns']:.0f}",
             f"{int(r['truncated'])}"] for name, r in length.iterrows()]
    lines += ["  " + line for line in _table(["games of", "games", "mean", "95% CI", "median", "shortest",
                                              "longest", "stopped by turn limit"], rows)]

    if "pairwise" in summary:
        pw = summary["pairwise"]
        matrix = pw.pivot(index="bot", columns="opponent", values="share").loc[bots.index, bots.index] * 100
        lines += ["", "pairwise: % of meetings the row bot outscored the column bot (ties count half):"]
        lines += ["  " + line for line in _table(["bot"] + list(matrix.columns),
                                                 [[b] + [_pct(x / 100).strip() for x in r]
                                                  for b, r in matrix.iterrows()])]
    return "\n".join(lines)
