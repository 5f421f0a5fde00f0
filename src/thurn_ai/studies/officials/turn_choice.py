"""The officials study's turn question: at the start of a turn, which official (if any) to use this turn -- one
search per option holding the player to it for the whole turn, its best line's first move re-rated by an
independent search (docs/officials.md, "The turn question"). Rows (one a turn start and option) are appended to
OUT/rows.jsonl and resumed as the choice part's are; OUT/turns.json holds the settings."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...bots.mcts import NO_OFFICIAL
from ...fileio import path_text
from ...game.officials import OFFICIAL_LABEL, OFFICIALS, STAGES, game_stage, possible_officials
from ...game.rules import PLAYER_COUNTS
from ...play.turn_options import TurnOption, open_choices, rate_turn_option
from ...play.match import GameRecord, derive_seed, record_walk
from .choice import SearchSettings, fresh_seed, rate_records, read_done
from .choice_tables import win_unit
from .design import TRIM, trimmed_mean, with_holm
from .plan import StudyError
from ..markdown import Prose
from ..markdown import table as markdown_table

PROSE = Prose(__package__, "prose/report.md")

__all__ = ["TurnSettings", "TURN_OPTIONS", "TURN_COLUMNS", "possible_officials", "rate_turn", "analyse_turns_game",
           "run_turns", "load_turns", "turns_folder", "run_turns_study", "load_turns_study", "turn_table",
           "turn_section", "TURNS_META"]

TURNS_META = "turns.json"
#: the options of a turn: no official, or one of them
TURN_OPTIONS = (NO_OFFICIAL, *OFFICIALS)
TURN_COLUMNS = ("players", "source", "game", "game_seed", "move", "turn", "seat", "phase", "hand_size", "forced",
                "option", "best_move", "win", "score", "visits", "fresh_win", "fresh_score", "fresh_visits",
                "uses_it", "calibrated", "search", "seed")
#: resamples of whole games for the table's intervals and p-values
RESAMPLES = 999


@dataclass(frozen=True)
class TurnSettings(SearchSettings):
    """How the turns are rated (SearchSettings): each option of a turn gets two searches of `iterations`
    (the first and the fresh re-rating)."""


# ---------------------------------------------------------------------------------- one turn

def rate_turn(state, settings: TurnSettings, seed: int) -> list[dict]:
    """The ratings of the turn that starts at `state` (its first decision), one dict per option: none and
    each possible official, every option's searches from the same seeds (see the module doc)."""
    spec = settings.spec(state.n_players)
    return [rating_row(rate_turn_option(state, o, spec, seed, fresh_seed(seed)))
            for o in open_choices(state)]


def rating_row(r: TurnOption) -> dict:
    """A turn option's rating as the study's row columns."""
    return {"option": r.option, "best_move": r.move, "win": r.first_win, "score": r.first_score,
            "visits": r.visits, "fresh_win": r.win_prob, "fresh_score": r.mean_score,
            "fresh_visits": r.fresh_visits, "uses_it": r.uses_it, "calibrated": r.calibrated, "search": r.bot}


def analyse_turns_game(record: GameRecord, settings: TurnSettings, game: int, source: str = "") -> list[dict]:
    """Replay a recorded game and rate the start of every turn (every seat)."""
    rows, last_turn = [], -1
    for i, state, _move in record_walk(record):
        if state.turn != last_turn:        # the first decision of a turn
            last_turn = state.turn
            p = state.current_player
            seed = derive_seed("officials-turn", settings.seed, record.seed, i)
            base = {"players": record.rules.players, "source": source, "game": game, "game_seed": record.seed,
                    "move": i, "turn": state.turn, "seat": p, "phase": game_stage(state),
                    "hand_size": sum(state.hand(p).values()), "seed": seed}
            if state.turn_state().forced_pm:
                rows.append({**base, "forced": True, "option": NO_OFFICIAL})
            else:
                rows += [{**base, "forced": False, **r} for r in rate_turn(state, settings, seed)]
    return rows


def _turns_task(args) -> tuple[int, list[dict]]:
    game, line, settings, source, board_file = args
    return game, analyse_turns_game(GameRecord.from_json(line, board_file=board_file), settings, game, source)


def _frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=TURN_COLUMNS)
    for c in ("forced", "uses_it", "calibrated"):
        df[c] = df[c].fillna(False).astype(bool)
    return df


def run_turns(records_path, out_dir, settings: TurnSettings, games: int | None = None, jobs: int = 1,
              resume: bool = False, source: str = "", board_file=None, progress: bool = False, log=None,
              client=None) -> pd.DataFrame:
    """Rate the turn starts of the first `games` games of a records file into out_dir (resumable, as the
    choice part: choice.rate_records); returns their rows."""
    return _frame(rate_records(records_path, out_dir, settings, _turns_task, TURNS_META, "turns", games=games,
                               jobs=jobs, resume=resume, source=source, board_file=board_file, progress=progress,
                               log=log, client=client))


