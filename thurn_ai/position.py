"""JSON positions: a readable form of a game state, complete or as one player sees it, with validation.

    position_to_dict(state, viewer=None) -> dict      # viewer: only what that seat may know
    position_from_dict(data, seed=None) -> GameState  # unknown cards are dealt at random (seeded)
    check_position(data) -> list[str]                 # every problem, one message each
    save_position(state, path, viewer=None) / load_position(path, seed=None) -> (state, viewer)

The format is described field by field in docs/position-format.md. Positions name cities, tile stacks and
officials, never engine indices, and almost every bookkeeping field is optional, so a position can be
written by hand. A position converts to and from the engine's raw fields (GameState.export()/load()).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass

from ._core import OFFICIALS, PHASES, GameState
from .board import Board
from .errors import NotationError, PositionError, ThurnError
from .fileio import atomic_write_text, load_json, short_repr
from .game import config_for
from .rules import MAX_COUNTER, MAX_TURNS, Rules

FORMAT = "thurn-ai position"
VERSION = 1
SECOND_GENERATOR = 0x5DEECE66D  # GameState.reseed(): the move generator is the chance seed xor this

TOP_FIELDS = ("format", "version", "rules", "viewer", "turn", "to_move", "phase", "turn_state", "display",
              "discard", "deck", "deck_size", "players", "tile_stacks", "end_triggered_by", "truncated", "rng")
PLAYER_FIELDS = ("seat", "hand", "hand_size", "known", "route", "horse_cards", "houses", "houses_left",
                 "carriage", "tiles", "official_uses", "closes")
TURN_FIELDS = ("official_used", "draws", "plays", "forced_postmaster", "close_houses", "last_discard")
RULES_FIELDS = ("players", "board", "variant", "all_provinces_tile", "max_turns")
SINGLE_TILE_KINDS = ("each_province", "all_cities", "free_city", "game_end")  # one per player at most
# The engine's fixed rules (its configuration holds the same numbers)
HOUSES = 20          # per player
HAND_LIMIT = 3       # cards kept after closing
MIN_CLOSE = 3        # cards in a route that can be closed
BASE_HORSES = 2      # horses variant: the carriage's own horses
MAX_HORSE_CARDS = 6
DISPLAY_SIZE = 6
# MAX_COUNTER (rules.py): per-player counters (official uses, closes) are 16-bit in the engine, so a
# position's counters plus what the turns still allowed can add must stay within it; MAX_TURNS: the
# largest rules.max_turns, for the same reason.
MAX_DEALS = 2000     # attempts to deal hidden cards that keep the position's decision
WIDTH = 100          # saved files: line width


# ---------------------------------------------------------------- state -> position

def position_to_dict(state: GameState, viewer: int | None = None) -> dict:
    """The position as JSON-ready data. With `viewer` (a seat), only what that player may know: the other
    players' hands as sizes plus the cards known to be in them (taken face up), the deck as its size, and
    no generator state."""
    n = state.n_players
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise PositionError(f"viewer must be a seat from 0 to {n - 1}, not {viewer!r}")
    # A few compiled reads (GameState._scalars, _cards, _player_parts, ...) instead of export(): ~10 µs.
    (turn, current, phase, official, draws, plays, forced_pm, placed_now, last_discard, deck_n,
     end_triggered, end_player, truncated, rng, prng) = state._scalars()
    const = _constants(state)
    cities = const.cities
    rules = const.rules
    out = {"format": FORMAT, "version": VERSION,
           "rules": dict(rules) if const.flat_rules else state.rules.to_dict(), "viewer": viewer, "turn": turn, "to_move": current, "phase": PHASES[phase]}
    out["turn_state"] = {
        "official_used": OFFICIALS[official - 1] if official else None,
        "draws": draws, "plays": plays, "forced_postmaster": bool(forced_pm),
        "close_houses": state._city_names(placed_now) if placed_now else [],
        # 0 means "no restriction yet" (the engine compares discards with it in city order); a view of
        # another seat's discards drops it: the city order is the engine's way of making one set of
        # discards one sequence, and for a hidden hand it would constrain the cards (as determinize()).
        "last_discard": (cities[last_discard] if last_discard and not
                         (viewer is not None and phase == DISCARD_PHASE and current != viewer) else None)}
    out["display"] = state._cards(3)
    out["discard"] = state._pile_counts(1)
    out["deck_size"] = deck_n
    if viewer is None:
        out["deck"] = state._pile_counts(0)
    players = []
    carriages, stack_ids = const.carriages, const.stack_ids
    for p in range(n):
        (hand_n, known, route, horses, houses, houses_left, k, tiles, uses, closes) = state._player_parts(p)
        if viewer is None or viewer == p:
            row = {"seat": p, "hand": state._cards(0, p)}
        else:
            row = {"seat": p, "hand_size": hand_n}
        row.update(known=known, route=route, horse_cards=horses, houses=houses, houses_left=houses_left,
                   carriage=carriages[k][0] if k >= 0 else None,
                   tiles={stack_ids[t]: [pts] if count == 1 else {"count": count, "points": pts}
                          for t, (count, pts) in tiles.items()} if tiles else {},
                   official_uses=dict(zip(OFFICIALS, uses)), closes=closes)
        players.append(row)
    out["players"] = players
    out["tile_stacks"] = dict(zip(stack_ids, state._stack_tails()))
    out["end_triggered_by"] = end_player if end_triggered else None
    out["truncated"] = bool(truncated)
    if viewer is None:
        out["rng"] = {"chance": hex(rng), "moves": hex(prng)}
    return out


DISCARD_PHASE = PHASES.index("discard")


@dataclass(frozen=True)
class _Constants:
    """What a position dict takes from the board and rules, once per compiled configuration."""
    cities: tuple
    carriages: tuple
    stack_ids: tuple
    rules: dict
    flat_rules: bool         # the rules dict holds only plain values, so a shallow copy is a copy


_CONSTANTS: dict = {}


def _constants(state: GameState) -> _Constants:
    cfg = state.config
    const = _CONSTANTS.get(cfg)
    if const is None:
        if len(_CONSTANTS) > 256:
            _CONSTANTS.clear()
        b = state.board
        rules = state.rules.to_dict()
        const = _Constants(tuple(b.cities), tuple(b.carriages), tuple(st.id for st in b.tiles), rules,
                           all(v is None or isinstance(v, (str, int, float)) for v in rules.values()))
        _CONSTANTS[cfg] = const
    return const


def _tiles_held(count: int, points: int):
    # The engine keeps only count and points per stack; a single tile is written as its value.
    return [points] if count == 1 else {"count": count, "points": points}


# ---------------------------------------------------------------- position -> state

@dataclass
class _Parsed:
    """A position read into engine terms: `raw` is in GameState.export() form, except that a hand given
    only by its size holds just its known cards, and the deck is None when not given."""
    rules: Rules
    board: Board
    viewer: int | None
    raw: dict
    hand_size: list          # per seat: the hand size when the hand is not listed card by card, else None
    deck_size: int | None    # as given
    rng_given: bool
    tile_values: list        # [seat][stack]: the values held when listed, else None
    partial: set             # lists that had unreadable entries (not checked as a whole)


def check_position(data, board_file=None) -> list[str]:
    """Every problem of a position dict, one message each (an empty list: the position is possible).
    `board_file`: the path of a board file to use instead of the packaged board the position names
    (positions name only packaged boards: south, north)."""
    parsed, problems = _read_and_check(data, board_file)
    if not problems:
        try:
            _build(parsed, 0)
        except PositionError as e:
            problems = e.problems
    return problems


def _read_and_check(data, board_file=None) -> tuple[_Parsed | None, list[str]]:
    problems: list[str] = []
    parsed = _Reader(problems, board_file).read(data)
    if parsed is not None:
        _check(parsed, problems)
    return parsed, problems


def position_from_dict(data, seed: int | None = None, board_file=None) -> GameState:
    """A state from a position dict. A complete position loads exactly; cards not given (hands given by
    size, the deck) are dealt at random from the cards not accounted for, consistently with everything
    given, using `seed` (None: a fresh random seed). Without an `rng` field the chance generator is
    seeded from `seed` too. PositionError lists every problem found. A position names only a packaged
    board (south, north); `board_file` (a path the user gave) replaces it."""
    parsed, problems = _read_and_check(data, board_file)
    if problems:
        raise position_error(problems)
    return _build(parsed, seed)


def position_viewer(data: dict) -> int | None:
    """Whose view a position dict is (None: a complete position)."""
    v = data.get("viewer") if isinstance(data, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def position_error(problems: list[str], source: str = "") -> PositionError:
    """One PositionError naming every problem (its `problems` attribute keeps the list)."""
    head = f"{source}: " if source else ""
    if len(problems) == 1:
        msg = head + problems[0]
    else:
        msg = f"{head}{len(problems)} problems:\n" + "\n".join(f"  - {p}" for p in problems)
    e = PositionError(msg)
    e.problems = list(problems)
    return e


class _Reader:
    """Reads a position dict into a _Parsed, adding one message per malformed or unknown entry."""

    def __init__(self, problems: list[str], board_file=None):
        self.problems = problems
        self.board_file = board_file
        self.partial: set[str] = set()   # lists that had unreadable entries

    def bad(self, msg: str):
        self.problems.append(msg)

    def unknown_fields(self, d: dict, allowed, where: str):
        for k in d:
            if k not in allowed:
                self.bad(f"{where}unknown field {short_repr(k)} (allowed: {', '.join(allowed)})")

    def integer(self, v, where: str, lo: int = 0, hi: int | None = None, fallback=None):
        """v if it is a whole number in range; else one message, and `fallback` is used instead (chosen
        so that the bad value causes no further messages)."""
        if isinstance(v, bool) or not isinstance(v, int):
            self.bad(f"{where} must be a whole number, not {short_repr(v)}")
            return fallback
        if v < lo or (hi is not None and v > hi):
            rng = f"at least {lo}" if hi is None else f"from {lo} to {hi}"
            self.bad(f"{where} must be {rng}, not {v}")
            return fallback
        return v

    def city(self, name, where: str):
        if not isinstance(name, str):
            self.bad(f"{where}: a city name is expected, not {short_repr(name)}")
            return None
        x = self.exact_names.get(name)
        if x is not None:
            return x
        try:
            return self.board.city_index(name)   # other spellings: case, umlauts (Muenchen = München)
        except NotationError:
            self.bad(f"{where}: unknown city {short_repr(name)} on the {self.board.name} board")
            return None

    def city_list(self, v, where: str) -> list[int]:
        if not isinstance(v, list):
            self.bad(f"{where} must be a list of city names")
            return []
        out = [self.city(x, where) for x in v]
        if None in out:
            self.partial.add(where)  # checks of the whole list would only repeat this problem
        return [x for x in out if x is not None]

    def pile(self, v, where: str) -> list[int]:
        """Cards as a list of city names (repeated for copies) or as {city: count}; counts per city."""
        counts = [0] * self.board.n_cities
        if isinstance(v, dict):
            for name, k in v.items():
                x = self.city(name, where)
                label = name if isinstance(x, int) else short_repr(name)
                k = self.integer(k, f"{where}: the count of {label}", 0, self.board.cards_per_city, fallback=0)
                if x is None:
                    self.partial.add(where)
                else:
                    counts[x] += k
        elif not isinstance(v, list):
            self.bad(f"{where} must be a list of city names or an object {{city: count}}")
        else:
            for x in self.city_list(v, where):
                counts[x] += 1
        return counts

    def optional_city(self, v, where: str):
        return None if v is None else self.city(v, where)

    def generator(self, v, where: str):
        try:
            x = int(v, 0) if isinstance(v, str) else v
        except ValueError:
            x = None
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 2 ** 64:
            self.bad(f"{where} must be a 64-bit unsigned number (an integer or a hex string), not {short_repr(v)}")
            return 0
        return x

    # ---- the whole position
    def read(self, data) -> _Parsed | None:
        if not isinstance(data, dict):
            self.bad("a position must be a JSON object")
            return None
        self.unknown_fields(data, TOP_FIELDS, "")
        if "format" in data and data["format"] != FORMAT:
            self.bad(f"format must be {short_repr(FORMAT)}, not {short_repr(data['format'])}")
        if "version" in data and data["version"] != VERSION:
            self.bad(f"version {short_repr(data['version'])} is not supported (this is version {VERSION})")
        players_in = data.get("players")
        if not isinstance(players_in, list) or not all(isinstance(p, dict) for p in players_in):
            self.bad("players must be a list with one object per seat")
            return None
        rules = self.rules(data.get("rules", {}), len(players_in))
        if rules is None:
            return None
        self.board = board = rules.load_board()
        self.exact_names = {c: i for i, c in enumerate(board.cities)}
        n = rules.players
        if len(players_in) != n:
            self.bad(f"the rules are for {n} players but {len(players_in)} players are listed")
            return None
        viewer = data.get("viewer")
        if viewer is not None:
            viewer = self.integer(viewer, "viewer", 0, n - 1)
        phase = data.get("phase", "draw")
        if phase not in PHASES:
            self.bad(f"unknown phase {short_repr(phase)} (use one of {', '.join(PHASES)})")
            phase = "draw"
        current = self.integer(data.get("to_move", 0), "to_move", 0, n - 1, fallback=0)
        raw = {"current": current, "phase": PHASES.index(phase),
               "turn": self.integer(data.get("turn", 0), "turn", 0, rules.max_turns * n, fallback=0),
               "display": self.pile(data.get("display", []), "display"),
               "discard": self.pile(data.get("discard", {}), "discard"),
               "deck": self.pile(data["deck"], "deck") if "deck" in data else None}
        deck_size = None
        if "deck_size" in data:
            deck_size = self.integer(data["deck_size"], "deck_size", 0, board.n_cards)
        hand_size = [None] * n
        fields = {k: [] for k in ("hand", "known", "route", "horse_cards", "houses", "houses_left",
                                  "carriage", "tiles_n", "tiles_pts", "tiles_values", "official_uses",
                                  "closes")}
        for p, row in enumerate(players_in):
            hand_size[p] = self.player(row, p, fields, rules)
        raw.update({k: v for k, v in fields.items() if k != "tiles_values"})
        raw["stack_pos"] = self.stacks(data.get("tile_stacks", {}), fields["tiles_n"])
        mover_cards = hand_size[current] if hand_size[current] is not None else sum(raw["hand"][current])
        self.turn_state(data.get("turn_state", {}), phase, mover_cards, raw)
        end = data.get("end_triggered_by")
        end = None if end is None else self.integer(end, "end_triggered_by", 0, n - 1)
        raw["end_triggered"], raw["end_player"] = (0, -1) if end is None else (1, end)
        truncated = data.get("truncated", False)
        if not isinstance(truncated, bool):
            self.bad(f"truncated must be true or false, not {short_repr(truncated)}")
        raw["truncated"] = int(truncated is True)
        rng = data.get("rng")
        if rng is not None:
            if not isinstance(rng, dict) or "chance" not in rng:
                self.bad('rng must be {"chance": ..., "moves": ...}')
                rng = None
            else:
                self.unknown_fields(rng, ("chance", "moves"), "rng: ")
                raw["rng"] = self.generator(rng["chance"], "rng.chance")
                raw["prng"] = (self.generator(rng["moves"], "rng.moves") if "moves" in rng
                               else raw["rng"] ^ SECOND_GENERATOR)
        self.counter_room(raw, rules, phase)
        return _Parsed(rules, board, viewer, raw, hand_size, deck_size, rng is not None, fields["tiles_values"],
                       self.partial)

    def counter_room(self, raw: dict, rules: Rules, phase: str) -> None:
        """The engine counts each seat's official uses and closes in 16 bits; a turn adds at most one use
        (one official per turn) and one close. So a count plus the turns the seat may still play (up to
        the max_turns safeguard) must stay within MAX_COUNTER, or the count would wrap in play."""
        n, cur = rules.players, raw["current"]
        left = 0 if phase == "over" else max(0, rules.max_turns * n - raw["turn"])  # incl. the current one
        for p in range(n):
            turns = left // n + ((p - cur) % n < left % n)
            in_turn = p == cur and turns > 0      # the current turn is among them, and partly played
            rooms = [("official_uses " + o, raw["official_uses"][p][i],
                      turns - (in_turn and raw["official"] != 0)) for i, o in enumerate(OFFICIALS)]
            rooms.append(("closes", raw["closes"][p], turns - (in_turn and phase == "discard")))
            for what, count, more in rooms:
                if count + more > MAX_COUNTER:
                    self.bad(f"seat {p} {what} is {count}, but with up to {more} more turns (rules max_turns "
                             f"{rules.max_turns}) it could pass {MAX_COUNTER}, the most the engine counts: "
                             "lower it or max_turns")

    def rules(self, d, n_listed: int) -> Rules | None:
        if not isinstance(d, dict):
            self.bad("rules must be an object such as {\"players\": 3, \"board\": \"south\"}")
            return None
        self.unknown_fields(d, RULES_FIELDS, "rules: ")
        d = {"players": n_listed, **d}
        if "max_turns" in d and self.integer(d["max_turns"], "rules max_turns", 1, MAX_TURNS) is None:
            return None
        try:
            return Rules.from_dict(d, packaged_only=True, board_file=self.board_file)
        except ThurnError as e:
            self.bad(f"rules: {e}")
        except TypeError:
            self.bad(f"rules: bad values {short_repr(d)}")
        return None

    def player(self, row: dict, p: int, f: dict, rules: Rules):
        """Reads one seat into the lists of `f`; returns the hand size if the hand is not listed."""
        w = f"seat {p}"
        self.unknown_fields(row, PLAYER_FIELDS, f"{w}: ")
        if "seat" in row and row["seat"] != p:
            self.bad(f"{w}: the entry says seat {short_repr(row['seat'])} but is number {p} in the list (seats count from 0)")
        known = self.pile(row.get("known", []), f"{w} known")
        size = None
        if "hand" in row:
            if "hand_size" in row:
                self.bad(f"{w}: give either hand or hand_size, not both")
            hand = self.pile(row["hand"], f"{w} hand")
        else:
            size = self.integer(row.get("hand_size", 0), f"{w} hand_size", fallback=sum(known))
            hand = list(known)
        f["hand"].append(hand)
        f["known"].append(known)
        f["route"].append(self.city_list(row.get("route", []), f"{w} route"))
        f["horse_cards"].append(self.pile(row.get("horse_cards", []), f"{w} horse_cards"))
        houses, left = self.houses(row, w)
        f["houses"].append(houses)
        f["houses_left"].append(left)
        f["carriage"].append(self.carriage(row.get("carriage"), w, rules))
        for key, values in zip(("tiles_n", "tiles_pts", "tiles_values"), self.tiles(row.get("tiles", {}), w)):
            f[key].append(values)
        uses = row.get("official_uses", {})
        if not isinstance(uses, dict):
            self.bad(f"{w} official_uses must be an object {{official: count}}")
            uses = {}
        for k in uses:
            if k not in OFFICIALS:
                self.bad(f"{w} official_uses: unknown official {short_repr(k)} (use {', '.join(OFFICIALS)})")
        f["official_uses"].append([self.integer(uses.get(o, 0), f"{w} official_uses {o}", 0, MAX_COUNTER,
                                                fallback=0) for o in OFFICIALS])
        f["closes"].append(self.integer(row.get("closes", 0), f"{w} closes", 0, MAX_COUNTER, fallback=0))
        return size

    def houses(self, row: dict, w: str) -> tuple[list[int], int]:
        """A player's houses (cities in increasing order) and houses left."""
        houses = self.city_list(row.get("houses", []), f"{w} houses")
        for x in sorted(set(houses)):
            if houses.count(x) > 1:
                self.bad(f"{w} houses: {self.board.cities[x]} is listed {houses.count(x)} times "
                         "(one house per city and player)")
        placed = len(set(houses))
        left = row.get("houses_left")
        if placed > HOUSES:
            self.bad(f"{w}: {placed} houses on the board, but a player has only {HOUSES}")
            self.partial.add(f"{w} houses")
            left = 0
        elif left is None:
            left = HOUSES - placed
        else:
            left = self.integer(left, f"{w} houses_left", 0, HOUSES, fallback=HOUSES - placed)
            if placed + left != HOUSES and f"{w} houses" not in self.partial:
                self.bad(f"{w}: {plural(placed, 'house')} on the board and {left} left make "
                         f"{placed + left}, but every player has {HOUSES}")
        return sorted(set(houses)), left

    def tiles(self, tiles, w: str) -> tuple[list, list, list]:
        """Per tile stack: the tiles a player holds, their points, and their values if listed."""
        board = self.board
        ids = [st.id for st in board.tiles]
        count, points, values = [0] * len(ids), [0] * len(ids), [None] * len(ids)
        if not isinstance(tiles, dict):
            self.bad(f"{w} tiles must be an object {{stack id: [values]}}")
            tiles = {}
        for tid, held in tiles.items():
            if tid not in ids:
                self.bad(f"{w} tiles: unknown tile stack {short_repr(tid)} (the {board.name} board has {', '.join(ids)})")
                continue
            t = ids.index(tid)
            if isinstance(held, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                               for v in held):
                count[t], points[t], values[t] = len(held), sum(held), list(held)
            elif isinstance(held, dict) and set(held) == {"count", "points"}:
                count[t] = self.integer(held["count"], f"{w} tiles {tid} count", fallback=0)
                points[t] = self.integer(held["points"], f"{w} tiles {tid} points", fallback=0)
            else:
                self.bad(f"{w} tiles {tid}: give the values held, e.g. [3], or {{\"count\": 2, \"points\": 5}}")
        return count, points, values

    def carriage(self, v, w: str, rules: Rules) -> int:
        if v is None:
            return -1
        if isinstance(v, bool) or not isinstance(v, int):
            self.bad(f"{w}: carriage must be a carriage size (a whole number) or null, not {short_repr(v)}")
            return -1
        if v == 0:
            return -1
        sizes = [s for s, _ in self.board.carriages]
        if rules.resolved_variant == "horses":
            self.bad(f"{w}: carriage {short_repr(v)}, but the horses variant uses no carriage cards (use null)")
        elif v not in sizes:
            self.bad(f"{w}: carriage {short_repr(v)} is not on the board (sizes {', '.join(map(str, sizes))}, or null)")
        else:
            return sizes.index(v)
        return -1

    def stacks(self, d, tiles_n) -> list[int]:
        """How many tiles each stack has given away (remaining values default to what was taken)."""
        board = self.board
        pos = [sum(row[t] for row in tiles_n) for t in range(len(board.tiles))]
        if not isinstance(d, dict):
            self.bad("tile_stacks must be an object {stack id: [values left, top first]}")
            return pos
        ids = [st.id for st in board.tiles]
        for tid, left in d.items():
            if tid not in ids:
                self.bad(f"tile_stacks: unknown tile stack {short_repr(tid)} (the {board.name} board has {', '.join(ids)})")
                continue
            t = ids.index(tid)
            values = list(board.tiles[t].values)
            k = len(values) - len(left) if isinstance(left, list) else -1
            if k < 0 or values[k:] != left:
                self.bad(f"tile_stacks {tid}: {short_repr(left)} is not what can remain of the stack {values} "
                         "(tiles are taken from the top, the first value)")
            else:
                pos[t] = k
        return pos

    def turn_state(self, d, phase: str, mover_cards: int, raw: dict):
        if not isinstance(d, dict):
            self.bad("turn_state must be an object")
            d = {}
        self.unknown_fields(d, TURN_FIELDS, "turn_state: ")
        off = d.get("official_used")
        if off is not None and off not in OFFICIALS:
            self.bad(f"turn_state: unknown official {short_repr(off)} (use {', '.join(OFFICIALS)} or null)")
            off = None
        default_draws, default_plays = int(phase != "draw"), int(phase not in ("draw", "play"))
        draws = self.integer(d.get("draws", default_draws), "turn_state draws", 0, 2, fallback=default_draws)
        plays = self.integer(d.get("plays", default_plays), "turn_state plays", 0, 2, fallback=default_plays)
        # At the start of a turn an empty hand forces the Postmaster (two draws, no other official).
        forced = d.get("forced_postmaster",
                       phase == "draw" and ((draws == 0 and mover_cards == 0) or draws == 1))
        if not isinstance(forced, bool):
            self.bad(f"turn_state forced_postmaster must be true or false, not {short_repr(forced)}")
            forced = False
        if off is None and forced and "official_used" not in d:
            off = "postmaster"
        placed = self.city_list(d.get("close_houses", []), "turn_state close_houses")
        raw.update(official=OFFICIALS.index(off) + 1 if off else 0, draws=draws, plays=plays,
                   forced_pm=int(forced), placed_now=sum(1 << x for x in set(placed)),
                   # houses are placed in increasing city order, so the last one is the largest
                   last_house=max(placed, default=-1),
                   last_discard=self.optional_city(d.get("last_discard"), "turn_state last_discard") or 0)


