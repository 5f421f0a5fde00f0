"""Boards are data: cities, provinces, roads, horses, tile stacks and carriages, loaded from JSON.

`load_board("south")` / `load_board("north")` read the files shipped in `thurn_ai/game/boards/`; any other
argument is a path to a board file of the same format (see docs/board-format.md), so the owner of a printed
board can correct the data without touching code. Every part of a board may carry a provenance,
`verified` or `reconstructed`; a board with any reconstructed part says so (`Board.notice`).
"""
from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..errors import BoardError, NotationError
from ..fileio import load_json, path_text, short_repr

BOARD_DIR = Path(__file__).parent / "boards"
BUILTIN_BOARDS = ("south", "north")
TILE_KINDS = ("route", "each_province", "all_cities", "free_city", "game_end")
PROVENANCES = ("verified", "reconstructed")
# Limits of the compiled core (cext/thurn_ai/_core.pxd): city sets are 32-bit masks, fixed-size arrays.
MAX_CITIES = 32
MAX_STACKS = 24
MAX_TILE_VALUES = 8
MAX_CARRIAGES = 8
MAX_TILE_POINTS = 1000
# Cards a route needs to be closed (so the shortest route tile a board may have): one of the game's fixed
# numbers, here because a board file is checked against it; rules.py lists it with the others.
MIN_CLOSE = 3
MAX_NAME = 64               # names of boards, provinces, cities and tile stacks (one line each)
MAX_TEXT = 500              # title and notice (one line each)

# The keys each part of a board file may have ("note" is free text anywhere). Unknown keys are errors,
# so that a typo in a corrected board file ("horse": 2) is reported instead of silently ignored.
TOP_KEYS = {"name", "title", "source", "notice", "default_variant", "cards_per_city", "provinces", "cities",
            "roads", "tiles", "carriages", "note"}
PROVINCE_KEYS = {"name", "provenance", "note"}
CITY_KEYS = {"name", "province", "provenance", "horses", "horses_provenance", "part", "note"}
ROAD_KEYS = {"cities", "provenance", "note"}
CARRIAGE_KEYS = {"size", "points", "count", "provenance", "note"}
TILE_KEYS = {"id", "kind", "values", "provenance", "count_provenance", "note"}
TILE_KIND_KEYS = {"route": {"length"}, "all_cities": {"provinces"}, "each_province": {"exclude"},
                  "free_city": {"city"}, "game_end": set()}


def fold(name: str) -> str:
    """Case- and accent-insensitive key: 'München', 'muenchen' and 'Munchen' all fold to 'munchen'."""
    s = name.strip().lower()
    for a, b in (("ä", "a"), ("ö", "o"), ("ü", "u"), ("ß", "ss"), ("ae", "a"), ("oe", "o"), ("ue", "u")):
        s = s.replace(a, b)
    s = unicodedata.normalize("NFKD", s)
    return "".join(ch for ch in s if not unicodedata.combining(ch))


@dataclass(frozen=True)
class TileStack:
    id: str
    kind: str                      # one of TILE_KINDS
    values: tuple[int, ...]        # top first
    length: int = 0                # route stacks: the route length
    cities: frozenset[int] = frozenset()      # all_cities / free_city: the cities required
    provinces: tuple[int, ...] = ()           # each_province: provinces needing one house each
    excluded: tuple[int, ...] = ()            # each_province: provinces left out in the German reading
    provenance: str = "verified"              # of the values (points)
    count_provenance: str = "verified"        # of the number of tiles


