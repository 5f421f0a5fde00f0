"""thurn-ai sprt: a sequential test of a candidate bot against a baseline on paired deals (studies/sprt.py)."""
from __future__ import annotations

import json
import sys
import time

import click

from ..errors import ThurnError
from ..fileio import path_text
from .options import GAMES, JOBS, PLAYERS, SEED, BoundedFloat, OutputFolder, bot_module_option

#: a difference of win share in points (x100): within (-100, 100]
POINTS = BoundedFloat(-100.0, 100.0)
#: an error rate of the test: within (0, 0.5]
ERROR_RATE = BoundedFloat(0.0, 0.5)


@click.command("sprt")
@click.argument("candidate")
@click.option("--against", "baseline", required=True, help="The baseline bot spec, e.g. anchor-1k.")
@click.option("--players", type=PLAYERS, default=2, show_default=True, help="Players per game: 2, 3 or 4.")
@click.option("--opponents", default=None,
              help="3-4 players: the bot in the seats other than the focus seat [default: the baseline].")
@click.option("--elo0", type=POINTS, default=0.0, show_default=True,
              help="H0: the mean paired difference in points (the focus seat's win share with the candidate "
                   "minus with the baseline, x100).")
@click.option("--elo1", type=POINTS, default=3.0, show_default=True, help="H1: the mean paired difference, points.")
@click.option("--alpha", type=ERROR_RATE, default=0.05, show_default=True, help="Chance to accept H1 when H0 holds.")
@click.option("--beta", type=ERROR_RATE, default=0.05, show_default=True, help="Chance to accept H0 when H1 holds.")
@click.option("--batch", type=GAMES, default=8, show_default=True, help="Deals between looks (2 games a deal).")
@click.option("--max-deals", type=GAMES, default=None,
              help="Give up undecided after this many deals (a multiple of --batch) [default: never].")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Deal k's seed derives from it.")
@click.option("--jobs", type=JOBS, default=1, show_default=True, help="Local worker processes.")
@bot_module_option
@click.option("--out", "out_dir", type=OutputFolder(), default=None,
              help="Folder for the games and sprt.json [default: sprt/YYYYMMDD-HHMMSS, the time it started].")
@click.option("--resume", is_flag=True, help="Continue the test in --out (its declared bounds must be given again).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def command(candidate, baseline, players, opponents, elo0, elo1, alpha, beta, batch, max_deals, seed, jobs,
            out_dir, resume, as_json):
    """Test CANDIDATE against a baseline until the evidence decides (a sequential probability ratio test).

    Both bots play the same deals in the same seats; the test stops when H1 (a gain of --elo1 points) or H0
    (--elo0) is accepted at the declared error rates, and prints a verdict line. Example:
    thurn-ai sprt racer --against heuristic --elo1 10 --batch 4"""
    from ..bots.spec import make_bot
    from ..studies.sprt import run_sprt
    from ..stats.sprt import SPRT
    for spec in (candidate, baseline, *([opponents] if opponents else [])):
        make_bot(spec)          # an unknown bot or option is refused before any folder is made
    try:
        test = SPRT(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, batch=batch, max_deals=max_deals)
    except ValueError as e:
        raise ThurnError(str(e)) from None
    if resume and out_dir is None:
        raise ThurnError("--resume needs --out: the folder of the test to continue")
    if out_dir is None:
        out_dir = f"sprt/{time.strftime('%Y%m%d-%H%M%S')}"
    announced: list[bool] = []

    def look(result):
        if not announced:       # once the folder is taken: a refused start prints one error line only
            click.echo(f"sprt: {candidate} against {baseline}, {players} players, H0 {elo0:+g} / H1 {elo1:+g} "
                       f"points, alpha {alpha:g}, beta {beta:g}; games in {path_text(out_dir)}", err=True)
            announced.append(True)
        s = result.status["win"]
        click.echo(f"  {s.n} deals: LLR {s.llr:+.2f} in [{s.lower:.2f}, {s.upper:.2f}]", err=True)
    try:
        result = run_sprt(candidate, baseline, players=players, test=test, seed=seed, opponents=opponents,
                          jobs=jobs, out_dir=out_dir, resume=resume, on_look=look)
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished games are saved; continue with --out {path_text(out_dir)} --resume",
                   err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo(result.line)
