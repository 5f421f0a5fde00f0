"""A budget for the bot's whole game (`spend=game`, issue 69): fits the time manager's constants and measures
what a game of it spends; writes results/time_manager/.

    python experiments/time_manager.py --part estimate     # the decisions-left fit and its error (estimate.json)
    python experiments/time_manager.py --part favourite    # how often a clear favourite is caught (favourite.json)
    python experiments/time_manager.py --part games [--game 90000 100000] [--games 12]   # beside anchor-1k
    python experiments/time_manager.py --part report       # findings.json, README.md, summary.json (no games)

estimate: every searched decision of `mcts` and `anchor-1k` in the league's recorded games
(results/league/games/p{2,3,4}/records.jsonl) with the searched decisions of that seat still to come (the one at
hand included; a decision is searched when it has more than one legal move and, with planned=houses, is not a
house or the Cartwright); least squares of that count on the position's features (time_manager.DECISIONS_LEFT),
the error of the fit on the same decisions and, separately, on the games left out of the fit (odd seeds).
favourite: at searched decisions of the same games, the default search (anchor-1k's options) at a typical
allotment, its root read every 16 iterations from a quarter of it on: how often the move most visited at a
check with a given share is not the move most visited at the end.
games: against heuristic at 2/3/4 players, in the same games of the same deals, the candidate (spend=game) and
anchor-1k in the tested seat (seat g mod n of game g): CPU seconds (thread time in choose), iterations, searches,
the allotment by phase.
report: the folder's front page (findings.json, README.md: thurn_ai.studies.findings) and summary.json, read off
estimate.json, favourite.json, games.jsonl and runs.json only. Results must come from committed code: the script
refuses uncommitted changes unless --allow-dirty (the report alone plays nothing: it names the checkout's commit).
"""
from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from thurn_ai.bots import make_bot
from thurn_ai.bots import time_manager as tm
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.fileio import atomic_write_text
from thurn_ai.play.bench import timed_game
from thurn_ai.play.match import derive_seed, position_at, read_records, record_walk
from thurn_ai.stats.summary import mean_interval, wilson_interval
from thurn_ai.studies.findings import Findings, Number, front_page
from thurn_ai.studies.pages import RUN_KEYS
from thurn_ai.studies.provenance import commit, committed_code_or_exit, log_run, read_runs

#: the line the results folder's front page opens with (docs/development.md, a study's life)
STATUS = ("benchmark. What the time manager (`mcts(spend=game,...)`, docs/search-budget.md) spends beside "
          "anchor-1k and how its constants were fitted; no strength games.")
TITLE = "A budget for the game (`spend=game`)"
#: the game budget whose CPU a game the findings set beside anchor-1k's (search_compute's time_p3 plays it)
MATCHED = 100_000

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "time_manager"
LEAGUE = ROOT / "results" / "league" / "games"
#: the seats of the default search in the league's games
SEARCHERS = ("mcts", "anchor-1k")
ANCHOR = "anchor-1k"
PLANNED = ("houses", "none")


def _candidate(game: int) -> str:
    return f"mcts(spend=game,game={game},planned=houses)"


#: the decisions tm.offers_draw weighs as draws: the draw phase, and a card play where the Postmaster offers a draw
DRAWS = ("draw", "postmaster")


def _phase(state) -> str:
    """The decision's phase, `postmaster` for a card play that offers the Postmaster's draw."""
    return "postmaster" if state.phase != "draw" and tm.offers_draw(state) else state.phase


