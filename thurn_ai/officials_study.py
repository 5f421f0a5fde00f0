"""The officials study: what each official is worth, to whom and when, and whether the first seat wins more.

Design (docs/officials.md explains the choices):

* For each player count n there is a **control** tournament (n copies of the full bot) and, for each
  official, an **ablation** tournament: one seat plays the bot with that official forbidden, the other
  n - 1 seats play the full bot. Seats rotate, so the restricted bot sits in every seat equally often.
* **Δ win rate** = the restricted bot's win rate - 1/n. In a field of identical full bots each player wins
  exactly 1/n of the games (one winner per game), so the baseline has no sampling error; the 95% CI is the
  Wilson interval of the restricted bot's win rate shifted by 1/n.
* **Δ mean score** = the restricted bot's mean score - the full bot's mean score per seat in the control
  games (Welch t interval). The control's unit is one game (the mean over its seats), because the seats of
  one game are not independent of each other.
* **Usage** is counted in the control games (the full bot as it plays): uses per player per game in each
  game phase (early / middle / late by houses placed, thurn_ai.officials.game_phase).
* **Seat advantage**: win rate per seat, over all games of a study (seats rotate, so every seat sees the
  same mix of bots), with Wilson CIs and a chi-square test of equal seats, next to the WBC record.

Everything below the runner works on a plain DataFrame with one row per player per game (the *canonical*
columns in CANONICAL_COLUMNS plus `uses_<official>_<phase>`), so reports can be rebuilt from saved data.
"""
from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from .officials import OFFICIAL_LABEL as _LABELS, OFFICIALS, PHASES
from .bots.spec import parse_spec
from .errors import ThurnError
from .fileio import atomic_savefig, atomic_to_csv, atomic_to_parquet
from .stats import CONFIDENCE, mean_interval, wilson_interval

CONTROL = "none"
OFFICIAL_LABEL = {**_LABELS, CONTROL: "(none)"}
CANONICAL_COLUMNS = ("players", "official", "game", "seed", "seat", "bot", "restricted",
                     "score", "win", "rank", "turns")

#: First-seat wins in 4-player games at the World Boardgaming Championships (as quoted in the issue).
WBC_FIRST_SEAT = {"wins": 71, "games": 226, "period": "WBC 4-player games up to 2013"}
WBC_FIRST_SEAT_2024 = {"rate": 0.34, "period": "WBC 2024 (game count not given)"}



class StudyError(ThurnError):
    """Bad options for the officials study (unknown official, player count, empty data...)."""


# ----------------------------------------------------------------------------------------- the plan

def use_column(official: str, phase: str) -> str:
    return f"uses_{official}_{phase}"


USE_COLUMNS = [use_column(o, ph) for o in OFFICIALS for ph in PHASES]


def with_forbid(spec: str, official: str) -> str:
    """The spec with `forbid=official` added: 'mcts(iterations=300)' -> 'mcts(iterations=300,forbid=...)'."""
    name, kwargs = parse_spec(spec)  # validates the spec (BotSpecError names the problem)
    if kwargs.get("forbid"):
        raise StudyError(f"the full bot {spec!r} already forbids {'+'.join(sorted(kwargs['forbid']))}; "
                         "give the study an unrestricted bot")
    s = spec.strip()
    if s.endswith(")"):
        inner = s[s.index("(") + 1:-1].strip()
        return f"{s[:s.index('(')]}({inner + ',' if inner else ''}forbid={official})"
    return f"{s}(forbid={official})"


@dataclass(frozen=True)
class Condition:
    """One tournament of the study: `official` forbidden for one rotating seat, or CONTROL (none)."""

    players: int
    official: str
    index: int  # 0 for the control, 1.. for the officials (fixes the seed)

    @property
    def name(self) -> str:
        return f"{self.players}p_{self.official}"

    def specs(self, bot: str) -> list[str]:
        if self.official == CONTROL:
            return [bot] * self.players
        return [with_forbid(bot, self.official)] + [bot] * (self.players - 1)

    def seed(self, base_seed: int) -> int:
        """Each tournament its own seed, so the conditions are independent samples."""
        return base_seed + 100 * self.players + self.index


def parse_officials(text) -> tuple[str, ...]:
    if text is None:
        return OFFICIALS
    names = [t.strip().lower().replace("-", "_") for t in (text.split(",") if isinstance(text, str) else text)]
    names = [n for n in names if n]
    bad = [n for n in names if n not in OFFICIALS]
    if bad or not names:
        raise StudyError(f"unknown official {', '.join(bad) or '(none given)'}; use {', '.join(OFFICIALS)}")
    return tuple(dict.fromkeys(names))


