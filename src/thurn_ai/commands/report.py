"""thurn-ai report: re-analyse saved tournament results and write plots."""
from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import ThurnError
from ..fileio import claim_folder
from .options import OutputFolder

#: The empty file that marks a plots folder as made by this command (which then may rewrite its PNGs).
PLOTS_MARK = ".thurn-ai-plots"


def _title(folder: Path, results_dir) -> str:
    """Board, rules and seed from the folder's tournament.json, when there is one."""
    from ..play.tournament import META_FILE, read_meta
    try:
        meta = read_meta(folder / META_FILE)      # the safe reader: a damaged file is one ThurnError
        rules = meta["rules"]
        return (f"{', '.join(meta['specs'])}: {rules['board']} board, {rules['variant']} rules, "
                f"seed {meta['seed']}; results in {results_dir}")
    except (ThurnError, KeyError, TypeError):
        return f"results in {results_dir}"     # the title only; the results themselves were readable


def _english_tile(folder: Path) -> bool:
    """Whether the tournament in folder read the 'outside' tile as 'all provinces' (--english-tile)."""
    from ..play.tournament import META_FILE, read_meta
    try:
        return read_meta(folder / META_FILE)["rules"]["all_provinces_tile"] == "english"
    except (ThurnError, KeyError, TypeError):
        return False


@click.command("report")
@click.argument("results_dir", type=click.Path())
@click.option("--plots", "plots_dir", type=OutputFolder(), default=None,
              help="Folder for the PNGs [default: RESULTS_DIR/plots]. It must be new, empty or made by this "
                   f"command (it is marked with a {PLOTS_MARK} file): a folder holding other files is refused, "
                   "so nothing of yours is overwritten.")
@click.option("--no-plots", is_flag=True, help="Only print the statistics.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def command(results_dir, plots_dir, no_plots, as_json):
    """Statistics and plots (win rates, score distributions, seat advantage, officials) of the tournament
    saved in RESULTS_DIR (a `thurn-ai tournament --out` folder, or its results.parquet / results.csv)."""
    from ..stats.summary import format_summary, summarize, summary_to_json
    from ..play.tournament import load_results

    df = load_results(results_dir)
    summary = summarize(df)
    folder = Path(results_dir) if Path(results_dir).is_dir() else Path(results_dir).parent
    paths = []
    if not no_plots:
        from ..stats.plots import write_plots
        paths = write_plots(df, summary, claim_folder(plots_dir or folder / "plots", PLOTS_MARK, "plots"))
    if as_json:
        click.echo(json.dumps({"results": str(results_dir), "plots": [str(p) for p in paths],
                               "summary": summary_to_json(summary)}, indent=2, ensure_ascii=False))
        return
    from ..render.text import tile_names_of_ids
    tiles = tile_names_of_ids([c.removeprefix("tile_") for c in df.columns if c.startswith("tile_")],
                              english=_english_tile(folder))
    click.echo(format_summary(summary, _title(folder, results_dir), tiles or None))
    if paths:
        click.echo("\nplots: " + ", ".join(str(p) for p in paths))
