"""thurn-ai officials: the officials study (thurn_ai/studies/officials/): the ablation of the four officials,
their value at the moment of choice, the turn question (which official this turn) and the validation by
play of the rating. Its options and output; the parts are played by the study's runner
(studies/officials/run.py), as experiments/officials.py plays them; this module only reads the options into
the study's Parameters (studies/officials/one_bot.py) and prints what it shows."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from ..fileio import path_text
from ..game.officials import OFFICIALS
from ._lazy import LazyModule
from .options import OutputFolder, GAMES, ITERATIONS, JOBS, COUNTS, SEED, game_options, rules_from

# pandas and scipy: imported when the command runs, not for --help
study = LazyModule("thurn_ai.studies.officials")
one_bot = LazyModule("thurn_ai.studies.officials.one_bot")

#: the parts (studies/officials/one_bot.PARTS; here too, so --help needs no pandas)
PARTS = ("ablation", "choice", "turns", "validation", "all")
#: options that only some parts read: {parameter: those parts}. Another part refuses them rather than ignore
#: them (--games 4 with --part validation would otherwise play the validation's full 2,182 games a cell).
PART_OPTIONS = {"games": ("ablation", "choice", "all"), "officials_text": ("ablation", "all"),
                "choice_games": ("choice", "turns", "all"), "choice_iterations": ("choice", "turns", "all"),
                "validation_games": ("validation",), "controls": ("validation",)}
#: The empty file that marks an --out folder as made by this command (one_bot.OUT_MARK; here too for --help).
OUT_MARK = ".thurn-ai-officials"


@click.command("officials")
@click.option("--bot", default="heuristic", show_default=True,
              help="The full bot's spec; each official is forbidden for it in turn (e.g. mcts(iterations=300)). "
                   "mcts plays the default search's options (thurn_ai.bots.default_search).")
@click.option("--budget", default=None,
              help="Iterations per decision of a search bot by player count, e.g. 2=1000,3=1000,4=3000 (or one "
                   "number for every count); replaces the spec's budget.")
@click.option("--part", type=click.Choice(PARTS), default="ablation", show_default=True,
              help="ablation: control and one tournament per official forbidden; choice: rate, in the control "
                   "games, every decision where an official is on offer (needs --out); turns: rate each choice "
                   "of official at every turn start of the control games, which an earlier ablation or choice "
                   "part played (needs --out); validation: the rated bot, which follows the rating at every "
                   "offer, against the bot (an mcts bot); all: ablation, choice and turns.")
@click.option("--games", type=GAMES, default=100, show_default=True,
              help="Games per tournament (the control and one per official), rounded up to a multiple of the "
                   "player count so the restricted bot plays every seat equally often.")
@click.option("--players", type=COUNTS, default=COUNTS.ALL, show_default=True,
              help=COUNTS.HELP)
@click.option("--officials", "officials_text", default=",".join(OFFICIALS), show_default=True,
              help="Which officials to forbid, comma-separated.")
@click.option("--choice-games", type=GAMES, default=10, show_default=True,
              help="Control games rated per player count by the choice part (the first ones).")
@click.option("--choice-iterations", type=ITERATIONS, default=None,
              help="Iterations of each search of the choice part (default: an mcts bot's own budget, else "
                   "the budget of `thurn-ai hint`).")
@click.option("--validation-games", type=GAMES, default=None,
              help="Games per player count and rating of the validation part (default: enough to find a win "
                   "rate 3 points away from the fair 1/n, e.g. 2,182 at 2 players).")
@click.option("--controls", is_flag=True,
              help="The validation part also plays each rating's control on the same deals: at an offer the "
                   "same side search as the rating's, on the side the bot's own move is on, so the two differ "
                   "only in who picks the side.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Base seed; tournament seed = seed + 100*players + k (k = 0 control, 1-4 the officials); "
                   "also the base seed of the choice part's searches.")
@click.option("--jobs", type=JOBS, default=None, help="Worker processes (default: every core).")
@game_options
@click.option("--out", "out_dir", type=OutputFolder(), default=None,
              help="Write games.parquet, tables (CSV), plots (PNG), example positions and report.md here; the "
                   "tournaments and rated decisions are kept in OUT/raw and a rerun resumes them. OUT must be "
                   f"new, empty or made by this command (it is marked with a {OUT_MARK} file): a folder "
                   "holding other files is refused, so nothing of yours is overwritten.")
@click.option("--from", "from_path", type=click.Path(dir_okay=False), default=None,
              help="Re-analyse saved study data (a games.parquet or CSV) instead of playing (--part ablation).")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the part's tables as JSON (one object: table name -> list of rows) instead of text.")
def command(bot, budget, part, games, players, officials_text, choice_games, choice_iterations, validation_games,
            controls, seed, jobs, board, variant, board_file, english_tile, out_dir, from_path, quiet, as_json):
    """The full bot against the same bot with one official forbidden, for each official and player count,
    seats rotated: how often each official is used and when, the change in win rate and mean score without
    it (95% CIs), and the seat advantage per player count next to the WBC record. --part choice rates, in the
    control games, the best move with and without the official at every decision where it is on offer;
    --part turns, at every turn start, each choice of official for the whole turn; --part validation plays
    a bot that follows the rating against the bot itself.

    Example: thurn-ai officials --bot mcts --budget 2=1000,3=1000,4=3000 --part all --games 200 --out study"""
    log = None if quiet else (lambda s: click.echo(s, err=True))
    _refuse_unread_options(click.get_current_context(), part)
    _OUTPUT.clear()
    _OUTPUT["json"] = {} if as_json else None
    from ..play.workers import stop_on_ctrl_c
    try:
        with stop_on_ctrl_c():      # Ctrl-C: "stopping..." at once, the workers stopped, saved games kept
            parameters = _parameters(bot, budget, part, games, players, officials_text, choice_games,
                                     choice_iterations, validation_games, controls, seed, jobs, board, variant,
                                     board_file, english_tile, out_dir, from_path, quiet)
            one_bot.run(parameters, _show, _note, log)
    except KeyboardInterrupt:
        where = f"; the games saved in {path_text(out_dir)} are kept (run the same command again to continue)" \
            if out_dir else ""
        click.echo(f"interrupted{where}", err=True)
        sys.exit(130)       # not re-raised: the command line would add its own "interrupted" line
    finally:
        collected = _OUTPUT.pop("json", None)
    if collected is not None:
        click.echo(json.dumps(collected, indent=1, ensure_ascii=False, default=_plain))


#: the tables a --json run collects ({"json": {name: rows}}), or {"json": None} for text
_OUTPUT: dict = {}


def _plain(x):
    """JSON for what json.dumps cannot write itself: numpy numbers, tuples of them."""
    if hasattr(x, "item"):
        return x.item()
    if isinstance(x, (tuple, set)):
        return list(x)
    return str(x)


def _show(text: str, tables: dict | None = None) -> None:
    """Print a part's text, or, under --json, keep its tables (DataFrames or plain data) for the JSON."""
    collected = _OUTPUT.get("json")
    if collected is None:
        click.echo(text)
        return
    for name, t in (tables or {}).items():
        collected[name] = json.loads(t.to_json(orient="records")) if hasattr(t, "to_json") else t