def _features(state) -> list[float]:
    e = state.export()
    hl = e["houses_left"]
    return [1.0, state.turn // state.n_players, min(hl), sum(hl) / len(hl), max(e["carriage"])]


def decision_rows() -> list[dict]:
    """Every decision of a default-search seat in the league's games: its features, whether it is searched
    under each `planned`, and the searched decisions of the seat from it to the end."""
    rows = []
    for n in (2, 3, 4):
        for rec in read_records(LEAGUE / f"p{n}" / "records.jsonl"):
            seats = [i for i, b in enumerate(rec.bots) if b in SEARCHERS]
            if not seats:
                continue
            game = []
            for i, s, _m in record_walk(rec):
                p = s.current_player
                if p in seats:
                    several = len(s.legal_moves()) > 1
                    game.append({"players": n, "seed": rec.seed, "index": i, "seat": p, "phase": _phase(s),
                                 "end": bool(s.export()["end_triggered"]), "x": _features(s),
                                 "houses": several and s.phase not in ("houses", "cartwright"), "none": several})
            for planned in PLANNED:
                for seat in seats:
                    left = 0
                    for r in reversed([r for r in game if r["seat"] == seat]):
                        left += r[planned]
                        r[f"left_{planned}"] = left
            rows += game
    return rows


def _fit(rows: list[dict], planned: str) -> dict:
    """The least-squares constants and the end-of-game mean over the searched decisions `rows`."""
    live = [r for r in rows if not r["end"]]
    x = np.array([r["x"] for r in live])
    y = np.array([r[f"left_{planned}"] for r in live], dtype=float)
    coef = np.linalg.lstsq(x, y, rcond=None)[0]
    end = [r[f"left_{planned}"] for r in rows if r["end"]]
    return {"coef": [round(float(c), 2) for c in coef], "at_end": round(float(np.mean(end)), 2),
            "draw_share": round(sum(r["phase"] in DRAWS for r in rows) / len(rows), 3)}


def _estimate(fit: dict, r: dict) -> float:
    if r["end"]:
        return max(1.0, fit["at_end"])
    return max(tm.MIN_DECISIONS_LEFT, float(np.dot(fit["coef"], r["x"])))


def _errors(fit: dict, rows: list[dict], planned: str) -> dict:
    err = np.array([_estimate(fit, r) - r[f"left_{planned}"] for r in rows])
    y = np.array([r[f"left_{planned}"] for r in rows])
    out = {"decisions": len(rows), "mean_abs": round(float(np.abs(err).mean()), 2),
           "bias": round(float(err.mean()), 2), "rmse": round(float(np.sqrt((err ** 2).mean())), 2)}
    for name, lo, hi in (("left_over_40", 41, 10 ** 6), ("left_11_40", 11, 40), ("left_1_10", 1, 10)):
        m = (y >= lo) & (y <= hi)
        out[name] = {"decisions": int(m.sum()), "mean_abs": round(float(np.abs(err[m]).mean()), 2),
                     "bias": round(float(err[m].mean()), 2)}
    for n in (2, 3, 4):
        m = np.array([r["players"] == n for r in rows])
        out[f"p{n}"] = {"decisions": int(m.sum()), "mean_abs": round(float(np.abs(err[m]).mean()), 2),
                        "bias": round(float(err[m].mean()), 2)}
    return out


def part_estimate(args, code: str) -> None:
    start = time.time()
    rows = decision_rows()
    data = {"code": code, "source": "results/league/games/p{2,3,4}/records.jsonl, seats of " + ", ".join(SEARCHERS),
            "features": ["constant", "own turns played", "fewest houses left", "mean houses left",
                         "longest carriage index"]}
    for planned in PLANNED:
        searched = [r for r in rows if r[planned]]
        fit = _fit(searched, planned)
        # held out: fitted on the even seeds, its error on the odd ones
        half = _fit([r for r in searched if r["seed"] % 2 == 0], planned)
        games = len({(r["seed"], r["seat"]) for r in searched})
        first = [r[f"left_{planned}"] for r in searched
                 if r is next(q for q in searched if (q["seed"], q["seat"]) == (r["seed"], r["seat"]))]
        data[planned] = {**fit, "games": games, "decisions_a_game": round(float(np.mean(first)), 1),
                         "error": _errors(fit, searched, planned),
                         "held_out": _errors(half, [r for r in searched if r["seed"] % 2 == 1], planned)}
        print(planned, json.dumps(data[planned]), flush=True)
    atomic_write_text(args.out / "estimate.json", json.dumps(data, indent=1) + "\n")
    log_run(args.out, "estimate", time.time() - start, code)


#: favourite: the allotment searched (about anchor-1k's 90,000 iterations over the ~70 searched decisions of a
#: game with planned=houses, a draw twice a play's: ~1000 a play, ~2000 a draw) and the shares read
FAVOURITE_ALLOTMENT = {"draw": 2000, "other": 1000}
SHARES = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)


