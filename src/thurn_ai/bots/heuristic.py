"""The heuristic bot: plays the way good players describe the game, using a small route planner.

Its core is one estimate, `plan value`: the best way to go on with the current route using only the
cards already in hand (cards in hand cannot be taken away, so such a plan is safe). Every chain of hand
cards that extends the route is tried (depth first, each route state once); closing after the chain is
worth

    houses the route allows (house values, see features.View) + route tile + carriage gained
    - turn_cost per card still to play (every turn spent on this route is a turn not spent on the next)
    + next_weight * the best next route among the cards left in hand (at most 3 are kept),

and a route that cannot be closed yet counts `partial` of its house value. House values already hold the
strategy: a house is worth one point plus progress toward the tiles its city counts for (a province
completed, one more province for the all-provinces tile — so single-city provinces such as Lodz,
Innsbruck and Sigmaringen count early — and the round tile of a free city), all computed from the board
data, so the North board and both variants work the same way.

Decisions (see docs/bots.md for the full list):

* draw: the face-up card, or the deck (expected over the unseen cards), that raises the plan value most;
  the Administrator when the route is in danger (nothing in hand or on display extends it) or nothing on
  display is useful while the route needs a card;
* play: the card whose resulting position has the best plan value (extend, start anew, or — horses
  variant — lay a horse when the route needs more horses to be closed); the Postmaster first when a
  second card from the display (or deck) is worth more than a Postal Carrier or Cartwright this turn;
* after playing: a second card (Postal Carrier) when the plan continues with a hand card; close when no
  hand card can extend the route (unless a face-up card that extends it is likely to stay), when closing
  is worth more than every plan that goes on, when the route reached `close_at`, or in the last turns;
* houses: the legal set (option A / option B) with the highest value, all of it;
* Cartwright: whenever it gains a carriage, unless that ends the game while the bot is behind;
* discard: keeps the 3 cards that make the best start of the next route.

Deterministic: ties go to the lowest move code; the seed is unused.
"""
from __future__ import annotations

from itertools import combinations

from ..game.notation import PLAY_KINDS, make_move, move_city, move_kind
from ..game.rules import CARTWRIGHT_REACH, DISPLAY_SIZE, HAND_LIMIT, MAX_HORSE_CARDS, MIN_CLOSE
from .base import Bot, Observation
from .features import View, bits, popcount

NEG = float("-inf")
PLAN_TURNS = 4          # how many turns ahead a plan may play cards from hand
# The bounds of the options (a spec out of them is refused): the weights are points per card or turn, so
# beyond 1000 they only overflow the plans' sums (1e308 gave inf and NaN comparisons); no route is
# longer than 100 cards.
WEIGHT_BOUNDS = (0.0, 1000.0)
CLOSE_AT_BOUNDS = (MIN_CLOSE, 100)


class HeuristicBot(Bot):
    spec = "heuristic"

    def __init__(self, seed: int = 0, forbid=frozenset(), close_at: int | None = None,
                 turn_cost: float = 0.5, next_weight: float = 0.4, partial: float = 0.5,
                 scarce_bonus: float = 0.3, postmaster_margin: float = 0.1):
        super().__init__(seed, forbid)
        lo, hi = CLOSE_AT_BOUNDS
        if close_at is not None and (not isinstance(close_at, int) or isinstance(close_at, bool)
                                     or not lo <= close_at <= hi):
            raise ValueError(f"close_at must be a whole number from {lo} to {hi}, not {close_at!r}")
        for name, val in (("turn_cost", turn_cost), ("next_weight", next_weight), ("partial", partial),
                          ("scarce_bonus", scarce_bonus), ("postmaster_margin", postmaster_margin)):
            wlo, whi = WEIGHT_BOUNDS
            if not isinstance(val, (int, float)) or isinstance(val, bool) or not wlo <= val <= whi:
                raise ValueError(f"{name} must be a number from {wlo:g} to {whi:g}, not {val!r}")
        self.close_at = close_at
        self.turn_cost = float(turn_cost)
        self.next_weight = float(next_weight)
        self.partial = float(partial)
        self.scarce_bonus = float(scarce_bonus)
        self.postmaster_margin = float(postmaster_margin)

    def choose(self, obs: Observation) -> int:
        state = obs.state
        moves = self.allowed_moves(state)
        if len(moves) == 1:
            return moves[0]
        planner = self.planner(View(state, obs.player))
        phase = state.phase
        if phase == "draw":
            return planner.choose_draw(moves)
        if phase == "play":
            return planner.choose_play(moves)
        if phase == "after_play":
            return planner.choose_after_play(moves)
        if phase == "houses":
            return planner.choose_house(moves)
        if phase == "cartwright":
            return planner.choose_cartwright(moves)
        if phase == "discard":
            return planner.choose_discard(moves)
        return moves[0]

    def planner(self, view: View) -> Planner:
        """One decision's planner (a variant such as bots/racer.py gives its own)."""
        return Planner(view, self)