def _note(text: str) -> None:
    """A line about files written: on stdout, or on stderr under --json (stdout holds only the JSON)."""
    click.echo(text, err=_OUTPUT.get("json") is not None)


def _parameters(bot, budget, part, games, players, officials_text, choice_games, choice_iterations,
                validation_games, controls, seed, jobs, board, variant, board_file, english_tile, out_dir, from_path,
                quiet):
    """The command's options as the study's Parameters (the spec parsed here, at the edge)."""
    from ..bots.spec import BotSpec
    from ..studies.officials.plan import parse_officials, parse_players

    if from_path:               # re-analyses saved games: the other options are not read
        return one_bot.Parameters(None, part, out=out_dir and Path(out_dir), from_path=Path(from_path), quiet=quiet)
    one_bot.check_out(part, out_dir)        # this error before one about the spec, as the command always did
    counts = parse_players(players)
    officials = parse_officials(officials_text)
    rules = rules_from(counts[0], board, variant, board_file, english_tile)
    if rules.resolved_variant == "horses" and "cartwright" in officials:
        if officials_text != ",".join(OFFICIALS):
            raise study.StudyError("the horses variant has no Cartwright; leave it out of --officials")
        officials = tuple(o for o in officials if o != "cartwright")
    command_line = (f"thurn-ai officials --bot '{bot}'" + (f" --budget {budget}" if budget else "")
                    + f" --part {part} --games {games} --players {players} --officials {officials_text}"
                    + (f" --choice-games {choice_games}" if part != "ablation" else "")
                    + (f" --choice-iterations {choice_iterations}" if choice_iterations else "")
                    + f" --seed {seed} --out {out_dir}")
    return one_bot.Parameters(
        BotSpec.parse(bot), part, counts, officials, games, budget, choice_games, choice_iterations,
        validation_games, controls, seed, jobs, rules_kwargs={"board": board_file or board, "variant": variant,
                                                              "all_provinces_tile": "english" if english_tile
                                                              else "german"},
        out=out_dir and Path(out_dir), quiet=quiet, command=command_line)


def _refuse_unread_options(ctx: click.Context, part: str) -> None:
    """One error naming an option given on the command line that this part does not read (PART_OPTIONS)."""
    for param in ctx.command.params:
        parts = PART_OPTIONS.get(param.name)
        if parts and part not in parts and ctx.get_parameter_source(param.name) != ParameterSource.DEFAULT:
            flag = max(param.opts, key=len)
            raise study.StudyError(f"{flag} is not read by --part {part}: it is for --part {' or '.join(parts)}"
                                   + (" (the validation plays --validation-games games a cell)"
                                      if param.name == "games" and part == "validation" else ""))
