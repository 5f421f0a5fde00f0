"""JSON positions, reading: a position dict read into engine terms (`Parsed`), one message per malformed
or unknown entry (`Reader`); the format's constants and the error that lists every problem.

The consistency checks are in position_check, building the state in position_build; thurn_ai.position
is the public face of all of them.
"""
from __future__ import annotations

from dataclasses import dataclass

from .._core import OFFICIALS, PHASES, SECOND_GENERATOR  # the move generator: the chance seed xor this
from ..game.board import Board
from ..errors import NotationError, PositionError, ThurnError
from ..fileio import short_repr
from ..game.rules import HOUSES, MAX_COUNTER, MAX_TURNS, Rules

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


def plural(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


class Reader:
    """Reads a position dict into a Parsed, adding one message per malformed or unknown entry."""

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
    def read(self, data) -> Parsed | None:
        if not isinstance(data, dict):
            self.bad("a position must be a JSON object")
            return None
        self.unknown_fields(data, TOP_FIELDS, "")
        if "format" in data and data["format"] != FORMAT:
            self.bad(f"format must be {short_repr(FORMAT)}, not {short_repr(data['format'])}")
        # `type(...) is int`: True == 1 and 1.0 == 1 in Python, but neither is a version number
        if "version" in data and (type(data["version"]) is not int or data["version"] != VERSION):
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
        fields: dict[str, list] = {k: [] for k in ("hand", "known", "route", "horse_cards", "houses", "houses_left",
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
            self.bad(f"{w}: the entry says seat {short_repr(row['seat'])} but is number {p} in the list "
                     "(seats count from 0)")
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
        count, points = [0] * len(ids), [0] * len(ids)
        values: list[list[int] | None] = [None] * len(ids)
        if not isinstance(tiles, dict):
            self.bad(f"{w} tiles must be an object {{stack id: [values]}}")
            tiles = {}
        for tid, held in tiles.items():
            if tid not in ids:
                self.bad(f"{w} tiles: unknown tile stack {short_repr(tid)} "
                         f"(the {board.name} board has {', '.join(ids)})")
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
                self.bad(f"tile_stacks: unknown tile stack {short_repr(tid)} "
                         f"(the {board.name} board has {', '.join(ids)})")
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
