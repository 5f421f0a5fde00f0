"""The officials study, its tables: usage by phase, the ablation effects, pairs of officials, seat
advantage and the WBC comparison, computed from the study's canonical DataFrame (the statistics helpers
are in thurn_ai/stats/summary.py).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from ...fileio import atomic_to_csv
from ...game.officials import OFFICIALS, STAGES
from .plan import (CANONICAL_COLUMNS, CONTROL, USE_COLUMNS, StudyError, forced_column, turns_column,
                   use_column)
from .design import ALPHA, paired, two_proportions_p, with_holm
from ...stats.summary import (binomial_p, equal_counts_p, excludes_zero, mean_ci, newcombe, versus_baseline, welch,
                     wilson_interval)

#: First-seat wins in 4-player games at the World Boardgaming Championships (as quoted in the issue).
WBC_FIRST_SEAT: dict[str, Any] = {"wins": 71, "games": 226, "period": "WBC 4-player games up to 2013"}
WBC_FIRST_SEAT_2024 = {"rate": 0.34, "period": "WBC 2024 (game count not given)"}


def check_study_data(df: pd.DataFrame):
    missing = [c for c in (*CANONICAL_COLUMNS, *USE_COLUMNS) if c not in df.columns]
    if missing:
        raise StudyError(f"study data lacks columns: {', '.join(missing)}")
    if df.empty:
        raise StudyError("study data holds no games")


def usage_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per player count and official: uses per player per game by phase in the control games (full bot),
    with t CIs over games (a count's interval stops at 0), and the share of the player's turns on which it
    was used — overall and, when the data hold turns per phase (turns_<phase>), in each phase."""
    check_study_data(df)
    ctrl = df[df.official == CONTROL]
    has_phase_turns = all(turns_column(ph) in ctrl and ctrl[turns_column(ph)].notna().all() for ph in STAGES)
    rows = []
    for n, g in ctrl.groupby("players"):
        per_game = g.groupby("game")
        own_turns = per_game["turns"].first() / n  # every player gets the same number of turns
        for o in OFFICIALS:
            row = {"players": n, "official": o, "games": per_game.ngroups}
            total: Any = 0.0             # then a Series: per game
            for ph in STAGES:
                m, lo, hi = mean_ci(per_game[use_column(o, ph)].mean())
                row.update({f"{ph}": m, f"{ph}_lo": max(lo, 0.0), f"{ph}_hi": hi})
                total = total + per_game[use_column(o, ph)].mean()
                if has_phase_turns:  # nan when no game reached the phase
                    turns = g[turns_column(ph)].sum()
                    row[f"{ph}_share_of_turns"] = float(g[use_column(o, ph)].sum() / turns) if turns else math.nan
            m, lo, hi = mean_ci(total)
            row.update({"total": m, "total_lo": max(lo, 0.0), "total_hi": hi,
                        "share_of_turns": float(total.sum() / own_turns.sum())})
            rows.append(row)
    return pd.DataFrame(rows)


def substitution_table(df: pd.DataFrame) -> pd.DataFrame:
    """Uses per game of every official by the restricted bot (one row per forbidden official), next to
    the full bot's in the control: what a player does instead when one official is taken away. Where the
    data hold them (replayed records), also the forced Postmaster -- two cards drawn because the hand was
    empty, which no player can refuse -- per game and as a share of the player's turns."""
    check_study_data(df)
    has_forced = all(forced_column(ph) in df and df[forced_column(ph)].notna().all() for ph in STAGES)
    rows = []
    for (n, off), g in df.groupby(["players", "official"]):
        who = g if off == CONTROL else g[g.restricted]
        row = {"players": n, "forbidden": off}
        for o in OFFICIALS:
            row[o] = float(sum(who[use_column(o, ph)] for ph in STAGES).mean())
        if has_forced:
            forced = sum(who[forced_column(ph)] for ph in STAGES)
            row["forced_postmaster"] = float(forced.mean())
            row["forced_share_of_turns"] = float(forced.sum() / (who.turns / n).sum())
        rows.append(row)
    out = pd.DataFrame(rows)
    order = {o: i for i, o in enumerate((CONTROL, *OFFICIALS))}
    return out.sort_values(["players", "forbidden"], key=lambda s: s.map(order) if s.name == "forbidden" else s,
                           ignore_index=True)


