"""JSON positions, reading: a position dict read into engine terms (`Parsed`), one Problem per malformed
or unknown entry (`Reader`); the format's constants.

The consistency checks are in position_check, building the state in position_build; thurn_ai.position
is the public face of all of them.
"""
from __future__ import annotations

from dataclasses import dataclass

from .._core import OFFICIALS, PHASES, SECOND_GENERATOR  # the move generator: the chance seed xor this
from ..game.board import Board
from ..errors import NotationError, ThurnError
from ..fileio import short_repr
from ..game.rules import HOUSES, MAX_COUNTER, MAX_TURNS, Rules
from .problems import Problem, ProblemKind as K, seat_field

FORMAT = "thurn-ai position"
VERSION = 1

TOP_FIELDS = ("format", "version", "rules", "viewer", "turn", "to_move", "phase", "turn_state", "display",
              "discard", "deck", "deck_size", "players", "tile_stacks", "end_triggered_by", "truncated", "rng")
PLAYER_FIELDS = ("seat", "hand", "hand_size", "known", "route", "horse_cards", "houses", "houses_left",
                 "carriage", "tiles", "official_uses", "closes")
TURN_FIELDS = ("official_used", "draws", "plays", "forced_postmaster", "close_houses", "last_discard")
RULES_FIELDS = ("players", "board", "variant", "all_provinces_tile", "max_turns")
# HOUSES (rules.py): per player. MAX_COUNTER (rules.py): per-player counters (official uses, closes) are
# 16-bit in the engine, so a position's counters plus what the turns still allowed can add must stay
# within it; MAX_TURNS: the largest rules.max_turns, for the same reason.


@dataclass
class Parsed:
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


