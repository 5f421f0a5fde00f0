"""The calibration report of the learned evaluation (part `report` of experiments/learned_value.py), and the
win maps' fits (parts `calibrate` and `opponents`).

On the held-out games of the data set (never used in fitting), at the start of every turn, for the player to
move: the win chance said by
  * the model                 (thurn_ai.learned, the shipped weights),
  * the hint's search          (mcts with the learned evaluation, as `thurn-ai hint` searches: its best
                               move's win share; every held-out position, both boards),
  * the hint, mapped           (that share through the win map, thurn_ai.learned.win_map: what the hint
                               shows; measured out of fold, 5 folds by game),
  * the hand-set search        (what the data's own searching bots reported with the hand-set evaluation,
                               where the player to move was such a bot: the number the hint showed before),
against whether that player won; and the shown chance's calibration slope, intercept and shift by whom the
player to move plays against (OUT/calibration_by_opponents.csv), with the forms of a map for heuristic
opponents compared out of fold (OUT/opponent_map_forms.csv; part `opponents` writes the chosen one to
thurn_ai/learned/win_map_heuristic.json). Writes OUT/calibration.csv, OUT/reliability.csv,
OUT/reliability.png, OUT/start.csv and OUT/report.md. The hint's searches are saved as they finish
(OUT/hint_said.parquet) and resume.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from ...bots import make_bot
from ...bots.base import Observation
from ...fileio import atomic_savefig, atomic_to_csv, atomic_to_parquet, atomic_write_text
from ...game.rules import PLAYER_COUNTS
from ...learned.model import ValueModel
from ...learned.win_map import HEURISTIC_PATH, WinMap
from ...play.match import position_at
from ...stats.summary import wilson_interval
from ..findings import Number
from ..markdown import table
from ..provenance import machine_info
from . import data as D
from .calibration import calibration_table, fit_shift, recalibration_table, reliability, stage_of_positions
from .fit import feature_arrays

#: who the player to move is and whom it plays against, by the data's design (studies/learned/data.py):
#: every 4th game (g % 4 == 3) one seat is the strong search and the others the heuristic bot
OPPONENT_GROUPS = {"self-play": "self-play of the search (equal players)",
                   "vs heuristic": "the search to move, the others `heuristic`",
                   "heuristic": "a `heuristic` seat to move (one strong search among the others)"}
#: the forms of an opponent-specific map compared out of fold (see opponent_forms)
FORMS = {"none": "the equal-players map as it is",
         "shift": "one logit shift, all player counts",
         "shift per count": "a logit shift per player count",
         "slope per count": "intercept and slope per player count"}
SAYERS = {"model": "the model", "hint": "the hint's search (learned), raw",
          "mapped": "the hint (learned, mapped): what it shows", "handset": "the hand-set search"}


def model_said(frame: pd.DataFrame, model: ValueModel) -> pd.Series:
    """The model's win chance for every row (player) of the frame."""
    out = pd.Series(np.nan, index=frame.index)
    for _, part in frame.groupby("players"):
        part, f, t = feature_arrays(part)
        win, _ = model.predict_features(t, f)
        out.loc[part.index] = win.reshape(-1)
    return out


def hint_said(out: Path, movers: pd.DataFrame, iterations: int, spec_of) -> pd.DataFrame:
    """The hint's search at every given position (movers): its best move's win share. Resumes from
    OUT/hint_said.parquet; saved every 200 positions."""
    path = out / "hint_said.parquet"
    done = pd.read_parquet(path) if path.exists() else pd.DataFrame(columns=["players", "game", "move", "hint"])
    have = set(zip(done["players"], done["game"], done["move"]))
    rows, last = [], time.time()
    for n, part in movers.groupby("players"):
        recs = D.records(out / "data", int(n), part["game"].unique())
        bot = make_bot(spec_of(int(n)), seed=1)
        for game, move in zip(part["game"], part["move"]):
            if (n, game, move) in have:
                continue
            state = position_at(recs[game], int(move))
            obs = Observation(state, state.current_player, int(game) * 1000 + int(move))
            bot.rng.seed(int(game) * 1000 + int(move))
            best = bot.analyse(obs)[0] if len(state.legal_moves()) > 1 else None
            rows.append({"players": int(n), "game": int(game), "move": int(move),
                         "hint": best.win_prob if best else np.nan})
            if len(rows) % 200 == 0:
                done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
                rows = []
                atomic_to_parquet(done, path, index=False)
                print(f"  hint: {len(done)} positions ({time.time() - last:.0f} s)", flush=True)
    if rows:
        done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
        atomic_to_parquet(done, path, index=False)
    return done


