"""The human bot: a person chooses each move in the terminal.

    thurn-ai play --bots human,greedy

At the start of each of the player's turns it prints the position as that player may know it (own hand,
route, display, houses, tiles, carriages, the other players' routes and hand sizes — never their unknown
cards), then the numbered legal moves. The player answers with a number or a move in notation
("draw Ulm", "right Lodz", "close"); anything else is refused with a message and asked again.
`hint` asks the search for the player's best move from what that player may know (`thurn-ai play` gives
the bot its adviser), `show` prints the whole position again, `map` the map (render_map: each province's
cities with the houses and routes on them), `?` lists what can be typed, `quit` ends the
game.
"""
from __future__ import annotations

from typing import Callable

import click

from ..errors import ThurnError
from .base import Bot, Observation
from ..render.text import PHASE_HELP, cards, move_line, render_map, render_view


#: the most iterations a typed `hint N` may ask for (a person waits for it: about a minute on one core)
MAX_HINT_ITERATIONS = 100_000

HELP = f"""what you can type at the move prompt:
  a number     the move of that number in the list
  a move       in notation, e.g. draw Ulm, right Lodz, close (any spelling of the city)
  hint         the search's advice for this decision, from what you can see only (never the hidden cards)
  hint N       the same with a search of N iterations (1 to {MAX_HINT_ITERATIONS:,}; more: better, slower)
  show         the whole position again
  map          the map: every province's cities, the houses and routes on them, where each route can grow
  ? or help    this list
  quit         end the game"""

#: advise(state, player, iterations or None) -> the lines of a hint for `player`, the player to move, from
#: what that player may know (thurn-ai play sets it; without one, `hint` says there is none)
Adviser = Callable[..., list]


def _default_read(prompt: str) -> str:
    # click.prompt reads the terminal (or the input a test feeds) and raises Abort at end of input
    return click.prompt(prompt, default="", show_default=False, prompt_suffix=" ")


class HumanBot(Bot):
    """Moves typed by a person. `read(prompt) -> str` and `write(text)` can be replaced (tests);
    `advise` (an Adviser) answers `hint`."""

    spec = "human"

    def __init__(self, seed: int = 0, forbid=frozenset(), read=None, write=None):
        super().__init__(seed, forbid)
        self.read = read or _default_read
        self.write = write or click.echo
        # set from Python after the bot is made (`thurn-ai play` does), so no bot spec can name it
        self.advise: Adviser | None = None
        self._last_turn: int | None = None

    def choose(self, obs: Observation) -> int:
        state, p = obs.state, obs.player
        moves = self.allowed_moves(state)
        if self._last_turn != state.turn:
            self._last_turn = state.turn
            self.write("")
            self.write(render_view(state, p))
            self.write(render_map(state, p))
        else:
            d = state.export()
            b = state.board
            route = " - ".join(b.cities[x] for x in d["route"][p]) or "-"
            self.write(f"hand: {cards(b, d['hand'][p])}    route: {route}    display: {cards(b, d['display'])}")
        if len(moves) == 1:
            self.write(f"seat {p}: the only possible move is {state.move_str(moves[0])}")
            return moves[0]
        what = PHASE_HELP.get(state.phase, state.phase)
        if state.export()["forced_pm"] and state.phase == "draw":
            what += " (your hand was empty: the Postmaster gives you two)"
        self.write(f"seat {p}, your move: {what}")
        for i, m in enumerate(moves, 1):
            self.write(f"  {i:>2}. {move_line(state, m)}")
        while True:
            text = self.read("your move (number or notation; hint; ? for help; quit)>").strip()
            word = text.lower()
            if word in ("quit", "exit", "q"):
                raise click.Abort()
            if word in ("?", "help"):
                self.write(HELP)
            elif word == "show":
                self.write(render_view(state, p))
            elif word == "map":
                self.write(render_map(state, p))
            elif word.split()[:1] == ["hint"]:
                self._hint(state, p, word.split()[1:])
            else:
                move, problem = self._read_move(state, moves, text)
                if problem is None:
                    return move
                self.write(problem)

    def _hint(self, state, player: int, args: list[str]) -> None:
        """`hint` or `hint N`: the adviser's lines, or what is wrong with the request."""
        if self.advise is None:
            self.write("no hint here: the hint comes with `thurn-ai play` (or run `thurn-ai hint` on a position file)")
            return
        if len(args) > 1 or (args and not (args[0].isdigit() and 1 <= int(args[0]) <= MAX_HINT_ITERATIONS)):
            self.write(f"type hint, or hint N with N search iterations from 1 to {MAX_HINT_ITERATIONS:,}")
            return
        self.write("thinking (from your view only) ...")
        try:
            lines = self.advise(state, player, int(args[0]) if args else None)
        except ThurnError as e:
            lines = [f"no hint: {e}"]
        for line in lines:
            self.write(line)

    @staticmethod
    def _read_move(state, moves, text):
        """(move, None), or (None, a message saying what is wrong)."""
        if not text:
            return None, "please type a move number or a move, e.g. 1 or 'draw deck'"
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(moves):
                return moves[k - 1], None
            return None, f"no move number {k}: choose 1 to {len(moves)}"
        try:
            move = state.parse_move(text)
        except ThurnError as e:
            return None, str(e)
        if move not in moves:
            return None, f"{state.move_str(move)!r} is not possible now; choose one of the moves listed"
        return move, None
