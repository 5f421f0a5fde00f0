"""Options shared by several commands: which game (board, variant, players), and the checked number types
every numeric option uses: each number is checked once, here, at the edge (NaN, infinities, huge, negative
and zero values are one `error:` line and exit status 2), and its bounds are stated in `--help`."""
from __future__ import annotations

import json
import math
import os
import re
import tempfile
from pathlib import Path

import click

from ..game.board import Board
from ..fileio import MAX_FILE_BYTES, check_replaceable, path_text, read_existing
from ..bots.search_options import MAX_ITERATIONS, MAX_SECONDS
from ..game.rules import PLAYER_COUNTS, Rules, player_counts_text

# Boards whose reconstruction notice was already printed by this process (one line per board, however
# many Rules a command builds).
_announced: set[str] = set()


def game_options(f):
    f = click.option("--english-tile", is_flag=True,
                     help="Read the South board's 'outside Baiern' tile as the English 'all provinces'.")(f)
    f = click.option("--board-file", type=click.Path(dir_okay=False), default=None,
                     help="A board file of the same format as the built-in boards (overrides --board); "
                          "see docs/board-format.md.")(f)
    f = click.option("--variant", type=click.Choice(["classic", "horses"]), default=None,
                     help="Rules variant; default: the board's own (south: classic, north: horses).")(f)
    f = click.option("--board", type=click.Choice(["south", "north"]), default="south", show_default=True,
                     help="Which board (north = Glanz und Gloria, partly reconstructed).")(f)
    return f


def _load_bot_modules(ctx, param, values):
    from ..bots.spec import load_bot_module
    for module in values or ():
        load_bot_module(module)         # BotSpecError (one `error:` line) if it cannot be imported
    return values


def bot_module_option(f):
    """--bot-module FILE.py|MODULE (repeatable): import a module that registers bots, before --bots is read,
    so `--bots mybot,mcts` can name them (docs/writing-a-bot.md)."""
    return click.option("--bot-module", "bot_modules", multiple=True, metavar="FILE.py|MODULE", is_eager=True,
                        expose_value=False, callback=_load_bot_modules,
                        help="Import a module that registers your own bots (thurn_ai.bots.register) so --bots "
                             "can name them; repeatable. Installed plugins (entry-point group thurn_ai.bots) "
                             "need no option. See docs/writing-a-bot.md.")(f)


def data_board_file_option(what: str):
    """--board-file for a command that reads a position or record: such a file names only a packaged board
    (south, north); a game on another board file is read with that file given here."""
    return click.option("--board-file", type=click.Path(dir_okay=False), default=None,
                        help=f"The board file the {what} was played on (a {what} names only a packaged "
                             "board: south or north); see docs/board-format.md.")


def announce_board(board: Board) -> None:
    """Say once, on stderr, that a board is partly reconstructed (the North board is)."""
    key = board.path or board.name
    if board.reconstructed and key not in _announced:
        _announced.add(key)
        click.echo(f"note: {board.notice}", err=True)


def rules_from(players: int, board: str, variant, board_file, english_tile: bool, echo=True) -> Rules:
    rules = Rules(players=players, board=board_file or board, variant=variant,
                  all_provinces_tile="english" if english_tile else "german")
    if echo:
        announce_board(rules.load_board())
    return rules


def _fmt(x) -> str:
    if x == 2**64 - 1:
        return "2**64-1"
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