def parse_players(text) -> tuple[int, ...]:
    try:
        counts = [int(t) for t in (text.split(",") if isinstance(text, str) else text)]
    except (TypeError, ValueError):
        raise StudyError(f"player counts {text!r}: expected e.g. 2,3,4") from None
    if not counts or any(not 2 <= n <= 4 for n in counts):
        raise StudyError(f"player counts {text!r}: each must be 2, 3 or 4")
    return tuple(dict.fromkeys(counts))


def plan(players=(2, 3, 4), officials=OFFICIALS) -> list[Condition]:
    players, officials = parse_players(players), parse_officials(officials)
    out = []
    for n in players:
        out.append(Condition(n, CONTROL, 0))
        out += [Condition(n, o, 1 + OFFICIALS.index(o)) for o in officials]
    return out


def rotation_games(games, players: int) -> int:
    """Games rounded up to a multiple of the player count, so every seat gets every bot equally often.
    `games` is one number for every player count or a mapping {players: games}."""
    if isinstance(games, dict):
        if players not in games:
            raise StudyError(f"no number of games given for {players} players")
        games = games[players]
    if not isinstance(games, int) or games < 1:
        raise StudyError(f"games must be positive, not {games}")
    return -(-games // players) * players


# ----------------------------------------------------------------------------------------- running

def turns_column(phase: str) -> str:
    return f"turns_{phase}"


def phase_turns(records_path, board_file=None) -> pd.DataFrame:
    """Turns each seat began in each game phase, by replaying a tournament's records.jsonl: the
    denominator that turns uses per phase into a rate (the phases differ in length).

    A record names only a packaged board, so a study played on a board file passes that file (the
    path the user gave, --board-file) as `board_file`."""
    from .match import GameRecord, replay
    from .officials import game_phase
    from .tournament import complete_lines

    rows = []
    # complete lines only: a tournament killed while appending a record leaves its last line cut
    lines = complete_lines(Path(records_path)).splitlines()
    for line in filter(str.strip, lines):
        rec = GameRecord.from_json(line, board_file=board_file)
        counts = [dict.fromkeys(PHASES, 0) for _ in range(rec.rules.players)]
        last_turn = [-1]

        def count(state, player, move):
            if state.turn != last_turn[0]:  # the first decision of a turn
                last_turn[0] = state.turn
                counts[player][game_phase(state)] += 1

        replay(rec, on_move=count)
        game = json.loads(line)["game"]
        rows += [{"game": game, "seat": seat, **{turns_column(ph): c[ph] for ph in PHASES}}
                 for seat, c in enumerate(counts)]
    return pd.DataFrame(rows, columns=["game", "seat", *map(turns_column, PHASES)])


def with_phase_turns(df: pd.DataFrame, folder, board_file=None) -> pd.DataFrame:
    """df (one tournament) with the turns_<phase> columns, if the tournament's records are saved
    (`board_file`: the board file the games were played on, see phase_turns)."""
    records = Path(folder) / "records.jsonl"
    if not records.exists():
        return df
    return df.merge(phase_turns(records, board_file), on=["game", "seat"], how="left", validate="one_to_one")


def standardize(raw: pd.DataFrame, cond: Condition) -> pd.DataFrame:
    """run_tournament's rows -> the canonical columns (see the module doc)."""
    cols = {c.lower(): c for c in raw.columns}

    def pick(*names):
        for n in names:
            if n in cols:
                return raw[cols[n]]
        raise StudyError(f"tournament results lack a column {names[0]!r} (have {', '.join(raw.columns)})")

    bot = pick("spec", "bot").astype(str)  # 'spec' is the raw spec; 'bot' may be a label ('x #2')
    out = pd.DataFrame({
        "players": cond.players, "official": cond.official,
        "game": pick("game").astype(int), "seed": pick("game_seed", "seed").astype("int64"),
        "seat": pick("seat").astype(int), "bot": bot,
        "restricted": [bool(parse_spec(s)[1].get("forbid")) for s in bot],
        "score": pick("score").astype(float), "win": pick("win").astype(int),
        "rank": pick("rank").astype(int), "turns": pick("turns").astype(int),
    })
    for o in OFFICIALS:
        for ph in PHASES:
            # accept 'uses_postmaster_early', 'postmaster_early', 'official_postmaster_early', ...
            pat = re.compile(rf"(^|_){o}_{ph}$")
            match = [c for c in raw.columns if pat.search(c.lower())]
            if not match:
                raise StudyError(f"tournament results lack the usage column for {o} / {ph}")
            out[use_column(o, ph)] = raw[match[0]].fillna(0).astype(int).to_numpy()
    return out


def study_board_file(rules_kwargs):
    """The board file a study's rules_kwargs name (the user's --board-file), or None on a packaged board."""
    from .board import is_packaged_board

    board = (rules_kwargs or {}).get("board")
    return None if board is None or is_packaged_board(board) else board


def run_ablation(bot: str, players=(2, 3, 4), games=100, seed: int = 0, officials=OFFICIALS,
                 jobs=None, rules_kwargs=None, out_dir=None, resume: bool = False,
                 progress: bool = True, log=print) -> pd.DataFrame:
    """Play the control and ablation tournaments (games each, or games[n] for n players; rounded up to a
    multiple of n).

    With out_dir, each tournament keeps its own directory there and `resume` continues it."""
    from .tournament import run_tournament

    board_file = study_board_file(rules_kwargs)
    frames = []
    for cond in plan(players, officials):
        n_games = rotation_games(games, cond.players)
        if log:
            log(f"[officials] {cond.name}: {n_games} games of {' vs '.join(cond.specs(bot)[:2])}, "
                f"seed {cond.seed(seed)}")
        raw = run_tournament(cond.specs(bot), players=cond.players, games=n_games, seed=cond.seed(seed),
                             jobs=jobs, rules_kwargs=rules_kwargs,
                             out_dir=None if out_dir is None else str(Path(out_dir) / cond.name),
                             resume="auto" if resume else False, progress=progress)
        rows = standardize(raw, cond)
        frames.append(rows if out_dir is None else with_phase_turns(rows, Path(out_dir) / cond.name, board_file))
    return pd.concat(frames, ignore_index=True)


def load_ablation(out_dir, bot: str, players=(2, 3, 4), officials=OFFICIALS, board_file=None) -> pd.DataFrame:
    """The games saved by run_ablation(out_dir=...) so far, without playing any (an unfinished tournament
    contributes its complete games); StudyError if a tournament folder is missing. A study played on a
    board file needs that file as `board_file` (the records name only packaged boards)."""
    from .tournament import load_results

    frames = []
    for cond in plan(players, officials):
        folder = Path(out_dir) / cond.name
        if not folder.is_dir():
            raise StudyError(f"{folder} is missing: run the study first")
        frames.append(with_phase_turns(standardize(load_results(folder), cond), folder, board_file))
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------------------- statistics

def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """CI of p1 - p2 for independent proportions (Newcombe's hybrid score interval, from Wilson's)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1)
    l2, u2 = wilson_interval(k2, n2)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def mean_ci(x) -> tuple[float, float, float]:
    """Mean and t interval of independent values (identical values: the interval is the value)."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean()) if len(x) else math.nan
    lo, hi = mean_interval(x)
    return (m, m, m) if len(x) == 1 else (m, lo, hi)


def welch(a, b) -> tuple[float, float, float, float]:
    """mean(a) - mean(b), its Welch t interval and p-value."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = float(a.mean() - b.mean())
    if len(a) < 2 or len(b) < 2 or (a.var() == 0 and b.var() == 0):
        return d, d, d, (1.0 if d == 0 else 0.0)
    t = stats.ttest_ind(a, b, equal_var=False)
    ci = t.confidence_interval(CONFIDENCE)
    return d, float(ci.low), float(ci.high), float(t.pvalue)


def _check(df: pd.DataFrame):
    missing = [c for c in (*CANONICAL_COLUMNS, *USE_COLUMNS) if c not in df.columns]
    if missing:
        raise StudyError(f"study data lacks columns: {', '.join(missing)}")
    if df.empty:
        raise StudyError("study data holds no games")


def usage_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per player count and official: uses per player per game by phase in the control games (full bot),
    with t CIs over games (a count's interval stops at 0), and the share of the player's turns on which it
    was used — overall and, when the data hold turns per phase (turns_<phase>), in each phase."""
    _check(df)
    ctrl = df[df.official == CONTROL]
    has_phase_turns = all(turns_column(ph) in ctrl and ctrl[turns_column(ph)].notna().all() for ph in PHASES)
    rows = []
    for n, g in ctrl.groupby("players"):
        per_game = g.groupby("game")
        own_turns = per_game["turns"].first() / n  # every player gets the same number of turns
        for o in OFFICIALS:
            row = {"players": n, "official": o, "games": per_game.ngroups}
            total = 0.0
            for ph in PHASES:
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
    the full bot's in the control: what a player does instead when one official is taken away."""
    _check(df)
    rows = []
    for (n, off), g in df.groupby(["players", "official"]):
        who = g if off == CONTROL else g[g.restricted]
        row = {"players": n, "forbidden": off}
        for o in OFFICIALS:
            row[o] = float(sum(who[use_column(o, ph)] for ph in PHASES).mean())
        rows.append(row)
    out = pd.DataFrame(rows)
    order = {o: i for i, o in enumerate((CONTROL, *OFFICIALS))}
    return out.sort_values(["players", "forbidden"], key=lambda s: s.map(order) if s.name == "forbidden" else s,
                           ignore_index=True)


def ablation_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per player count and official: the restricted bot's win rate and score against full bots, and the
    differences to the full bot (Δ win rate vs 1/n, Δ mean score vs the control), with 95% CIs."""
    _check(df)
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
            row = {"players": n, "official": o, "games": m, "wins": k, "win_rate": k / m,
                   "win_lo": lo, "win_hi": hi, "d_win": k / m - 1 / n, "d_win_lo": lo - 1 / n,
                   "d_win_hi": hi - 1 / n, "p_win": float(stats.binomtest(k, m, 1 / n).pvalue),
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
            row.update({"margin": mm, "margin_lo": mlo, "margin_hi": mhi})
            rows.append(row)
    return pd.DataFrame(rows)


def pairwise_table(df: pd.DataFrame) -> pd.DataFrame:
    """For every pair of officials (per player count): is taking one away worse than taking the other?
    Differences of the restricted bots' win rates (Newcombe) and mean scores (Welch), 95% CIs;
    `separated` when the interval excludes 0 (uncorrected for the number of pairs)."""
    _check(df)
    rows = []
    for n in sorted(df.players.unique()):
        r = df[(df.players == n) & df.restricted]
        present = [o for o in OFFICIALS if (r.official == o).any()]
        for a, b in itertools.combinations(present, 2):
            ra, rb = r[r.official == a], r[r.official == b]
            ka, na, kb, nb = int(ra.win.sum()), len(ra), int(rb.win.sum()), len(rb)
            wlo, whi = newcombe(ka, na, kb, nb)
            d, slo, shi, _ = welch(ra.score, rb.score)
            rows.append({"players": n, "a": a, "b": b, "d_win": ka / na - kb / nb, "d_win_lo": wlo,
                         "d_win_hi": whi, "win_separated": wlo > 0 or whi < 0, "d_score": d,
                         "d_score_lo": slo, "d_score_hi": shi, "score_separated": slo > 0 or shi < 0})
    return pd.DataFrame(rows, columns=["players", "a", "b", "d_win", "d_win_lo", "d_win_hi", "win_separated",
                                       "d_score", "d_score_lo", "d_score_hi", "score_separated"])


def seat_table(df: pd.DataFrame, control_only: bool = False) -> pd.DataFrame:
    """Win rate per seat and player count (seat 1 = the start player), Wilson CIs, and the chi-square
    p-value of 'all seats win equally often' (one value per player count, on every row)."""
    _check(df)
    d = df[df.official == CONTROL] if control_only else df
    rows = []
    for n, g in d.groupby("players"):
        games = g.groupby(["official", "game"]).ngroups
        wins = g.groupby("seat")["win"].sum().reindex(range(n), fill_value=0)
        p_equal = float(stats.chisquare(wins.to_numpy()).pvalue) if wins.sum() else math.nan
        for s in range(n):
            k = int(wins[s])
            lo, hi = wilson_interval(k, games)
            rows.append({"players": n, "seat": s + 1, "games": games, "wins": k, "win_rate": k / games,
                         "lo": lo, "hi": hi, "expected": 1 / n, "p_equal_seats": p_equal})
    return pd.DataFrame(rows)


def wbc_comparison(seats: pd.DataFrame) -> dict:
    """The toolkit's 4-player first-seat win rate next to the WBC record, and their difference."""
    k, n = WBC_FIRST_SEAT["wins"], WBC_FIRST_SEAT["games"]
    out = {"wbc_wins": k, "wbc_games": n, "wbc_rate": k / n, "wbc_ci": wilson_interval(k, n),
           "wbc_p_vs_quarter": float(stats.binomtest(k, n, 0.25).pvalue),
           "wbc_2024_rate": WBC_FIRST_SEAT_2024["rate"]}
    first = seats[(seats.players == 4) & (seats.seat == 1)]
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

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"usage": self.usage, "ablation": self.ablation, "pairs": self.pairs, "seats": self.seats,
                "seats_control": self.seats_control, "substitution": self.substitution}


