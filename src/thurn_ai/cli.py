"""The `thurn-ai` command line: a thin layer over the library. Each command lives in its own module in
thurn_ai/commands/ and is imported only when used, so `thurn-ai --help` stays fast.

Bad input never shows a traceback: a usage error (unknown option, missing argument, bad choice, a number
out of range) or a ThurnError from anywhere is one `error:` line on stderr and exit status 2. So are, as a
last resort, the ValueError/OverflowError/RecursionError/UnicodeError/OSError that bad input can cause
deeper down; set THURN_AI_DEBUG=1 to see their traceback. Any other exception is a bug and keeps its
traceback."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys

import click

from .errors import ThurnError, did_you_mean

COMMANDS = {     # the one-line descriptions `thurn-ai --help` lists (without importing the commands)
    "play": "Play a game between bots or against them; print the result.",
    "replay": "Replay a recorded game: step through it, or save a position.",
    "bench": "Measure engine speed: playouts, actions, clone, legal moves.",
    "validate": "Check a position file and list every problem found.",
    "hint": "Search a position; rank the options of the player to move.",
    "review": "Review a recorded game: each player's mistakes and win chance.",
    "show": "Print a position as text, or draw it as a PNG.",
    "tournament": "Play many games between bots and print statistics.",
    "report": "Re-analyse a saved tournament and write plots.",
    "league": "Rate bots in round robins at 2, 3 and 4 players.",
    "sprt": "Test a candidate bot against a baseline until it knows.",
    "officials": "Measure what each official is worth (the officials study).",
    "serve": "Open the board in a browser: play, replay, set up, hint.",
}

# Exceptions that bad input can raise deep inside a loader or a computation; reported in one line.
INPUT_ERRORS = (ValueError, OverflowError, RecursionError, UnicodeError, OSError)


def one_line(text: object) -> str:
    return " ".join(str(text).split())


def usage_error_line(e: click.UsageError) -> str:
    """click's usage error as one line: the message, and where to find the command's help."""
    msg = one_line(e.format_message())
    if msg[:1].isupper() and msg[1:2].islower():
        msg = msg[0].lower() + msg[1:]
    ctx = e.ctx
    if ctx is None:
        return f"error: {msg}"
    return f"error: {msg.rstrip('.')} (see '{ctx.command_path} --help')"


def input_error_line(e: BaseException) -> str:
    if isinstance(e, RecursionError):
        return "error: the input is nested too deeply"
    if isinstance(e, OverflowError):
        return f"error: a number is out of range ({one_line(e) or 'overflow'})"
    if isinstance(e, UnicodeDecodeError):
        return f"error: the input is not valid UTF-8 text ({one_line(e)})"
    if isinstance(e, OSError) and e.strerror:       # "error: game.json: No space left on device", no [Errno 28]
        from .fileio import path_text
        return f"error: {path_text(e.filename)}: {e.strerror}" if e.filename is not None else f"error: {e.strerror}"
    return f"error: {one_line(e) or type(e).__name__}"


class _Interrupted(Exception):
    """Ctrl-C inside a command, carried past click (which would print an empty line and 'Aborted')."""


class LazyGroup(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None

    def list_commands(self, ctx):
        return [n for n in COMMANDS if _available(n)]

    def format_commands(self, ctx, formatter):
        """The command list of `thurn-ai --help`, from COMMANDS: no command module is imported for it."""
        rows = [(n, COMMANDS[n]) for n in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx, name):
        if name not in COMMANDS or not _available(name):
            return None
        command = importlib.import_module(f"thurn_ai.commands.{name}").command
        # the whole sentence of COMMANDS is the command's summary wherever one is listed (the generated
        # docs/cli.md too), never the first line of its docstring cut where the line breaks
        command.short_help = COMMANDS[name]
        _refuse_empty_values(command)
        return command

    def resolve_command(self, ctx, args):
        """As click's, with a suggestion for a mistyped command: "no such command 'tournement' (did you mean
        'tournament'?)"."""
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            ctx.fail(f"No such command {args[0]!r}{did_you_mean(args[0], self.list_commands(ctx))}.")
        return super().resolve_command(ctx, args)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """As click's main, but every error a user can fix is one `error:` line and exit status 2 (also
        under click.testing.CliRunner). With standalone_mode=False exceptions propagate as in click."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        debug = bool(os.environ.get("THURN_AI_DEBUG"))
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except getattr(click.exceptions, "NoArgsIsHelpError", ()) as e:   # `thurn-ai` alone: the help
            e.show()
            sys.exit(e.exit_code)
        except click.UsageError as e:
            click.echo(usage_error_line(e), err=True)
            sys.exit(2)
        except click.exceptions.Abort:
            click.echo("aborted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            click.echo(f"error: {one_line(e.format_message())}", err=True)
            sys.exit(2)
        except ThurnError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(2)
        except (KeyboardInterrupt, _Interrupted):
            click.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            _quiet_stdout()
            sys.exit(0)
        except INPUT_ERRORS as e:
            if debug:
                raise
            click.echo(input_error_line(e), err=True)
            sys.exit(2)
        sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)


def _refuse_empty_values(command: click.Command) -> None:
    """Every option taking text or a path refuses an empty (or blank) value: it names nothing, and read as
    "not given" it would do what the user did not ask (`officials --from ""` started the whole study).
    Output files say so themselves (options.check_output_file)."""
    from .commands.options import OutputFile
    for param in command.params:
        if not isinstance(param, click.Option) or param.is_flag or getattr(param, "_refuses_empty", False) \
                or isinstance(param.type, OutputFile) \
                or not (param.type is click.STRING or isinstance(param.type, click.Path)):
            continue
        param.callback = _empty_refused(param.callback)
        param._refuses_empty = True          # type: ignore[attr-defined]


def _empty_refused(inner):
    def callback(ctx, param, value):
        values = value if isinstance(value, tuple) else (value,)
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise click.BadParameter("an empty value names nothing; leave the option out for its default",
                                     ctx, param)
        return inner(ctx, param, value) if inner is not None else value
    return callback


def _quiet_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so flushing at exit does not complain."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _available(name: str) -> bool:
    return importlib.util.find_spec(f"thurn_ai.commands.{name}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="thurn-ai")
def cli():
    """thurn-ai: engine, bots and experiments for Thurn und Taxis (and Glanz und Gloria)."""
    from .game.board import on_load
    from .commands.options import announce_board
    on_load(announce_board)   # any command using the North board says once that it is partly reconstructed


def main(argv=None):
    """Entry point: bad input gives one clear message and exit status 2, never a traceback."""
    cli.main(args=argv, prog_name="thurn-ai")


if __name__ == "__main__":
    main()