def load_turns(out_dir) -> pd.DataFrame:
    return _frame(read_done(out_dir))


def turns_folder(out_dir, players: int) -> Path:
    return Path(out_dir) / f"turns_{players}p"


def run_turns_study(out_dir, players=PLAYER_COUNTS, turn_games=None, turn_bot="mcts", seed: int = 0,
                    iterations: int | None = None, jobs=1, board_file=None, progress: bool = False, log=print,
                    scheduler: str | None = None) -> pd.DataFrame:
    """The turn question on a study's control games already recorded in out_dir/<n>p_none (the choice part plays them):
    the first turn_games[n] (one number or {players: n}; None: all) rated with `turn_bot` (a spec or {players: spec})
    into out_dir/turns_<n>p, resuming; jobs: local worker processes (None: every core)."""
    from .plan import CONTROL, Condition, bot_for, parse_players
    from ...play.tournament import check_jobs, connect

    jobs = check_jobs(jobs)
    client = connect(scheduler) if scheduler else None
    frames = []
    for n in parse_players(players):
        name = Condition(n, CONTROL, 0).name
        records = Path(out_dir) / name / "records.jsonl"
        if not records.is_file():
            raise StudyError(f"{path_text(records)} is missing: play the control games first (--part choice)")
        want = turn_games.get(n) if isinstance(turn_games, dict) else turn_games
        settings = TurnSettings(bot=bot_for(turn_bot, n), iterations=iterations, seed=seed)
        frames.append(run_turns(records, turns_folder(out_dir, n), settings, games=want, jobs=jobs, resume=True,
                                source=name, board_file=board_file, progress=progress, log=log, client=client))
    return pd.concat(frames, ignore_index=True) if frames else _frame([])


def load_turns_study(out_dir, players=PLAYER_COUNTS) -> pd.DataFrame:
    """The rated turns saved so far (player counts without a turns folder left out); StudyError if none."""
    from .plan import parse_players

    frames = [load_turns(turns_folder(out_dir, n)) for n in parse_players(players)
              if turns_folder(out_dir, n).is_dir()]
    if not frames or all(f.empty for f in frames):
        raise StudyError(f"{path_text(out_dir)} holds no rated turns: run the turns part first")
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------------- the table

def per_turn(df: pd.DataFrame) -> pd.DataFrame:
    """One row per rated (not forced) turn: players, source, game, phase, value_<option> (the re-rated
    value, nan where the option is not possible, its line does not use it or the re-rating missed it), best
    (the option of highest value, none on ties), d_<official> (value minus none's)."""
    r = df[~df.forced].copy()
    r["value"] = r.fresh_win.where(r.uses_it)
    keys = ["players", "source", "game", "move", "phase"]
    wide = r.set_index([*keys, "option"])["value"].unstack("option")      # an option not rated: nan
    wide = wide.reindex(columns=list(TURN_OPTIONS)).reset_index()
    wide.columns = [*keys, *(f"value_{o}" for o in TURN_OPTIONS)]
    values = wide[[f"value_{o}" for o in TURN_OPTIONS]].to_numpy(dtype=float)
    filled = np.where(np.isnan(values), -np.inf, values)
    wide["best"] = [TURN_OPTIONS[k] if not math.isinf(filled[i, k]) else None
                    for i, k in enumerate(filled.argmax(axis=1))]
    for o in OFFICIALS:
        wide[f"d_{o}"] = wide[f"value_{o}"] - wide[f"value_{NO_OFFICIAL}"]
    return wide


def game_bootstrap_distribution(groups: list, statistics, seed: int = 0, resamples: int = RESAMPLES) -> list:
    """The bootstrap distribution of each statistic of the values of `groups` (one array per game), resampling whole
    games (thurn_ai.stats.summary.cluster_bootstrap): one array of `resamples` values per statistic."""
    from ...stats.summary import cluster_bootstrap

    def stat(idx):
        x = np.concatenate([groups[k] for k in idx])
        return np.array([f(x) for f in statistics])
    return list(np.atleast_2d(cluster_bootstrap(len(groups), stat, resamples, seed)))


def _game_bootstrap(values: pd.Series, games: pd.Series, seed: int = 0) -> dict:
    """Median and trimmed mean of `values` with 95% percentile intervals resampling whole games, and the
    two-sided bootstrap p-value of the trimmed mean being 0."""
    ok = values.notna()
    v, g = values[ok].to_numpy(float), games[ok].to_numpy()
    out = {"median": float(np.median(v)) if len(v) else math.nan, "trimmed": trimmed_mean(v),
           "mean": float(v.mean()) if len(v) else math.nan}
    keys: Any = np.unique(g) if len(v) else []
    if len(keys) < 2:
        return {**out, "median_lo": math.nan, "median_hi": math.nan, "trimmed_lo": math.nan,
                "trimmed_hi": math.nan, "p": math.nan, "p_floor": False}
    groups = [v[g == k] for k in keys]
    med, trim = game_bootstrap_distribution(groups, (np.median, lambda x: trimmed_mean(x, TRIM)), seed)
    p = 2 * min((trim <= 0).mean(), (trim >= 0).mean())
    # no resample on the other side of 0: the resampling only bounds p (p_floor), it does not measure it
    floor = 1 / (RESAMPLES + 1)
    return {**out, "median_lo": float(np.quantile(med, 0.025)), "median_hi": float(np.quantile(med, 0.975)),
            "trimmed_lo": float(np.quantile(trim, 0.025)), "trimmed_hi": float(np.quantile(trim, 0.975)),
            "p": float(min(1.0, max(p, floor))), "p_floor": bool(p <= floor)}