def analyse(df: pd.DataFrame) -> Analysis:
    seats = seat_table(df)
    return Analysis(usage=usage_table(df), ablation=ablation_table(df), pairs=pairwise_table(df),
                    seats=seats, seats_control=seat_table(df, control_only=True),
                    substitution=substitution_table(df), wbc=wbc_comparison(seats))


# ----------------------------------------------------------------------------------------- reporting

def pct(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def pp(x, lo, hi) -> str:
    """A difference of proportions in percentage points with its CI."""
    return f"{100 * x:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def num(x, lo, hi, digits=2) -> str:
    return f"{x:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def _separated(lo, hi) -> bool:
    return lo > 0 or hi < 0


def findings(a: Analysis) -> list[str]:
    """Plain sentences: what forbidding each official does (where the CI excludes 0 and where it does not),
    which pairs of officials the data separate, how often each is used, and the seat advantage."""
    out = []
    for n, g in a.ablation.groupby("players"):
        worst = g.sort_values("d_win").iloc[0]
        costs = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_win_hi < 0]
        gains = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_win_lo > 0]
        unclear = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_win_lo <= 0 <= r.d_win_hi]
        s = (f"{n} players: taking away the {OFFICIAL_LABEL[worst.official]} costs the most "
             f"({pp(worst.d_win, worst.d_win_lo, worst.d_win_hi)} win rate, "
             f"{num(worst.d_score, worst.d_score_lo, worst.d_score_hi)} points). "
             f"Win rate lower without: {', '.join(costs) or 'none'}")
        if gains:
            s += f"; higher without (this bot uses it to its harm): {', '.join(gains)}"
        s += f"; no change the CIs can detect: {', '.join(unclear) or 'none'}."
        out.append(s)
        p = a.pairs[a.pairs.players == n]
        if len(p):
            sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                   if r.win_separated or r.score_separated]
            not_sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                       if not (r.win_separated or r.score_separated)]
            out.append(f"{n} players: pairs the CIs separate (win rate or score): {', '.join(sep) or 'none'}; "
                       f"not separated: {', '.join(not_sep) or 'none'}.")
    for n, g in a.usage.groupby("players"):
        g = g.sort_values("total", ascending=False)
        if "early_share_of_turns" in g:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} (on {pct(r.share_of_turns)} of its turns: "
                             + " / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in PHASES) + ")"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game (share of its turns early / middle / late): "
                       f"{uses}.")
        else:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} ({pct(r.share_of_turns)} of turns)"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game: {uses}.")
    for n, g in a.seats.groupby("players"):
        f = g[g.seat == 1].iloc[0]
        verdict = ("above" if f.lo > f.expected else "below" if f.hi < f.expected else "not distinguishable from")
        off_fair = [f"seat {r.seat} {pct(r.win_rate)} [{pct(r.lo)}, {pct(r.hi)}]" for r in g.itertuples()
                    if r.lo > r.expected or r.hi < r.expected]
        out.append(f"{n} players: the first seat wins {pct(f.win_rate)} [{pct(f.lo)}, {pct(f.hi)}] of "
                   f"{int(f.games)} games, {verdict} the fair {pct(f.expected)}; seats whose interval excludes "
                   f"the fair share: {', '.join(off_fair) or 'none'} (all seats equal: chi-square "
                   f"p = {f.p_equal_seats:.3g}).")
    return out