class BoundedInt(click.IntRange):
    """A whole number in [lo, hi]: 'nan', '1.5', '1e3', '' or 99999999999999999999 are refused."""
    name = "integer"
    min: int        # both bounds are always given (click's IntRange lets either be None)
    max: int

    def __init__(self, lo: int, hi: int, meaning: str | None = None):
        super().__init__(min=lo, max=hi)
        self.meaning = meaning     # said when a number is out of range, e.g. "a game has 2, 3 or 4 players"

    def convert(self, value, param, ctx):
        if isinstance(value, bool) or isinstance(value, float):
            self.fail(f"{value!r} is not a whole number", param, ctx)
        if isinstance(value, str):
            m = re.fullmatch(r"\s*([+-]?)0*([0-9]+)\s*", value, re.ASCII)
            if not m:
                self.fail(f"{value[:40]!r} is not a whole number", param, ctx)
            if len(m.group(2)) > 30:   # far beyond every bound (and int() of 5000 digits fails)
                self.fail(f"{m.group(1)}{m.group(2)[:12]}... is not in the range {self._describe_range()}",
                          param, ctx)
            value = int(m.group(1) + m.group(2))
        if self.meaning and isinstance(value, int) and not self.min <= value <= self.max:
            self.fail(f"{value}: {self.meaning}", param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        return f"{_fmt(self.min)} to {_fmt(self.max)}"


class BoundedFloat(click.FloatRange):
    """A finite number in (lo, hi] (or [lo, hi]); click's FloatRange alone lets NaN through."""
    name = "number"

    def __init__(self, lo: float, hi: float, lo_open: bool = True):
        super().__init__(min=lo, max=hi, min_open=lo_open)

    def convert(self, value, param, ctx):
        if isinstance(value, bool):
            self.fail(f"{value!r} is not a number", param, ctx)
        if isinstance(value, str) and len(value) > 100:
            self.fail(f"{value[:20]}... is not a number", param, ctx)
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(x, param, ctx)

    def _describe_range(self) -> str:
        return f"{_fmt(self.min)} {'<' if self.min_open else '<='} x <= {_fmt(self.max)}"


class PlayerCounts(click.ParamType):
    """Comma-separated player counts, each 2, 3 or 4 (e.g. 2,3,4); converts to the same text, checked."""
    name = "counts"
    ALL = ",".join(map(str, PLAYER_COUNTS))     # every count: the default
    HELP = f"Player counts, comma-separated (each {player_counts_text()})."

    def convert(self, value, param, ctx):
        parts = [t.strip() for t in str(value).split(",")]
        if not all(t in self.ALL.split(",") for t in parts):
            self.fail(f"{str(value)[:40]!r}: player counts are comma-separated, each {player_counts_text()} "
                      f"(e.g. {self.ALL})", param, ctx)
        return ",".join(dict.fromkeys(parts))


# The bounds of every number the commands take (stated in each option's --help).
MAX_SEED = 2**64 - 1
SEED = BoundedInt(0, MAX_SEED)
ITERATIONS = BoundedInt(1, MAX_ITERATIONS)      # the search's own bounds (bots/search_options.py)
SECONDS = BoundedFloat(0, MAX_SECONDS)
GAMES = BoundedInt(1, 1_000_000)
PLAYOUTS = BoundedInt(1, 10_000_000)
JOBS = BoundedInt(1, 256)
PLAYERS = BoundedInt(PLAYER_COUNTS[0], PLAYER_COUNTS[-1], f"a game has {player_counts_text()} players")
TOP = BoundedInt(1, 1000)
GAME_INDEX = BoundedInt(1, 1_000_000_000)
COUNTS = PlayerCounts()


#: What an output file a command writes looks like: an existing file of that kind may be replaced (the user
#: is writing it again); any other file only with --force.
OUTPUT_KINDS = {
    "png": ("a PNG image", lambda data: data.startswith(b"\x89PNG\r\n\x1a\n")),
    "position": ("a position file", lambda data: _is_position(data)),
    # a plot this project draws (PNG, PDF, SVG, PostScript...): matplotlib signs every file it writes; a
    # user's own thesis.pdf or drawing.svg is not replaced without --force
    "plot": ("a plot drawn by thurn-ai (matplotlib)", lambda data: b"matplotlib" in data.lower()),
}


class OutputFile(click.Path):
    """The type of every option naming a file a command writes: `kind` (OUTPUT_KINDS) says which existing
    files it may replace without --force (None: the command appends and checks the file itself, as
    `play --record`). The command calls check_output_file before any work; tests/commands/
    test_output_flags.py finds every option of this type and checks it refuses a user's file."""

    def __init__(self, kind: str | None, writable: bool = False):
        super().__init__(dir_okay=False, writable=writable)
        self.kind = kind


class OutputFolder(click.Path):
    """The type of every option naming a folder a command writes many files into (fileio.claim_folder:
    new, empty, or marked by the command)."""

    def __init__(self):
        super().__init__(file_okay=False)


def _is_position(data: bytes) -> bool:
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and "rules" in value and "players" in value


def force_option(f):
    return click.option("--force", is_flag=True,
                        help="Replace the output file even if it is not one this command writes (by default "
                             "only a missing file, an empty one or one of the same kind is replaced).")(f)


def check_output_file(path, option: str, kind: str | None = None, force: bool = False, inputs=()) -> None:
    """Fail before any work when `path` cannot be written: its folder must exist and take a new file, and
    the path must be missing or a regular file with one name (fileio.check_replaceable: no link, device
    or FIFO); a name ending in a slash names a folder. With `kind` (OUTPUT_KINDS), an existing file must
    also be empty or of that kind unless `force`: a typo never replaces a record, notes or a picture of
    another kind. A file among `inputs` (the files the command reads) is never replaced, even with
    `force`."""
    def bad(message: str) -> click.BadParameter:
        return click.BadParameter(message, param_hint=option)

    if not os.fspath(path):
        raise bad("an empty name is not a file name")
    try:
        _check_output_path(Path(path), path, option, bad)
        for source in inputs:
            if source is not None and os.path.exists(path) and os.path.exists(source) \
                    and os.path.samefile(path, source):
                raise bad(f"{path_text(path)} is the file this command reads ({path_text(source)}); it is never "
                          "replaced: choose another name")
        if kind is not None and not force:
            _check_output_kind(Path(path), kind, bad)
    except OSError as e:             # e.g. a name too long for the file system
        raise bad(f"cannot write {path_text(path)}: {e.strerror or e}") from None


def check_plot_format(path, option: str) -> None:
    """Fail before any work when matplotlib cannot write the format `path`'s suffix names (it would fail
    only after the work, with "Format 'jsonl' is not supported")."""
    from matplotlib.backend_bases import FigureCanvasBase
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lstrip(".").lower()
    if suffix not in formats:
        raise click.BadParameter(f"{path_text(path)}: a plot is written as {', '.join(sorted(formats))} "
                                 f"(named by the file's suffix), not {suffix or 'a file without a suffix'!r}",
                                 param_hint=option)


def _check_output_kind(p: Path, kind: str, bad) -> None:
    what, looks_right = OUTPUT_KINDS[kind]
    data = read_existing(p, "output file", bad, MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
    if data and not looks_right(data):
        raise bad(f"{path_text(p)} exists and is not {what}, so it is not replaced (it may be a file you "
                  "need); choose another name, or give --force to replace it")


def _check_output_path(p: Path, path, option: str, bad) -> None:
    folder = p.parent if str(p.parent) else Path(".")
    if os.fspath(path).endswith(("/", os.sep)):
        raise bad(f"{path_text(path)} names a folder (it ends with a slash), not a file")
    if p.is_dir():
        raise bad(f"{path_text(path)} is a folder, not a file")
    if not folder.is_dir():
        raise bad(f"the folder {path_text(folder)} of {path_text(path)} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:100]}.", suffix=".check", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise bad(f"cannot write in the folder {path_text(folder)}: {e.strerror or e}") from None
    check_replaceable(p, f"{option} file", bad)
