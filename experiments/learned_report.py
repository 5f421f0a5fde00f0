"""The calibration report of the learned evaluation (part `report` of experiments/learned_value.py).

On the held-out games of the data set (never used in fitting), at the start of every turn, for the player to
move: the win chance said by
  * the model                 (thurn_ai.learned, the shipped weights),
  * the hint's search          (mcts with the learned evaluation, as `thurn-ai hint` searches: its best
                               move's win share; every held-out position, both boards),
  * the hint, mapped           (that share through the win map, thurn_ai.learned.win_map: what the hint
                               shows; measured out of fold, 5 folds by game),
  * the hand-set search        (what the data's own searching bots reported with the hand-set evaluation,
                               where the player to move was such a bot: the number the hint showed before),
against whether that player won. Writes OUT/calibration.csv, OUT/reliability.csv, OUT/reliability.png,
OUT/start.csv and OUT/report.md. The hint's searches are saved as they finish (OUT/hint_said.parquet) and
resume.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from thurn_ai.play.bench import machine_info
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.game.rules import PLAYER_COUNTS
from thurn_ai.fileio import atomic_savefig, atomic_to_csv, atomic_to_parquet, atomic_write_text
from thurn_ai.learned import data as D
from thurn_ai.learned.calibration import calibration_table, game_bootstrap, ece, reliability, stage_of_positions
from thurn_ai.learned.fit import feature_arrays
from thurn_ai.learned.model import ValueModel
from thurn_ai.learned.win_map import WinMap
from thurn_ai.stats.summary import wilson_interval

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
            state = D.position_at(recs[game], int(move))
            obs = Observation(state, state.current_player, int(game) * 1000 + int(move))
            bot.rng.seed(int(game) * 1000 + int(move))
            best = bot.analyse(obs)[0] if len(state.legal_moves()) > 1 else None
            rows.append({"players": int(n), "game": int(game), "move": int(move),
                         "hint": best["win_prob"] if best else np.nan})
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


def calibrate(out: Path, held_out, code: str, model_path=None, iterations: int = 2000, players=PLAYER_COUNTS,
              path=None) -> WinMap:
    """Part `calibrate`: the win map fitted on every held-out position the hint searched, written to the
    package (or `path`)."""
    model = ValueModel.load(model_path)
    _, _, movers = held_out_positions(out, held_out, model, iterations, players)
    searched = movers.dropna(subset=["hint"])
    win_map = fit_win_map(movers, meta={
        "spec": hint_spec(iterations), "code": code, "model": model.meta.get("code"),
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
            # the ECE's 95% interval, resampling whole games
            t["ece_ci"] = [_ece_ci(m if ph == "all" else m[m["phase"] == ph], who, n)
                           for n, ph in zip(t["players"], t["phase"])]
            tables.append(t)
            if board == "all":
                for n, part in m.groupby("players"):
                    r = reliability(part[who], part["won"])
                    r.insert(0, "said_by", who)
                    r.insert(0, "players", int(n))
                    rel.append(r)
    cal = pd.concat(tables, ignore_index=True)
    rel = pd.concat(rel, ignore_index=True)
    start = start_table(frame, model)
    atomic_to_csv(cal.round(4), out / "calibration.csv", index=False)
    atomic_to_csv(rel.round(4), out / "reliability.csv", index=False)
    atomic_to_csv(start.round(4), out / "start.csv", index=False)
    plot(rel, out / "reliability.png")
    atomic_write_text(out / "report.md", report_text(cal, start, model, code, iterations, frame, test))


def _ece_ci(m: pd.DataFrame, who: str, n: int) -> str:
    m = m[m["players"] == n]
    lo, hi = game_bootstrap(m, lambda f: ece(f[who], f["won"]), reps=200)
    return f"[{lo:.3f}, {hi:.3f}]"


def report_text(cal, start, model, code, iterations, frame, test) -> str:
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
        "**What a win chance here assumes**: that the rest of the game is played as in the data set -- the "
        "search (`mcts(iterations=300)`) in every seat, or one stronger search (`mcts`, 1000 iterations) "
        "against the rule-based `heuristic` bot in the others. Positions: the start of every turn, the player "
        "to move. *Brier skill*: 1 - Brier / Brier of always saying 1/n (positive: better than the base "
        "rate). ECE: expected calibration error over 10 equal-width bins, its 95% interval resampling whole "
        "games. Phases: a third of the houses each (the furthest player's). Intervals are not corrected for "
        "the number of comparisons.",
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
        "| said by | board | players | phase | positions | games | mean said | share won | ECE [95%] | Brier | "
        "base Brier | Brier skill |",
        "|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in cal.itertuples():
        lines.append(f"| {SAYERS[r.said_by]} | {r.board} | {r.players} | {r.phase} | {r.positions} | {r.games} | "
                     f"{r.mean_said:.3f} | {r.share_won:.3f} | {r.ece:.3f} {r.ece_ci} | {r.brier:.4f} | "
                     f"{r.brier_base:.4f} | {100 * r.brier_skill:+.1f}% |")
    lines += ["", "![reliability](reliability.png)", "",
              "## At the first turn (South, every game of the data set)", "",
              "| players | seat | the model says | games | seat won [95% Wilson] | fair |",
              "|---:|---:|---:|---:|---|---:|"]
    for r in start.itertuples():
        lines.append(f"| {r.players} | {r.seat} | {r.model_says:.3f} | {r.games} | {r.won:.3f} "
                     f"[{r.ci_low:.3f}, {r.ci_high:.3f}] | {r.fair:.3f} |")
    lines += ["", "The model's chances at the first turn average 1/n over the seats by construction (a softmax "
              "over the players); a seat's own chance is what the fit learned of the seat order.", ""]
    return "\n".join(lines)
