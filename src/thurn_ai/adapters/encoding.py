"""Action ids, observation tensors and returns: the encoding shared by the OpenSpiel and PettingZoo adapters.

It imports no framework (neither pyspiel nor pettingzoo), only the game and numpy, so either adapter can
use it alone. docs/openspiel.md describes the action ids, the tensor layout and the returns; the tests
hold the code and that page together.

Action ids. A move of the engine is `kind << SHIFT | city` (thurn_ai.game.notation), which depends on the
engine's internal enum values. The adapters number moves with a fixed table instead: first the seven
moves without a city, in the order of NON_CITY_KINDS, then one block per kind in CITY_KINDS with one id
per city in the board file's order. Both tuples are spelled out below by name, so the ids stay the same
as long as the kinds and the board data do, whatever the engine's numbering.

Observations. Everything a tensor holds is read from the position as the observer may know it
(GameState.observation / thurn_ai.position.position_to_dict with a viewer), never from the raw state, so
a tensor cannot show more than the player's view does. Seats are listed from the observer on (row 0 is
the observer, row 1 the next seat clockwise, ...); the absolute seat is one piece of its own.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._core import KINDS, OFFICIALS, PHASES, SHIFT
from ..errors import RulesError
from ..fileio import short_repr
from ..game.state import GameState
from ..game.notation import move_to_str
from ..game.rules import HOUSES, Rules

# The action-id table (see the module docstring). Never reorder these: ids are a published contract.
NON_CITY_KINDS = ("deck", "administrator", "close", "stop", "done", "cartwright", "no_cartwright")
CITY_KINDS = ("draw", "left", "right", "new", "horse", "house", "discard")

# What a observer may see of the hands (OpenSpiel's IIGObservationType.private_info, by name).
PRIVATE_SINGLE = "single"    # the observer's own hand (the player's view: the default)
PRIVATE_ALL = "all"          # every hand and the deck (the complete position)
PRIVATE_NONE = "none"        # no hand (public information only)
PRIVATE_KINDS = (PRIVATE_SINGLE, PRIVATE_ALL, PRIVATE_NONE)

RETURNS = ("win", "share", "margin")
OBSERVATIONS = ("raw", "normalised")     # the tensor as counts, or scaled into [0, 1]

MAX_DRAWS = 2     # draws in one turn (a draw and the Postmaster's second)
MAX_PLAYS = 2     # cards played in one turn (a card and the Postal Carrier's second)


# The normalised tensor divides each piece by a scale: its largest value where that is a small, reached
# bound, else a practical one (a count with a loose safeguard bound such as max_turns), past which the
# value is clipped to 1. These are the practical scales; docs/openspiel.md has the table.
PRACTICAL_SCALES = {
    "official_uses": 40,       # uses of one official by one player (a player has ~15-40 turns a game)
    "closes": 10,              # routes closed by one player (heuristic games: ~3-7)
    "turn": 200,               # turns of all players together (heuristic games: ~50 at 2 players, ~120 at 4)
}


@dataclass(frozen=True)
class Piece:
    """One named part of the observation tensor: its shape, the largest value it can hold, and the value
    the normalised tensor maps to 1 (`scale`: `high` unless a practical scale is set)."""
    name: str
    shape: tuple
    high: float
    meaning: str

    @property
    def scale(self) -> float:
        return min(self.high, PRACTICAL_SCALES.get(self.name, self.high))

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def _pieces(rules: Rules, b) -> tuple[Piece, ...]:
    """The observation tensor's pieces for these rules and board, in their order in the flat tensor."""
    n, c, t = rules.players, b.n_cities, len(b.tiles)
    cpc = b.n_cards // c
    turns = rules.max_turns * n
    stack_len = max((len(st.values) for st in b.tiles), default=1)
    stack_sum = max((sum(st.values) for st in b.tiles), default=1)
    top = max((max(st.values) for st in b.tiles if st.values), default=1)
    return (
        Piece("seat", (n,), 1, "the observer's seat, one-hot (absolute: seat 0 starts)"),
        Piece("to_move", (n,), 1,
              "the seat to move, one-hot, relative to the observer (zeros when the game is over)"),
        Piece("phase", (len(PHASES),), 1, "the decision due, one-hot: " + ", ".join(PHASES)),
        Piece("official_used", (len(OFFICIALS) + 1,), 1,
              "the official used this turn, one-hot: none, " + ", ".join(OFFICIALS)),
        Piece("draws", (1,), MAX_DRAWS, "cards drawn this turn"),
        Piece("plays", (1,), MAX_PLAYS, "cards played this turn"),
        Piece("forced_postmaster", (1,), 1, "1 when this turn started with an empty hand (forced Postmaster)"),
        Piece("close_houses", (c,), 1, "cities where houses were placed in the close under way"),
        Piece("last_discard", (c,), 1,
              "the last city discarded in the discards under way, one-hot (zeros when unknown or none)"),
        Piece("display", (c,), cpc, "face-up cards per city"),
        Piece("discard_pile", (c,), cpc, "cards per city in the discard pile"),
        Piece("deck_size", (1,), b.n_cards, "cards in the deck"),
        Piece("deck", (c,), cpc, "cards per city in the deck (only for an observer that sees everything)"),
        Piece("hand", (n, c), cpc, "cards per city in each hand the observer sees (its own; every hand for an "
              "observer that sees everything), zeros otherwise"),
        Piece("hand_size", (n,), b.n_cards, "cards in each hand"),
        Piece("known", (n, c), cpc, "cards per city known to be in each hand (taken face up)"),
        Piece("route", (n, c), 1, "the cities of each route"),
        Piece("route_left", (n, c), 1, "the left end of each route, one-hot"),
        Piece("route_right", (n, c), 1, "the right end of each route, one-hot"),
        Piece("route_length", (n,), c, "cards in each route"),
        Piece("horse_cards", (n, c), cpc, "cards per city laid as draught horses (horses variant)"),
        Piece("houses", (n, c), 1, "the cities with each player's houses"),
        Piece("houses_left", (n,), HOUSES, "houses each player has not placed"),
        Piece("carriage", (n, len(b.carriages) + 1), 1,
              "each player's carriage, one-hot: none, then the sizes " + ", ".join(str(s) for s, _ in b.carriages)),
        Piece("tiles_count", (n, t), stack_len, "tiles each player holds from each stack (board order)"),
        Piece("tiles_points", (n, t), stack_sum, "points of those tiles"),
        Piece("official_uses", (n, len(OFFICIALS)), rules.max_turns,
              "uses of each official so far: " + ", ".join(OFFICIALS)),
        Piece("closes", (n,), rules.max_turns, "routes each player has closed"),
        Piece("stack_left", (t,), stack_len, "tiles left in each stack"),
        Piece("stack_top", (t,), top, "the value of each stack's top tile (0 when empty)"),
        Piece("end_triggered_by", (n,), 1,
              "the seat that triggered the end of the game, one-hot, relative to the observer"),
        Piece("truncated", (1,), 1, "1 when the game was cut by the max_turns safeguard"),
        Piece("turn", (1,), turns, "turns completed, all players together"),
    )