def ablation_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per player count and official: the restricted bot's win rate and score against full bots, and the
    differences to the full bot (Δ win rate vs 1/n, Δ mean score vs the control), with 95% CIs; the paired
    estimates where the control dealt the same games (design.paired: *_paired); the p-values also
    Holm-adjusted across the whole table (*_holm)."""
    check_study_data(df)
    rows = []
    for n in sorted(df.players.unique()):
        ctrl = df[(df.players == n) & (df.official == CONTROL)]
        ctrl_game_mean = ctrl.groupby("game")["score"].mean()
        for o in OFFICIALS:
            g = df[(df.players == n) & (df.official == o)]
            if g.empty:
                continue
            r = g[g.restricted]
            full = g[~g.restricted]
            if len(r) != g.game.nunique():
                raise StudyError(f"{n}p {o}: expected one restricted seat per game")
            k, m = int(r.win.sum()), len(r)
            lo, hi = wilson_interval(k, m)
            d_win, d_win_lo, d_win_hi, p_win = versus_baseline(k, m, 1 / n)
            row = {"players": n, "official": o, "games": m, "wins": k, "win_rate": k / m,
                   "win_lo": lo, "win_hi": hi, "d_win": d_win, "d_win_lo": d_win_lo,
                   "d_win_hi": d_win_hi, "p_win": p_win,
                   "score": float(r.score.mean()), "full_score": float(ctrl_game_mean.mean())
                   if len(ctrl_game_mean) else math.nan}
            if len(ctrl_game_mean):
                d, dlo, dhi, p = welch(r.score, ctrl_game_mean)
            else:
                d = dlo = dhi = p = math.nan
            row.update({"d_score": d, "d_score_lo": dlo, "d_score_hi": dhi, "p_score": p})
            # margin: restricted seat minus its full opponents in the same game (paired within games)
            opp = full.groupby("game")["score"].mean()
            margin = r.set_index("game")["score"] - opp.reindex(r.game).to_numpy()
            mm, mlo, mhi = mean_ci(margin)
            row.update({"margin": mm, "margin_lo": mlo, "margin_hi": mhi, "score_median": float(r.score.median())})
            row.update(paired(df, n, o))
            rows.append(row)
    return with_holm(pd.DataFrame(rows), ["p_win", "p_score"])


def pairwise_table(df: pd.DataFrame) -> pd.DataFrame:
    """For every pair of officials (per player count): is taking one away worse than taking the other?
    Differences of the restricted bots' win rates (Newcombe) and mean scores (Welch), 95% CIs;
    `separated` when the interval excludes 0 (uncorrected for the number of pairs); p-values (two
    proportions; Welch) and their Holm adjustment across the table, `*_separated_holm` when below 5%."""
    check_study_data(df)
    rows = []
    for n in sorted(df.players.unique()):
        r = df[(df.players == n) & df.restricted]
        present = [o for o in OFFICIALS if (r.official == o).any()]
        for a, b in itertools.combinations(present, 2):
            ra, rb = r[r.official == a], r[r.official == b]
            ka, na, kb, nb = int(ra.win.sum()), len(ra), int(rb.win.sum()), len(rb)
            wlo, whi = newcombe(ka, na, kb, nb)
            d, slo, shi, p_score = welch(ra.score, rb.score)
            rows.append({"players": n, "a": a, "b": b, "d_win": ka / na - kb / nb, "d_win_lo": wlo,
                         "d_win_hi": whi, "win_separated": excludes_zero(wlo, whi), "d_score": d,
                         "d_score_lo": slo, "d_score_hi": shi, "score_separated": excludes_zero(slo, shi),
                         "p_win": two_proportions_p(ka, na, kb, nb), "p_score": p_score})
    t = with_holm(pd.DataFrame(rows, columns=["players", "a", "b", "d_win", "d_win_lo", "d_win_hi", "win_separated",
                                              "d_score", "d_score_lo", "d_score_hi", "score_separated", "p_win",
                                              "p_score"]), ["p_win", "p_score"])
    t["win_separated_holm"] = t.p_win_holm < ALPHA
    t["score_separated_holm"] = t.p_score_holm < ALPHA
    return t


def seat_table(df: pd.DataFrame, control_only: bool = False) -> pd.DataFrame:
    """Win rate per seat and player count (seat 0 = the start player, as everywhere in thurn-ai), Wilson CIs,
    and the chi-square p-value of 'all seats win equally often' (one value per player count, on every row)."""
    check_study_data(df)
    d = df[df.official == CONTROL] if control_only else df
    rows = []
    for n, g in d.groupby("players"):
        games = g.groupby(["official", "game"]).ngroups
        wins = g.groupby("seat")["win"].sum().reindex(range(n), fill_value=0)
        p_equal = equal_counts_p(wins.to_numpy())
        for s in range(n):
            k = int(wins[s])
            lo, hi = wilson_interval(k, games)
            rows.append({"players": n, "seat": s, "games": games, "wins": k, "win_rate": k / games,
                         "lo": lo, "hi": hi, "expected": 1 / n, "p_equal_seats": p_equal})
    return pd.DataFrame(rows)


def wbc_comparison(seats: pd.DataFrame) -> dict:
    """The toolkit's 4-player first-seat win rate next to the WBC record, and their difference."""
    k, n = WBC_FIRST_SEAT["wins"], WBC_FIRST_SEAT["games"]
    out = {"wbc_wins": k, "wbc_games": n, "wbc_rate": k / n, "wbc_ci": wilson_interval(k, n),
           "wbc_p_vs_quarter": binomial_p(k, n, 0.25),
           "wbc_2024_rate": WBC_FIRST_SEAT_2024["rate"]}
    first = seats[(seats.players == 4) & (seats.seat == 0)]
    if len(first):
        f = first.iloc[0]
        out.update({"ours_wins": int(f.wins), "ours_games": int(f.games), "ours_rate": float(f.win_rate),
                    "ours_ci": (float(f.lo), float(f.hi)),
                    "diff_ci": newcombe(int(f.wins), int(f.games), k, n)})
    return out