# ---------------------------------------------------------------- consistency

def _check(pp: _Parsed, problems: list[str]) -> None:
    """Problems of a readable position that describes something impossible. Entries that could not be
    read were left out, so checks that need every card or tile run only when all was read (one problem,
    one message)."""
    all_read = not problems
    bad = problems.append
    r, b, rules = pp.raw, pp.board, pp.rules
    n, nc = rules.players, b.n_cities
    cities = b.cities
    horses = rules.resolved_variant == "horses"

    for p in range(n):
        w = f"seat {p}"
        # routes: a road path without repeats
        route = r["route"][p]
        for x in sorted(set(route)):
            if route.count(x) > 1:
                bad(f"{w} route: {cities[x]} appears {route.count(x)} times (a route visits a city once)")
        for a, c in zip(route, route[1:]):
            if not b.adjacent(a, c) and f"{w} route" not in pp.partial:
                bad(f"{w} route: {cities[a]} and {cities[c]} are not joined by a road")
        # hands and known cards
        known_n = sum(r["known"][p])
        if pp.hand_size[p] is None:
            for x in range(nc):
                if r["known"][p][x] > r["hand"][p][x]:
                    bad(f"{w}: known card {cities[x]} is not in the hand")
        elif known_n > pp.hand_size[p]:
            bad(f"{w}: {plural(known_n, 'known card')}, but the hand holds only {pp.hand_size[p]}")
        # horse cards and carriages
        h = sum(r["horse_cards"][p])
        if h and not horses:
            bad(f"{w}: horse cards are only laid in the horses variant")
        elif h > MAX_HORSE_CARDS:
            bad(f"{w}: {h} horse cards, but at most {MAX_HORSE_CARDS} may be laid")
        k = r["carriage"][p]
        if k >= 0 and k == len(b.carriages) - 1 and r["end_player"] < 0:
            bad(f"{w} has the {b.carriages[k][0]}-carriage, so the end of the game must have been triggered")
        if r["houses_left"][p] == 0 and r["end_player"] < 0 and f"{w} houses" not in pp.partial:
            bad(f"{w} has placed all {HOUSES} houses, so the end of the game must have been triggered")

    _check_cards(pp, bad, all_read)
    if all_read:
        _check_tiles(pp, bad)
    _check_turn(pp, bad)
    if sum(r["display"]) > DISPLAY_SIZE:
        bad(f"the display holds {sum(r['display'])} cards, but only {DISPLAY_SIZE} lie face up")
    if pp.viewer is not None and pp.hand_size[pp.viewer] is not None:
        bad(f"seat {pp.viewer} is the viewer, so its hand must be listed card by card (hand, not hand_size)")