def start_table(frame: pd.DataFrame, model: ValueModel) -> pd.DataFrame:
    """At the first turn: the model's chance for each seat (South) and how often each seat won (all games
    of the data set, South, with a 95% Wilson interval)."""
    rows = []
    first = frame[(frame["turn"] == 0) & (frame["board"] == "south")]
    for (n, seat), part in first.groupby(["players", "player"]):
        wins = int(part["won"].sum())
        lo, hi = wilson_interval(wins, len(part))
        rows.append({"players": int(n), "seat": int(seat), "model_says": float(part["model"].mean()),
                     "games": len(part), "won": wins / len(part), "ci_low": lo, "ci_high": hi,
                     "fair": 1 / n})
    return pd.DataFrame(rows)


def plot(rel: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    counts = sorted(rel["players"].unique())
    fig, axes = plt.subplots(1, len(counts), figsize=(4.2 * len(counts), 4.2), squeeze=False)
    for ax, n in zip(axes[0], counts):
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--", label="perfect")
        for who, style in (("model", "o-"), ("hint", "s:"), ("mapped", "D-"), ("handset", "^:")):
            r = rel[(rel["players"] == n) & (rel["said_by"] == who) & (rel["n"] >= 20)]
            if len(r):
                ax.plot(r["said"], r["won"], style, label=SAYERS[who], ms=4)
        ax.axvline(1 / n, color="grey", lw=0.5)
        ax.set_title(f"{n} players: held-out positions")
        ax.set_xlabel("said win chance of the player to move (bins of 0.1)")
        ax.set_ylabel("share of those positions won")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=110)
    plt.close(fig)


def hint_spec(iterations: int) -> str:
    return f"mcts(iterations={iterations},eval=learned)"


def fitted_for(iterations: int, seats: str) -> dict:
    """What a map fitted here records of its search (thurn_ai/learned/win_map.py): the hint's search written
    out, its identity, its budget, and who played the games."""
    from ...bots.default_search import search_identity, written_out
    spec = written_out(hint_spec(iterations))
    return {"search": str(spec), "identity": search_identity(spec), "budget": {"iterations": iterations},
            "seats": seats}


def held_out_positions(out: Path, held_out, model: ValueModel, iterations: int, players):
    """(every position of the data, the held-out ones, the held-out movers with the hint's search's win
    share in column `hint`); the hint's searches resume from OUT/hint_said.parquet."""
    frame = D.load(out / "data", players)
    frame["model"] = model_said(frame, model).to_numpy()
    frame["phase"] = stage_of_positions(frame).to_numpy()
    test = frame[held_out(frame["game"])]
    movers = test[test["mover"]].copy()
    spec = hint_spec(iterations)
    # the hint's search at every held-out position (both boards)
    hint = hint_said(out, movers, iterations, lambda n: spec)
    movers = movers.merge(hint, on=["players", "game", "move"], how="left")
    return frame, test, movers


def fit_win_map(movers: pd.DataFrame, meta: dict | None = None) -> WinMap:
    """The win map (the hint's win share -> a win chance) fitted on the movers that were searched."""
    m = movers.dropna(subset=["hint"])
    return WinMap.fit(m["hint"], m["won"], m["progress"], m["players"], meta)