def build_report(analyses: dict[str, Analysis], meta: dict | None = None) -> str:
    """The markdown report: one section per study (bot), the WBC comparison, the command and the seeds.

    meta: {'title', 'command', 'commit', 'notes': [sentences], 'studies': {name: {'bot', 'games', 'seed',
    'budget', 'wall_minutes', 'game_length': {players: (turns per player, mean score)}}},
    'plots': {name: [relative paths]}} (every key optional; see control_facts for game_length)."""
    if not analyses:
        raise StudyError("no study results to report")
    meta = meta or {}
    smeta = meta.get("studies", {})
    L = [f"# {meta.get('title', 'What the officials are worth')}", ""]
    if meta.get("command"):
        L += ["Reproduce with:", "", "```bash", meta["command"], "```", ""]
    if meta.get("commit"):
        L += [f"Report built at commit `{meta['commit']}`.", ""]
    L += ["Method: per player count, a control tournament (all seats the full bot) and, per official, a "
          "tournament of one seat with that official forbidden against full bots, the restricted seat "
          "rotating through all seats. Δ win rate = restricted bot's win rate − 1/n (exact baseline; 95% "
          "Wilson CI). Δ score = restricted bot's mean score − the full bot's per-seat mean in the control "
          "(95% Welch CI). Margin = restricted score − its full opponents' mean score in the same game. "
          "Usage = uses per player per game in the control games (the forced Postmaster of an empty hand "
          "is not counted), by game phase (early/middle/late = fewer than 7 / 14 / up to 20 houses placed "
          "by the leading player). All intervals are 95% and not corrected for the number of comparisons.",
          ""]
    if meta.get("notes"):
        L += [f"- {note}" for note in meta["notes"]] + [""]
    for name, a in analyses.items():
        m = smeta.get(name, {})
        L += [f"## {name}" + (f": `{m['bot']}`" if m.get("bot") else ""), ""]
        facts = []
        if isinstance(m.get("games"), dict):
            per = ", ".join(f"{g} with {n} players" for n, g in sorted(m["games"].items()))
            facts.append(f"games per tournament (control and each official): {per}")
        elif m.get("games"):
            facts.append(f"{m['games']} games per tournament (rounded up to a multiple of the player count)")
        if m.get("seed") is not None:
            facts.append(f"base seed {m['seed']} (tournament seed = base + 100·players + k, k = 0 control, "
                         f"1–4 Postmaster, Administrator, Postal Carrier, Cartwright)")
        if m.get("budget"):
            facts.append(f"bot budget: {m['budget']}")
        if m.get("played_with"):
            facts.append(f"games played with commit {m['played_with']}")
        if m.get("wall_minutes"):
            facts.append(f"wall time {m['wall_minutes']:.0f} min")
        total = int(a.seats.groupby("players").games.first().sum()) if len(a.seats) else 0
        facts.append(f"{total} games in all")
        if "game_length" in m:
            facts.append("full bot in the control games: " + ", ".join(
                f"{n} players {t:.0f} turns each, mean score {sc:.1f}" for n, (t, sc) in sorted(m["game_length"].items())))
        L += ["; ".join(facts) + ".", ""]
        L += ["### Findings", ""] + [f"- {s}" for s in findings(a)] + [""]
        plots = meta.get("plots", {}).get(name, [])
        for img in [p for p in plots if Path(p).stem.endswith("summary")]:
            L += [f"![{Path(img).stem}]({img})", ""]
        others = [p for p in plots if not Path(p).stem.endswith("summary")]
        if others:
            L += ["Single plots: " + ", ".join(f"[{Path(p).stem}]({p})" for p in others) + ".", ""]
        L += ["### Taking one official away", "",
              "| players | official | games | restricted wins | Δ win rate [95% CI] | Δ mean score [95% CI] "
              "| margin vs opponents [95% CI] |", "|---|---|---|---|---|---|---|"]
        for r in a.ablation.itertuples():
            L.append(f"| {r.players} | {OFFICIAL_LABEL[r.official]} | {r.games} | {pct(r.win_rate)} "
                     f"(fair {pct(1 / r.players)}) | {pp(r.d_win, r.d_win_lo, r.d_win_hi)} "
                     f"| {num(r.d_score, r.d_score_lo, r.d_score_hi)} | {num(r.margin, r.margin_lo, r.margin_hi)} |")
        rates = "early_share_of_turns" in a.usage
        L += ["", "### How often and when the full bot uses each official", "",
              "Uses per player per game [95% CI] in each phase; share = fraction of the player's turns on "
              "which it was used" + (" (overall, and within each phase: the phases differ in length)"
                                     if rates else "") + ".", "",
              "| players | official | early | middle | late | total | share of turns |"
              + (" share early / middle / late |" if rates else ""),
              "|---|---|---|---|---|---|---|" + ("---|" if rates else "")]
        for r in a.usage.itertuples():
            cells = [f"{getattr(r, ph):.2f} [{getattr(r, ph + '_lo'):.2f}, {getattr(r, ph + '_hi'):.2f}]"
                     for ph in (*PHASES, "total")]
            by_phase = (" " + " / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in PHASES) + " |"
                        if rates else "")
            L.append(f"| {r.players} | {OFFICIAL_LABEL[r.official]} | " + " | ".join(cells)
                     + f" | {pct(r.share_of_turns)} |" + by_phase)
        L += ["", "What the bot does instead (uses per game of each official by the restricted seat; "
              "first row per player count = the full bot):", "",
              "| players | forbidden | " + " | ".join(OFFICIAL_LABEL[o] for o in OFFICIALS) + " |",
              "|---|---|" + "---|" * len(OFFICIALS)]
        for r in a.substitution.itertuples():
            L.append(f"| {r.players} | {OFFICIAL_LABEL[r.forbidden]} | "
                     + " | ".join(f"{getattr(r, o):.2f}" for o in OFFICIALS) + " |")
        if len(a.pairs):
            L += ["", "Pairs of officials (restricted bot without A minus without B; separated = CI excludes 0):",
                  "", "| players | A | B | Δ win rate [95% CI] | Δ score [95% CI] | separated |",
                  "|---|---|---|---|---|---|"]
            for r in a.pairs.itertuples():
                sep = ", ".join(x for x, s in (("win", r.win_separated), ("score", r.score_separated)) if s)
                L.append(f"| {r.players} | {OFFICIAL_LABEL[r.a]} | {OFFICIAL_LABEL[r.b]} | "
                         f"{pp(r.d_win, r.d_win_lo, r.d_win_hi)} | {num(r.d_score, r.d_score_lo, r.d_score_hi)} "
                         f"| {sep or 'no'} |")
        L += ["", "### Seat advantage", "",
              "All games of this study (seats rotate, so each seat meets the same mix of bots); the last "
              "column uses only the control games (identical bots).", "",
              "| players | seat | games | wins | win rate [95% CI] | fair | equal seats p | control only |",
              "|---|---|---|---|---|---|---|---|"]
        ctrl = a.seats_control.set_index(["players", "seat"])
        for r in a.seats.itertuples():
            c = ctrl.loc[(r.players, r.seat)] if (r.players, r.seat) in ctrl.index else None
            cc = f"{pct(c.win_rate)} [{pct(c.lo)}, {pct(c.hi)}] of {int(c.games)}" if c is not None else "–"
            L.append(f"| {r.players} | {r.seat} | {r.games} | {r.wins} | {pct(r.win_rate)} [{pct(r.lo)}, "
                     f"{pct(r.hi)}] | {pct(r.expected)} | {r.p_equal_seats:.3g} | {cc} |")
        L += ["", wbc_sentence(a.wbc), ""]
    return "\n".join(L).rstrip() + "\n"


