"""The `thurn-ai` command line: a thin layer over the library. Each command lives in its own module in
thurn_ai/commands/ and is imported only when used, so `thurn-ai --help` stays fast."""
from __future__ import annotations

import importlib
import sys

import click

from .errors import ThurnError

COMMANDS = {
    "play": "Play a game between bots (or against them) and print a readable log.",
    "replay": "Step through a recorded game.",
    "bench": "Measure engine speed: playouts, actions, clone and legal-move time.",
    "validate": "Check a position file and report every problem found.",
    "hint": "Search a position and print the ranked options for the player to move.",
    "show": "Draw a position (board, houses, routes, display, hands) as a PNG.",
    "tournament": "Play many games between bots and print statistics.",
    "report": "Re-analyse saved tournament results and write plots.",
    "officials": "Measure what each official is worth (ablation study).",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return [n for n in COMMANDS if _available(n)]

    def get_command(self, ctx, name):
        if name not in COMMANDS or not _available(name):
            return None
        mod = importlib.import_module(f"thurn_ai.commands.{name}")
        return mod.command


def _available(name: str) -> bool:
    return importlib.util.find_spec(f"thurn_ai.commands.{name}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="thurn-ai")
def cli():
    """thurn-ai: engine, bots and experiments for Thurn und Taxis (and Glanz und Gloria)."""
    from .board import on_load
    from .commands.options import announce_board
    on_load(announce_board)   # any command using the North board says once that it is partly reconstructed


def main(argv=None):
    """Entry point: bad input gives one clear message and exit status 2, never a traceback."""
    try:
        cli.main(args=argv, prog_name="thurn-ai", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except ThurnError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(0)


if __name__ == "__main__":
    main()
