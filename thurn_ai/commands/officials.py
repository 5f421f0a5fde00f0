"""thurn-ai officials: the ablation study of the four officials (thurn_ai/officials_study.py)."""
from __future__ import annotations

from pathlib import Path

import click

from .. import officials_study as study
from ..officials import OFFICIALS
from ..fileio import atomic_write_text
from .options import GAMES, JOBS, PLAYER_COUNTS, SEED, game_options, rules_from


@click.command("officials")
@click.option("--bot", default="heuristic", show_default=True,
              help="The full bot's spec; each official is forbidden for it in turn (e.g. mcts(iterations=300)).")
@click.option("--games", type=GAMES, default=100, show_default=True,
              help="Games per tournament (the control and one per official), rounded up to a multiple of the "
                   "player count so the restricted bot plays every seat equally often.")
@click.option("--players", type=PLAYER_COUNTS, default="2,3,4", show_default=True,
              help="Player counts, comma-separated (each 2, 3 or 4).")
@click.option("--officials", "officials_text", default=",".join(OFFICIALS), show_default=True,
              help="Which officials to forbid, comma-separated.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Base seed; tournament seed = seed + 100*players + k (k = 0 control, 1-4 the officials).")
@click.option("--jobs", type=JOBS, default=None, help="Worker processes (default: every core).")
@game_options
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write games.parquet, tables (CSV), plots (PNG) and report.md here; the tournaments are "
                   "kept in OUT/raw and a rerun resumes them.")
@click.option("--from", "from_path", type=click.Path(dir_okay=False), default=None,
              help="Re-analyse saved study data (a games.parquet or CSV) instead of playing.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def command(bot, games, players, officials_text, seed, jobs, board, variant, board_file, english_tile,
            out_dir, from_path, quiet):
    """The full bot against the same bot with one official forbidden, for each official and player count,
    seats rotated: how often each official is used and when, the change in win rate and mean score without
    it (95% CIs), and the seat advantage per player count next to the WBC record.

    Example: thurn-ai officials --bot mcts --games 200 --players 2,3,4 --out officials-study"""
    if from_path:
        df = study.load_study(from_path)
        name = df.loc[~df.restricted, "bot"].iloc[0]  # the full bot's spec
    else:
        counts = study.parse_players(players)
        officials = study.parse_officials(officials_text)
        rules = rules_from(counts[0], board, variant, board_file, english_tile)
        if rules.resolved_variant == "horses" and "cartwright" in officials:
            if officials_text != ",".join(OFFICIALS):
                raise study.StudyError("the horses variant has no Cartwright; leave it out of --officials")
            officials = tuple(o for o in officials if o != "cartwright")
        study.with_forbid(bot, officials[0])  # checks the spec before any game is played
        rules_kwargs = {"board": board_file or board, "variant": variant,
                        "all_provinces_tile": "english" if english_tile else "german"}
        df = study.run_ablation(bot, counts, games, seed, officials, jobs=jobs, rules_kwargs=rules_kwargs,
                                out_dir=Path(out_dir) / "raw" if out_dir else None, resume=bool(out_dir),
                                progress=not quiet, log=None if quiet else lambda s: click.echo(s, err=True))
        name = bot
    a = study.analyse(df)
    click.echo(study.format_text(a))
    if out_dir:
        plots = study.save_study(df, a, out_dir, title=name)
        meta = {"title": f"What the officials are worth: {name}",
                "studies": {name: {"bot": None if from_path else bot, "games": None if from_path else games,
                                   "seed": None if from_path else seed}},
                "plots": {name: plots}}
        if not from_path:
            meta["command"] = (f"thurn-ai officials --bot '{bot}' --games {games} --players {players} "
                               f"--officials {officials_text} --seed {seed} --out {out_dir}")
        atomic_write_text(Path(out_dir) / "report.md", study.build_report({name: a}, meta))
        click.echo(f"wrote {out_dir}/report.md, games.parquet, tables and plots")
