"""thurn-ai bench: engine speed (a benchmark, never a test)."""
from __future__ import annotations

import json
from typing import Any

import click

from ..play.bench import bench_rules, bench_search
from ..studies.provenance import machine_info
from ..game.rules import Rules
from .options import COUNTS, PLAYOUTS


@click.command("bench")
@click.option("--players", type=COUNTS, default=COUNTS.ALL, show_default=True,
              help=COUNTS.HELP)
@click.option("--board", default="south", show_default=True, help="south, north, or both (south,north).")
@click.option("--variant", type=click.Choice(["classic", "horses"]), default=None,
              help="Rules variant (default: the board's own).")
@click.option("--playouts", type=PLAYOUTS, default=300, show_default=True, help="Random playouts per measurement.")
@click.option("--search/--no-search", default=True, show_default=True,
              help="Also measure ISMCTS iterations per second.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(players, board, variant, playouts, search, as_json):
    """Random playouts and actions per second (compiled loop), clone and legal-move time, and the ISMCTS
    search's iterations per second; the first line names the commit measured."""
    counts = [int(x) for x in players.split(",")]
    rows = []
    for b in [x.strip() for x in board.split(",")]:
        for n in counts:
            rows.append(bench_rules(Rules(players=n, board=b, variant=variant), playouts=playouts))
    extra = {}
    if search:      # the search is compiled with the engine (play.bench imports both)
        extra["search"] = bench_search()
    out: dict[str, Any] = {"machine": machine_info(), "engine": rows, **extra}
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    m = out["machine"]
    commit = f"commit {m['commit']}" if m["commit"] else f"commit unknown: {m['commit_source']}"
    click.echo(f"{commit}  {m['cpu']}  Python {m['python']}  (one core, best of 3)")
    click.echo(f"{'board':<7}{'variant':<9}{'pl':>3}{'playouts/s':>12}{'actions/s':>13}{'act/game':>10}"
               f"{'clone µs':>10}{'moves µs (C)':>14}{'moves µs (Py)':>15}{'determ. µs':>12}")
    for r in rows:
        click.echo(f"{r['board']:<7}{r['variant']:<9}{r['players']:>3}{r['playouts_per_s']:>12,.0f}"
                   f"{r['actions_per_s']:>13,.0f}{r['actions_per_playout']:>10,.0f}{r['clone_us']:>10.3f}"
                   f"{r['legal_moves_compiled_us']:>14.3f}{r['legal_moves_python_us']:>15.3f}"
                   f"{r['determinize_us']:>12.3f}")
    if "search" in extra:
        s = extra["search"]
        click.echo(f"ISMCTS: {s['iterations_per_s']:,.0f} iterations/s ({s.get('description', '')})")