def turn_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per player count, phase (and 'all') and option: the rated turns, how many turns had the option and its line used
    it (counted), the share of rated turns where it is the best option, and for the officials Δ vs none (median and
    trimmed mean with 95% intervals resampling whole games, the mean beside them; p of the trimmed mean, Holm-
    adjusted across the table as p_holm; p_floor: no resample reached 0, so p is only bounded by the resampling's
    resolution, not measured)."""
    turns = per_turn(df)
    rows = []
    for n in sorted(turns.players.unique()):
        for ph in (*STAGES, "all"):
            t = turns[(turns.players == n) & ((turns.phase == ph) | (ph == "all"))]
            raw = df[(df.players == n) & ((df.phase == ph) | (ph == "all"))]
            if t.empty:              # no turn of this phase rated (a short game, a small sample)
                continue
            forced = int(raw[raw.forced].groupby(["source", "game", "move"]).ngroups) if len(raw) else 0
            for o in TURN_OPTIONS:
                counted = t[f"value_{o}"].notna()
                row = {"players": int(n), "phase": ph, "option": o, "turns": len(t), "forced": forced,
                       "counted": int(counted.sum()), "best_share": float((t.best == o).mean()) if len(t) else math.nan,
                       "unit": win_unit(raw[~raw.forced])}
                if o != NO_OFFICIAL:
                    s = _game_bootstrap(t[f"d_{o}"], t.source + "/" + t.game.astype(str))
                    row.update({f"d_{k}": v for k, v in s.items() if k not in ("p", "p_floor")}, p=s["p"],
                               p_floor=s["p_floor"])
                rows.append(row)
    return with_holm(pd.DataFrame(rows), ["p"])


def compared_with(option: str) -> str:
    """What an option is compared against, in words (the report says it per official)."""
    if option == NO_OFFICIAL:
        return "no official for the whole turn: the baseline each official is compared against"
    return (f"the {OFFICIAL_LABEL[option]} for the whole turn (taken wherever it is offered, no other official) "
            "against no official this turn, each side played as well as the search can")


def _points(x, lo=None, hi=None) -> str:
    """A Δ (a fraction of a win) in percentage points, with its interval when given; – when missing."""
    if x is None or math.isnan(x):
        return "–"
    if lo is None:
        return f"{100 * x:+.1f}"
    if math.isnan(lo) or math.isnan(hi):
        return f"{100 * x:+.1f} [–]"
    return f"{100 * x:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def turn_section(table: pd.DataFrame, follow: str = "unvalidated") -> list[str]:
    """The report's section on the turn question (markdown lines) from turn_table(); follow: whose choices the
    advice follows (report_validation.advice_follows): with "player", play found this kind of rating wrong,
    and the section says its values are the search's estimates, not advice."""
    if table.empty:
        return []
    unit = next(iter(table.unit.dropna()), "Δ evaluation")
    L = ["## Which official this turn", "", PROSE("turns", unit=unit, resamples=RESAMPLES), ""]
    if follow == "player":
        L += [PROSE("turns-player"), ""]
    for o in OFFICIALS:
        L.append(f"* {OFFICIAL_LABEL[o]}: {compared_with(o)}.")
    rows = []
    for r in table.itertuples():
        if r.option == NO_OFFICIAL:
            d = ["–"] * 4
        else:
            d = [_points(r.d_median, r.d_median_lo, r.d_median_hi),
                 _points(r.d_trimmed, r.d_trimmed_lo, r.d_trimmed_hi), _points(r.d_mean),
                 f"{'≤ ' if r.p_floor else ''}{r.p_holm:.2g}"]
        rows.append([r.players, r.phase, OFFICIAL_LABEL.get(r.option, "(none)"), r.turns, r.counted,
                     f"{r.best_share:.0%}", *d])
    L += ["", *markdown_table(["players", "phase", "option", "turns", "counted", "best", "Δ median [95%]",
                               "Δ trimmed [95%]", "Δ mean", "p (Holm)"], rows)]
    forced = table[(table.option == NO_OFFICIAL) & (table.phase == "all")]
    L += ["", "Turns that began with an empty hand (the forced Postmaster, no choice) are not rated: "
          + ", ".join(f"{r.forced} at {r.players} players" for r in forced.itertuples()) + ".", ""]
    return L