def control_facts(df: pd.DataFrame) -> dict:
    """{players: (turns per player, mean score)} of the full bot in the control games: how the bot plays."""
    c = df[df.official == CONTROL]
    return {int(n): (float((g.turns / n).mean()), float(g.score.mean())) for n, g in c.groupby("players")}


def wbc_sentence(w: dict) -> str:
    lo, hi = w["wbc_ci"]
    s = (f"**Against the real games:** at the World Boardgaming Championships the first seat won "
         f"{w['wbc_wins']} of {w['wbc_games']} 4-player games up to 2013 = {pct(w['wbc_rate'])} "
         f"[{pct(lo)}, {pct(hi)}] (binomial p = {w['wbc_p_vs_quarter']:.3g} against 25%), and "
         f"{pct(w['wbc_2024_rate'])} in 2024.")
    if "ours_rate" in w:
        olo, ohi = w["ours_ci"]
        dlo, dhi = w["diff_ci"]
        same = "consistent with" if dlo <= 0 <= dhi else "different from"
        s += (f" Here the first seat won {w['ours_wins']} of {w['ours_games']} 4-player games = "
              f"{pct(w['ours_rate'])} [{pct(olo)}, {pct(ohi)}]; difference to the WBC "
              f"{pp(w['ours_rate'] - w['wbc_rate'], dlo, dhi)}, i.e. {same} the WBC rate.")
    return s


