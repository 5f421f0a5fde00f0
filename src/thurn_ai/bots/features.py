"""Shared evaluation helpers for the rule-based bots (greedy, heuristic, and the human bot's display).

Everything is computed from the board data and from what one player may know, so the same code serves
the South and the North board and both variants:

* `BoardInfo` — the board as bit masks (roads, provinces, tile stacks), cached per Rules;
* `View` — one player's view of a state (own hand, route, houses, display, the pool of unseen cards);
* house values: what a house in each city is worth to the player now (the house itself plus progress
  toward the tiles that city counts for), and the best legal set of houses for a closed route;
* route values: what closing a route would bring (houses, route tile, carriage).
"""
from __future__ import annotations

from functools import lru_cache

from ..game.notation import make_move
from ..game.rules import BASE_HORSES, CARTWRIGHT_REACH, MIN_CLOSE, Rules


def bits(mask: int):
    """The indices of the set bits of mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def popcount(mask: int) -> int:
    return bin(mask).count("1")


class StackInfo:
    """One tile stack in the form the evaluation needs."""

    __slots__ = ("index", "id", "kind", "values", "length", "city_mask", "province_masks")

    def __init__(self, index, stack, province_masks):
        self.index = index
        self.id = stack.id
        self.kind = stack.kind
        self.values = tuple(stack.values)
        self.length = stack.length
        self.city_mask = sum(1 << c for c in stack.cities)
        # each_province: the provinces that need a house (masks of their cities)
        self.province_masks = tuple(province_masks)


class BoardInfo:
    """The board of a Rules object as bit masks; build it with board_info(rules) (cached)."""

    def __init__(self, rules: Rules):
        b = rules.load_board()
        self.board = b
        self.n = n = b.n_cities
        self.adj = [0] * n
        for a, c in b.roads:
            self.adj[a] |= 1 << c
            self.adj[c] |= 1 << a
        self.province = tuple(b.city_province)
        self.n_provinces = len(b.provinces)
        self.province_mask = [0] * self.n_provinces
        for c, p in enumerate(b.city_province):
            if p >= 0:
                self.province_mask[p] |= 1 << c
        self.free_mask = sum(1 << c for c in b.free_cities)
        self.horses_variant = rules.resolved_variant == "horses"
        self.horses = tuple(b.horses)
        self.carriages = () if self.horses_variant else tuple(b.carriages)
        self.cartwright = not self.horses_variant
        self.cards_per_city = b.cards_per_city
        stacks = []
        for i, st in enumerate(b.tiles):
            provs = rules.tile_provinces(st) if st.kind == "each_province" else ()
            stacks.append(StackInfo(i, st, [self.province_mask[q] for q in provs]))
        self.stacks = stacks
        self.route_stacks = sorted((s for s in stacks if s.kind == "route"), key=lambda s: -s.length)
        # per route length: the stacks its tile comes from, in order (the board's rule), up to the longest
        longest = max((s.length for s in self.route_stacks), default=0)
        self.route_tiles_for = [tuple(stacks[t] for t in b.route_tile_stacks(n)) for n in range(longest + 1)]
        self.min_route_tile = min((s.length for s in self.route_stacks), default=99)
        # the groups a house counts toward (for the progress part of house values)
        self.city_stacks = [[s for s in stacks if (s.kind in ("all_cities", "free_city") and s.city_mask >> c & 1)
                             or (s.kind == "each_province" and any(m >> c & 1 for m in s.province_masks))]
                            for c in range(n)]


@lru_cache(maxsize=32)
def board_info(rules: Rules) -> BoardInfo:
    return BoardInfo(rules)


# Weights of the evaluation. Progress toward a tile not yet complete counts for part of its value, more
# the nearer it is to complete (exponent > 1), and less as the game nears its end.
PROGRESS_WEIGHT = 0.7
PROGRESS_EXPONENT = 1.3


class View:
    """What one player knows of a state, in the form the bots evaluate.

    Built from `state.export()`; only the player's own hand, public facts and the *pool* of unseen cards
    (deck plus opponents' cards not known to be in their hands) are used, so it is the same for every
    determinization of the same observation."""

    def __init__(self, state, player: int | None = None, progress_weight: float = PROGRESS_WEIGHT):
        d = state.export()
        self.state = state
        self.info = info = board_info(state.rules)
        self.p = p = state.current_player if player is None else player
        self.n_players = state.n_players
        self.phase = state.phase
        self.official = d["official"]
        self.forced_pm = bool(d["forced_pm"])
        self.draws = d["draws"]
        self.plays = d["plays"]
        self.turn = d["turn"]
        self.end_triggered = bool(d["end_triggered"])
        self.hand = d["hand"][p]
        self.hand_n = sum(self.hand)
        self.hand_mask = sum(1 << x for x, k in enumerate(self.hand) if k)
        self.route = d["route"][p]
        self.route_mask = sum(1 << x for x in self.route)
        self.houses_by_player = [sum(1 << x for x in hs) for hs in d["houses"]]
        self.houses = self.houses_by_player[p]
        self.houses_left = d["houses_left"][p]
        self.houses_left_by_player = d["houses_left"]
        self.carriage = d["carriage"][p]
        self.carriage_by_player = d["carriage"]
        self.routes = d["route"]
        self.stack_pos = d["stack_pos"]
        self.own_tiles = d["tiles_n"][p]
        self.display = d["display"]
        self.placed_now = d["placed_now"]
        self.last_house = d["last_house"]
        self.last_discard = d["last_discard"]
        self.horse_cards_n = sum(d["horse_cards"][p])
        horses = d["horse_cards"][p]
        self.horse_capacity = BASE_HORSES + sum(k * info.horses[x] for x, k in enumerate(horses))
        pool = list(d["deck"])
        for o in range(self.n_players):
            if o != p:
                for x in range(info.n):
                    pool[x] += d["hand"][o][x] - d["known"][o][x]
        if sum(pool) == 0:
            pool = list(d["discard"])          # an empty deck is refilled from the discard pile
        self.pool = pool
        self.pool_n = sum(pool)
        self.hand_sizes = [sum(h) for h in d["hand"]]
        self.known = d["known"]
        self.scores = state.scores()
        self.progress_weight = progress_weight
        self._values: list[float] | None = None

    # ---- tiles and houses -------------------------------------------------------------------------

    def stack_top(self, s: StackInfo) -> int:
        """The value of the tile the player would take from stack s now (0 if none is left)."""
        pos = self.stack_pos[s.index]
        return s.values[pos] if pos < len(s.values) else 0

    def _stack_potential(self, s: StackInfo, houses: int) -> float:
        """Credit for a stack the player has not taken yet: its top value when complete, a part of it for
        progress toward it."""
        top = self.stack_top(s)
        if top == 0 or self.own_tiles[s.index]:
            return 0.0
        if s.kind == "all_cities":
            need, have = popcount(s.city_mask), popcount(houses & s.city_mask)
        elif s.kind == "each_province":
            need = len(s.province_masks)
            have = sum(1 for m in s.province_masks if houses & m)
        else:
            return 0.0
        if have >= need:
            return float(top)
        return top * self.progress_weight * (have / need) ** PROGRESS_EXPONENT

    def house_set_value(self, new: int, houses: int | None = None) -> float:
        """What placing houses in the cities of `new` is worth: one point each (a house not left over),
        tiles completed, progress toward tiles, and the round tile of a free city not yet built in."""
        if houses is None:
            houses = self.houses
        new &= ~houses
        if not new:
            return 0.0
        after = houses | new
        v = float(popcount(new))
        seen = set()
        for c in bits(new):
            for s in self.info.city_stacks[c]:
                if s.index in seen:
                    continue
                seen.add(s.index)
                if s.kind == "free_city":
                    v += self.stack_top(s)
                else:
                    v += self._stack_potential(s, after) - self._stack_potential(s, houses)
        return v

    @property
    def values(self) -> list[float]:
        """Per city: what one house there is worth to the player now (0 where the player has one)."""
        if self._values is None:
            self._values = [0.0 if self.houses >> c & 1 else self.house_set_value(1 << c)
                            for c in range(self.info.n)]
        return self._values

    def house_options(self, route_mask: int, houses: int | None = None, houses_left: int | None = None):
        """The candidate house sets for closing a route: option A (one city per province, the most
        valuable, plus one free city) and option B (every route city of one province), each limited to
        the houses left. Returns [(mask, value)] best first."""
        info = self.info
        houses = self.houses if houses is None else houses
        left = self.houses_left if houses_left is None else houses_left
        open_cities = route_mask & ~houses
        if not open_cities or left <= 0:
            return [(0, 0.0)]
        vals = self.values if houses == self.houses else [self.house_set_value(1 << c, houses) for c in range(info.n)]
        candidates = set()
        a = 0
        for pm in info.province_mask:
            cs = open_cities & pm
            if cs:
                a |= 1 << max(bits(cs), key=lambda c: (vals[c], -c))
        fs = open_cities & info.free_mask
        if fs:
            a |= 1 << max(bits(fs), key=lambda c: (vals[c], -c))
        candidates.add(a)
        for pm in info.province_mask:
            if open_cities & pm:
                candidates.add(open_cities & pm)
        out = []
        for m in candidates:
            if popcount(m) > left:       # not enough houses: keep the most valuable cities
                keep = sorted(bits(m), key=lambda c: (-vals[c], c))[:left]
                m = sum(1 << c for c in keep)
            out.append((m, self.house_set_value(m, houses)))
        out.sort(key=lambda mv: (-mv[1], -popcount(mv[0]), mv[0]))
        return out

    def discard_move(self, cards, keep, moves) -> int:
        """The first discard (in city order) of the cards not kept; moves[0] if none is legal."""
        drop = list(cards)
        for x in keep:
            drop.remove(x)
        for x in sorted(drop):
            m = make_move("discard", x)
            if m in moves:
                return m
        return moves[0]

    def best_houses(self, route_mask: int, houses: int | None = None, houses_left: int | None = None):
        return self.house_options(route_mask, houses, houses_left)[0]

    def approx_houses_value(self, route_mask: int, values=None) -> float:
        """A fast estimate of the best house set's value: house values added up for option A (one city
        per province, plus one free city) and option B (one province), the better of the two.
        `values` gives a value per city (default: self.values)."""
        info, vals = self.info, (self.values if values is None else values)
        a = 0.0
        best_b = 0.0
        for pm in info.province_mask:
            cs = route_mask & pm
            if cs:
                vs = [vals[c] for c in bits(cs)]
                a += max(vs)
                b = sum(vs)
                if b > best_b:
                    best_b = b
        fs = route_mask & info.free_mask
        if fs:
            a += max(vals[c] for c in bits(fs))
        return max(a, best_b)

    # ---- route length: tiles and carriages ---------------------------------------------------------

    def route_tile_value(self, length: int) -> int:
        """The route tile a closed route of this length takes (Board.route_tile_stacks)."""
        tiles_for = self.info.route_tiles_for
        for s in tiles_for[min(length, len(tiles_for) - 1)]:
            top = self.stack_top(s)
            if top:
                return top
        return 0

    def carriage_gain(self, length: int, cartwright: bool = True) -> float:
        """Points gained by the carriage a route of this length takes (with the Cartwright if allowed)."""
        cars = self.info.carriages
        nxt = self.carriage + 1
        if not cars or nxt >= len(cars):
            return 0.0
        size, pts = cars[nxt]
        cur = cars[self.carriage][1] if self.carriage >= 0 else 0
        if length >= size or (cartwright and length + CARTWRIGHT_REACH >= size):
            return float(pts - cur)
        return 0.0

    def needs_cartwright(self, length: int) -> bool:
        cars = self.info.carriages
        nxt = self.carriage + 1
        return bool(cars) and nxt < len(cars) and length < cars[nxt][0] <= length + CARTWRIGHT_REACH

    def next_carriage_size(self) -> int:
        cars = self.info.carriages
        nxt = self.carriage + 1
        return cars[nxt][0] if cars and nxt < len(cars) else 0

    def can_close_length(self, length: int, capacity: int | None = None) -> bool:
        if length < MIN_CLOSE:
            return False
        if self.info.horses_variant:
            return (self.horse_capacity if capacity is None else capacity) >= length
        return True

    # ---- routes and cards --------------------------------------------------------------------------

    def route_ends(self, route=None):
        r = self.route if route is None else route
        if not r:
            return ()
        return (r[0], r[-1]) if len(r) > 1 else (r[0],)

    def fits(self, x: int, route=None, route_mask: int | None = None) -> bool:
        """Card x can extend the route at one of its ends."""
        r = self.route if route is None else route
        m = self.route_mask if route_mask is None else route_mask
        if not r or m >> x & 1:
            return False
        adj = self.info.adj
        return bool(adj[r[0]] >> x & 1 or adj[r[-1]] >> x & 1)

    def fitting_mask(self, route=None, route_mask: int | None = None) -> int:
        """All cities that could extend the route."""
        r = self.route if route is None else route
        m = self.route_mask if route_mask is None else route_mask
        if not r:
            return 0
        adj = self.info.adj
        return (adj[r[0]] | adj[r[-1]]) & ~m
