"""The refit of the win maps for a search, and its report (experiments/calibrate.py runs it).

From the games of OUT/data (data.py): the equal-players map fitted on the self-play games, the map for
heuristic opponents on the games against `heuristic`, each of the form chosen out of fold (fit.py); how well
each held, out of fold: the calibration slope and intercept with game-clustered 95% intervals, the ECE and
the reliability by bin. Writes OUT/forms.csv, OUT/calibration.csv, OUT/reliability.csv, OUT/reliability.png
and OUT/report.md, and the two maps (win_map.json, win_map_heuristic.json) into MAPS, each naming the search
it was fitted for (its spec, its identity: every option but the budget and the SHA-256 of its weights).
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ...bots.default_search import search_identity
from ...bots.spec import BotSpec
from ...fileio import atomic_savefig, atomic_to_csv, atomic_write_text
from ...learned.win_map import WinMap
from ..learned.calibration import reliability
from ..findings import Number
from ..markdown import table
from . import data as D
from .fit import EQUAL_FORMS, OPPONENT_FORMS, best_form, fit_form, form_scores, held, out_of_fold

MAP_FILES = {"self-play": "win_map.json", "vs heuristic": "win_map_heuristic.json"}


def _clean(value):
    """NaN (a statistic the data could not give) as null: the maps are strict JSON."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


def refit(out: Path, spec: BotSpec, code: str, maps: Path, players=None) -> dict[str, WinMap]:
    """Fit both maps on OUT/data, measure them out of fold, write the report into OUT and the maps into
    `maps`. Returns {population: map}."""
    frame = D.load(out / "data", players)
    mine = frame[frame["population"] == "self-play"]
    vs = frame[frame["population"] == "vs heuristic"]
    if mine.empty:
        raise D.CalibrationError("no self-play games to fit the equal-players map on")
    said_eq = {f: out_of_fold(mine, None, f) for f in EQUAL_FORMS}
    scores = [form_scores(mine, said_eq).assign(population="self-play")]
    equal_form = best_form(scores[0])
    maps_out = {"self-play": _map(mine, fit_form(mine, equal_form), equal_form, said_eq[equal_form], spec, code)}
    shown = {"self-play": said_eq[equal_form]}
    if not vs.empty:
        said_vs = {f: out_of_fold(mine, vs, f, equal_form) for f in OPPONENT_FORMS}
        scores.append(form_scores(vs, said_vs).assign(population="vs heuristic"))
        form = best_form(scores[-1])
        maps_out["vs heuristic"] = _map(vs, fit_form(vs, form, maps_out["self-play"]), form, said_vs[form], spec,
                                        code)
        shown["vs heuristic"] = said_vs[form]
    forms = pd.concat(scores, ignore_index=True)
    atomic_to_csv(forms.round(5), out / "forms.csv", index=False)
    write_report(out, frame, shown, forms, maps_out, spec)
    maps.mkdir(parents=True, exist_ok=True)
    for population, win_map in maps_out.items():
        win_map.save(maps / MAP_FILES[population])
    return maps_out


def _map(frame: pd.DataFrame, fitted: WinMap, form: str, said: pd.Series, spec: BotSpec, code: str) -> WinMap:
    """The fitted map with what it was fitted for and how it held, in its meta."""
    population = str(frame["population"].iloc[0])
    iterations = spec.option("iterations")
    seats = (f"every seat played {spec}" if population == "self-play" else
             f"the player to move played {spec}, every other seat `heuristic`")
    meta = {"search": str(spec), "identity": search_identity(spec),
            "budget": {"iterations": iterations} if iterations else {"time": spec.option("time")},
            "seats": seats, "form": form, "population": population, "code": code,
            "games": {str(n): int(g["game"].nunique()) for n, g in frame.groupby("players")},
            "positions": {str(n): int(len(g)) for n, g in frame.groupby("players")},
            "held": {str(n): {**h, "source": "results/calibration/report.md, out of fold"}
                     for n, h in held(frame, said).items()}}
    return WinMap(params=fitted.params, meta=_clean(meta))


def write_report(out: Path, frame: pd.DataFrame, shown: dict, forms: pd.DataFrame, maps: dict, spec: BotSpec) -> None:
    """OUT/calibration.csv (raw share and shown chance, out of fold, per population and player count),
    OUT/reliability.csv and .png, OUT/report.md."""
    rows, rel = [], []
    for population, said in shown.items():
        part = frame.loc[said.index]
        for who, p in (("raw share", part["share"]), ("shown, out of fold", said)):
            for n, h in held(part, p).items():
                rows.append({"population": population, "sayer": who, "players": n, **_flat(h)})
            for n, g in part.groupby("players"):
                r = reliability(p.loc[g.index], g["won"])
                rel.append(r.assign(population=population, sayer=who, players=int(n)))
    cal = pd.DataFrame(rows)
    rel_frame = pd.concat(rel, ignore_index=True)
    atomic_to_csv(cal.round(4), out / "calibration.csv", index=False)
    atomic_to_csv(rel_frame.round(4), out / "reliability.csv", index=False)
    _diagram(rel_frame, out / "reliability.png")
    atomic_write_text(out / "report.md", _markdown(cal, forms, maps, spec))


