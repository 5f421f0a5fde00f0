"""The greedy bot: each decision maximises a simple, immediate evaluation; it never plans ahead.

What it does, decision by decision (see docs/bots.md):

* draw: a face-up card that extends its route (a city without its own house first), else with no route
  a face-up card joined by a road to a card in hand, else the deck. Never the Administrator.
* play: every card it could play is tried on a copy of the state and the result scored:
  10 per route card, +2 per route city without its own house, +1 per hand card that then fits an end,
  and (horses variant) -12 per route card beyond what its horses can pull. A second draw (Postmaster)
  is taken only when a face-up card extends the route and no hand card does.
* after playing: a second card (Postal Carrier) when the score above improves; close when the route is
  at least `close_at` long (default: the size of its next carriage, 5 with horses) or when no card in
  hand extends it; otherwise end the turn.
* houses: every legal house set (option A with the best city per province, option B per province) is
  placed on a copy, and the one giving the highest score (houses + tiles taken now) is placed in full.
* Cartwright: always, when offered. Discard: keeps the cards with the most roads to other cards in hand.

Ties go to the lowest city index, so the bot is deterministic; the seed is unused.
"""
from __future__ import annotations

from ..game.notation import PLAY_KINDS, make_move, move_city, move_kind
from ..game.rules import HAND_LIMIT, MIN_CLOSE
from .base import Bot, Observation
from .features import View, bits, popcount

HORSES_CLOSE_AT = 5     # the route length to close at with no carriage to aim for (the horses variant)
#: the route lengths close_at may ask for (the heuristic bot's bounds: a route never reaches 100 cities)
CLOSE_AT_BOUNDS = (MIN_CLOSE, 100)


class GreedyBot(Bot):
    spec = "greedy"

    def __init__(self, seed: int = 0, forbid=frozenset(), close_at: int | None = None):
        super().__init__(seed, forbid)
        lo, hi = CLOSE_AT_BOUNDS
        if close_at is not None and (not isinstance(close_at, int) or isinstance(close_at, bool)
                                     or not lo <= close_at <= hi):
            raise ValueError(f"close_at must be a whole number from {lo} to {hi}, not {close_at!r}")
        self.close_at = close_at

    def choose(self, obs: Observation) -> int:
        state = obs.state
        moves = self.allowed_moves(state)
        if len(moves) == 1:
            return moves[0]
        view = View(state, obs.player)
        phase = state.phase
        if phase == "draw":
            return self._draw(view, moves)
        if phase in ("play", "after_play"):
            return self._play(view, moves)
        if phase == "houses":
            return self._houses(view, moves)
        if phase == "cartwright":
            return make_move("cartwright") if make_move("cartwright") in moves else moves[0]
        if phase == "discard":
            return self._discard(view, moves)
        return moves[0]

    # ---- drawing -------------------------------------------------------------------------------------

    def _card_draw_score(self, view: View, x: int) -> int:
        unhoused = not view.houses >> x & 1
        if view.route:
            if view.fits(x):
                return 2 + unhoused
            return 0
        return 1 if view.info.adj[x] & view.hand_mask and unhoused else 0

    def _best_display(self, view: View, moves) -> tuple[int, int | None]:
        best, best_move = 0, None
        for m in moves:
            if move_kind(m) == "draw":
                s = self._card_draw_score(view, move_city(m))
                if s > best:
                    best, best_move = s, m
        return best, best_move

    def _draw(self, view: View, moves) -> int:
        score, move = self._best_display(view, moves)
        if move is not None:
            return move
        deck = make_move("deck")
        if deck in moves:
            return deck
        return next(m for m in moves if move_kind(m) != "administrator")

    # ---- playing -------------------------------------------------------------------------------------

    def _route_score(self, state, p: int) -> int:
        view = View(state, p)
        score = 10 * len(view.route) + 2 * popcount(view.route_mask & ~view.houses)
        score += sum(1 for x in bits(view.hand_mask) if view.fits(x))
        if view.info.horses_variant:
            score -= 12 * max(0, len(view.route) - view.horse_capacity)
        return score

    def _play(self, view: View, moves) -> int:
        state, p = view.state, view.p
        plays = [m for m in moves if move_kind(m) in PLAY_KINDS]
        if view.phase == "play" and any(move_kind(m) in ("draw", "deck") for m in moves):
            # Postmaster: only for a face-up card that extends the route when no hand card does
            score, move = self._best_display(view, moves)
            if move is not None and score >= 2 and not any(view.fits(x) for x in bits(view.hand_mask)):
                return move
        if view.phase == "after_play":
            base = self._route_score(state, p)
        best: int | None = None
        best_move: int | None = None
        for m in plays:
            s = state.clone()
            s.apply(m)
            score = self._route_score(s, p)
            if best is None or score > best:
                best, best_move = score, m
        if view.phase == "play":
            assert best_move is not None    # with more than one move, some card can be played
            return best_move
        # after playing: a second card only if it improves the route
        if best_move is not None and best is not None and best > base:
            return best_move
        close = make_move("close")
        if close in moves and self._wants_close(view):
            return close
        return make_move("stop")

    def _wants_close(self, view: View) -> bool:
        length = len(view.route)
        target = self.close_at
        if target is None:
            target = view.next_carriage_size() or HORSES_CLOSE_AT
        if length >= target:
            return True
        return not any(view.fits(x) for x in bits(view.hand_mask))

    # ---- closing -------------------------------------------------------------------------------------

    def _houses(self, view: View, moves) -> int:
        state, p = view.state, view.p
        before = view.houses & ~view.placed_now
        left_before = view.houses_left + popcount(view.placed_now)
        best, best_set = None, 0
        for mask, _ in view.house_options(view.route_mask, before, left_before):
            if mask & view.placed_now != view.placed_now:
                continue
            score = self._score_after_houses(state, p, mask & ~view.placed_now)
            if score is None:
                continue
            key = (score, popcount(mask), -mask)
            if best is None or key > best:
                best, best_set = key, mask
        for c in bits(best_set & ~view.placed_now):
            m = make_move("house", c)
            if m in moves:
                return m
        return make_move("done")

    @staticmethod
    def _score_after_houses(state, p: int, cities: int):
        s = state.clone()
        for c in bits(cities):
            m = make_move("house", c)
            if not s.is_legal(m):
                return None
            s.apply(m)
        if s.current_player == p and s.phase == "houses":
            s.apply(make_move("done"))
        return s.score(p)

    def _discard(self, view: View, moves) -> int:
        adj = view.info.adj
        cards = [x for x in range(view.info.n) for _ in range(view.hand[x])]

        def keep_score(x):
            links = sum(1 for y in bits(view.hand_mask) if adj[x] >> y & 1)
            return (links, not view.houses >> x & 1, -x)

        keep = sorted(cards, key=keep_score, reverse=True)[:HAND_LIMIT]
        return view.discard_move(cards, keep, moves)