class Encoding:
    """Action ids and tensor layout for one rule set (players, board, variant, ...). Use encoding_for()."""

    def __init__(self, rules: Rules):
        self.rules = rules
        b = rules.load_board()
        self.board = b
        self.n_players = rules.players
        self.n_cities = c = b.n_cities
        self.n_stacks = len(b.tiles)
        self.cards_per_city = b.n_cards // c
        self.city_index = {name: i for i, name in enumerate(b.cities)}
        self.stack_index = {st.id: i for i, st in enumerate(b.tiles)}
        self.carriage_index = {size: i for i, (size, _) in enumerate(b.carriages)}

        # actions
        self.id_to_code: list[int] = [KINDS[k] << SHIFT for k in NON_CITY_KINDS]
        for kind in CITY_KINDS:
            self.id_to_code.extend(KINDS[kind] << SHIFT | x for x in range(c))
        self.num_actions = len(self.id_to_code)
        self.code_to_id = [-1] * ((max(KINDS.values()) + 1) << SHIFT)
        for i, code in enumerate(self.id_to_code):
            self.code_to_id[code] = i
        self.action_names = tuple(move_to_str(b, code) for code in self.id_to_code)

        # returns: the extreme scores (every tile and the best carriage; no carriage, no tile and every
        # house unplaced) bound the margin
        best = max((pts for _, pts in b.carriages), default=0) + sum(sum(st.values) for st in b.tiles)
        self.score_range = (-HOUSES, best)

        self.pieces = _pieces(rules, b)
        self.offset, at = {}, 0          # where each piece starts in the flat tensor
        for p in self.pieces:
            self.offset[p.name] = at
            at += p.size
        self.tensor_size = at
        self._row_offsets = tuple(self.offset[k] for k in (
            "hand", "hand_size", "known", "route", "route_left", "route_right", "route_length", "horse_cards",
            "houses", "houses_left", "carriage", "tiles_count", "tiles_points", "official_uses", "closes"))
        self.high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.pieces])
        self._inverse_scale = np.concatenate([np.full(p.size, 1 / p.scale, np.float32) for p in self.pieces])

    # ---- actions

    def legal_actions(self, state: GameState) -> list[int]:
        """The legal moves of the player to move as action ids, ascending."""
        c2i = self.code_to_id
        return sorted([c2i[m] for m in state.legal_moves()])

    def action_mask(self, state: GameState) -> np.ndarray:
        mask = np.zeros(self.num_actions, np.int8)
        if not state.is_terminal():
            c2i = self.code_to_id
            mask[[c2i[m] for m in state.legal_moves()]] = 1
        return mask

    def move_of(self, action) -> int:
        """The engine's move code of an action id (ValueError for a number that is no action id)."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action id is a whole number from 0 to {self.num_actions - 1}, "
                             f"not {action!r}")
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action id {int(action)} is out of range: this game has actions 0 to "
                             f"{self.num_actions - 1}")
        return self.id_to_code[action]

    def action_of(self, move: int) -> int:
        """The action id of an engine move code."""
        return self.code_to_id[move]

    # ---- observations

    def view(self, state: GameState, player: int, private: str = PRIVATE_SINGLE) -> dict:
        """The position as `player` may know it (a position dict, docs/position-format.md). private='all'
        gives the complete position, 'none' the player's view without the player's own hand."""
        if private == PRIVATE_ALL:
            return state.to_dict()
        d = state.observation(player)
        if private == PRIVATE_NONE:
            # the same for every player: no hand, and no viewer (a public view is no position file)
            row = d["players"][player]
            hand = row.pop("hand")
            d["players"][player] = {"seat": row.pop("seat"), "hand_size": len(hand), **row}
            del d["viewer"]
            if d["phase"] == "discard":      # the order of one's own discards would tell about the hand
                d["turn_state"]["last_discard"] = None
        return d

    def encode(self, view: dict, player: int, out: np.ndarray) -> np.ndarray:
        """Write the tensor of a view (from view()) for `player` into `out` (a float32 array of
        tensor_size); returns out."""
        buf = [0.0] * self.tensor_size      # filled by flat index, then copied once (numpy item writes are slow)
        at = self.offset
        n, ci, si = self.n_players, self.city_index, self.stack_index

        def rel(seat):
            return (seat - player) % n

        buf[at["seat"] + player] = 1
        if view["phase"] != "over":
            buf[at["to_move"] + rel(view["to_move"])] = 1
        buf[at["phase"] + PHASES.index(view["phase"])] = 1
        ts = view["turn_state"]
        official = ts["official_used"]
        buf[at["official_used"] + (0 if official is None else OFFICIALS.index(official) + 1)] = 1
        buf[at["draws"]] = ts["draws"]
        buf[at["plays"]] = ts["plays"]
        buf[at["forced_postmaster"]] = 1 if ts["forced_postmaster"] else 0
        for name in ts["close_houses"]:
            buf[at["close_houses"] + ci[name]] = 1
        if ts["last_discard"] is not None:
            buf[at["last_discard"] + ci[ts["last_discard"]]] = 1
        for name in view["display"]:
            buf[at["display"] + ci[name]] += 1
        for name, k in view["discard"].items():
            buf[at["discard_pile"] + ci[name]] = k
        buf[at["deck_size"]] = view["deck_size"]
        for name, k in view.get("deck", {}).items():
            buf[at["deck"] + ci[name]] = k
        for row in view["players"]:
            self._encode_row(buf, row, rel(row["seat"]))
        for sid, left in view["tile_stacks"].items():
            j = si[sid]
            buf[at["stack_left"] + j] = len(left)
            buf[at["stack_top"] + j] = left[0] if left else 0
        if view["end_triggered_by"] is not None:
            buf[at["end_triggered_by"] + rel(view["end_triggered_by"])] = 1
        buf[at["truncated"]] = 1 if view["truncated"] else 0
        buf[at["turn"]] = view["turn"]
        out[:] = buf
        return out

    def _encode_row(self, buf: list, row: dict, r: int) -> None:
        """Write one player's row of a view into buf; r: the player's seat relative to the observer."""
        c, t, ci, si = self.n_cities, self.n_stacks, self.city_index, self.stack_index
        carriage_index, n_carriage = self.carriage_index, len(self.carriage_index) + 1
        n_off = len(OFFICIALS)
        (o_hand, o_hand_size, o_known, o_route, o_left, o_right, o_length, o_horses, o_houses, o_houses_left,
         o_carriage, o_tiles_n, o_tiles_pts, o_uses, o_closes) = self._row_offsets
        rc = r * c                       # the row of an (n, cities) piece
        hand = row.get("hand")
        if hand is not None:
            for name in hand:
                buf[o_hand + rc + ci[name]] += 1
            buf[o_hand_size + r] = len(hand)
        else:
            buf[o_hand_size + r] = row["hand_size"]
        for name in row["known"]:
            buf[o_known + rc + ci[name]] += 1
        route = row["route"]
        if route:
            for name in route:
                buf[o_route + rc + ci[name]] = 1
            buf[o_left + rc + ci[route[0]]] = 1
            buf[o_right + rc + ci[route[-1]]] = 1
            buf[o_length + r] = len(route)
        for name in row["horse_cards"]:
            buf[o_horses + rc + ci[name]] += 1
        for name in row["houses"]:
            buf[o_houses + rc + ci[name]] = 1
        buf[o_houses_left + r] = row["houses_left"]
        k = row["carriage"]
        buf[o_carriage + r * n_carriage + (0 if k is None else carriage_index[k] + 1)] = 1
        for sid, held in row["tiles"].items():
            j = r * t + si[sid]
            if isinstance(held, list):
                buf[o_tiles_n + j] = len(held)
                buf[o_tiles_pts + j] = sum(held)
            else:
                buf[o_tiles_n + j] = held["count"]
                buf[o_tiles_pts + j] = held["points"]
        uses = row["official_uses"]
        j = o_uses + r * n_off
        for name in OFFICIALS:
            buf[j] = uses[name]
            j += 1
        buf[o_closes + r] = row["closes"]

    def tensor(self, state: GameState, player: int, private: str = PRIVATE_SINGLE) -> np.ndarray:
        """A new float32 observation tensor of `state` for `player`."""
        return self.encode(self.view(state, player, private), player, np.zeros(self.tensor_size, np.float32))

    def normalise(self, tensor: np.ndarray) -> np.ndarray:
        """A new normalised tensor from a raw one: each piece divided by its scale and clipped to [0, 1]
        (every raw value is 0 or more)."""
        return np.minimum(tensor * self._inverse_scale, np.float32(1.0))

    def normalised_tensor(self, state: GameState, player: int, private: str = PRIVATE_SINGLE) -> np.ndarray:
        """A new float32 normalised observation tensor (every value in [0, 1]; same layout as tensor())."""
        return self.normalise(self.tensor(state, player, private))

    def split(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """The named pieces of a tensor, as views of it shaped as the layout says."""
        return self._split(tensor)

    def _split(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        return {p.name: flat[self.offset[p.name]:self.offset[p.name] + p.size].reshape(p.shape)
                for p in self.pieces}

    # ---- returns

    def returns(self, state: GameState, mode: str) -> list[float]:
        """Each seat's return of a finished game (zeros before the end): 'win' 1 for the winner by the
        rules (tie-break included), 0 for the others; 'share' 1 shared equally by the seats with the top
        score; 'margin' the seat's score minus the mean score."""
        n = self.n_players
        if not state.is_terminal():
            return [0.0] * n
        return returns_of_finished(state, mode)

    def utility_range(self, mode: str) -> tuple[float, float]:
        if mode == "margin":
            low, high = self.score_range
            spread = (high - low) * (self.n_players - 1) / self.n_players
            return (-spread, spread)
        return (0.0, 1.0)