@dataclass
class Analysis:
    usage: pd.DataFrame
    ablation: pd.DataFrame
    pairs: pd.DataFrame
    seats: pd.DataFrame
    seats_control: pd.DataFrame
    substitution: pd.DataFrame
    wbc: dict = field(default_factory=dict)

    @cached_property
    def primary(self) -> pd.DataFrame:
        """The ablation with its primary estimate, Holm and power (findings.with_primary), computed once."""
        from .findings import with_primary
        return with_primary(self.ablation)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"usage": self.usage, "ablation": self.ablation, "pairs": self.pairs, "seats": self.seats,
                "seats_control": self.seats_control, "substitution": self.substitution}


def analyse(df: pd.DataFrame) -> Analysis:
    seats = seat_table(df)
    return Analysis(usage=usage_table(df), ablation=ablation_table(df), pairs=pairwise_table(df),
                    seats=seats, seats_control=seat_table(df, control_only=True),
                    substitution=substitution_table(df), wbc=wbc_comparison(seats))


def write_tables(a: Analysis, out_dir, prefix: str = "") -> list[str]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for name, t in a.tables().items():
        atomic_to_csv(t, out_dir / f"{prefix}{name}.csv", index=False, float_format="%.6g")
        names.append(f"{prefix}{name}.csv")
    return names


# ---------------------------------------------------------------- two players of the officials side by side