def part_favourite(args, code: str) -> None:
    start = time.time()
    rng = np.random.default_rng(69)
    rows = [r for r in decision_rows() if r["houses"]]
    picked = sorted(rng.choice(len(rows), size=args.positions, replace=False))
    stats = {s: {"stopped": 0, "changed": 0, "spent": 0.0} for s in SHARES}
    records = {(n, rec.seed): rec for n in (2, 3, 4) for rec in read_records(LEAGUE / f"p{n}" / "records.jsonl")}
    for k, i in enumerate(picked):
        r = rows[i]
        state = position_at(records[(r["players"], r["seed"])], r["index"])
        budget = FAVOURITE_ALLOTMENT["draw" if tm.offers_draw(state) else "other"]
        bot = make_bot(ANCHOR, seed=k)
        tree = bot._tree(state, derive_seed("favourite", k), ismcts=True)
        legal = set(state.legal_moves())
        checks = []            # (iterations done, most visited move, its share)
        done = 0
        while done < budget:
            done += tree.run(16)
            rows_ = [c for c in tree.root_children() if c[0] in legal]
            total = sum(c[1] for c in rows_) or 1
            best = max(rows_, key=lambda c: c[1])
            checks.append((done, best[0], best[1] / total))
        final = checks[-1][1]
        for s in SHARES:
            hit = next((c for c in checks if c[0] >= tm.FAVOURITE_AFTER * budget and c[2] >= s), None)
            if hit is not None and hit[0] < budget:
                stats[s]["stopped"] += 1
                stats[s]["changed"] += hit[1] != final
                stats[s]["spent"] += hit[0] / budget
            else:
                stats[s]["spent"] += 1.0
    n = len(picked)
    table = {str(s): {"stopped": v["stopped"] / n, "changed": v["changed"] / n,
                      "changed_when_stopped": v["changed"] / max(v["stopped"], 1), "spent": v["spent"] / n}
             for s, v in stats.items()}
    data = {"code": code, "positions": n, "allotment": FAVOURITE_ALLOTMENT, "after": tm.FAVOURITE_AFTER,
            "search": ANCHOR, "shares": table}
    for s, v in table.items():
        print(f"share {s}: stopped {v['stopped']:.1%}, changed {v['changed']:.1%} "
              f"({v['changed_when_stopped']:.1%} of stops), spent {v['spent']:.1%}", flush=True)
    atomic_write_text(args.out / "favourite.json", json.dumps(data, indent=1) + "\n")
    log_run(args.out, "favourite", time.time() - start, code, positions=n)


def play(spec: str, players: int, g: int) -> dict:
    """Game g against heuristic, `spec` in seat g mod n: its CPU seconds, iterations, searches, the allotment
    and iterations by phase."""
    tested = g % players
    by_phase = defaultdict(lambda: {"searches": 0, "iterations": 0, "allotted": 0})

    def count(player, obs, result):
        if player != tested:
            return
        ph = by_phase[_phase(obs.state)]
        ph["searches"] += 1
        ph["iterations"] += result.iterations
        ph["allotted"] += result.allotted or 0

    table, bots, cpu = timed_game(spec, players, g, on_search=count)
    s = table.state
    clock = getattr(bots[tested], "game_clock", None)
    return {"seed": g, "players": players, "tested": tested, "spec": spec, "won": s.winner() == tested,
            "turns": s.turn, "cpu": round(cpu[tested], 3),
            "iterations": sum(v["iterations"] for v in by_phase.values()),
            "searches": sum(v["searches"] for v in by_phase.values()), "phases": dict(by_phase),
            "budget": clock.budget if clock else None}


#: the deals: (players, seed of the first) -- the search budget study's calibration deals are 68900+, its cells'
#: 69000+ (2 players), 69400+ (3), 69700+ (4): these are its cells' first deals
DEALS = ((2, 69000), (3, 69400), (4, 69700))