def returns_of_finished(state: GameState, mode: str) -> list[float]:
    """The returns of a finished game (see Encoding.returns)."""
    n = state.n_players
    if mode == "win":
        w = state.winner()
        return [1.0 if p == w else 0.0 for p in range(n)]
    scores = state.scores()
    if mode == "share":
        top = max(scores)
        k = scores.count(top)
        return [1.0 / k if s == top else 0.0 for s in scores]
    mean = sum(scores) / n
    return [s - mean for s in scores]


# made once: json.dumps with options makes one a call
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def view_string(view: dict) -> str:
    """A view as one line of JSON: a position in the format of docs/position-format.md."""
    return _JSON.encode(view)


def check_env_options(returns: str, observation: str, render_mode, render_modes) -> None:
    """RulesError naming a bad returns, observation or render_mode of the PettingZoo and Gymnasium
    environments."""
    if returns not in RETURNS:
        raise RulesError(f"returns must be {', '.join(RETURNS)}, not {short_repr(returns)}")
    if observation not in OBSERVATIONS:
        raise RulesError(f"observation must be {' or '.join(OBSERVATIONS)}, not {short_repr(observation)}")
    if render_mode is not None and render_mode not in render_modes:
        raise RulesError(f"render_mode must be {' or '.join(render_modes)} or None, not {short_repr(render_mode)}")


@lru_cache(maxsize=64)
def encoding_for(rules: Rules) -> Encoding:
    """The encoding of a rule set (cached: every state of a game shares it)."""
    return Encoding(rules)