def _regret(c: pd.DataFrame) -> pd.Series:
    """Per rated decision: the search's Δ win the player gave away by its choice, counted only where the
    search rates the other side higher by more than two standard errors (so noise in the many close
    decisions does not add up); a lower bound, as the player may also pick a worse move within a side."""
    r = c[c.d_win.notna()]
    clear = r.d_win.abs() > 2 * r.se_win
    wrong = clear & ((r.used & (r.d_win < 0)) | (~r.used & (r.d_win > 0)))
    return r.d_win.abs().where(wrong, 0.0)


def bot_comparison(usage: dict, ablation: dict, choices: dict | None = None) -> pd.DataFrame:
    """Per player count and official, for each named study (e.g. {'heuristic': ..., 'search': ...}): uses per
    game and the share of its turns on which it was used in each phase (usage tables), the Δ win rate when
    forbidden (ablation tables), and from its rated decisions (choices, optional): how often the official
    was on offer per game, how often the player took it then, how often the search rates taking it right
    in the same positions, how often the player's choice agreed with the search, and what its choices
    gave away in the search's estimate (Δ win summed per game where the search is clear, see _regret)."""
    choices = choices or {}
    keys = sorted({(int(n), o) for u in usage.values() for n, o in zip(u.players, u.official)})
    rows = []
    for n, o in keys:
        row = {"players": n, "official": o}
        for name, u in usage.items():
            r = u[(u.players == n) & (u.official == o)]
            if len(r):
                r = r.iloc[0]
                row[f"{name}_uses"] = float(r.total)
                row[f"{name}_share"] = float(r.share_of_turns)
                for ph in STAGES:
                    row[f"{name}_share_{ph}"] = float(r.get(f"{ph}_share_of_turns", math.nan))
        for name, a in ablation.items():
            r = a[(a.players == n) & (a.official == o)]
            if len(r):
                r = r.iloc[0]
                row.update({f"{name}_d_win": float(r.d_win), f"{name}_d_win_lo": float(r.d_win_lo),
                            f"{name}_d_win_hi": float(r.d_win_hi)})
        for name, ch in choices.items():
            c = ch[(ch.players == n) & (ch.official == o)]
            player_games = ch[ch.players == n].groupby(["source", "game"]).ngroups * n
            if not player_games:
                continue
            rated = c[c.d_win.notna()]
            row.update({
                f"{name}_offered": len(c) / player_games,
                f"{name}_taken": float(c.used.mean()) if len(c) else math.nan,
                f"{name}_right": float((rated.d_win > 0).mean()) if len(rated) else math.nan,
                f"{name}_agree": float(((rated.d_win > 0) == rated.used).mean()) if len(rated) else math.nan,
                f"{name}_given_away": float(_regret(c).sum() / player_games),
                f"{name}_rated": len(rated)})
        rows.append(row)
    return pd.DataFrame(rows)


def seat_comparison(analyses: dict) -> pd.DataFrame:
    """Win rate per seat and player count for each named study (all its games, and its control games
    only), side by side, with Wilson CIs; the WBC 4-player first-seat record is in wbc_comparison."""
    rows: dict[tuple[int, int], dict] = {}
    for name, a in analyses.items():
        for kind, t in (("all", a.seats), ("control", a.seats_control)):
            for r in t.itertuples():
                row = rows.setdefault((int(r.players), int(r.seat)), {"players": int(r.players), "seat": int(r.seat),
                                                                     "fair": 1 / r.players})
                row.update({f"{name}_{kind}_games": int(r.games), f"{name}_{kind}_wins": int(r.wins),
                            f"{name}_{kind}_rate": float(r.win_rate), f"{name}_{kind}_lo": float(r.lo),
                            f"{name}_{kind}_hi": float(r.hi)})
    return pd.DataFrame([rows[k] for k in sorted(rows)])


def control_facts(df: pd.DataFrame) -> dict:
    """{players: (turns per player, mean score)} of the full bot in the control games: how the bot plays."""
    c = df[df.official == CONTROL]
    return {int(n): (float((g.turns / n).mean()), float(g.score.mean())) for n, g in c.groupby("players")}