def _flat(h: dict) -> dict:
    return {"positions": h["positions"], "games": h["games"], "mean_said": h["mean_said"],
            "share_won": h["share_won"], "ece": h["ece"], "slope": h["slope"], "slope_lo": h["slope_ci"][0],
            "slope_hi": h["slope_ci"][1], "intercept": h["intercept"], "intercept_lo": h["intercept_ci"][0],
            "intercept_hi": h["intercept_ci"][1]}


def _diagram(rel: pd.DataFrame, path: Path) -> None:
    """Reliability diagrams: one panel per population and player count, said against won by bin."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted({(p, n) for p, n in zip(rel["population"], rel["players"])})
    fig, axes = plt.subplots(1, len(keys), figsize=(3.2 * len(keys), 3.4), squeeze=False)
    for ax, (population, n) in zip(axes[0], keys):
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        for who, style in (("raw share", "o:"), ("shown, out of fold", "s-")):
            r = rel[(rel["population"] == population) & (rel["players"] == n) & (rel["sayer"] == who) & (rel["n"] > 0)]
            ax.plot(r["said"], r["won"], style, ms=3, label=who)
        ax.set_title(f"{population}, {n} players", fontsize=9)
        ax.set_xlabel("said")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0][0].set_ylabel("won")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=110)
    plt.close(fig)


def _table(frame: pd.DataFrame) -> str:
    return "\n".join(table(list(frame.columns), frame.itertuples(index=False), "l" + "r" * (frame.shape[1] - 1)))


def _markdown(cal: pd.DataFrame, forms: pd.DataFrame, maps: dict, spec: BotSpec) -> str:
    shown = cal[cal["sayer"] == "shown, out of fold"]
    L = ["# The win maps, refitted for the search they map", "",
         f"Search: `{spec}` (the search whose win share of its chosen move each map reads; identity and "
         "weights' SHA-256 in the maps' meta). Games: `data/` (data.py: self-play, and one seat of the search "
         "against `heuristic`). Forms chosen out of fold (5 folds by game, log loss per game); every number below "
         "is out of fold, with 95% intervals clustered by game.", "",
         "## How well the shown chance held", "",
         "A calibrated chance has slope 1 and intercept 0; slope < 1: too extreme, > 1: too timid. The mean "
         "said against the share won is no test in self-play (each game's mover wins 1/n of its positions).", "",
         _table(shown[["population", "players", "games", "positions", "slope", "slope_lo", "slope_hi", "intercept",
                      "ece"]].round(3)), "",
         "Reliability by bin: reliability.csv and reliability.png (raw share dotted, shown chance solid).", "",
         "## The forms compared", ""]
    for population, m in maps.items():
        L.append(f"- {population}: **{m.meta['form']}** ({(EQUAL_FORMS | OPPONENT_FORMS)[m.meta['form']]})")
    L += ["", _table(forms[forms["players"] == 0][["population", "form", "games", "loss_per_game",
                                                  "loss_per_game_se"]].round(4)), "",
          "## The raw share (no map)", "",
          _table(cal[cal["sayer"] == "raw share"][["population", "players", "slope", "slope_lo", "slope_hi",
                                                 "ece"]].round(3)), ""]
    return "\n".join(L)


def summary(maps: dict) -> list[str]:
    """One line a map and player count: the form, the slope and ECE out of fold (what a run prints)."""
    out = []
    for population, m in maps.items():
        for n, h in sorted(m.meta["held"].items()):
            slope = h.get("slope")
            out.append(f"{population}, {n} players: form {m.meta['form']}, slope "
                       f"{'n/a' if slope is None else format(slope, '.2f')}, ECE {h['ece']:.3f}, {h['games']} games")
    return out


def numbers(out: Path) -> dict[str, Number]:
    """How well the hint's win maps held for the search they were fitted for (experiments/calibrate.py's
    calibration.csv): per population and player count the shown chance's slope and intercept out of fold
    (95% intervals clustered by game) and its ECE."""
    numbers: dict[str, Number] = {}
    for r in pd.read_csv(out / "calibration.csv").itertuples():
        if r.sayer != "shown, out of fold":
            continue
        who = "equal" if r.population == "self-play" else "heuristic"
        among = ("among equal players (self-play)" if who == "equal" else
                 "the search's seat against heuristic")
        for what, lo, hi in (("slope", r.slope_lo, r.slope_hi), ("intercept", r.intercept_lo, r.intercept_hi)):
            numbers[f"{who}.p{r.players}.{what}"] = Number(
                float(getattr(r, what)), float(lo), float(hi), digits=2, games=int(r.games),
                says=f"calibration {what} of the chance shown, {among}, {r.players} players, out of fold, 95% by game")
        numbers[f"{who}.p{r.players}.ece"] = Number(float(r.ece), digits=3, games=int(r.games),
                                                    says=f"expected calibration error, {among}, {r.players} players")
    return numbers
