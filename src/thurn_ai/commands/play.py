"""thurn-ai play: one game between bots, with a readable log."""
from __future__ import annotations

import click

from ..bots import make_bot, split_specs
from ..bots.human import HumanBot
from ..play.analysis import analyse
from ..play.match import derive_seed, parse_records, play_game
from ..errors import ThurnError
from ..fileio import atomic_write_bytes, decode_text, path_text, read_existing
from ..game.rules import PLAYER_COUNTS
from ..render.text import describe_end, move_line
from .hint import analysis_lines
from .options import OutputFile, bot_module_option, SEED, check_output_file, game_options, rules_from

#: how many options the hint inside a game lists (`thurn-ai hint --top` for more)
HINT_TOP = 6


def append_record(path, line: str) -> None:
    """Append one JSON line to the record file atomically: the old lines and the new one are written to
    a temporary file beside it and renamed into place, so an interruption never leaves half a line.
    Only a regular file with one name is rewritten so (a link, device or FIFO is refused, see
    check_replaceable), and at most MAX_FILE_BYTES of it are read."""
    old = read_existing(path, "record file", ThurnError)
    if old and not old.endswith(b"\n"):
        old += b"\n"
    atomic_write_bytes(path, old + line.encode("utf-8") + b"\n")


def seat_adviser(game_seed: int):
    """The `hint` of a human seat: thurn_ai.play.analysis.analyse (as `thurn-ai hint` runs it) on the
    position as the player to move may know it -- GameState.determinize re-deals every card that player
    cannot see before the search starts, so the true hidden cards never reach it. Each hint is seeded by
    the game's seed and the turn: the same game gives the same hints."""
    def advise(state, player: int, iterations: int | None = None) -> list[str]:
        seed = derive_seed("hint", game_seed, state.turn, state.phase)
        seen = state.determinize(player, seed)
        analysis = analyse(seen, player, iterations=iterations, seed=seed)
        return analysis_lines(analysis, seen.n_players, top=HINT_TOP, in_game=True)
    return advise


def check_record_file(old: bytes, path, board_file) -> None:
    """--record appends only to a file of game records (or an empty or new one): any other file of the
    user's is refused, so a mistyped path never grows a document or a position by a line."""
    source = f"--record file {path_text(path)}"
    try:
        parse_records(decode_text(old, source), source, board_file)
    except ThurnError as e:
        raise ThurnError(f"{e}; --record appends only to a file of game records (or a new or empty one)") from None


@click.command("play")
@click.option("--bots", "bots_text", default="random,random", show_default=True,
              help="Comma-separated bot specs, one per seat in play order, e.g. human,mcts(iterations=2000).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the game (chance and bots).")
@bot_module_option
@game_options
@click.option("--record", "record_path", type=OutputFile(None, writable=True), default=None,
              help="Append the game record (JSON line) to this file.")
@click.option("--log/--no-log", "show_log", default=None,
              help="Print every move [default: only in a game with a human player; a game between bots "
                   "prints a summary: its length, the final scores and the winner].")
@click.option("--quiet", is_flag=True, help="Print only the result.")
@click.option("--json", "as_json", is_flag=True, help="Print the game record as JSON instead of a log.")
def command(bots_text, seed, board, variant, board_file, english_tile, record_path, show_log, quiet, as_json):
    """Play one game between bots (or against them, with the bot `human`: type `hint` at its prompt for the
    search's advice, `?` for help) and print its result; --log prints every move.

    Example: thurn-ai play --bots heuristic,greedy --seed 7 --record game.jsonl"""
    if record_path is not None:                   # before the game is played, not after
        old = read_existing(record_path, "record file", ThurnError)    # a regular file, readable, not huge
        check_output_file(record_path, "--record")
        check_record_file(old, record_path, board_file)
    specs = split_specs(bots_text)
    if len(specs) not in PLAYER_COUNTS:
        raise click.BadParameter(f"{PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]} bots are needed, got {len(specs)}",
                                 param_hint="--bots")
    rules = rules_from(len(specs), board, variant, board_file, english_tile)
    bots = [make_bot(s, derive_seed("bot", seed, i)) for i, s in enumerate(specs)]
    last_turn = [-1]
    humans = [b for b in bots if isinstance(b, HumanBot)]
    for b in humans:
        b.advise = seat_adviser(seed)
    if show_log is None:           # a human follows the game move by move; between bots, the summary
        show_log = bool(humans)

    def log(state, p, move):
        if quiet or as_json or not show_log:
            return
        if state.turn != last_turn[0]:
            last_turn[0] = state.turn
            click.echo(f"turn {state.turn + 1:>3}  seat {p} ({specs[p]})")
        click.echo(f"          {move_line(state, move)}")

    rec = play_game(rules, bots, seed, on_move=log)
    if record_path is not None:
        append_record(record_path, rec.to_json())
    if as_json:
        click.echo(rec.to_json())
        return
    if not show_log and not quiet:
        click.echo(f"{rules.load_board().title}, {rules.resolved_variant} rules, seed {seed}: "
                   + ", ".join(f"seat {p} {spec}" for p, spec in enumerate(specs)))
        click.echo(f"{rec.turns:,} turns, {len(rec.moves):,} moves (--log prints every move; "
                   "`thurn-ai replay` steps through a --record file)")
    for line in describe_end(rec):
        click.echo(line)
    if record_path is not None:
        click.echo(f"record appended to {record_path}")