def part_games(args, code: str) -> None:
    # one run: every deal played by anchor-1k and each candidate in turn, so their CPU is measured side by side
    start = time.time()
    specs = [ANCHOR] + [_candidate(n) for n in args.game]
    rows = []
    for players, first in DEALS:
        for g in range(first, first + args.games):
            for spec in specs:
                row = play(spec, players, g)
                rows.append({"code": code, **row})
                print(f"p{players} game {g} {spec}: cpu {row['cpu']:.2f} s, {row['iterations']} iterations, "
                      f"{row['searches']} searches", flush=True)
    atomic_write_text(args.out / "games.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    log_run(args.out, "games", time.time() - start, code, games=args.games, budgets=args.game)


def games_summary(rows: list[dict]) -> list[dict]:
    """Per player count and spec: games, CPU seconds, iterations and searches a game (means), the share of
    the game's budget spent (mean, least), and by phase the searches, mean allotment and iterations a game."""
    out = []
    for players, _first in DEALS:
        for spec in dict.fromkeys(r["spec"] for r in rows):
            rs = [r for r in rows if r["players"] == players and r["spec"] == spec]
            if not rs:
                continue
            k = len(rs)
            spent = [r["iterations"] / r["budget"] for r in rs if r["budget"]]
            phases = {}
            for ph in ("draw", "postmaster", "play", "after_play", "houses", "cartwright", "discard"):
                searches = sum(r["phases"].get(ph, {}).get("searches", 0) for r in rs)
                iterations = sum(r["phases"].get(ph, {}).get("iterations", 0) for r in rs)
                allotted = sum(r["phases"].get(ph, {}).get("allotted", 0) for r in rs)
                phases[ph] = {"searches": searches / k, "iterations": iterations / k,
                              "allotted": allotted / searches if searches else 0.0}
            out.append({"players": players, "spec": spec, "games": k, "cpu": sum(r["cpu"] for r in rs) / k,
                        "iterations": sum(r["iterations"] for r in rs) / k,
                        "searches": sum(r["searches"] for r in rs) / k,
                        "spent": sum(spent) / len(spent) if spent else None,
                        "spent_least": min(spent) if spent else None, "phases": phases})
    return out


def _num(x, digits=0) -> str:
    return "—" if x is None else f"{x:,.{digits}f}"


def findings(out: Path, est: dict, fav: dict, rows: list[dict], code: str) -> Findings:
    """The folder's findings: the estimate's error (planned=houses), the favourite stop at the default share
    (SearchOptions.favourite) and, against heuristic on the same deals, the CPU a game of game=MATCHED beside
    anchor-1k's and the share of their budget the candidates spent."""
    numbers: dict[str, Number] = {}
    e = est["houses"]
    err, held = e["error"], e["held_out"]
    numbers["estimate.mean_abs"] = Number(
        err["mean_abs"], unit="number", digits=2, games=e["games"],
        says=f"searched decisions left (planned=houses): mean absolute error of the fitted estimate, in decisions, "
             f"over the {err['decisions']:,} searched decisions it was fitted on (league games, {e['games']} "
             f"searcher seats; {e['decisions_a_game']} searched decisions a game)")
    numbers["estimate.held_out.mean_abs"] = Number(
        held["mean_abs"], unit="number", digits=2,
        says=f"the same, fitted on the even seeds, over the {held['decisions']:,} decisions of the odd seeds' games")
    numbers["estimate.held_out.bias"] = Number(
        held["bias"], unit="difference", digits=2,
        says="mean of estimate minus true count on the held-out games, in decisions (negative: too few expected)")
    share = str(SearchOptions().favourite)       # the default share, 0.8
    v, positions = fav["shares"][share], fav["positions"]
    for key, what in (("stopped", "share of the searches the favourite stopped (its most visited move holding "
                                  f"{float(share):.0%} of the root's visits)"),
                      ("changed", "share of all the searches stopped on another move than the full allotment's "
                                  "most visited")):
        k = round(v[key] * positions)
        lo, hi = wilson_interval(k, positions)
        numbers[f"favourite.{key}"] = Number(
            v[key], lo, hi, "share", 1, positions,
            f"{what}, of {positions} searched decisions of the league's games ({fav['search']}, "
            f"{fav['allotment']['draw']} iterations a draw, {fav['allotment']['other']} otherwise; the games column: "
            "positions); Wilson 95%")
    numbers["favourite.spent"] = Number(
        v["spent"], unit="share", digits=1, games=positions,
        says=f"the allotment the searches used with the favourite stop at {share}, mean over the same positions")
    matched = _candidate(MATCHED)
    for players, _first in DEALS:
        def cpu_of(spec, players=players):
            return {r["seed"]: r["cpu"] for r in rows if r["players"] == players and r["spec"] == spec}

        anchor, cand = cpu_of(ANCHOR), cpu_of(matched)
        seeds = sorted(set(anchor) & set(cand))
        if not seeds:
            continue
        for name, got in (("anchor", anchor), (f"game{MATCHED}", cand)):
            numbers[f"p{players}.cpu.{name}"] = Number(
                sum(got[g] for g in seeds) / len(seeds), unit="number", digits=2, games=len(seeds),
                says=f"CPU seconds a game of `{ANCHOR if name == 'anchor' else matched}` (thread time in choose), "
                     f"{players} players against heuristic, {len(seeds)} deals")
        diffs = [cand[g] - anchor[g] for g in seeds]
        lo, hi = mean_interval(diffs)
        numbers[f"p{players}.cpu.diff"] = Number(
            sum(diffs) / len(diffs), lo, hi, "difference", 2, 2 * len(seeds),
            f"CPU seconds a game, game={MATCHED} minus {ANCHOR} on the same {len(seeds)} deals ({players} players, "
            "one process); paired, 95% t interval")
    spent = [r["iterations"] / r["budget"] for r in rows if r["budget"]]
    if spent:
        budgets = ", ".join(str(b) for b in sorted({int(r["budget"]) for r in rows if r["budget"]}))
        numbers["spent.mean"] = Number(
            sum(spent) / len(spent), unit="share", digits=1, games=len(spent),
            says=f"share of its game budget a candidate spent (iterations over budget), mean over every game of "
                 f"every candidate (game={budgets}; 2-4 players)")
        numbers["spent.least"] = Number(min(spent), unit="share", digits=1, games=len(spent),
                                        says="the least share of its budget a candidate's game spent")
    runs = read_runs(out)
    commands = dict.fromkeys(r["command"] for r in runs if r.get("command"))
    heads = (r["code"].split()[0] for r in runs if r.get("code", "").strip())
    return Findings(study=out.name, title=TITLE, status=STATUS, commit=code,
                    command=" && ".join(commands) or "python experiments/time_manager.py --part estimate "
                                                      "--part favourite --part games",
                    numbers=numbers, games={k: n.games for k, n in numbers.items() if n.games is not None},
                    played_at=tuple(dict.fromkeys(heads)),
                    runs=tuple({k: r[k] for k in RUN_KEYS if r.get(k) not in (None, "")} for r in runs))


def part_report(args, code: str) -> None:
    est = json.loads((args.out / "estimate.json").read_text())
    fav = json.loads((args.out / "favourite.json").read_text())
    rows = [json.loads(line) for line in (args.out / "games.jsonl").read_text().splitlines() if line.strip()]
    summary = games_summary(rows)
    deals = max((s["games"] for s in summary), default=0)
    lines = ["    python experiments/time_manager.py --part estimate --part favourite",
             f"    python experiments/time_manager.py --part games --games {deals} --game "
             + " ".join(str(n) for n in sorted({int(r['budget']) for r in rows if r['budget']})),
             "    python experiments/time_manager.py --part report", "",
             f"Code: estimate {est['code']}, favourite {fav['code']}, games "
             f"{', '.join(dict.fromkeys(r['code'] for r in rows))}. This page and summary.json: "
             "`--part report`, from the files below (no game played).", "",
             "## The searched decisions left (estimate.json)", "",
             f"Source: {est['source']}. Features: {', '.join(est['features'])}; once the game's end is triggered, "
             "the mean of the decisions left then. Error = estimate − true count.", "",
             "| planned | games | decisions a game | constants | mean abs error | bias | last 10 decisions: "
             "mean abs, bias | held out (odd seeds): mean abs, bias |", "|---|---:|---:|---|---:|---:|---|---|"]
    for planned in PLANNED:
        e = est[planned]
        err, held = e["error"], e["held_out"]
        lines.append(f"| {planned} | {e['games']} | {e['decisions_a_game']} | {e['coef']}, at the end "
                     f"{e['at_end']}, draws {e['draw_share']:.1%} | {err['mean_abs']} | {err['bias']:+} | "
                     f"{err['left_1_10']['mean_abs']}, {err['left_1_10']['bias']:+} | {held['mean_abs']}, "
                     f"{held['bias']:+} |")
    lines += ["", "By player count (planned=houses): " + ", ".join(
        f"{n} players {est['houses']['error'][f'p{n}']['mean_abs']} (bias {est['houses']['error'][f'p{n}']['bias']:+})"
        for n in (2, 3, 4)) + " decisions mean absolute error.", "",
        "## The clear favourite (favourite.json)", "",
        f"{fav['positions']} searched decisions of those games, {ANCHOR}'s search at {fav['allotment']['draw']} "
        f"iterations a draw and {fav['allotment']['other']} otherwise, its root read every 16 iterations from "
        f"{fav['after']:.0%} of them on. `changed`: the move most visited when the share was first reached is not "
        "the one most visited at the end of the full allotment.", "",
        "| share | searches stopped | move changed (of all) | of the stopped | allotment spent |",
        "|---:|---:|---:|---:|---:|"]
    for share, v in fav["shares"].items():
        lines.append(f"| {share} | {v['stopped']:.1%} | {v['changed']:.1%} | {v['changed_when_stopped']:.1%} | "
                     f"{v['spent']:.1%} |")
    lines += ["", "## A game's spending beside anchor-1k (games.jsonl)", "",
              f"Against `heuristic`, the same {deals} deals at each player count (seed g, the tested seat "
              "g mod n), every spec in turn in one process: CPU seconds of the tested seat (thread time in "
              "`choose`), iterations and searches a game, the share of the game's budget spent.", "",
              "| players | spec | games | CPU s a game | iterations | searches | budget spent: mean, least |",
              "|---:|---|---:|---:|---:|---:|---|"]
    for s in summary:
        spent = "—" if s["spent"] is None else f"{s['spent']:.1%}, {s['spent_least']:.1%}"
        lines.append(f"| {s['players']} | `{s['spec']}` | {s['games']} | {s['cpu']:.2f} | {_num(s['iterations'])} | "
                     f"{s['searches']:.1f} | {spent} |")
    lines += ["", "By phase (per game: searches, mean allotment, iterations):", "",
              "| players | spec | draw | play with the Postmaster's draw | play | after_play | discard | "
              "houses + Cartwright |", "|---:|---|---|---|---|---|---|---|"]
    for s in summary:
        ph = s["phases"]
        cells = [f"{ph[p]['searches']:.1f}, {_num(ph[p]['allotted'])}, {_num(ph[p]['iterations'])}"
                 for p in ("draw", "postmaster", "play", "after_play", "discard")]
        houses = ph["houses"]["iterations"] + ph["cartwright"]["iterations"]
        lines.append(f"| {s['players']} | `{s['spec']}` | {' | '.join(cells)} | {_num(houses)} iterations |")
    atomic_write_text(args.out / "summary.json", json.dumps(summary, indent=1) + "\n")
    path = front_page(args.out, findings(args.out, est, fav, rows, code), lines)
    print(path.read_text(encoding="utf-8"))


PARTS = {"estimate": part_estimate, "favourite": part_favourite, "games": part_games, "report": part_report}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append", required=True)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--positions", type=int, default=200, help="favourite: positions searched")
    ap.add_argument("--game", type=int, nargs="+", default=[90_000, 100_000],
                    help="games: the candidates' iterations a game")
    ap.add_argument("--games", type=int, default=12, help="games: deals at each player count")
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    # the report alone plays nothing and reads only the saved files: it names the checkout's commit
    code = commit(ROOT) if set(args.part) == {"report"} else committed_code_or_exit(ROOT, args.allow_dirty)
    args.out.mkdir(parents=True, exist_ok=True)
    for part in args.part:
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
