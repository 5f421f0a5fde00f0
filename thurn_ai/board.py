"""Boards are data: cities, provinces, roads, horses, tile stacks and carriages, loaded from JSON.

`load_board("south")` / `load_board("north")` read the files shipped in `thurn_ai/boards/`; any other
argument is a path to a board file of the same format (see docs/board-format.md), so the owner of a printed
board can correct the data without touching code.
"""
from __future__ import annotations

import json
import os
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .errors import BoardError, NotationError

BOARD_DIR = Path(__file__).parent / "boards"
BUILTIN_BOARDS = ("south", "north")
TILE_KINDS = ("route", "each_province", "all_cities", "free_city", "game_end")
MAX_CITIES = 32  # the engine keeps city sets in 32-bit masks
MAX_STACKS = 24
MAX_TILE_VALUES = 8


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
    provenance: str = "verified"


@dataclass(frozen=True)
class Board:
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
    reconstructed: bool = False
    notice: str = ""
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
            raise NotationError(f"unknown city {name!r} on the {self.name} board") from None

    def tile_index(self, tile_id: str) -> int:
        for i, t in enumerate(self.tiles):
            if t.id == tile_id:
                return i
        raise BoardError(f"unknown tile stack {tile_id!r} on the {self.name} board")

    @property
    def has_horses(self) -> bool:
        return all(h > 0 for h in self.horses)


def _err(path, msg):
    return BoardError(f"board file {path}: {msg}")