@dataclass(frozen=True)
class Board:
    """A map (load_board() reads a packaged one or a board file): its cities, the province of each
    (city_province, -1 for a free imperial city), the roads as pairs of city indexes, the horses printed on
    each city's cards, the bonus tile stacks and the carriages as (size, points), smallest first."""
    name: str
    title: str
    cities: tuple[str, ...]
    provinces: tuple[str, ...]
    city_province: tuple[int, ...]            # province index, -1 for a free imperial city
    roads: tuple[tuple[int, int], ...]
    horses: tuple[int, ...]                   # horses on each city's cards (0 = none printed)
    tiles: tuple[TileStack, ...]
    carriages: tuple[tuple[int, int], ...]    # (size, points), smallest first
    cards_per_city: int = 3
    default_variant: str = "classic"
    reconstructed: bool = False               # any part marked reconstructed
    notice: str = ""                          # one line saying what is reconstructed ("" if nothing)
    #: what is reconstructed, by part: {"cities": [...], "roads": [...], "horses": [...], ...}
    provenance: dict = field(default_factory=dict, compare=False, hash=False)
    path: str = ""

    @property
    def n_cities(self) -> int:
        return len(self.cities)

    @property
    def n_cards(self) -> int:
        return self.n_cities * self.cards_per_city

    @property
    def free_cities(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.city_province) if p < 0)

    def province_cities(self, province: int) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.city_province) if p == province)

    def adjacent(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) in self._road_set

    @property
    def _road_set(self):
        s = self.__dict__.get("_roads_cache")
        if s is None:
            s = {(min(a, b), max(a, b)) for a, b in self.roads}
            object.__setattr__(self, "_roads_cache", s)
        return s

    def city_index(self, name: str) -> int:
        """Index of a city by name (case and umlaut spelling do not matter); NotationError if unknown."""
        idx = self.__dict__.get("_name_cache")
        if idx is None:
            idx = {fold(c): i for i, c in enumerate(self.cities)}
            object.__setattr__(self, "_name_cache", idx)
        try:
            return idx[fold(name)]
        except KeyError:
            raise NotationError(f"unknown city {short_repr(name)} on the {self.name} board") from None

    def tile_index(self, tile_id: str) -> int:
        for i, t in enumerate(self.tiles):
            if t.id == tile_id:
                return i
        raise BoardError(f"unknown tile stack {short_repr(tile_id)} on the {self.name} board")

    @property
    def has_horses(self) -> bool:
        return all(h > 0 for h in self.horses)

    def route_tile_stacks(self, length: int) -> tuple[int, ...]:
        """The route tile stacks (indices) a closed route of `length` cards takes its tile from, in order:
        the stack for its length, else the next shorter one; the first that still holds tiles gives it.
        (The rule; the compiled core applies the same in award_tiles.)"""
        route = [t for t, st in enumerate(self.tiles) if st.kind == "route" and st.length <= length]
        return tuple(sorted(route, key=lambda t: -self.tiles[t].length))