def format_text(a: Analysis) -> str:
    """A compact plain-text summary for the terminal."""
    L = ["officials: Δ win rate and Δ mean score when forbidden (95% CI)"]
    for r in a.ablation.itertuples():
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} games {r.games:>5}  win {pct(r.win_rate):>6}  "
                 f"Δwin {pp(r.d_win, r.d_win_lo, r.d_win_hi):<26} Δscore {num(r.d_score, r.d_score_lo, r.d_score_hi)}")
    L.append("usage by the full bot (uses per player per game: early / middle / late = total)")
    for r in a.usage.itertuples():
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} {r.early:5.2f} / {r.middle:5.2f} / "
                 f"{r.late:5.2f} = {r.total:5.2f}  ({pct(r.share_of_turns)} of turns)")
    L.append("seat advantage (all games; seat 1 starts)")
    for n, g in a.seats.groupby("players"):
        cells = "  ".join(f"seat {r.seat} {pct(r.win_rate)} [{pct(r.lo)}, {pct(r.hi)}]" for r in g.itertuples())
        L.append(f"  {n}p ({int(g.games.iloc[0])} games, equal-seats p {g.p_equal_seats.iloc[0]:.3g}): {cells}")
    L.append(wbc_sentence(a.wbc).replace("**", ""))
    L += ["findings:"] + [f"  - {s}" for s in findings(a)]
    return "\n".join(L)