def plural(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _check_cards(pp: _Parsed, bad, all_read: bool) -> None:
    """Every city has exactly cards_per_city cards: in hands, display, discard, routes, horse cards and the
    deck; what is not accounted for must fit the hands given by size and the deck."""
    r, b = pp.raw, pp.board
    cpc, nc, n = b.cards_per_city, b.n_cities, pp.rules.players
    places = {"hands": [sum(r["hand"][p][x] for p in range(n)) for x in range(nc)],
              "display": r["display"], "discard": r["discard"],
              "routes": [sum(row.count(x) for row in r["route"]) for x in range(nc)],
              "horse cards": [sum(r["horse_cards"][p][x] for p in range(n)) for x in range(nc)]}
    if r["deck"] is not None:
        places["deck"] = r["deck"]
    missing = 0
    for x in range(nc):
        total = sum(v[x] for v in places.values())
        if total > cpc:
            where = ", ".join(f"{k} {v[x]}" for k, v in places.items() if v[x])
            bad(f"city {b.cities[x]}: {total} cards in play ({where}), but the game has {cpc}")
        missing += max(0, cpc - total)
    if not all_read:
        return
    hidden = sum(s - sum(r["known"][p]) for p, s in enumerate(pp.hand_size) if s is not None)
    hidden = max(hidden, 0)
    deck_n = sum(r["deck"]) if r["deck"] is not None else missing - hidden
    if r["deck"] is not None and missing != hidden:
        if hidden:
            bad(f"{missing} cards are not accounted for, but the hands given by size hide {hidden}")
        else:
            short = [f"{b.cities[x]} {cpc - sum(v[x] for v in places.values())}"
                     for x in range(nc) if sum(v[x] for v in places.values()) < cpc]
            bad(f"with the deck given every card must be somewhere, but {plural(missing, 'card')} are "
                f"missing: {', '.join(short)}")
    elif deck_n < 0:
        bad(f"the hands given by size hide {hidden} cards, but only {missing} cards are not accounted for")
    if pp.deck_size is not None and deck_n >= 0 and pp.deck_size != deck_n:
        what = "the deck listed holds" if r["deck"] is not None else "the cards not accounted for leave"
        bad(f"deck_size is {pp.deck_size}, but {what} {deck_n}")
    if sum(r["display"]) < DISPLAY_SIZE and deck_n > 0:
        bad(f"the display holds {sum(r['display'])} cards while the deck holds {deck_n}: "
            f"the display is refilled to {DISPLAY_SIZE} at once")


def _check_tiles(pp: _Parsed, bad) -> None:
    r, b, rules = pp.raw, pp.board, pp.rules
    n = rules.players
    for t, st in enumerate(b.tiles):
        taken = list(st.values[:r["stack_pos"][t]])
        held = [r["tiles_n"][p][t] for p in range(n)]
        if st.kind in SINGLE_TILE_KINDS:
            for p in range(n):
                if held[p] > 1:
                    bad(f"seat {p} holds {held[p]} tiles of stack {st.id}; a player takes this tile only once")
        if sum(held) != len(taken):
            bad(f"tile stack {st.id}: players hold {plural(sum(held), 'tile')}, but "
                f"{plural(len(taken), 'tile')} {'was' if len(taken) == 1 else 'were'} taken from it "
                "(tiles are never returned)")
            continue
        points = sum(r["tiles_pts"][p][t] for p in range(n))
        listed = [v for p in range(n) for v in (pp.tile_values[p][t] or [])]
        not_taken = _not_in(listed, taken)
        if not_taken:
            bad(f"tile stack {st.id}: a tile worth {not_taken} is held, but the tiles taken are worth "
                f"{', '.join(map(str, taken)) or 'nothing (none taken)'}")
        elif points != sum(taken):
            bad(f"tile stack {st.id}: the tiles held are worth {points} in all, the tiles taken {sum(taken)}")
        for p in range(n):
            lacking = _houses_lacking(pp, st, set(r["houses"][p])) if held[p] else []
            if lacking:
                bad(f"seat {p} holds tile {st.id} without a house in {', '.join(lacking)}")
            if held[p] and st.kind == "game_end" and p != r["end_player"]:
                who = "nobody" if r["end_player"] < 0 else f"seat {r['end_player']}"
                bad(f"seat {p} holds the game-end tile, but the end was triggered by {who}")
        if st.kind == "game_end" and r["end_player"] >= 0 and not taken:
            bad(f"the end was triggered by seat {r['end_player']}, so the game-end tile ({st.id}) must be taken")


def _not_in(values: list, pool: list):
    """The first of `values` left over when each is matched with an equal member of `pool`, else None."""
    left = list(pool)
    for v in values:
        if v not in left:
            return v
        left.remove(v)
    return None


def _houses_lacking(pp: _Parsed, st, houses: set) -> list[str]:
    """What a holder of tile `st` lacks: cities (city tiles) or provinces (the each-province tile)."""
    b = pp.board
    if st.kind in ("all_cities", "free_city"):
        return [b.cities[x] for x in sorted(set(st.cities) - houses)]
    if st.kind == "each_province":
        provinces = tuple(st.provinces)
        if pp.rules.all_provinces_tile == "english":
            provinces += tuple(st.excluded)
        return [b.provinces[q] for q in provinces if not any(b.city_province[x] == q for x in houses)]
    return []


def _valid_placement(b: Board, houses: set) -> bool:
    """Option A (at most one city per province, at most one free city) or option B (one province)."""
    provs = [b.city_province[x] for x in houses]
    free = provs.count(-1)
    option_a = free <= 1 and len({q for q in provs if q >= 0}) == len(provs) - free
    option_b = len(set(provs)) <= 1 and -1 not in provs
    return option_a or option_b


def _check_turn(pp: _Parsed, bad) -> None:
    r, b, rules = pp.raw, pp.board, pp.rules
    phase, p = PHASES[r["phase"]], r["current"]
    official = OFFICIALS[r["official"] - 1] if r["official"] else None
    route = r["route"][p]
    placed = {x for x in range(b.n_cities) if r["placed_now"] >> x & 1}
    if "turn_state close_houses" in pp.partial:
        placed = set()  # an unreadable entry was reported already; checks of the set would repeat it
    if r["forced_pm"] and official != "postmaster":
        bad("turn_state: forced_postmaster needs official_used postmaster")
    if r["plays"] == 2 and official != "postal_carrier":
        bad("turn_state: two cards played need official_used postal_carrier")
    if phase == "draw" and (r["plays"] or r["draws"] > int(bool(r["forced_pm"]))):
        bad("turn_state: in the draw phase no card has been played and nothing drawn yet "
            "(except the first draw of the forced Postmaster)")
    if phase == "play" and (r["plays"] or not r["draws"]):
        bad("turn_state: in the play phase a card has been drawn (draws 1 or 2) and none played (plays 0)")
    closing = phase in ("houses", "cartwright")
    if closing and len(route) < MIN_CLOSE:
        bad(f"phase {phase}: seat {p} is closing a route of {len(route)} cards; a route needs {MIN_CLOSE}")
    elif closing and rules.resolved_variant == "horses":
        pulling = BASE_HORSES + sum(b.horses[x] * k for x, k in enumerate(r["horse_cards"][p]))
        if pulling < len(route):
            bad(f"phase {phase}: seat {p} is closing a route of {len(route)} cards with only {pulling} horses")
    if phase == "houses":
        if not placed <= set(route):
            bad("turn_state close_houses: houses are placed only in cities of the route being closed")
    if placed and not any(placed <= set(r["houses"][q]) for q in range(rules.players)):
        bad("turn_state close_houses: no player has houses in all of "
            + ", ".join(b.cities[x] for x in sorted(placed)))
    elif placed and not _valid_placement(b, placed):
        bad("turn_state close_houses: " + ", ".join(b.cities[x] for x in sorted(placed))
            + " is not one placement (one city per province, or the cities of one province)")
    if phase == "cartwright" and len(route) >= MIN_CLOSE:
        nxt = r["carriage"][p] + 1
        if rules.resolved_variant == "horses" or nxt >= len(b.carriages):
            bad(f"phase cartwright: seat {p} has no next carriage to take")
        elif not len(route) < b.carriages[nxt][0] <= len(route) + 2:
            bad(f"phase cartwright: with a route of {len(route)} cards the Cartwright cannot be what takes "
                f"the {b.carriages[nxt][0]}-carriage")
        elif official is not None:
            bad(f"phase cartwright: the Cartwright is not offered after the {official} in the same turn")
    if phase == "discard" and (route or sum(r["horse_cards"][p])):
        bad(f"phase discard: seat {p} has closed, so its route and horse cards are already discarded")
    if phase == "discard" and pp.hand_size[p] is None and r["last_discard"]:
        # discards come in city order: enough cards must remain at or after the last one
        excess = sum(r["hand"][p]) - HAND_LIMIT
        if excess > 0 and sum(r["hand"][p][r["last_discard"]:]) < excess:
            bad(f"turn_state last_discard: discards come in city order, but seat {p} holds fewer than "
                f"{excess} cards from {b.cities[r['last_discard']]} on")
    if phase == "over" and r["end_player"] < 0 and not r["truncated"]:
        bad("phase over: the end of the game was not triggered (end_triggered_by is null)")
    if r["truncated"] and phase != "over":
        bad("truncated: only a finished game can have been stopped by the turn limit")


# ---------------------------------------------------------------- building the state

def _build(pp: _Parsed, seed: int | None) -> GameState:
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    rnd = random.Random(seed)
    hidden = any(size is not None for size in pp.hand_size) or pp.raw["deck"] is None
    # Whether the mover still has a choice can depend on hidden cards (a second card that fits the
    # route), so deals that would make the named decision vanish are rejected and dealt again.
    for _ in range(MAX_DEALS if hidden else 1):
        g = GameState(config_for(pp.rules), 0)
        g.load(_deal(pp, rnd))
        settled = g.clone()
        settled.settle()
        if settled.export() == g.export() and (g.legal_moves() or g.is_terminal()):
            return g
    if not (settled.legal_moves() or settled.is_terminal()):
        raise position_error([f"no way of dealing the unknown cards leaves seat {settled.current_player} "
                              f"a legal move in the {settled.phase} phase"])
    # No decision is due in this position: the engine takes the automatic steps, as after any move.
    return settled


def _deal(pp: _Parsed, rnd: random.Random) -> dict:
    """The raw fields with the cards not accounted for dealt to the hands given by size, the rest to
    the deck (unless the deck is given), and the generators seeded unless given."""
    r = dict(pp.raw)
    b, n, nc = pp.board, pp.rules.players, pp.board.n_cities
    pool = [b.cards_per_city - sum(r["hand"][p][x] + r["horse_cards"][p][x] for p in range(n))
            - r["display"][x] - r["discard"][x] - sum(row.count(x) for row in r["route"])
            - (r["deck"][x] if r["deck"] is not None else 0) for x in range(nc)]
    hands = [list(h) for h in r["hand"]]
    for p, size in enumerate(pp.hand_size):
        for _ in range(0 if size is None else size - sum(hands[p])):
            x = rnd.choices(range(nc), weights=pool)[0]
            pool[x] -= 1
            hands[p][x] += 1
    r["hand"] = hands
    if r["deck"] is None:
        r["deck"] = pool
    if not pp.rng_given:
        r["rng"] = rnd.getrandbits(64)
        r["prng"] = r["rng"] ^ SECOND_GENERATOR
    r["display_n"], r["deck_n"], r["discard_n"] = sum(r["display"]), sum(r["deck"]), sum(r["discard"])
    return r


# ---------------------------------------------------------------- files

def dumps_position(d: dict) -> str:
    """JSON text: one field a line, short lists and objects kept on one line."""
    return _format(d, 0) + "\n"


def _format(v, depth: int) -> str:
    flat = json.dumps(v, ensure_ascii=False)
    if len(flat) + 2 * depth <= WIDTH or not isinstance(v, (dict, list)) or not v:
        return flat
    pad = "  " * (depth + 1)
    close = "\n" + "  " * depth + ("}" if isinstance(v, dict) else "]")
    if isinstance(v, dict):
        items = [f"{json.dumps(k, ensure_ascii=False)}: {_format(x, depth + 1)}" for k, x in v.items()]
    else:
        items = [_format(x, depth + 1) for x in v]
    if any(isinstance(x, (dict, list)) for x in (v.values() if isinstance(v, dict) else v)):
        return ("{" if isinstance(v, dict) else "[") + "\n" + ",\n".join(pad + x for x in items) + close
    # plain values (cities, counts): fill the lines
    lines, line = [], ""
    for item in items:
        if line and len(pad) + len(line) + len(item) + 2 > WIDTH:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {item}" if line else item
    lines.append(line)
    return ("{" if isinstance(v, dict) else "[") + "\n" + "\n".join(pad + x for x in lines) + close


def save_position(state: GameState, path, viewer: int | None = None) -> None:
    atomic_write_text(path, dumps_position(position_to_dict(state, viewer)))


def read_position_file(path):
    """The JSON data of a position file: PositionError naming the file for an unreadable or huge file,
    bytes that are not UTF-8, bad JSON, absurd nesting or numbers (thurn_ai.fileio.load_json)."""
    return load_json(path, "position file", PositionError)


def load_position(path, seed: int | None = None, board_file=None) -> tuple[GameState, int | None]:
    """A position file as (state, viewer): viewer is the seat whose view the file is, None if complete.
    The file names a packaged board; `board_file` (a path the user gave) replaces it."""
    data = read_position_file(path)
    try:
        state = position_from_dict(data, seed, board_file)
    except PositionError as e:
        raise position_error(getattr(e, "problems", [str(e)]), str(path)) from None
    return state, position_viewer(data)


def describe(state: GameState, viewer: int | None = None) -> str:
    """One line about a position: whose view, board, variant, players, turn, who is to do what, scores."""
    rules = state.rules
    view = "complete position" if viewer is None else f"seat {viewer}'s view"
    where = ("game over" if state.is_terminal()
             else f"seat {state.current_player} to move ({state.phase})")
    return (f"{view}, {rules.load_board().name} board, {rules.resolved_variant}, {rules.players} players, "
            f"turn {state.turn + 1}, {where}, scores {' / '.join(map(str, state.scores()))}")
