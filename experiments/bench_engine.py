"""Engine speed on this machine: `python experiments/bench_engine.py` -> results/bench/engine-<commit>.json.

Runs the same measurements as `thurn-ai bench --json` for both boards and 2-4 players and stores them
with the commit and machine they came from (speed is measured here, never in tests).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from thurn_ai.play.bench import bench_rules
from thurn_ai.studies.provenance import machine_info
from thurn_ai.fileio import atomic_write_text
from thurn_ai.game.rules import PLAYER_COUNTS, Rules


def main(out_dir: str = "results/bench") -> None:
    rows = [bench_rules(Rules(players=n, board=b), playouts=300)
            for b in ("south", "north") for n in PLAYER_COUNTS]
    info = machine_info()
    out = {"machine": info, "engine": rows}
    try:
        from thurn_ai.play.bench import bench_search
        out["search"] = bench_search()
    except ImportError:
        pass
    path = Path(out_dir)
    path.mkdir(parents=True, exist_ok=True)
    f = path / f"engine-{info['commit'] or 'unknown'}.json"
    atomic_write_text(f, json.dumps(out, indent=2))
    for r in rows:
        print(f"{r['board']:<6} {r['players']}p  {r['actions_per_s']:>12,.0f} actions/s  "
              f"{r['playouts_per_s']:>8,.0f} playouts/s  clone {r['clone_us']:.3f} µs  "
              f"legal moves {r['legal_moves_compiled_us']:.3f} µs (C) {r['legal_moves_python_us']:.3f} µs (Py)")
    print(f"written {f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