def parse_board(data: dict, path: str = "<data>") -> Board:
    """Build and validate a Board from its JSON form; BoardError names the first problem found."""
    if not isinstance(data, dict):
        raise _err(path, "top level must be a JSON object")
    for key in ("name", "provinces", "cities", "roads", "tiles"):
        if key not in data:
            raise _err(path, f"missing key {key!r}")
    provinces = []
    for p in data["provinces"]:
        name = p["name"] if isinstance(p, dict) else p
        if not isinstance(name, str) or not name:
            raise _err(path, f"bad province entry {p!r}")
        if name in provinces:
            raise _err(path, f"province {name!r} listed twice")
        provinces.append(name)
    prov_idx = {n: i for i, n in enumerate(provinces)}
    cities, city_prov, horses, prov_notes = [], [], [], {}
    for c in data["cities"]:
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise _err(path, f"bad city entry {c!r}")
        name = c["name"]
        if any(fold(name) == fold(x) for x in cities):
            raise _err(path, f"city {name!r} listed twice")
        p = c.get("province")
        if p is None:
            city_prov.append(-1)
        elif p in prov_idx:
            city_prov.append(prov_idx[p])
        else:
            raise _err(path, f"city {name!r} names unknown province {p!r}")
        h = c.get("horses") or 0
        if not isinstance(h, int) or not 0 <= h <= 3:
            raise _err(path, f"city {name!r}: horses must be 1-3 (or absent), not {h!r}")
        cities.append(name)
        horses.append(h)
        prov_notes[name] = {k: v for k, v in c.items() if k.endswith("provenance")}
    if not 2 <= len(cities) <= MAX_CITIES:
        raise _err(path, f"a board needs 2 to {MAX_CITIES} cities, this one has {len(cities)}")
    for i, name in enumerate(provinces):
        if i not in city_prov:
            raise _err(path, f"province {name!r} has no city")
    fidx = {fold(n): i for i, n in enumerate(cities)}

    def city(n):
        try:
            return fidx[fold(n)]
        except (KeyError, AttributeError):
            raise _err(path, f"unknown city {n!r}") from None

    roads = []
    for r in data["roads"]:
        pair = r["cities"] if isinstance(r, dict) else r
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise _err(path, f"a road joins exactly two cities: {r!r}")
        a, b = city(pair[0]), city(pair[1])
        if a == b:
            raise _err(path, f"road from {cities[a]} to itself")
        e = (min(a, b), max(a, b))
        if e in roads:
            raise _err(path, f"road {cities[a]}–{cities[b]} listed twice")
        roads.append(e)
    tiles = []
    for t in data["tiles"]:
        tid, kind, vals = t.get("id"), t.get("kind"), t.get("values")
        if kind not in TILE_KINDS:
            raise _err(path, f"tile stack {tid!r}: kind must be one of {', '.join(TILE_KINDS)}")
        if not vals or not all(isinstance(v, int) and v >= 0 for v in vals) or len(vals) > MAX_TILE_VALUES:
            raise _err(path, f"tile stack {tid!r}: values must be 1-{MAX_TILE_VALUES} non-negative integers")
        if any(x.id == tid for x in tiles):
            raise _err(path, f"tile stack {tid!r} listed twice")
        kw = dict(id=tid, kind=kind, values=tuple(vals), provenance=t.get("provenance", "verified"))

        def provs(names):
            try:
                return tuple(prov_idx[n] for n in names)
            except KeyError as e:
                raise _err(path, f"tile stack {tid!r} names unknown province {e.args[0]!r}") from None

        if kind == "route":
            if not isinstance(t.get("length"), int) or t["length"] < 3:
                raise _err(path, f"route tile stack {tid!r} needs a length of at least 3")
            kw["length"] = t["length"]
        elif kind == "all_cities":
            ps = provs(t.get("provinces", []))
            if not ps:
                raise _err(path, f"tile stack {tid!r} needs provinces")
            kw["cities"] = frozenset(i for i, p in enumerate(city_prov) if p in ps)
            kw["provinces"] = ps
        elif kind == "each_province":
            ex = provs(t.get("exclude", []))
            kw["excluded"] = ex
            kw["provinces"] = tuple(i for i in range(len(provinces)) if i not in ex)
        elif kind == "free_city":
            c = city(t.get("city"))
            if city_prov[c] != -1:
                raise _err(path, f"tile stack {tid!r}: {cities[c]} is not a free city")
            kw["cities"] = frozenset([c])
        tiles.append(TileStack(**kw))
    if len(tiles) > MAX_STACKS:
        raise _err(path, f"at most {MAX_STACKS} tile stacks")
    if sum(t.kind == "game_end" for t in tiles) != 1:
        raise _err(path, "exactly one game_end tile stack is needed")
    carriages = tuple((c["size"], c["points"]) for c in data.get("carriages", []))
    if [s for s, _ in carriages] != sorted(s for s, _ in carriages):
        raise _err(path, "carriages must be listed smallest first")
    cpc = data.get("cards_per_city", 3)
    if not isinstance(cpc, int) or not 1 <= cpc <= 8:
        raise _err(path, "cards_per_city must be 1-8")
    variant = data.get("default_variant", "classic")
    if variant not in ("classic", "horses"):
        raise _err(path, "default_variant must be 'classic' or 'horses'")
    return Board(
        name=str(data["name"]), title=str(data.get("title", data["name"])), cities=tuple(cities),
        provinces=tuple(provinces), city_province=tuple(city_prov), roads=tuple(roads),
        horses=tuple(horses), tiles=tuple(tiles), carriages=carriages, cards_per_city=cpc,
        default_variant=variant, reconstructed=bool(data.get("reconstructed", False)),
        notice=str(data.get("notice", "")), provenance={"cities": prov_notes}, path=path)


@lru_cache(maxsize=32)
def _load_path(path: str, mtime: float) -> Board:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise BoardError(f"cannot read board file {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise BoardError(f"board file {path} is not valid JSON: {e.msg} at line {e.lineno}") from None
    return parse_board(data, path)


def load_board(name_or_path: str | Board = "south") -> Board:
    """A built-in board by name ('south', 'north') or a board file by path."""
    if isinstance(name_or_path, Board):
        return name_or_path
    name = str(name_or_path)
    path = BOARD_DIR / f"{name}.json" if name in BUILTIN_BOARDS else Path(name)
    if not path.exists():
        raise BoardError(f"unknown board {name!r}: use south, north or the path of a board file")
    return _load_path(str(path), os.path.getmtime(path))
