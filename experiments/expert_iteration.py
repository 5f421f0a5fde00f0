"""Expert iteration: teacher data from deep searches -> a learned move prior -> its strength. Reproduces
results/expert/.

    python experiments/expert_iteration.py --part data      # teacher data (resumes an interrupted run)
    python experiments/expert_iteration.py --part data --generation 2 --games 60   # the next generation's
    python experiments/expert_iteration.py --part screen    # before any game: which target and mix (screen.csv)
    python experiments/expert_iteration.py --part fit       # fit the prior to the data, write its weights
    python experiments/expert_iteration.py --part offline   # agreement with the teacher on held-out decisions
    python experiments/expert_iteration.py --part speed     # iterations per CPU second, both priors, one run
    python experiments/expert_iteration.py --part strength  # the cells below (resumes; --cells to pick)
    python experiments/expert_iteration.py --part report    # results/expert/report.md, findings.json and README.md
    python experiments/expert_iteration.py --part data --scheduler tcp://host:8786 --games 400   # on Dask

Teacher data: results/expert/data/ (generation 1, seed 1) and results/expert/gen<N>/data/ (thurn_ai/studies/
expert/teacher.py says which games and decisions; report.GENERATIONS which bots and seed each generation
has). Results must come from committed code: the script refuses uncommitted changes to the package, the
core, the experiments or the build files, unless --allow-dirty, which the outputs then say.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from thurn_ai.fileio import atomic_to_csv
from thurn_ai.game.rules import PLAYER_COUNTS
from thurn_ai.studies.expert import fit as F
from thurn_ai.studies.expert import measure as M
from thurn_ai.studies.expert import report as R
from thurn_ai.studies.expert import teacher as T
from thurn_ai.studies.chunked import stopping_safely
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "expert"


def part_data(args, code: str) -> None:
    gen = R.GENERATIONS[args.generation]
    chunks = T.plan_chunks(players=args.players, games=args.games, seed=gen.seed, play=gen.play, strong=gen.strong,
                           teacher=gen.teacher, sample=args.sample)
    client = None
    if args.scheduler:
        from thurn_ai.play.workers import connect
        client = connect(args.scheduler)
    folder = args.out / gen.data
    print(f"generation {gen.number}'s teacher data: {len(chunks)} chunks of up to {T.CHUNK} games in {folder} "
          "(complete ones are kept)", flush=True)
    start = time.time()
    with stopping_safely(folder):       # Ctrl-C: "stopping..." at once; the chunks written are kept
        done = T.generate(folder, chunks, jobs=args.jobs, client=client,
                          progress=lambda c: print(f"  {c.name} ({time.time() - start:.0f} s)", flush=True))
    log_run(args.out, "data" if gen.number == 1 else f"data gen{gen.number}", time.time() - start, code,
            chunks=done, games=args.games, seed=gen.seed, teacher=gen.teacher, sample=args.sample,
            players=list(args.players))


PRIOR_PATH = ROOT / "src" / "thurn_ai" / "learned" / "prior_model.json"


def part_fit(args, code: str) -> None:
    """Fit the generation's prior (to its own and earlier generations' training games) into
    results/expert/prior_gen<N>.json; --ship also makes it the package's prior."""
    gen = R.GENERATIONS[args.generation]
    start = time.time()
    folders = [args.out / f for f in gen.fit_on]
    train, held = F.load_groups(folders, args.players, args.q_share)
    model, cv = F.fit_prior(train, meta={"data": [f"results/expert/{f}" for f in gen.fit_on], "generation": gen.number,
                                         "code": code, "q_share": args.q_share, "target": "visits",
                                         "q_temp": F.Q_TEMP, "min_visits": F.MIN_VISITS,
                                         "decisions": {f"{n}p": int(sum(len(d) for (m, _), d in train.items()
                                                                       if m == n)) for n in args.players}})
    model.save(ROOT / gen.prior)
    if args.ship:
        model.save(PRIOR_PATH)
    where = args.out / gen.folder
    atomic_to_csv(cv, where / "cv.csv", index=False)
    import pandas as pd
    # offline: on the held-out games of this generation's own data
    k = gen.fit_on.index(gen.data)           # its folder's games are numbered from k x GAME_OFFSET
    own = {key: d.take(d.game // F.GAME_OFFSET == k) for key, d in held.items()}
    rows = [F.agreement(model, d) for _k, d in sorted(own.items()) if len(d)]
    if gen.number > 1:         # the previous generation's prior on the same held-out decisions
        from thurn_ai.learned.prior import prior_from
        before = prior_from(ROOT / R.GENERATIONS[gen.number - 1].prior)
        for r, (_k, d) in zip(rows, [(k, d) for k, d in sorted(own.items()) if len(d)]):
            b = F.agreement(before, d)
            r.update(previous_top1=b["prior_top1"], previous_share=b["prior_share"], previous_xent=b["prior_xent"])
    atomic_to_csv(pd.DataFrame(rows), where / "offline_prior.csv", index=False)
    print(pd.DataFrame(rows).to_string(index=False))
    log_run(args.out, "fit" if gen.number == 1 else f"fit gen{gen.number}", time.time() - start, code,
            q_share=args.q_share, target="visits", shipped=bool(args.ship))


def part_screen(args, code: str) -> None:
    """Before any game: fit the prior with each target (value share 0 and 0.5) into out/screen/, and compare
    the 1000-iteration search with each (mixed with the hand-set prior at 0 and 0.5) and with the planner
    prior on held-out decisions; the candidate of the cells (report.MIX, the fit's q_share) comes from here."""
    import pandas as pd
    start = time.time()
    folder = args.out / "screen"
    folder.mkdir(parents=True, exist_ok=True)
    specs = {"planner": R.DEFAULT_SPEC.format(it=R.BUDGET)}
    for q in R.SCREEN_Q_SHARES:
        path = folder / f"prior_q{q}.json"
        if not path.exists():
            train, _held = F.load_groups(args.out / "data", args.players, q)
            F.fit_prior(train, meta={"code": code, "q_share": q})[0].save(path)
        for mix in R.SCREEN_MIXES:
            specs[f"q{q} mix{mix}"] = (f"mcts(iterations={R.BUDGET},eval=learned,policy=learned,mix={mix},"
                                       f"pmodel={path.relative_to(ROOT) if path.is_relative_to(ROOT) else path})")
    df = pd.concat([M.search_agreement(args.out / "data", n, specs, limit=R.SCREEN_DECISIONS) for n in args.players],
                   ignore_index=True)
    atomic_to_csv(df, args.out / "screen.csv", index=False)
    print(df[df["spec"] != M.TEACHER].groupby("spec")[["agrees", "agrees_value", "teacher_share"]].mean().to_string())
    log_run(args.out, "screen", time.time() - start, code)


def part_offline(args, code: str) -> None:
    import pandas as pd
    start = time.time()
    frames = [M.search_agreement(args.out / "data", n, R.OFFLINE_SPECS, limit=args.offline_limit)
              for n in args.players]
    df = pd.concat(frames, ignore_index=True)
    atomic_to_csv(df, args.out / "offline_search.csv", index=False)
    print(df.groupby(["players", "spec"])[["agrees", "teacher_share"]].mean().to_string())
    log_run(args.out, "offline", time.time() - start, code, limit=args.offline_limit)


def part_speed(args, code: str) -> None:
    start = time.time()
    df = R.speed(args.out / "data", R.SPEED_SPECS)
    atomic_to_csv(df, args.out / "speed.csv", index=False)
    print(df.to_string(index=False))
    log_run(args.out, "speed", time.time() - start, code)


def part_strength(args, code: str) -> None:
    cells = [c for c in R.CELLS if not args.cells or c.name in args.cells]
    for cell in cells:
        start = time.time()
        print(f"{cell.name}: {cell.games} games, {cell.players} players, {cell.spec} against {cell.others}",
              flush=True)
        M.run_cell(cell, args.out / "runs", jobs=args.jobs, client_scheduler=args.scheduler)
        log_run(args.out, f"strength {cell.name}", time.time() - start, code, games=cell.games)
        part_report(args, code)


def part_report(args, code: str) -> None:
    """report.md, then the front page (README.md) and findings.json from the same saved data."""
    R.write_report(args.out, code)
    refresh(args.out, code.split()[0])


PARTS = {"data": part_data, "screen": part_screen, "fit": part_fit, "offline": part_offline, "speed": part_speed,
         "strength": part_strength, "report": part_report}
DEFAULT_PARTS = ["data", "screen", "fit", "offline", "speed", "strength", "report"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append")
    ap.add_argument("--games", type=int, default=100, help="games per player count (teacher data)")
    ap.add_argument("--players", type=lambda s: [int(x) for x in s.split(",")], default=list(PLAYER_COUNTS))
    ap.add_argument("--generation", type=int, choices=sorted(R.GENERATIONS), default=max(R.GENERATIONS),
                    help="which generation's teacher data (--part data) or prior (--part fit)")
    ap.add_argument("--ship", action="store_true", help="fit: also write the package's prior_model.json")
    ap.add_argument("--sample", type=float, default=T.DEFAULT_SAMPLE)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--q-share", type=float, default=0.5, help="the value softmax's share of the fit's target "
                    "(0.5: the screen's choice, docs/expert.md)")
    ap.add_argument("--offline-limit", type=int, default=150, help="held-out decisions per count (offline)")
    ap.add_argument("--cells", nargs="*", help="strength: only these cells (default: all, in order)")
    ap.add_argument("--scheduler")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    os.chdir(ROOT)      # the generations' specs name weights files relative to the repository's root
    for part in args.part or DEFAULT_PARTS:
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
