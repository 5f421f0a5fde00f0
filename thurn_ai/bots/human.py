"""The human bot: a person chooses each move in the terminal.

    thurn-ai play --bots human,greedy

At the start of each of the player's turns it prints the position as that player may know it (own hand,
route, display, houses, tiles, carriages, the other players' routes and hand sizes — never their unknown
cards), then the numbered legal moves. The player answers with a number or a move in notation
("draw Ulm", "right Lodz", "close"); anything else is refused with a message and asked again.
`?` prints the whole position again, `quit` ends the game.
"""
from __future__ import annotations

import click

from ..errors import ThurnError
from .base import Bot, Observation
from ..officials import OFFICIAL_LABEL, official_of

PHASE_HELP = {
    "draw": "take a card (face up or from the deck)",
    "play": "play a card to your route (or draw a second card with the Postmaster)",
    "after_play": "play a second card (Postal Carrier), close the route, or stop",
    "houses": "place houses in the cities of the closed route, then done",
    "cartwright": "take the next carriage with the Cartwright or not",
    "discard": "discard down to 3 cards",
}


def _cards(board, counts) -> str:
    names = [board.cities[x] + (f" x{k}" if k > 1 else "") for x, k in enumerate(counts) if k]
    return ", ".join(names) if names else "-"


def render_view(state, viewer: int | None = None) -> str:
    """The position as `viewer` may know it (all of it when viewer is None), as lines of text.

    Reads only what the viewer may know: their own hand, and of the others the hand size and the cards
    known to be in it (taken face up) — so it is safe on a determinized state."""
    d = state.export()
    b = state.board
    n = state.n_players
    horses = state.rules.resolved_variant == "horses"
    lines = [f"{b.title} ({state.rules.resolved_variant}), {n} players, turn {d['turn'] + 1}, "
             f"seat {d['current']} to move ({state.phase})"]
    lines.append(f"display: {_cards(b, d['display'])}    deck: {_n(d['deck_n'], 'card')}    "
                 f"discard pile: {_n(d['discard_n'], 'card')}")
    scores = state.scores()
    for p in range(n):
        me = viewer is None or viewer == p
        tag = " (you)" if viewer == p else ""
        lines.append(f"seat {p}{tag}: score {scores[p]}, houses left {d['houses_left'][p]}"
                     + ("" if horses else f", carriage {_carriage(b, d['carriage'][p])}")
                     + (f", tiles {_tiles(b, d, p)}" if any(d['tiles_n'][p]) else ""))
        if me:
            lines.append(f"    hand: {_cards(b, d['hand'][p])}")
        else:
            known = _cards(b, d["known"][p])
            lines.append(f"    hand: {_n(sum(d['hand'][p]), 'card')}" + (f" (known: {known})" if known != "-" else ""))
        route = " - ".join(b.cities[x] for x in d["route"][p]) or "-"
        lines.append(f"    route: {route}")
        if horses:
            cap = 2 + sum(k * b.horses[x] for x, k in enumerate(d["horse_cards"][p]))
            lines.append(f"    horses: {cap} (horse cards: {_cards(b, d['horse_cards'][p])})")
        houses = [b.cities[x] for x in d["houses"][p]]
        lines.append(f"    houses: {', '.join(houses) if houses else '-'}")
    left = [f"{st.id} {'/'.join(map(str, st.values[d['stack_pos'][t]:]))}"
            for t, st in enumerate(b.tiles) if d["stack_pos"][t] < len(st.values)]
    lines.append("tiles left: " + ("; ".join(left) if left else "-"))
    if d["end_triggered"]:
        lines.append(f"the game ends after this round (triggered by seat {d['end_player']})")
    return "\n".join(lines)


def _n(k: int, word: str) -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


def _carriage(board, k: int) -> str:
    return f"{board.carriages[k][0]} ({board.carriages[k][1]} points)" if k >= 0 else "none"


def _tiles(board, d, p) -> str:
    return ", ".join(f"{st.id} {d['tiles_pts'][p][t]}" for t, st in enumerate(board.tiles) if d["tiles_n"][p][t])


def _default_read(prompt: str) -> str:
    # click.prompt reads the terminal (or the input a test feeds) and raises Abort at end of input
    return click.prompt(prompt, default="", show_default=False, prompt_suffix=" ")


class HumanBot(Bot):
    """Moves typed by a person. `read(prompt) -> str` and `write(text)` can be replaced (tests)."""

    spec = "human"

    def __init__(self, seed: int = 0, forbid=frozenset(), read=None, write=None):
        super().__init__(seed, forbid)
        self.read = read or _default_read
        self.write = write or click.echo
        self._last_turn = None

    def choose(self, obs: Observation) -> int:
        state, p = obs.state, obs.player
        moves = self.allowed_moves(state)
        if self._last_turn != state.turn:
            self._last_turn = state.turn
            self.write("")
            self.write(render_view(state, p))
        else:
            d = state.export()
            b = state.board
            route = " - ".join(b.cities[x] for x in d["route"][p]) or "-"
            self.write(f"hand: {_cards(b, d['hand'][p])}    route: {route}    display: {_cards(b, d['display'])}")
        if len(moves) == 1:
            self.write(f"seat {p}: the only possible move is {state.move_str(moves[0])}")
            return moves[0]
        what = PHASE_HELP.get(state.phase, state.phase)
        if state.export()["forced_pm"] and state.phase == "draw":
            what += " (your hand was empty: the Postmaster gives you two)"
        self.write(f"seat {p}, your move: {what}")
        for i, m in enumerate(moves, 1):
            off = official_of(state, m)
            tag = f"   [{OFFICIAL_LABEL[off]}]" if off else ""
            self.write(f"  {i:>2}. {state.move_str(m)}{tag}")
        while True:
            text = self.read("your move (number or notation; ? shows the position; quit)>").strip()
            if text.lower() in ("quit", "exit", "q"):
                raise click.Abort()
            if text in ("?", "help", "show"):
                self.write(render_view(state, p))
                continue
            move, problem = self._read_move(state, moves, text)
            if problem is None:
                return move
            self.write(problem)

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
