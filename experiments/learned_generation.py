"""A generation of the learned evaluation against the one before, on positions neither fit saw.

    python experiments/learned_generation.py      # results/learned/gen2/compare.csv and compare.md

Generation 1 is the shipped model (thurn_ai/learned/value_model.json), fitted on results/learned/data/:
games of the search with the hand-set evaluation. Generation 2 (results/learned/gen2/value_model.json) is
fitted on those games and on results/learned/gen2/data/: games of the search with generation 1's
evaluation (`mcts(iterations=300,eval=learned)` self-play, every 4th game `mcts(eval=learned)` against
`heuristic`, data seed 2). Made by

    python experiments/learned_value.py --part data --seed 2 --search "mcts(iterations=300,eval=learned)" \\
        --strong "mcts(eval=learned)" --out results/learned/gen2
    python experiments/learned_value.py --part fit --out results/learned/gen2 --also results/learned/data \\
        --model results/learned/gen2/value_model.json

Each model's win chance for the player to move, at the start of every turn of each data set's held-out
games (every fifth game, every tenth North game: studies/learned/data.held_out), against whether that player
won: Brier score, its skill over always saying 1/n, log loss and ECE, per player count and phase. Whether
the new generation also *plays* better is measured in play: experiments/learned_strength.py's G2_* cells,
paired with the L_* cells on the same deals.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.learned.model import DEFAULT_PATH, ValueModel
from thurn_ai.studies.markdown import table as markdown_table
from thurn_ai.studies.provenance import machine_info
from thurn_ai.studies.learned import data as D
from thurn_ai.studies.learned.calibration import calibration_table, stage_of_positions
from thurn_ai.studies.learned.data import held_out
from thurn_ai.studies.learned.report import model_said

ROOT = Path(__file__).resolve().parent.parent
GEN2 = ROOT / "results" / "learned" / "gen2"
DATA = {"gen 1 games": ROOT / "results" / "learned" / "data", "gen 2 games": GEN2 / "data"}
MODELS = {"gen 1": DEFAULT_PATH, "gen 2": GEN2 / "value_model.json"}


def held_out_movers(folder: Path) -> pd.DataFrame:
    frame = D.load(folder)
    frame["phase"] = stage_of_positions(frame).to_numpy()
    return frame[held_out(frame["game"])]


def compare(data: dict, models: dict) -> pd.DataFrame:
    """One row per data set, model, player count and phase: calibration_table's measures and log loss."""
    rows = []
    for data_name, folder in data.items():
        test = held_out_movers(folder)
        for model_name, path in models.items():
            said = model_said(test, ValueModel.load(path)).to_numpy()
            movers = test.assign(said=said)[test["mover"]]
            table = calibration_table(movers)
            p = np.clip(movers["said"].to_numpy(float), 1e-9, 1 - 1e-9)
            y = movers["won"].to_numpy(float)
            losses = -(y * np.log(p) + (1 - y) * np.log(1 - p))
            table["log_loss"] = [losses[(movers["players"] == r.players).to_numpy()
                                        & ((movers["phase"] == r.phase).to_numpy() | (r.phase == "all"))].mean()
                                 for r in table.itertuples()]
            rows.append(table.assign(data=data_name, model=model_name))
    out = pd.concat(rows, ignore_index=True)
    return out[["data", "model"] + [c for c in out.columns if c not in ("data", "model")]]


def markdown(table: pd.DataFrame) -> list[str]:
    return markdown_table(["held-out games", "model", "players", "phase", "positions", "Brier", "Brier skill",
                           "log loss", "ECE"],
                          ([r.data, r.model, r.players, r.phase, r.positions, f"{r.brier:.4f}",
                            f"{100 * r.brier_skill:+.1f}%", f"{r.log_loss:.4f}", f"{r.ece:.3f}"]
                           for r in table.itertuples()), right="llrlrrrrr")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=GEN2)
    args = ap.parse_args(argv)
    missing = [str(p.relative_to(ROOT)) for p in [*DATA.values(), *MODELS.values()] if not p.exists()]
    if missing:
        print("error: missing " + ", ".join(missing) + " (see this script's help for the commands)",
              file=sys.stderr)
        return 2
    table = compare(DATA, MODELS)
    atomic_to_csv(table.round(5), args.out / "compare.csv", index=False)
    m = machine_info()
    text = ["# Generation 2 of the learned evaluation against generation 1, on held-out games", "",
            f"Built by `python experiments/learned_generation.py` at commit {m['commit']}.", "",
            __doc__.split("\n\n", 1)[1].strip(), "", *markdown(table), ""]
    atomic_write_text(args.out / "compare.md", "\n".join(text))
    print("\n".join(markdown(table)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