def position_viewer(data: dict) -> int | None:
    """Whose view a position dict is (None: a complete position)."""
    v = data.get("viewer") if isinstance(data, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def plural(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


class Reader:
    """Reads a position dict into a Parsed, adding one Problem per malformed or unknown entry. `where`
    arguments start the messages ("seat 1 hand"); `field` ones name the part of the position (Problem)."""

    def __init__(self, problems: list[Problem], board_file=None):
        self.problems = problems
        self.board_file = board_file
        self.partial: set[str] = set()   # lists that had unreadable entries

    def bad(self, kind: K, field: str, msg: str):
        self.problems.append(Problem(kind, field, msg))

    def unknown_fields(self, d: dict, allowed, where: str, field: str):
        for k in d:
            if k not in allowed:
                self.bad(K.UNKNOWN_FIELD, field,
                         f"{where}unknown field {short_repr(k)} (allowed: {', '.join(allowed)})")

    def integer(self, v, where: str, field: str, lo: int = 0, hi: int | None = None, fallback=None):
        """v if it is a whole number in range; else one problem, and `fallback` is used instead (chosen
        so that the bad value causes no further problems)."""
        if isinstance(v, bool) or not isinstance(v, int):
            self.bad(K.WRONG_TYPE, field, f"{where} must be a whole number, not {short_repr(v)}")
            return fallback
        if v < lo or (hi is not None and v > hi):
            rng = f"at least {lo}" if hi is None else f"from {lo} to {hi}"
            self.bad(K.OUT_OF_RANGE, field, f"{where} must be {rng}, not {v}")
            return fallback
        return v

    def city(self, name, where: str, field: str):
        if not isinstance(name, str):
            self.bad(K.WRONG_TYPE, field, f"{where}: a city name is expected, not {short_repr(name)}")
            return None
        x = self.exact_names.get(name)
        if x is not None:
            return x
        try:
            return self.board.city_index(name)   # other spellings: case, umlauts (Muenchen = München)
        except NotationError:
            self.bad(K.UNKNOWN_CITY, field, f"{where}: unknown city {short_repr(name)} on the {self.board.name} board")
            return None

    def city_list(self, v, where: str, field: str) -> list[int]:
        if not isinstance(v, list):
            self.bad(K.WRONG_TYPE, field, f"{where} must be a list of city names")
            return []
        out = [self.city(x, where, field) for x in v]
        if None in out:
            self.partial.add(where)  # checks of the whole list would only repeat this problem
        return [x for x in out if x is not None]

    def pile(self, v, where: str, field: str) -> list[int]:
        """Cards as a list of city names (repeated for copies) or as {city: count}; counts per city."""
        counts = [0] * self.board.n_cities
        if isinstance(v, dict):
            for name, k in v.items():
                x = self.city(name, where, field)
                label = name if isinstance(x, int) else short_repr(name)
                k = self.integer(k, f"{where}: the count of {label}", field, 0, self.board.cards_per_city,
                                 fallback=0)
                if x is None:
                    self.partial.add(where)
                else:
                    counts[x] += k
        elif not isinstance(v, list):
            self.bad(K.WRONG_TYPE, field, f"{where} must be a list of city names or an object {{city: count}}")
        else:
            for x in self.city_list(v, where, field):
                counts[x] += 1
        return counts

    def optional_city(self, v, where: str, field: str):
        return None if v is None else self.city(v, where, field)

    def generator(self, v, where: str):
        try:
            x = int(v, 0) if isinstance(v, str) else v
        except ValueError:
            x = None
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 2 ** 64:
            self.bad(K.WRONG_TYPE, "position",
                     f"{where} must be a 64-bit unsigned number (an integer or a hex string), not {short_repr(v)}")
            return 0
        return x

    # ---- the whole position
    def read(self, data) -> Parsed | None:
        if not isinstance(data, dict):
            self.bad(K.NOT_AN_OBJECT, "position", "a position must be a JSON object")
            return None
        self.unknown_fields(data, TOP_FIELDS, "", "position")
        if "format" in data and data["format"] != FORMAT:
            self.bad(K.WRONG_FORMAT, "position",
                     f"format must be {short_repr(FORMAT)}, not {short_repr(data['format'])}")
        # `type(...) is int`: True == 1 and 1.0 == 1 in Python, but neither is a version number
        if "version" in data and (type(data["version"]) is not int or data["version"] != VERSION):
            self.bad(K.UNSUPPORTED_VERSION, "position",
                     f"version {short_repr(data['version'])} is not supported (this is version {VERSION})")
        players_in = data.get("players")
        if not isinstance(players_in, list) or not all(isinstance(p, dict) for p in players_in):
            self.bad(K.NOT_AN_OBJECT, "rules", "players must be a list with one object per seat")
            return None
        rules = self.rules(data.get("rules", {}), len(players_in))
        if rules is None:
            return None
        self.board = board = rules.load_board()
        self.exact_names = {c: i for i, c in enumerate(board.cities)}
        n = rules.players
        if len(players_in) != n:
            self.bad(K.PLAYER_COUNT, "rules", f"the rules are for {n} players but {len(players_in)} players are listed")
            return None
        viewer = data.get("viewer")
        if viewer is not None:
            viewer = self.integer(viewer, "viewer", "rules", 0, n - 1)
        phase = data.get("phase", "draw")
        if phase not in PHASES:
            self.bad(K.UNKNOWN_PHASE, "turn", f"unknown phase {short_repr(phase)} (use one of {', '.join(PHASES)})")
            phase = "draw"
        current = self.integer(data.get("to_move", 0), "to_move", "turn", 0, n - 1, fallback=0)
        raw = {"current": current, "phase": PHASES.index(phase),
               "turn": self.integer(data.get("turn", 0), "turn", "turn", 0, rules.max_turns * n, fallback=0),
               "display": self.pile(data.get("display", []), "display", "display"),
               "discard": self.pile(data.get("discard", {}), "discard", "discard"),
               "deck": self.pile(data["deck"], "deck", "cards") if "deck" in data else None}
        deck_size = None
        if "deck_size" in data:
            deck_size = self.integer(data["deck_size"], "deck_size", "cards", 0, board.n_cards)
        hand_size = [None] * n
        fields: dict[str, list] = {k: [] for k in ("hand", "known", "route", "horse_cards", "houses",
                                                   "houses_left", "carriage", "tiles_n", "tiles_pts",
                                                   "tiles_values", "official_uses", "closes")}
        for p, row in enumerate(players_in):
            hand_size[p] = self.player(row, p, fields, rules)
        raw.update({k: v for k, v in fields.items() if k != "tiles_values"})
        raw["stack_pos"] = self.stacks(data.get("tile_stacks", {}), fields["tiles_n"])
        mover_cards = hand_size[current] if hand_size[current] is not None else sum(raw["hand"][current])
        self.turn_state(data.get("turn_state", {}), phase, mover_cards, raw)
        end = data.get("end_triggered_by")
        end = None if end is None else self.integer(end, "end_triggered_by", "turn", 0, n - 1)
        raw["end_triggered"], raw["end_player"] = (0, -1) if end is None else (1, end)
        truncated = data.get("truncated", False)
        if not isinstance(truncated, bool):
            self.bad(K.WRONG_TYPE, "turn", f"truncated must be true or false, not {short_repr(truncated)}")
        raw["truncated"] = int(truncated is True)
        rng = data.get("rng")
        if rng is not None:
            if not isinstance(rng, dict) or "chance" not in rng:
                self.bad(K.WRONG_TYPE, "position", 'rng must be {"chance": ..., "moves": ...}')
                rng = None
            else:
                self.unknown_fields(rng, ("chance", "moves"), "rng: ", "position")
                raw["rng"] = self.generator(rng["chance"], "rng.chance")
                raw["prng"] = (self.generator(rng["moves"], "rng.moves") if "moves" in rng
                               else raw["rng"] ^ SECOND_GENERATOR)
        self.counter_room(raw, rules, phase)
        return Parsed(rules, board, viewer, raw, hand_size, deck_size, rng is not None, fields["tiles_values"],
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
                    self.bad(K.COUNTER_OVERFLOW, seat_field(p, what.split()[0]),
                             f"seat {p} {what} is {count}, but with up to {more} more turns (rules max_turns "
                             f"{rules.max_turns}) it could pass {MAX_COUNTER}, the most the engine counts: "
                             "lower it or max_turns")

    def rules(self, d, n_listed: int) -> Rules | None:
        if not isinstance(d, dict):
            self.bad(K.WRONG_TYPE, "rules", "rules must be an object such as {\"players\": 3, \"board\": \"south\"}")
            return None
        self.unknown_fields(d, RULES_FIELDS, "rules: ", "rules")
        d = {"players": n_listed, **d}
        if "max_turns" in d and self.integer(d["max_turns"], "rules max_turns", "rules", 1, MAX_TURNS) is None:
            return None
        try:
            return Rules.from_dict(d, packaged_only=True, board_file=self.board_file)
        except ThurnError as e:
            self.bad(K.BAD_RULES, "rules", f"rules: {e}")
        except TypeError:
            self.bad(K.BAD_RULES, "rules", f"rules: bad values {short_repr(d)}")
        return None

    def player(self, row: dict, p: int, f: dict, rules: Rules):
        """Reads one seat into the lists of `f`; returns the hand size if the hand is not listed."""
        w = f"seat {p}"

        def at(part: str) -> str:
            return seat_field(p, part)
        self.unknown_fields(row, PLAYER_FIELDS, f"{w}: ", at(""))
        if "seat" in row and row["seat"] != p:
            self.bad(K.SEAT_MISNUMBERED, at(""),
                     f"{w}: the entry says seat {short_repr(row['seat'])} but is number {p} in the list "
                     "(seats count from 0)")
        known = self.pile(row.get("known", []), f"{w} known", at("known"))
        size = None
        if "hand" in row:
            if "hand_size" in row:
                self.bad(K.HAND_TWICE, at("hand"), f"{w}: give either hand or hand_size, not both")
            hand = self.pile(row["hand"], f"{w} hand", at("hand"))
        else:
            size = self.integer(row.get("hand_size", 0), f"{w} hand_size", at("hand"), fallback=sum(known))
            hand = list(known)
        f["hand"].append(hand)
        f["known"].append(known)
        f["route"].append(self.city_list(row.get("route", []), f"{w} route", at("route")))
        f["horse_cards"].append(self.pile(row.get("horse_cards", []), f"{w} horse_cards", at("horse_cards")))
        houses, left = self.houses(row, p)
        f["houses"].append(houses)
        f["houses_left"].append(left)
        f["carriage"].append(self.carriage(row.get("carriage"), p, rules))
        for key, values in zip(("tiles_n", "tiles_pts", "tiles_values"), self.tiles(row.get("tiles", {}), p)):
            f[key].append(values)
        uses = row.get("official_uses", {})
        if not isinstance(uses, dict):
            self.bad(K.WRONG_TYPE, at("official_uses"), f"{w} official_uses must be an object {{official: count}}")
            uses = {}
        for k in uses:
            if k not in OFFICIALS:
                self.bad(K.UNKNOWN_OFFICIAL, at("official_uses"),
                         f"{w} official_uses: unknown official {short_repr(k)} (use {', '.join(OFFICIALS)})")
        f["official_uses"].append([self.integer(uses.get(o, 0), f"{w} official_uses {o}", at("official_uses"),
                                                0, MAX_COUNTER, fallback=0) for o in OFFICIALS])
        f["closes"].append(self.integer(row.get("closes", 0), f"{w} closes", at("closes"), 0, MAX_COUNTER,
                                        fallback=0))
        return size

    def houses(self, row: dict, p: int) -> tuple[list[int], int]:
        """A player's houses (cities in increasing order) and houses left (that the two make the player's
        supply is a check of the whole position: position_check)."""
        w, field = f"seat {p}", seat_field(p, "houses")
        houses = self.city_list(row.get("houses", []), f"{w} houses", field)
        for x in sorted(set(houses)):
            if houses.count(x) > 1:
                self.bad(K.HOUSE_TWICE, field, f"{w} houses: {self.board.cities[x]} is listed {houses.count(x)} "
                         "times (one house per city and player)")
        placed = len(set(houses))
        left = row.get("houses_left")
        if placed > HOUSES:
            self.bad(K.HOUSE_COUNT, field, f"{w}: {placed} houses on the board, but a player has only {HOUSES}")
            self.partial.add(f"{w} houses")
            left = 0
        elif left is None:
            left = HOUSES - placed
        else:
            left = self.integer(left, f"{w} houses_left", field, 0, HOUSES, fallback=HOUSES - placed)
        return sorted(set(houses)), left

    def tiles(self, tiles, p: int) -> tuple[list, list, list]:
        """Per tile stack: the tiles a player holds, their points, and their values if listed."""
        board = self.board
        w, field = f"seat {p}", seat_field(p, "tiles")
        ids = [st.id for st in board.tiles]
        count, points = [0] * len(ids), [0] * len(ids)
        values: list[list[int] | None] = [None] * len(ids)
        if not isinstance(tiles, dict):
            self.bad(K.WRONG_TYPE, field, f"{w} tiles must be an object {{stack id: [values]}}")
            tiles = {}
        for tid, held in tiles.items():
            if tid not in ids:
                self.bad(K.UNKNOWN_TILE_STACK, field,
                         f"{w} tiles: unknown tile stack {short_repr(tid)} "
                         f"(the {board.name} board has {', '.join(ids)})")
                continue
            t = ids.index(tid)
            if isinstance(held, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                               for v in held):
                count[t], points[t], values[t] = len(held), sum(held), list(held)
            elif isinstance(held, dict) and set(held) == {"count", "points"}:
                count[t] = self.integer(held["count"], f"{w} tiles {tid} count", field, fallback=0)
                points[t] = self.integer(held["points"], f"{w} tiles {tid} points", field, fallback=0)
            else:
                self.bad(K.WRONG_TYPE, field,
                         f"{w} tiles {tid}: give the values held, e.g. [3], or {{\"count\": 2, \"points\": 5}}")
        return count, points, values

    def carriage(self, v, p: int, rules: Rules) -> int:
        w, field = f"seat {p}", seat_field(p, "carriage")
        if v is None:
            return -1
        if isinstance(v, bool) or not isinstance(v, int):
            self.bad(K.WRONG_TYPE, field,
                     f"{w}: carriage must be a carriage size (a whole number) or null, not {short_repr(v)}")
            return -1
        if v == 0:
            return -1
        sizes = [s for s, _ in self.board.carriages]
        if rules.resolved_variant == "horses":
            self.bad(K.NO_SUCH_CARRIAGE, field,
                     f"{w}: carriage {short_repr(v)}, but the horses variant uses no carriage cards (use null)")
        elif v not in sizes:
            self.bad(K.NO_SUCH_CARRIAGE, field,
                     f"{w}: carriage {short_repr(v)} is not on the board (sizes {', '.join(map(str, sizes))}, or null)")
        else:
            return sizes.index(v)
        return -1

    def stacks(self, d, tiles_n) -> list[int]:
        """How many tiles each stack has given away (remaining values default to what was taken)."""
        board = self.board
        pos = [sum(row[t] for row in tiles_n) for t in range(len(board.tiles))]
        if not isinstance(d, dict):
            self.bad(K.WRONG_TYPE, "tiles", "tile_stacks must be an object {stack id: [values left, top first]}")
            return pos
        ids = [st.id for st in board.tiles]
        for tid, left in d.items():
            if tid not in ids:
                self.bad(K.UNKNOWN_TILE_STACK, "tiles",
                         f"tile_stacks: unknown tile stack {short_repr(tid)} "
                         f"(the {board.name} board has {', '.join(ids)})")
                continue
            t = ids.index(tid)
            values = list(board.tiles[t].values)
            k = len(values) - len(left) if isinstance(left, list) else -1
            if k < 0 or values[k:] != left:
                self.bad(K.STACK_REMAINDER, "tiles",
                         f"tile_stacks {tid}: {short_repr(left)} is not what can remain of the stack {values} "
                         "(tiles are taken from the top, the first value)")
            else:
                pos[t] = k
        return pos

    def turn_state(self, d, phase: str, mover_cards: int, raw: dict):
        if not isinstance(d, dict):
            self.bad(K.WRONG_TYPE, "turn", "turn_state must be an object")
            d = {}
        self.unknown_fields(d, TURN_FIELDS, "turn_state: ", "turn")
        off = d.get("official_used")
        if off is not None and off not in OFFICIALS:
            self.bad(K.UNKNOWN_OFFICIAL, "turn",
                     f"turn_state: unknown official {short_repr(off)} (use {', '.join(OFFICIALS)} or null)")
            off = None
        default_draws, default_plays = int(phase != "draw"), int(phase not in ("draw", "play"))
        draws = self.integer(d.get("draws", default_draws), "turn_state draws", "turn", 0, 2, fallback=default_draws)
        plays = self.integer(d.get("plays", default_plays), "turn_state plays", "turn", 0, 2, fallback=default_plays)
        # At the start of a turn an empty hand forces the Postmaster (two draws, no other official).
        forced = d.get("forced_postmaster",
                       phase == "draw" and ((draws == 0 and mover_cards == 0) or draws == 1))
        if not isinstance(forced, bool):
            self.bad(K.WRONG_TYPE, "turn",
                     f"turn_state forced_postmaster must be true or false, not {short_repr(forced)}")
            forced = False
        if off is None and forced and "official_used" not in d:
            off = "postmaster"
        placed = self.city_list(d.get("close_houses", []), "turn_state close_houses", "turn")
        raw.update(official=OFFICIALS.index(off) + 1 if off else 0, draws=draws, plays=plays,
                   forced_pm=int(forced), placed_now=sum(1 << x for x in set(placed)),
                   # houses are placed in increasing city order, so the last one is the largest
                   last_house=max(placed, default=-1),
                   last_discard=self.optional_city(d.get("last_discard"), "turn_state last_discard", "turn") or 0)