class _Parser:
    """Validates one board file's JSON; every problem is one BoardError naming the file and the part."""

    def __init__(self, data, path: str):
        self.data, self.path = data, path
        self.recon: dict[str, list] = {"provinces": [], "cities": [], "horses": [], "roads": [], "tile values": [],
                      "tile counts": [], "carriages": []}

    def err(self, msg: str) -> BoardError:
        return BoardError(f"board file {path_text(self.path)}: {msg}")

    def entry(self, e, what: str, allowed: set, required=()) -> dict:
        if not isinstance(e, dict):
            raise self.err(f"{what} must be a JSON object, not {short_repr(e)}")
        unknown = sorted(set(e) - allowed)
        if unknown:
            raise self.err(f"{what}: unknown key {short_repr(unknown[0])} (allowed: {', '.join(sorted(allowed))})")
        for k in required:
            if k not in e:
                raise self.err(f"{what}: missing key {short_repr(k)}")
        return e

    def mark(self, e: dict, key: str, part: str, label: str) -> str:
        """The provenance under `key` (default verified); records `label` under `part` if reconstructed."""
        p = e.get(key, "verified")
        if p not in PROVENANCES:
            raise self.err(f"{label}: {key} must be 'verified' or 'reconstructed', not {short_repr(p)}")
        if p == "reconstructed":
            self.recon[part].append(label)
        return p

    def listing(self, key: str, required: bool = True) -> list:
        v = self.data.get(key, [] if not required else None)
        if not isinstance(v, list):
            raise self.err(f"{short_repr(key)} must be a list" if key in self.data
                           else f"missing key {short_repr(key)}")
        return v

    def text(self, v, what: str, limit: int = MAX_NAME) -> str:
        """`v` if it is a one-line string of at most `limit` characters (names appear in messages, logs
        and positions, so a line break or a page of text there is a mistake)."""
        if not isinstance(v, str) or not v.strip():
            raise self.err(f"{what} must be a non-empty string, not {short_repr(v)}")
        if len(v) > limit:
            raise self.err(f"{what} {short_repr(v)} is longer than {limit} characters")
        if not v.isprintable():
            raise self.err(f"{what} {short_repr(v)} holds a line break or another control character")
        return v

    @staticmethod
    def is_int(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def parse(self) -> Board:
        d = self.data
        if not isinstance(d, dict):
            raise self.err("top level must be a JSON object")
        self.entry(d, "top level", TOP_KEYS, required=("name", "provinces", "cities", "roads", "tiles"))
        self.name = self.text(d["name"], "'name'")
        for key in ("title", "notice"):
            if d.get(key) is not None:
                self.text(d[key], repr(key), MAX_TEXT)
        self.parse_provinces()
        self.parse_cities()
        self.parse_roads()
        self.parse_tiles()
        self.parse_carriages()
        cpc = d.get("cards_per_city", 3)
        if not self.is_int(cpc) or not 1 <= cpc <= 8:
            raise self.err(f"cards_per_city must be an integer 1-8, not {short_repr(cpc)}")
        variant = d.get("default_variant", "classic")
        if variant not in ("classic", "horses"):
            raise self.err(f"default_variant must be 'classic' or 'horses', not {short_repr(variant)}")
        if variant == "horses" and not all(self.horses):
            missing = [c for c, h in zip(self.cities, self.horses) if not h]
            raise self.err(f"default_variant horses needs horses on every city's cards; {missing[0]} has none")
        if variant == "classic" and not self.carriages:
            raise self.err("default_variant classic needs carriages")
        return Board(
            name=self.name, title=str(d.get("title", self.name)), cities=tuple(self.cities),
            provinces=tuple(self.provinces), city_province=tuple(self.city_prov), roads=tuple(self.roads),
            horses=tuple(self.horses), tiles=tuple(self.tiles), carriages=tuple(self.carriages),
            cards_per_city=cpc, default_variant=variant, reconstructed=self.is_reconstructed,
            notice=self.notice(d.get("notice")), provenance={k: tuple(v) for k, v in self.recon.items()},
            path=self.path)

    def parse_provinces(self):
        self.provinces, seen = [], set()      # a set: linear in the number of entries, whatever it is
        for p in self.listing("provinces"):
            if isinstance(p, str):
                p = {"name": p}
            e = self.entry(p, f"province {short_repr(p)}", PROVINCE_KEYS, required=("name",))
            name = self.text(e["name"], "province name")
            if name in seen:
                raise self.err(f"province {short_repr(name)} listed twice")
            self.mark(e, "provenance", "provinces", name)
            self.provinces.append(name)
            seen.add(name)
        self.prov_idx = {n: i for i, n in enumerate(self.provinces)}

    def parse_cities(self):
        self.cities, self.city_prov, self.horses = [], [], []
        listed = self.listing("cities")
        if len(listed) > MAX_CITIES:        # before reading them: a file of 100,000 cities is refused at once
            raise self.err(f"a board needs 2 to {MAX_CITIES} cities, this one has {len(listed)}")
        folded = set()
        for c in listed:
            name = c.get("name") if isinstance(c, dict) else None
            if not isinstance(name, str) or not name.strip():
                raise self.err(f"city entry {short_repr(c)} needs a non-empty 'name'")
            self.text(name, "city name")
            e = self.entry(c, f"city {short_repr(name)}", CITY_KEYS)
            if fold(name) == "deck":
                raise self.err("a city may not be called 'deck' (the notation 'draw deck' needs the word)")
            if fold(name) in folded:
                raise self.err(f"city {short_repr(name)} listed twice")
            folded.add(fold(name))
            if "province" not in e:
                raise self.err(f"city {short_repr(name)}: missing key 'province' (null for a free city)")
            p = e["province"]
            if p is None:
                self.city_prov.append(-1)
            elif isinstance(p, str) and p in self.prov_idx:
                self.city_prov.append(self.prov_idx[p])
            else:
                raise self.err(f"city {short_repr(name)} names unknown province {short_repr(p)}")
            h = e.get("horses", 0)
            if not self.is_int(h) or not (h == 0 or 1 <= h <= 3):
                raise self.err(f"city {short_repr(name)}: horses must be 1-3 (or absent), not {short_repr(h)}")
            if "part" in e and not isinstance(e["part"], str):
                raise self.err(f"city {short_repr(name)}: part must be a string")
            self.mark(e, "provenance", "cities", name)
            if h:
                self.mark(e, "horses_provenance", "horses", name)
            elif "horses_provenance" in e:
                raise self.err(f"city {short_repr(name)}: horses_provenance without horses")
            self.cities.append(name)
            self.horses.append(h)
        if not 2 <= len(self.cities) <= MAX_CITIES:
            raise self.err(f"a board needs 2 to {MAX_CITIES} cities, this one has {len(self.cities)}")
        with_city = set(self.city_prov)
        for i, name in enumerate(self.provinces):
            if i not in with_city:
                raise self.err(f"province {short_repr(name)} has no city")
        self.fidx = {fold(n): i for i, n in enumerate(self.cities)}

    def city(self, n, where: str) -> int:
        try:
            return self.fidx[fold(n)]
        except (KeyError, AttributeError):
            raise self.err(f"{where}: unknown city {short_repr(n)}") from None

    def parse_roads(self):
        self.roads, seen = [], set()
        for r in self.listing("roads"):
            e = self.entry({"cities": r} if isinstance(r, list) else r, f"road {short_repr(r)}", ROAD_KEYS,
                           required=("cities",))
            pair = e["cities"]
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.err(f"a road joins exactly two cities: {short_repr(r)}")
            a, b = self.city(pair[0], "road"), self.city(pair[1], "road")
            if a == b:
                raise self.err(f"road from {self.cities[a]} to itself")
            road = (min(a, b), max(a, b))
            label = f"{self.cities[a]}–{self.cities[b]}"
            if road in seen:
                raise self.err(f"road {label} listed twice")
            self.mark(e, "provenance", "roads", label)
            self.roads.append(road)
            seen.add(road)
        joined = {x for r in self.roads for x in r}
        for i, name in enumerate(self.cities):
            if i not in joined:
                raise self.err(f"city {short_repr(name)} has no road (it could never be part of a route)")

    def parse_tiles(self):
        self.tiles: list[TileStack] = []
        route_lengths = set()
        listed = self.listing("tiles")
        if len(listed) > MAX_STACKS:        # before reading them (each is compared with the earlier ones)
            raise self.err(f"at most {MAX_STACKS} tile stacks, this file has {len(listed)}")
        for t in listed:
            tid = t.get("id") if isinstance(t, dict) else None
            if not isinstance(tid, str) or not tid:
                raise self.err(f"tile stack {short_repr(t)} needs a non-empty string 'id'")
            self.text(tid, "tile stack id")
            kind = t.get("kind")
            if kind not in TILE_KINDS:
                raise self.err(f"tile stack {short_repr(tid)}: kind must be one of {', '.join(TILE_KINDS)}, "
                               f"not {short_repr(kind)}")
            e = self.entry(t, f"tile stack {short_repr(tid)}", TILE_KEYS | TILE_KIND_KEYS[kind],
                           required=("values", *TILE_KIND_KEYS[kind]) if kind != "each_province" else ("values",))
            vals = e["values"]
            if (not isinstance(vals, list) or not 1 <= len(vals) <= MAX_TILE_VALUES
                    or not all(self.is_int(v) and 0 <= v <= MAX_TILE_POINTS for v in vals)):
                raise self.err(f"tile stack {short_repr(tid)}: values must be a list of 1 to {MAX_TILE_VALUES} "
                               f"integers 0-{MAX_TILE_POINTS}, top first")
            if any(x.id == tid for x in self.tiles):
                raise self.err(f"tile stack {short_repr(tid)} listed twice")
            kw = dict(id=tid, kind=kind, values=tuple(vals),
                      provenance=self.mark(e, "provenance", "tile values", tid),
                      count_provenance=self.mark(e, "count_provenance", "tile counts", tid))
            if kind == "route":
                n = e["length"]
                if not self.is_int(n) or not MIN_CLOSE <= n <= MAX_CITIES:
                    raise self.err(f"route tile stack {short_repr(tid)}: length must be an integer "
                                   f"{MIN_CLOSE}-{MAX_CITIES}, not {short_repr(n)}")
                if n in route_lengths:
                    raise self.err(f"two route tile stacks for length {n}")
                route_lengths.add(n)
                kw["length"] = n
            elif kind == "all_cities":
                ps = self.province_list(e["provinces"], tid, "provinces")
                if not ps:
                    raise self.err(f"tile stack {short_repr(tid)} needs at least one province")
                kw["cities"] = frozenset(i for i, p in enumerate(self.city_prov) if p in ps)
                kw["provinces"] = ps
            elif kind == "each_province":
                ex = self.province_list(e.get("exclude", []), tid, "exclude")
                kw["excluded"] = ex
                kw["provinces"] = tuple(i for i in range(len(self.provinces)) if i not in ex)
                if not kw["provinces"]:
                    raise self.err(f"tile stack {short_repr(tid)} excludes every province")
            elif kind == "free_city":
                c = self.city(e["city"], f"tile stack {short_repr(tid)}")
                if self.city_prov[c] != -1:
                    raise self.err(f"tile stack {short_repr(tid)}: {self.cities[c]} is not a free city "
                                   "(free cities have \"province\": null)")
                kw["cities"] = frozenset([c])
            self.tiles.append(TileStack(**kw))
        if len(self.tiles) > MAX_STACKS:
            raise self.err(f"at most {MAX_STACKS} tile stacks, this file has {len(self.tiles)}")
        if sum(t.kind == "game_end" for t in self.tiles) != 1:
            raise self.err("exactly one game_end tile stack is needed")

    def province_list(self, names, tid: str, key: str) -> tuple[int, ...]:
        if not isinstance(names, list):
            raise self.err(f"tile stack {short_repr(tid)}: {key} must be a list of province names")
        out = []
        for n in names:
            if not isinstance(n, str) or n not in self.prov_idx:
                raise self.err(f"tile stack {short_repr(tid)} names unknown province {short_repr(n)}")
            if self.prov_idx[n] in out:
                raise self.err(f"tile stack {short_repr(tid)} names province {short_repr(n)} twice")
            out.append(self.prov_idx[n])
        return tuple(out)

    def parse_carriages(self):
        self.carriages: list[tuple[int, int]] = []
        for c in self.listing("carriages", required=False):
            e = self.entry(c, f"carriage {short_repr(c)}", CARRIAGE_KEYS, required=("size", "points"))
            size, pts = e["size"], e["points"]
            if not self.is_int(size) or not 1 <= size <= MAX_CITIES:
                raise self.err(f"carriage size must be an integer 1-{MAX_CITIES}, not {short_repr(size)}")
            if not self.is_int(pts) or not 0 <= pts <= MAX_TILE_POINTS:
                raise self.err(f"carriage of size {size}: points must be an integer 0-{MAX_TILE_POINTS}")
            if self.carriages and size <= self.carriages[-1][0]:
                raise self.err("carriages must be listed smallest first, each size once")
            self.mark(e, "provenance", "carriages", f"carriage {size}")
            self.carriages.append((size, pts))
        if len(self.carriages) > MAX_CARRIAGES:
            raise self.err(f"at most {MAX_CARRIAGES} carriage sizes")

    @property
    def is_reconstructed(self) -> bool:
        return any(self.recon.values())

    def notice(self, custom) -> str:
        """One line saying what is reconstructed, counted from the markers (so it shrinks as a board file
        is corrected); a file's own `notice` replaces the generated text."""
        if not self.is_reconstructed:
            return ""
        if custom:
            return custom
        totals = {"provinces": len(self.provinces), "cities": len(self.cities),
                  "horses": sum(1 for h in self.horses if h), "roads": len(self.roads),
                  "tile values": len(self.tiles), "tile counts": len(self.tiles),
                  "carriages": len(self.carriages)}
        words = {"horses": "horse counts", "tile values": "tile-stack values",
                 "tile counts": "tile-stack sizes"}
        parts = [f"{len(v)} of {totals[k]} {words.get(k, k)}" for k, v in self.recon.items() if v]
        return (f"the {self.name} board is partly reconstructed, not the printed board "
                f"({', '.join(parts)}); correct it with --board-file (see docs/board-format.md)")


def parse_board(data: dict, path: str = "<data>") -> Board:
    """Build and validate a Board from its JSON form; BoardError names the first problem found."""
    return _Parser(data, path).parse()


@lru_cache(maxsize=32)
def _load_path(path: str, mtime: float) -> Board:
    return parse_board(load_json(path, "board file", BoardError), path)


# Called with every board load_board() returns. The command line registers one that says, once per board,
# that a board is partly reconstructed, so every command that uses the North board says so.
_load_listeners: list = []


def on_load(listener) -> None:
    """Call `listener(board)` whenever load_board() returns a board."""
    if listener not in _load_listeners:
        _load_listeners.append(listener)


def is_packaged_board(name) -> bool:
    """Whether `name` is one of the boards shipped with thurn-ai ('south', 'north')."""
    return isinstance(name, str) and name in BUILTIN_BOARDS


def packaged_board(name) -> Board:
    """A board shipped with thurn-ai, by name only: the form in which positions and game records name
    their board. Anything else (a path, another file) is a BoardError; a board file comes only from the
    user directly (`--board-file`, `load_board(path)`, `Rules(board=path)`)."""
    if not is_packaged_board(name):
        raise BoardError(f"unknown board {short_repr(name)}: use {' or '.join(BUILTIN_BOARDS)}")
    return load_board(name)


def load_board(name_or_path: str | Board = "south") -> Board:
    """A built-in board by name ('south', 'north') or a board file by path (given by the user)."""
    if isinstance(name_or_path, Board):
        board = name_or_path
    else:
        if not isinstance(name_or_path, (str, os.PathLike)):
            raise BoardError(f"a board is a name ({', '.join(BUILTIN_BOARDS)}) or a board file's path, "
                             f"not {short_repr(name_or_path)}")
        name = os.fspath(name_or_path)
        path = BOARD_DIR / f"{name}.json" if name in BUILTIN_BOARDS else Path(name)
        try:
            exists = path.exists()
            mtime = os.path.getmtime(path) if exists else 0.0
        except (OSError, ValueError):
            exists = False
        if not exists:
            if os.sep in name or name.endswith(".json"):
                raise BoardError(f"board file {path_text(name)} does not exist")
            raise BoardError(f"unknown board {short_repr(name)}: use south, north or the path of a board file")
        board = _load_path(str(path), mtime)
    for listener in _load_listeners:
        listener(board)
    return board