def out_of_fold(movers: pd.DataFrame, folds: int = 5) -> pd.Series:
    """The mapped hint at every position by a map fitted on the other folds' games (folds by game), so
    that the report measures the map on games its fit did not see."""
    m = movers.dropna(subset=["hint"])
    fold = (m.groupby("players")["game"].rank(method="dense").astype(int) - 1) % folds
    out = pd.Series(np.nan, index=movers.index)
    for k in range(folds):
        win_map = fit_win_map(m[fold != k])
        for n, part in m[fold == k].groupby("players"):
            out.loc[part.index] = win_map.chance(part["hint"].to_numpy(), part["progress"].to_numpy(), int(n))
    return out


def opponents_of(movers: pd.DataFrame) -> pd.Series:
    """OPPONENT_GROUPS key of each row: self-play, the search against heuristic, or a heuristic seat."""
    mixed = movers["game"] % 4 == 3
    return pd.Series(np.where(~mixed, "self-play", np.where(movers["bot"] == "heuristic", "heuristic",
                                                             "vs heuristic")), index=movers.index)


def _logit(p) -> np.ndarray:
    p = np.clip(np.asarray(p, float), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def _log_loss(p, y) -> np.ndarray:
    p = np.clip(np.asarray(p, float), 1e-6, 1 - 1e-6)
    y = np.asarray(y, float)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def _recalibrate(train: pd.DataFrame, test: pd.DataFrame, form: str, said: str = "base") -> np.ndarray:
    """The test rows' chances after recalibrating `said` by `form` (FORMS) fitted on the train rows."""
    import statsmodels.api as sm
    z_te = _logit(test[said])
    if form == "none":
        return test[said].to_numpy()
    out = np.full(len(test), np.nan)
    groups = [(None, train, test)] if form == "shift" else [
        (n, train[train["players"] == n], test[test["players"] == n]) for n in sorted(test["players"].unique())]
    for n, tr, _te in groups:
        mask = np.ones(len(test), bool) if n is None else (test["players"] == n).to_numpy()
        z_tr, z = _logit(tr[said]), z_te[mask]
        if form in ("shift", "shift per count"):
            a = sm.GLM(tr["won"].to_numpy(), np.ones((len(tr), 1)), family=sm.families.Binomial(),
                       offset=z_tr).fit().params[0]
            out[mask] = 1 / (1 + np.exp(-(z + a)))
        else:
            w = sm.Logit(tr["won"].to_numpy(), np.column_stack([np.ones_like(z_tr), z_tr])).fit(disp=0).params
            out[mask] = 1 / (1 + np.exp(-(w[0] + w[1] * z)))
    return out


def opponent_forms(movers: pd.DataFrame, folds: int = 5) -> pd.DataFrame:
    """How well each form of an opponent-specific map (FORMS) predicts games against the heuristic bot it
    was not fitted on: nested out of fold, by game (the folds of out_of_fold). In each fold the
    equal-players map is fitted on the other folds' held-out positions (all kinds), the form on the other
    folds' positions of the search against heuristic; both are scored on this fold's such positions.
    One row per form and player count (players = 0: all): positions, games, mean log loss, Brier, mean
    said, share won, and the per-game log-loss gain over the equal-players map with its standard error."""
    m = movers.dropna(subset=["hint"]).copy()
    m["opponents"] = opponents_of(m)
    fold = (m.groupby("players")["game"].rank(method="dense").astype(int) - 1) % folds
    said = {f: pd.Series(np.nan, index=m.index) for f in FORMS}
    for k in range(folds):
        base = fit_win_map(m[fold != k])
        part = m.copy()
        part["base"] = np.nan
        for n, g in part.groupby("players"):
            part.loc[g.index, "base"] = base.chance(g["hint"].to_numpy(), g["progress"].to_numpy(), int(n))
        vs = part["opponents"] == "vs heuristic"
        train, test = part[vs & (fold != k)], part[vs & (fold == k)]
        for f in FORMS:
            said[f].loc[test.index] = _recalibrate(train, test, f)
    h = m[m["opponents"] == "vs heuristic"].copy()
    rows = []
    for f in FORMS:
        h["p"] = said[f].loc[h.index]
        h["loss"] = _log_loss(h["p"], h["won"])
        h["loss0"] = _log_loss(said["none"].loc[h.index], h["won"])
        for n, g in [*h.groupby("players"), (0, h)]:
            per_game = g.groupby(["players", "game"])[["loss0", "loss"]].sum()
            gain = per_game["loss0"] - per_game["loss"]
            rows.append({"form": f, "players": int(n), "positions": len(g), "games": len(per_game),
                         "log_loss": float(g["loss"].mean()), "brier": float(((g["p"] - g["won"]) ** 2).mean()),
                         "mean_said": float(g["p"].mean()), "share_won": float(g["won"].mean()),
                         "gain_per_game": float(gain.mean()),
                         "gain_se": float(gain.std(ddof=1) / np.sqrt(len(gain))) if len(gain) > 1 else np.nan})
    return pd.DataFrame(rows)


def opponent_map(movers: pd.DataFrame, base: WinMap, forms: pd.DataFrame, meta: dict) -> tuple[WinMap | None, dict]:
    """The map for `--opponents heuristic`: `base` (the shipped equal-players map) shifted by one logit
    shift for all player counts, fitted on every held-out position of the search against heuristic --
    when the data support it: the shift's 95% interval excludes 0 and the shift beats the equal-players
    map out of fold (opponent_forms, all player counts). Else None. Returns (map or None, the shift's
    numbers and the verdict)."""
    m = movers.dropna(subset=["hint"]).copy()
    m = m[opponents_of(m) == "vs heuristic"]
    m["base"] = np.nan
    for n, g in m.groupby("players"):
        m.loc[g.index, "base"] = base.chance(g["hint"].to_numpy(), g["progress"].to_numpy(), int(n))
    r = fit_shift(m["base"], m["won"], m["players"].astype(int) * 1_000_000 + m["game"].astype(int))
    allc = forms[forms["players"] == 0].set_index("form")
    best = allc["log_loss"].idxmin()
    supported = bool(r["shift_lo"] > 0 or r["shift_hi"] < 0) and best == "shift"
    info = {**r, "best_form": best, "supported": supported,
            "games": {str(n): int(g["game"].nunique()) for n, g in m.groupby("players")},
            "positions": {str(n): len(g) for n, g in m.groupby("players")}}
    if not supported:
        return None, info
    return base.shifted(r["shift"], meta={**meta, "opponents": "heuristic", "shift": r["shift"],
                                          "shift_ci": [r["shift_lo"], r["shift_hi"]], "shift_p": r["shift_p"],
                                          "base": "win_map.json", "games": info["games"],
                                          "positions": info["positions"]}), info


def fit_opponents(out: Path, held_out, code: str, model_path=None, iterations: int = 2000,
                  players=PLAYER_COUNTS, path=None) -> WinMap | None:
    """Part `opponents`: the map for `--opponents heuristic` from the committed held-out positions (no
    search is run when OUT/hint_said.parquet holds them all), written to the package (or `path`); or,
    when the data do not support one, the reason printed and no file written."""
    from ...learned.win_map import WinMap as W
    model = ValueModel.load(model_path)
    _, _, movers = held_out_positions(out, held_out, model, iterations, players)
    forms = opponent_forms(movers)
    win_map, info = opponent_map(movers, W.load(), forms, meta={
        "spec": hint_spec(iterations), "code": code, "model": model.meta.get("code"),
        **fitted_for(iterations, "the player to move played the data's strong search, every other seat heuristic"),
        "data": "results/learned/data, the held-out games where one seat is the search and the others heuristic"})
    print(f"shift {info['shift']:+.3f} [{info['shift_lo']:+.3f}, {info['shift_hi']:+.3f}] p {info['shift_p']:.3g}; "
          f"best form out of fold: {info['best_form']}")
    if win_map is None:
        print("not written: the data do not support a map for heuristic opponents (see the report)")
        return None
    win_map.save(path or HEURISTIC_PATH)
    print(f"written: {path or HEURISTIC_PATH}")
    return win_map


def calibrate(out: Path, held_out, code: str, model_path=None, iterations: int = 2000, players=PLAYER_COUNTS,
              path=None) -> WinMap:
    """Part `calibrate`: the win map fitted on every held-out position the hint searched, written to the
    package (or `path`)."""
    model = ValueModel.load(model_path)
    _, _, movers = held_out_positions(out, held_out, model, iterations, players)
    searched = movers.dropna(subset=["hint"])
    win_map = fit_win_map(movers, meta={
        "spec": hint_spec(iterations), "code": code, "model": model.meta.get("code"),
        **fitted_for(iterations, "the data's games: mostly self-play of its search, some against heuristic"),
        "positions": {str(n): len(g) for n, g in searched.groupby("players")},
        "games": {str(n): int(g["game"].nunique()) for n, g in searched.groupby("players")},
        "data": "results/learned/data, the held-out games (never used to fit the model)"})
    win_map.save(path)
    for n, p in sorted(win_map.params.items()):
        print(f"win map, {n} players: a={p[0]:+.3f} b0={p[1]:.3f} b1={p[2]:+.3f}")
    return win_map


def build(out: Path, held_out, code: str, model_path=None, iterations: int = 2000, players=PLAYER_COUNTS) -> None:
    model = ValueModel.load(model_path)
    frame, test, movers = held_out_positions(out, held_out, model, iterations, players)
    movers["mapped"] = out_of_fold(movers)
    movers["handset"] = movers["search_win"]
    movers["opponents"] = opponents_of(movers)
    tables, rel = [], []
    for who in SAYERS:
        for board in ("south", "north", "all"):
            m = movers if board == "all" else movers[movers["board"] == board]
            m = m.dropna(subset=[who] if who != "model" else [])
            if m.empty:
                continue
            t = calibration_table(m, said=who)
            t.insert(0, "board", board)
            t.insert(0, "said_by", who)
            tables.append(t)
            if board == "all":
                for n, part in m.groupby("players"):
                    r = reliability(part[who], part["won"])
                    r.insert(0, "said_by", who)
                    r.insert(0, "players", int(n))
                    rel.append(r)
    cal = pd.concat(tables, ignore_index=True)
    rel = pd.concat(rel, ignore_index=True)
    # calibration slope and intercept by whom the player to move plays against (the mapped hint, out of fold)
    shown = movers.dropna(subset=["mapped"])
    recal = recalibration_table(shown, "mapped", by=("players", "opponents"))
    forms = opponent_forms(movers)
    from ...learned.win_map import win_map_for
    shipped = win_map_for("heuristic")
    _, shift = opponent_map(movers, WinMap.load(), forms, meta={})
    start = start_table(frame, model)
    atomic_to_csv(cal.round(4), out / "calibration.csv", index=False)
    atomic_to_csv(recal.round(4), out / "calibration_by_opponents.csv", index=False)
    atomic_to_csv(forms.round(4), out / "opponent_map_forms.csv", index=False)
    atomic_to_csv(rel.round(4), out / "reliability.csv", index=False)
    atomic_to_csv(start.round(4), out / "start.csv", index=False)
    plot(rel, out / "reliability.png")
    atomic_write_text(out / "report.md", report_text(cal, start, model, code, iterations, frame, test,
                                                     recal=recal, forms=forms, shift=shift, shipped=shipped))


def _ci(r, key, digits=2) -> str:
    v, lo, hi = getattr(r, key), getattr(r, key + "_lo"), getattr(r, key + "_hi")
    if any(pd.isna(x) for x in (v, lo, hi)):
        return "–"
    return f"{v:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def _slope(r) -> str:
    if any(pd.isna(x) for x in (r.slope, r.slope_lo, r.slope_hi)):
        return "–"
    return f"{r.slope:.2f} [{r.slope_lo:.2f}, {r.slope_hi:.2f}]"


def _count(n) -> str:
    return "all" if int(n) == 0 else str(int(n))


def summary_lines(cal, recal, forms, shift, shipped) -> list[str]:
    """The report's summary: the shown chance's calibration on the held-out mixture and by opponents,
    and whether a chance for heuristic opponents is offered."""
    L = ["## Summary", ""]
    mapped = cal[(cal["said_by"] == "mapped") & (cal["board"] == "all") & (cal["phase"] == "all")]
    L.append("- **On the held-out mixture** (two thirds self-play) the chance the hint shows is calibrated on "
             "average: ECE " + " / ".join(f"{r.ece:.3f}" for r in mapped.itertuples()) + ", Brier skill "
             + " / ".join(f"{100 * r.brier_skill:+.1f}%" for r in mapped.itertuples()) + " at "
             + " / ".join(str(r.players) for r in mapped.itertuples()) + " players.")
    sp = recal[(recal["opponents"] == "self-play") & (recal["players"] > 0)]
    L.append("- **Among equal players** (self-play of the search) it is consistent with calibration: calibration "
             "slope " + ", ".join(f"{_slope(r)}" for r in sp.itertuples()) + " at "
             + " / ".join(str(int(r.players)) for r in sp.itertuples()) + " players (1 = calibrated).")
    vs = recal[recal["opponents"] == "vs heuristic"].set_index("players")
    if len(vs):
        per = "; ".join(f"{int(n)} players: said {r.mean_said:.3f}, won {r.share_won:.3f}"
                        for n, r in vs.iterrows() if n > 0)
        a = vs.loc[0] if 0 in vs.index else None
        L.append(f"- **Against weaker opponents it is too close to 1/n.** The search to move against `heuristic` "
                 f"seats: {per}"
                 + (f"; over all counts the chance is too low by a logit shift of {a['shift']:+.2f} "
                    f"[{a['shift_lo']:+.2f}, {a['shift_hi']:+.2f}] (p {a['shift_p']:.2g}, "
                    f"{int(a['groups'])} games)." if a is not None else "."))
    if shift:
        if shift["supported"]:
            L.append(f"- **A chance for heuristic opponents** is offered: `thurn-ai hint --opponents heuristic` "
                     f"(and `analyse(..., opponents=\"heuristic\")`) adds one logit shift, "
                     f"{shift['shift']:+.2f} [{shift['shift_lo']:+.2f}, {shift['shift_hi']:+.2f}], to the "
                     "equal-players map at every player count (thurn_ai/learned/win_map_heuristic.json). Out of "
                     "fold it is the only form that predicts games against `heuristic` better than the "
                     "equal-players map; a map per player count (shift, or slope and intercept) fits 30 games a "
                     "count and predicts them worse (table below).")
        else:
            L.append(f"- **No chance for heuristic opponents is offered**: the best form out of fold is "
                     f"'{shift['best_form']}' and the shift is {shift['shift']:+.2f} [{shift['shift_lo']:+.2f}, "
                     f"{shift['shift_hi']:+.2f}]; the data do not support a second map.")
    L += ["- It is the chance of a player in this position among players like those of the games it was fitted "
          "on; the features describe the position, not the players. For a human at the table it is a position "
          "index on a probability scale.", ""]
    return L


def opponents_lines(recal, forms, shift, shipped) -> list[str]:
    L = ["## Whom the chance assumes: calibration by opponents", "",
         "The hint as shown (mapped, out of fold) against how the game ended, by who is to move and against "
         "whom (the data's design: every 4th game one seat is the stronger search, `mcts` at 1000 iterations "
         "with the hand-set evaluation, and the others `heuristic`; the rest is self-play of "
         "`mcts(iterations=300)`). Calibration **intercept and slope**: statsmodels Logit of won on "
         "logit(shown chance) -- calibrated is intercept 0 (read at a chance of 1/2) and slope 1; slope < 1: "
         "too extreme, > 1: too timid. **Shift** (calibration-in-the-large): the intercept with the slope held "
         "at 1 (logit(shown) as offset), the logit shift that makes the mean said equal the share won; "
         "negative: said too high. 95% intervals with standard errors clustered by game (in self-play every "
         "seat of a game is in the sample and the chances of one position sum to about 1, so the shift's "
         "interval there is very narrow). players = all: every player count pooled.", ""]
    order = {k: i for i, k in enumerate(OPPONENT_GROUPS)}
    L += table(["players", "to move, against", "positions", "games", "mean said", "share won", "intercept [95%]",
                "slope [95%]", "shift [95%]", "shift p"],
               ([_count(r.players), OPPONENT_GROUPS[r.opponents], r.n, r.groups, f"{r.mean_said:.3f}",
                 f"{r.share_won:.3f}", _ci(r, "intercept"), _slope(r), _ci(r, "shift"), f"{r.shift_p:.2g}"]
                for r in recal.sort_values(["opponents", "players"], key=lambda c: c.map(order)
                                           if c.name == "opponents" else c.replace(0, 9)).itertuples()),
               right="llrrrrlllr")
    L += ["", "## A chance for known opponents (`hint --opponents heuristic`)", "",
          "Which form of a second map the games against `heuristic` support, nested out of fold (5 folds by "
          "game: in each, the equal-players map is fitted on the other folds' held-out positions, the form on "
          "the other folds' positions of the search against `heuristic`, both scored on this fold's). Gain: "
          "log loss of the equal-players map minus the form's, summed over a game's positions, mean over "
          "games (positive: the form predicts better) with its standard error.", ""]
    L += table(["form", "players", "positions", "games", "mean said", "share won", "log loss", "Brier",
                "gain a game (± se)"],
               ([FORMS[r.form], _count(r.players), r.positions, r.games, f"{r.mean_said:.3f}", f"{r.share_won:.3f}",
                 f"{r.log_loss:.4f}", f"{r.brier:.4f}",
                 "–" if r.form == "none" else f"{r.gain_per_game:+.3f} (± {r.gain_se:.3f})"]
                for r in forms.sort_values(["players", "form"], key=lambda c: c.replace(0, 9) if c.name == "players"
                                           else c.map({f: i for i, f in enumerate(FORMS)})).itertuples()),
               right="llrrrrrrl") + [""]
    if shift and shift["supported"]:
        L.append(f"Decision: one logit shift for all player counts, fitted on every held-out position of the search "
                 f"against `heuristic` ({', '.join(f'{n} players {g} games' for n, g in shift['games'].items())}): "
                 f"{shift['shift']:+.3f} [{shift['shift_lo']:+.3f}, {shift['shift_hi']:+.3f}] (p "
                 f"{shift['shift_p']:.2g}), shipped as thurn_ai/learned/win_map_heuristic.json "
                 "(`python experiments/learned_value.py --part opponents`). It is the only form with a lower log "
                 "loss out of fold than the equal-players map; its gain a game is within about one standard "
                 "error of 0, so it corrects the bias on average and is not shown to sharpen the chance. The "
                 "forms per player count overfit 24 games a fold. What it assumes: the player to move plays like "
                 "the stronger search of these games (hand-set `mcts`, 1000 iterations) and every other seat is "
                 "`heuristic`; a stronger player (the hint's own learned search) beats `heuristic` more often "
                 "still, a weaker one less, and no untouched population was measured.")
        if shipped is not None and abs(shipped.meta.get("shift", np.nan) - shift["shift"]) > 1e-9:
            L.append("")
            L.append(f"**Note**: the shipped win_map_heuristic.json has shift {shipped.meta.get('shift')}, not the "
                     "one refitted here: run the `opponents` part.")
    elif shift:
        L.append("Decision: no second map is shipped (the data do not support one); `hint --opponents heuristic` "
                 "says so.")
    return L + [""]


def report_text(cal, start, model, code, iterations, frame, test, recal=None, forms=None, shift=None,
                shipped=None) -> str:
    m = machine_info()
    games = frame.groupby("players")["game"].nunique()
    tgames = test.groupby("players")["game"].nunique()
    lines = [
        "# The learned evaluation: calibration on held-out games",
        "",
        f"Built by `python experiments/learned_value.py --part report` at commit {code} ({m['cpu']}). "
        f"Model: thurn_ai/learned/value_model.json (fitted at {model.meta.get('code', '?')} on "
        f"{model.meta.get('games')} games per player count). Data: results/learned/data/ "
        f"({', '.join(f'{n} players {g} games' for n, g in games.items())}; held out: "
        f"{', '.join(f'{g}' for g in tgames)} games; the fit never saw them).",
        "",
    ]
    if recal is not None:
        lines += summary_lines(cal, recal, forms, shift, shipped) + opponents_lines(recal, forms, shift, shipped)
    lines += [
        "## Every sayer, board and phase",
        "",
        "**What a win chance here assumes**: that the rest of the game is played as in the data set -- the "
        "search (`mcts(iterations=300)`) in every seat, or one stronger search (`mcts`, 1000 iterations) "
        "against the rule-based `heuristic` bot in the others: mostly equal players (see above for each part). "
        "Positions: the start of every turn, the player "
        "to move. *Brier skill*: 1 - Brier / Brier of always saying 1/n (positive: better than the base "
        "rate). ECE: expected calibration error over 10 equal-width bins; it is biased upwards by noise and "
        "has no interval here (a percentile bootstrap of it can exclude its own estimate): the calibration "
        "slope and intercept above carry the uncertainty. Phases: a third of the houses each (the furthest "
        "player's).",
        "",
        f"Sayers: **model** -- the fitted model alone; **hint** -- `thurn-ai hint`'s search "
        f"(`mcts(iterations={iterations},eval=learned)`: the best move's win share, at every held-out "
        "position of both boards), and **mapped** -- the same through the win map, the number the hint "
        "shows (thurn_ai/learned/win_map.json: logit(chance) = a + (b0 + b1 t) logit(share), t the game's "
        "progress, one (a, b0, b1) per player count; measured out of fold: each position's map was fitted "
        "on the other four fifths of the held-out games, by game; the shipped map is fitted on all of "
        "them by `python experiments/learned_value.py --part calibrate`); "
        "**hand-set** -- what the data's own searching bots reported, with the hand-set evaluation (the "
        "number the hint showed before).",
        "",
        *table(["said by", "board", "players", "phase", "positions", "games", "mean said", "share won", "ECE",
                "Brier", "base Brier", "Brier skill"],
               ([SAYERS[r.said_by], r.board, r.players, r.phase, r.positions, r.games, f"{r.mean_said:.3f}",
                 f"{r.share_won:.3f}", f"{r.ece:.3f}", f"{r.brier:.4f}", f"{r.brier_base:.4f}",
                 f"{100 * r.brier_skill:+.1f}%"] for r in cal.itertuples()), right="llrlrrrrrrrr"),
    ]
    lines += ["", "![reliability](reliability.png)", "",
              "## At the first turn (South, every game of the data set)", "",
              *table(["players", "seat", "the model says", "games", "seat won [95% Wilson]", "fair"],
                     ([r.players, r.seat, f"{r.model_says:.3f}", r.games,
                       f"{r.won:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]", f"{r.fair:.3f}"] for r in start.itertuples()),
                     right="rrrrlr")]
    lines += ["", "The model's chances at the first turn average 1/n over the seats by construction (a softmax "
              "over the players); a seat's own chance is what the fit learned of the seat order.", ""]
    return "\n".join(lines)


def numbers(out: Path) -> dict[str, Number]:
    """The win map's shift for each kind of opponents (calibration_by_opponents.csv): results/learned/findings.json."""
    df = pd.read_csv(out / "calibration_by_opponents.csv")
    return {f"shift.{'all' if r.players == 0 else f'p{r.players}'}.{r.opponents.replace(' ', '_')}":
            Number(r.shift, r.shift_lo, r.shift_hi, "difference", digits=2, games=int(r.groups),
                   says=f"the win map's shift for {r.opponents}, {'every count' if r.players == 0 else r.players}")
            for r in df.itertuples()}