# ----------------------------------------------------------------------------------------- plots

def write_plots(a: Analysis, out_dir, prefix: str = "", title: str = "") -> list[str]:
    """PNG plots (ablation effects, usage by phase, seat advantage, and a 2x2 summary); returns names."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []

    def save(fig, name):
        fig.tight_layout()
        try:
            atomic_savefig(fig, out_dir / f"{prefix}{name}.png", dpi=110)
        finally:
            plt.close(fig)
        written.append(f"{prefix}{name}.png")

    def effect(ax, col, ylabel, scale=1.0):
        counts = sorted(a.ablation.players.unique())
        width = 0.8 / max(len(counts), 1)
        for i, n in enumerate(counts):
            g = a.ablation[a.ablation.players == n].set_index("official").reindex(OFFICIALS).dropna(subset=[col])
            x = np.array([OFFICIALS.index(o) for o in g.index]) + (i - (len(counts) - 1) / 2) * width
            y = g[col].to_numpy() * scale
            err = np.vstack([y - g[col + "_lo"].to_numpy() * scale, g[col + "_hi"].to_numpy() * scale - y])
            ax.errorbar(x, y, yerr=err, fmt="o", capsize=3, label=f"{n} players")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(range(len(OFFICIALS)), [OFFICIAL_LABEL[o] for o in OFFICIALS])
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)

    rates = "early_share_of_turns" in a.usage

    def usage(ax):
        """Per official and player count: the share of turns on which it was used in each phase (bars side
        by side), or, without turns per phase, the uses per game stacked by phase."""
        counts = sorted(a.usage.players.unique())
        width = 0.8 / max(len(counts), 1)
        colors = {"early": "#9ecae1", "middle": "#4292c6", "late": "#08519c"}
        for i, n in enumerate(counts):
            g = a.usage[a.usage.players == n].set_index("official").reindex(OFFICIALS)
            x = np.arange(len(OFFICIALS)) + (i - (len(counts) - 1) / 2) * width
            bottom = np.zeros(len(OFFICIALS))
            for k, ph in enumerate(PHASES):
                if rates:
                    y = 100 * g[f"{ph}_share_of_turns"].to_numpy()
                    ax.bar(x + (k - 1) * width / 3, y, width / 3 * 0.95, color=colors[ph],
                           label=ph if i == 0 else None)
                    bottom = np.fmax(bottom, y)  # fmax: a phase no game reached is nan
                else:
                    ax.bar(x, g[ph].to_numpy(), width * 0.95, bottom=bottom, color=colors[ph],
                           label=ph if i == 0 else None, edgecolor="white", lw=0.5)
                    bottom += g[ph].to_numpy()
            for xx, b in zip(x, bottom):
                ax.text(xx, b, f"{n}p", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(OFFICIALS)), [OFFICIAL_LABEL[o] for o in OFFICIALS])
        ax.set_ylabel("% of the player's turns in the phase" if rates else "uses per player per game")
        ax.legend(fontsize=8, title="game phase", title_fontsize=8)

    def seats(ax):
        for n, g in a.seats.groupby("players"):
            y = g.win_rate.to_numpy()
            ax.errorbar(g.seat + (n - 3) * 0.08, y, yerr=[y - g.lo.to_numpy(), g.hi.to_numpy() - y], fmt="o-",
                        capsize=3, label=f"{n} players")
            ax.axhline(1 / n, color="grey", lw=0.6, ls=":")
        w = a.wbc
        lo, hi = w["wbc_ci"]
        ax.errorbar([1 - 0.25], [w["wbc_rate"]], yerr=[[w["wbc_rate"] - lo], [hi - w["wbc_rate"]]], fmt="s",
                    color="black", capsize=3, label="WBC 4p, 71/226")
        ax.plot([1 - 0.35], [w["wbc_2024_rate"]], "D", color="dimgrey", label="WBC 2024 (34%)")
        ax.set_xlabel("seat (1 = start player)")
        ax.set_ylabel("win rate")
        ax.set_xticks([1, 2, 3, 4])
        ax.legend(fontsize=7)

    fig, ax = plt.subplots(figsize=(7, 4))
    effect(ax, "d_win", "Δ win rate when forbidden (pp)", 100)
    ax.set_title(f"{title} Δ win rate without one official (95% CI)".strip())
    save(fig, "delta_win")
    fig, ax = plt.subplots(figsize=(7, 4))
    effect(ax, "d_score", "Δ mean score when forbidden")
    ax.set_title(f"{title} Δ mean score without one official (95% CI)".strip())
    save(fig, "delta_score")
    fig, ax = plt.subplots(figsize=(7, 4))
    usage(ax)
    ax.set_title(f"{title} usage by game phase (full bot)".strip())
    save(fig, "usage")
    fig, ax = plt.subplots(figsize=(6, 4))
    seats(ax)
    ax.set_title(f"{title} win rate by seat (95% CI)".strip())
    save(fig, "seats")

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    effect(axes[0, 0], "d_win", "Δ win rate (pp)", 100)
    axes[0, 0].set_title("Δ win rate without the official")
    effect(axes[0, 1], "d_score", "Δ mean score")
    axes[0, 1].set_title("Δ mean score without the official")
    usage(axes[1, 0])
    axes[1, 0].set_title("turns on which the full bot uses it, by phase" if rates
                         else "uses per player per game, by phase")
    seats(axes[1, 1])
    axes[1, 1].set_title("win rate by seat vs WBC")
    if title:
        fig.suptitle(title)
    save(fig, "summary")
    return written


def write_tables(a: Analysis, out_dir, prefix: str = "") -> list[str]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for name, t in a.tables().items():
        atomic_to_csv(t, out_dir / f"{prefix}{name}.csv", index=False, float_format="%.6g")
        names.append(f"{prefix}{name}.csv")
    return names


# ----------------------------------------------------------------------------------------- files

def save_study(df: pd.DataFrame, a: Analysis, out_dir, prefix: str = "", title: str = "") -> list[str]:
    """Write the study's rows (<prefix>games.parquet), its tables (CSV) and plots (PNG) to out_dir;
    returns the plot file names (relative to out_dir)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_to_parquet(df, out_dir / f"{prefix}games.parquet", index=False)
    write_tables(a, out_dir, prefix)
    return write_plots(a, out_dir, prefix, title)


def load_study(path) -> pd.DataFrame:
    """Study rows saved by save_study (Parquet) or as CSV; StudyError if unreadable or not study data."""
    p = Path(path)
    if not p.is_file():
        raise StudyError(f"{path}: no such file")
    try:
        df = pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_csv(p)
    except Exception as e:  # pyarrow and the CSV reader raise many kinds; all mean "not readable"
        raise StudyError(f"cannot read study data from {path}: {e}") from None
    _check(df)
    return df