class Planner:
    """One decision's evaluation: the view, the bot's weights and caches."""

    def __init__(self, view: View, bot: HeuristicBot):
        self.v = view
        self.bot = bot
        info = view.info
        self.info = info
        self.cost = bot.turn_cost
        self.cartwright_ok = info.cartwright and "cartwright" not in bot.forbid
        self.turns_left = self._turns_left()
        last_turn = view.end_triggered
        self.next_weight = 0.0 if last_turn else bot.next_weight * min(1.0, self.turns_left / 4)
        # single-city provinces: scarce cards that every all-provinces tile needs
        self.bonus = [bot.scarce_bonus if (info.province[c] >= 0 and
                                           popcount(info.province_mask[info.province[c]]) == 1
                                           and view.values[c] > 0) else 0.0 for c in range(info.n)]
        self.hv = [view.values[c] + self.bonus[c] for c in range(info.n)]
        self._np_cache: dict[int, float] = {}
        self._plan_cache: dict[tuple, tuple[float, tuple]] = {}
        self._houses_cache: dict[int, float] = {}

    # ---- how long the game may last ----------------------------------------------------------------

    def _turns_left(self) -> int:
        """A rough count of this player's turns before the game ends (99: no end in sight)."""
        v = self.v
        if v.end_triggered:
            return 0                      # this is the last turn
        best = 99
        cars = v.info.carriages
        for o in range(v.n_players):
            route_len = len(v.routes[o])
            if cars and v.carriage_by_player[o] == len(cars) - 2:
                # one close away from the last carriage (a route that much shorter, with the Cartwright)
                need = max(cars[-1][0] - CARTWRIGHT_REACH, MIN_CLOSE)
                best = min(best, max(1, need - route_len))
            if v.houses_left_by_player[o] <= MIN_CLOSE:     # the shortest route closed places them all
                best = min(best, max(1, MIN_CLOSE - route_len))
        return best

    # ---- values of routes and hands ----------------------------------------------------------------

    def houses_estimate(self, rmask: int) -> float:
        """Best house set of a route, estimated by adding house values (cached per route)."""
        got = self._houses_cache.get(rmask)
        if got is not None:
            return got
        val = self.v.approx_houses_value(rmask, self.hv)
        if self.v.houses_left < popcount(rmask):
            val = min(val, float(self.v.houses_left) * 2)
        self._houses_cache[rmask] = val
        return val

    def route_close_value(self, rmask: int, length: int, cartwright: bool) -> float:
        v = self.v
        return (self.houses_estimate(rmask) + v.route_tile_value(length)
                + v.carriage_gain(length, cartwright and self.cartwright_ok))

    def next_route_value(self, cards: int) -> float:
        """The best start of a next route among these cards: a path of at most 3 of them, valued by its
        houses plus half a point a card."""
        if not cards:
            return 0.0
        got = self._np_cache.get(cards)
        if got is not None:
            return got
        adj, hv = self.info.adj, self.hv
        best = 0.0
        for a in bits(cards):
            best = max(best, hv[a] + 0.5)
            for b in bits(cards & adj[a] & ~(1 << a)):
                best = max(best, hv[a] + hv[b] + 1.0)
                for c in bits(cards & (adj[a] | adj[b]) & ~(1 << a) & ~(1 << b)):
                    best = max(best, hv[a] + hv[b] + hv[c] + 1.5)
        self._np_cache[cards] = best
        return best

    def plan(self, route: tuple, hand: tuple, capacity: int, horse_slots: int,
             max_cards: int, cartwright_now: bool) -> tuple[float, tuple]:
        """(value, chain) of the best way to go on with `route` using the cards of `hand` (counts per
        city). A chain is ((kind, city), ...); the empty chain means closing now (or, when the route
        cannot be closed, waiting for cards)."""
        key = (route, hand, capacity, horse_slots, max_cards, cartwright_now)
        got = self._plan_cache.get(key)
        if got is not None:
            return got
        info, adj, cost = self.info, self.info.adj, self.cost
        hmask = sum(1 << x for x, k in enumerate(hand) if k)
        horses_variant = info.horses_variant
        best: list = [NEG, ()]
        seen = set()

        dups = sum(1 << x for x, k in enumerate(hand) if k > 1)
        hand_horses = sorted(((info.horses[x], x) for x in range(info.n) for _ in range(hand[x])),
                             reverse=True) if horses_variant else ()

        def score(rmask, length, used, n_cards):
            left_cards = (hmask & ~used) | (used & dups)   # a card used leaves its duplicates in hand
            extra_turns = 0
            closable = length >= 3
            if closable and horses_variant and length > capacity:
                # lay the strongest spare cards as horses (one copy of each route card is in use)
                need = length - capacity
                k = 0
                skip = used
                for h, x in hand_horses:
                    if need <= 0 or k >= horse_slots:
                        break
                    if skip >> x & 1:
                        skip &= ~(1 << x)
                        continue
                    need -= h
                    k += 1
                closable = need <= 0
                extra_turns = k
            if n_cards + extra_turns > max_cards:
                return NEG
            future = self.next_weight * self.next_route_value(left_cards)
            if closable:
                cw = cartwright_now if n_cards == 0 else True
                val = self.route_close_value(rmask, length, cw)
            else:
                val = self.bot.partial * self.houses_estimate(rmask)
            return val - cost * (n_cards + extra_turns) + future

        def visit(left, right, length, rmask, used, chain):
            state_key = (left, right, rmask)
            if state_key in seen:
                return
            seen.add(state_key)
            s = score(rmask, length, used, len(chain))
            if s > best[0]:
                best[0], best[1] = s, chain
            if len(chain) >= max_cards:
                return
            cand = hmask & ~used & ~rmask
            if length == 0:
                for x in bits(cand):
                    visit(x, x, 1, 1 << x, used | 1 << x, chain + (("new", x),))
                return
            for x in bits(cand & adj[right]):
                visit(left, x, length + 1, rmask | 1 << x, used | 1 << x, chain + (("right", x),))
            if length > 1:
                for x in bits(cand & adj[left]):
                    visit(x, right, length + 1, rmask | 1 << x, used | 1 << x, chain + (("left", x),))

        if route:
            rmask = sum(1 << x for x in route)
            visit(route[0], route[-1], len(route), rmask, 0, ())
        else:
            visit(-1, -1, 0, 0, 0, ())
        out = (best[0], best[1])
        self._plan_cache[key] = out
        return out

    # ---- the current position ----------------------------------------------------------------------

    def _max_cards(self, plays_left_now: int) -> int:
        """Cards the plan may still play: this turn's, plus one a turn before the (estimated) end."""
        if self.v.end_triggered:
            return plays_left_now
        # plans longer than a few turns are speculation (and slow to enumerate)
        return plays_left_now + min(max(self.turns_left - 1, 0) + 1, PLAN_TURNS)

    def position_value(self, route=None, hand=None, capacity=None, horse_slots=None,
                       plays_left_now: int = 1, cartwright_now: bool | None = None):
        v = self.v
        route = tuple(v.route if route is None else route)
        hand = tuple(v.hand if hand is None else hand)
        capacity = v.horse_capacity if capacity is None else capacity
        horse_slots = (MAX_HORSE_CARDS - v.horse_cards_n) if horse_slots is None else horse_slots
        if cartwright_now is None:
            cartwright_now = v.official == 0
        return self.plan(route, hand, capacity, horse_slots, self._max_cards(plays_left_now), cartwright_now)

    def _with_card(self, x: int) -> tuple:
        h = list(self.v.hand)
        h[x] += 1
        return tuple(h)

    def _without_card(self, x: int) -> tuple:
        h = list(self.v.hand)
        h[x] -= 1
        return tuple(h)

    def _plays_left_now(self) -> int:
        v = self.v
        carrier = v.official == 0 and "postal_carrier" not in self.bot.forbid
        return (1 if v.plays == 0 else 0) + (1 if carrier else 0)

    def draw_values(self, moves) -> dict:
        """Plan value after each possible draw (the deck: expected over the unseen cards)."""
        v = self.v
        plays = self._plays_left_now()
        out = {}
        per_city = {}

        base_value, base_chain = self.position_value(plays_left_now=plays)
        # cards the plan could use: those joined by a road to the route's ends or to a card in hand
        reachable = v.hand_mask | v.fitting_mask()
        for x in bits(v.hand_mask):
            reachable |= self.info.adj[x]
        base_left = v.hand_mask & ~sum(1 << x for _, x in base_chain)
        base_next = self.next_route_value(base_left)

        def value_with(x):
            if x not in per_city:
                if v.route and not reachable >> x & 1 and not self.info.horses_variant:
                    # a card no plan can use only adds a possible start of the next route
                    alone = self.hv[x] + 0.5
                    per_city[x] = base_value + self.next_weight * max(0.0, alone - base_next)
                else:
                    per_city[x] = self.position_value(hand=self._with_card(x), plays_left_now=plays)[0]
            return per_city[x]

        for m in moves:
            k = move_kind(m)
            if k == "draw":
                out[m] = value_with(move_city(m))
            elif k == "deck":
                if v.pool_n:
                    out[m] = sum(n * value_with(x) for x, n in enumerate(v.pool) if n) / v.pool_n
                else:
                    out[m] = NEG
        return out

    def route_in_danger(self) -> bool:
        """The route holds something (2+ cards) and neither hand nor display can extend it."""
        v = self.v
        if len(v.route) < 2:
            return False
        fit = v.fitting_mask()
        if fit & v.hand_mask:
            return False
        return not any(v.display[x] for x in bits(fit))

    def _pool_fit_probability(self) -> float:
        v = self.v
        if not v.pool_n:
            return 0.0
        fit = v.fitting_mask()
        return sum(v.pool[x] for x in bits(fit)) / v.pool_n

    # ---- decisions -----------------------------------------------------------------------------------

    @staticmethod
    def _argmax(values: dict) -> int:
        return max(values, key=lambda m: (values[m], -m))

    def choose_draw(self, moves) -> int:
        admin = make_move("administrator")
        # six fresh cards to choose from beat one or two blind draws when only a fit saves the route
        if admin in moves and self.route_in_danger() and self._pool_fit_probability() > 0:
            return admin
        values = self.draw_values(moves)
        if not values:
            return moves[0]
        return self._argmax(values)

    def _postmaster_worth(self, moves) -> int | None:
        """The second draw to take, if a second card is worth more than this turn's other officials."""
        v = self.v
        draws = [m for m in moves if move_kind(m) in ("draw", "deck")]
        if not draws or "postmaster" in self.bot.forbid:
            return None
        dv = self.draw_values(draws)
        best_draw = self._argmax(dv)
        value, chain = self.position_value(plays_left_now=self._plays_left_now())
        gain = dv[best_draw] - value
        # what the Postmaster costs: the Postal Carrier (a turn saved when two cards fit) and the
        # Cartwright (a carriage when closing this turn)
        forgone = 0.0
        if len(chain) >= 2 and "postal_carrier" not in self.bot.forbid:
            forgone += self.cost
        if self.cartwright_ok and len(chain) <= 1:
            length = len(v.route) + len(chain)
            if v.needs_cartwright(length) and length >= 3:
                forgone += v.carriage_gain(length, True)
        if self.route_in_danger() or not (v.fitting_mask() & v.hand_mask):
            forgone = 0.0                 # the route needs cards more than anything else
        if gain > forgone + self.bot.postmaster_margin:
            return best_draw
        return None

    def _play_values(self, moves, carrier_bonus: float = 0.0) -> dict:
        """Plan value after each card play in moves."""
        v = self.v
        out = {}
        after_plays = 1 if (v.plays == 0 and v.official == 0 and "postal_carrier" not in self.bot.forbid) else 0
        cw_now = v.official == 0 and v.plays == 0
        for m in moves:
            k = move_kind(m)
            if k not in PLAY_KINDS:
                continue
            x = move_city(m)
            hand = self._without_card(x)
            if k == "horse":
                val = self.position_value(hand=hand, capacity=v.horse_capacity + v.info.horses[x],
                                          horse_slots=MAX_HORSE_CARDS - 1 - v.horse_cards_n, plays_left_now=after_plays,
                                          cartwright_now=cw_now)[0]
            else:
                if k == "new":
                    route = (x,)
                elif k == "left":
                    route = (x,) + tuple(v.route)
                else:
                    route = tuple(v.route) + (x,)
                val = self.position_value(route=route, hand=hand, plays_left_now=after_plays,
                                          cartwright_now=cw_now)[0]
            out[m] = val + carrier_bonus
        return out

    def choose_play(self, moves) -> int:
        if any(move_kind(m) in ("draw", "deck") for m in moves):
            pm = self._postmaster_worth(moves)
            if pm is not None:
                return pm
        values = self._play_values(moves)
        if not values:
            return moves[0]
        return self._argmax(values)

    def _should_close_now(self) -> bool:
        v = self.v
        length = len(v.route)
        if v.end_triggered or self.turns_left <= 1:
            return True
        if self.bot.close_at is not None and length >= self.bot.close_at:
            return True
        return False

    def choose_after_play(self, moves) -> int:
        v = self.v
        close, stop = make_move("close"), make_move("stop")
        can_close = close in moves
        if can_close and self._should_close_now():
            carrier = self._play_values(moves, carrier_bonus=self.cost)
            # in the last turn a second card is still worth playing first if it adds to the route
            if carrier and v.end_triggered:
                m = self._argmax(carrier)
                if move_kind(m) in ("left", "right"):
                    return m
            return close
        values = self._play_values(moves, carrier_bonus=self.cost)
        # the Postal Carrier plays a card of the plan a turn early; never to start over
        values = {m: val for m, val in values.items()
                  if move_kind(m) in ("left", "right", "horse") or not v.route}
        if can_close:
            values[close] = self.close_value()
        values[stop] = self.stop_value()
        return self._argmax(values)

    def close_value(self) -> float:
        v = self.v
        cw = v.official == 0
        length = len(v.route)
        houses = v.best_houses(v.route_mask)[1]
        hands_left = self.next_weight * self.next_route_value(v.hand_mask)
        return houses + v.route_tile_value(length) + v.carriage_gain(length, cw and self.cartwright_ok) + hands_left

    def stop_value(self) -> float:
        """Going on with the route: the best plan that plays more hand cards, or, with no card in hand
        that fits, the chance that a face-up card that fits is still there next turn."""
        v = self.v
        value, chain = self.position_value(plays_left_now=0, cartwright_now=False)
        if chain:
            return value
        length = len(v.route)
        can_close = v.can_close_length(length)
        fit_display = [x for x in bits(v.fitting_mask()) if v.display[x]]
        if not can_close:
            return value                  # nothing to lose by waiting
        if not fit_display or self.turns_left <= 1:
            return NEG
        # a fitting face-up card survives each opponent's draw with probability about 5/6 (one of the six
        # face-up cards taken)
        keep = ((DISPLAY_SIZE - 1) / DISPLAY_SIZE) ** (v.n_players - 1)
        x = max(fit_display, key=lambda c: self.hv[c])
        rmask = v.route_mask | 1 << x
        grown = self.route_close_value(rmask, length + 1, True) - self.cost
        lost = self.next_weight * self.next_route_value(v.hand_mask)
        return keep * grown + (1 - keep) * lost

    def choose_house(self, moves) -> int:
        v = self.v
        before = v.houses & ~v.placed_now
        left_before = v.houses_left + popcount(v.placed_now)
        target = 0
        for mask, _ in v.house_options(v.route_mask, before, left_before):
            if mask & v.placed_now == v.placed_now:
                target = mask
                break
        for c in bits(target & ~v.placed_now):
            m = make_move("house", c)
            if m in moves:
                return m
        done = make_move("done")
        if done in moves:
            return done
        return moves[0]

    def choose_cartwright(self, moves) -> int:
        v = self.v
        yes, no = make_move("cartwright"), make_move("no_cartwright")
        if yes not in moves:
            return moves[0]
        cars = v.info.carriages
        ends_game = v.carriage + 1 == len(cars) - 1
        if ends_game and not v.end_triggered:
            # the last carriage ends the game: take it only when not behind (carriage + game-end tile)
            mine = v.scores[v.p] + v.carriage_gain(cars[-1][0]) + 1
            best_other = max(s for o, s in enumerate(v.scores) if o != v.p)
            if mine < best_other and no in moves:
                return no
        return yes

    def choose_discard(self, moves) -> int:
        v = self.v
        cards = [x for x in range(v.info.n) for _ in range(v.hand[x])]
        keep_n = min(HAND_LIMIT, len(cards))
        horses_variant = v.info.horses_variant
        best_key: float | None = None
        best_keep: tuple[int, ...] = ()
        for keep in sorted(set(combinations(cards, keep_n))):
            mask = sum(1 << x for x in set(keep))
            key = self.next_route_value(mask) + 0.05 * len(set(keep))
            if horses_variant:
                key += 0.05 * sum(v.info.horses[x] for x in keep)
            if best_key is None or key > best_key:
                best_key, best_keep = key, keep
        return v.discard_move(cards, best_keep, moves)
