"""A bot of your own, for thurn-ai: a one-move lookahead on the live score.

Play it from the command line (the file registers the bot `mybot` when it is imported):

    thurn-ai tournament --bot-module examples/my_bot.py --bots mybot,greedy --games 20 --seed 1
    thurn-ai play --bot-module examples/my_bot.py --bots "mybot(min_route=4),heuristic" --quiet

or install it as a plugin (docs/writing-a-bot.md): a distribution that names `MyBot` in the entry-point
group `thurn_ai.bots` makes `mybot` known to every thurn-ai command without --bot-module.
"""
from __future__ import annotations

from thurn_ai.bots import Bot, Observation, register


class MyBot(Bot):
    """Tries each legal move on a copy of the game, finishes its own turn there (each later move the one
    that scores most at once), and keeps the move whose turn ends with the best score for itself.

    `min_route`: do not close a route shorter than this while another move is possible. Options like this
    one are set in the spec string: mybot(min_route=4).
    """

    spec = "mybot"

    def __init__(self, seed: int = 0, forbid=frozenset(), min_route: int = 3):
        super().__init__(seed, forbid)               # self.rng: this bot's own seeded random.Random
        if not 1 <= min_route <= 9:
            raise ValueError("min_route must be between 1 and 9")
        self.min_route = min_route

    def choose(self, obs: Observation) -> int:
        state, me = obs.state, obs.player            # state: a game consistent with what `me` may know
        moves = self.allowed_moves(state)            # legal moves minus forbidden officials
        if len(state.route(me)) < self.min_route and len(moves) > 1:
            moves = [m for m in moves if state.move_str(m) != "close"] or moves
        # the best end-of-turn score; ties broken at random (seeded, so games repeat)
        return max(moves, key=lambda m: (self.end_of_turn_score(state, m, me), self.rng.random()))

    def end_of_turn_score(self, state, move: int, me: int) -> int:
        after = state.clone()
        after.apply(move)
        while not after.is_terminal() and after.current_player == me:
            after.apply(max(after.legal_moves(), key=lambda m: (self.score_after(after, m, me), self.rng.random())))
        return after.score(me)

    @staticmethod
    def score_after(state, move: int, me: int) -> int:
        after = state.clone()
        after.apply(move)
        return after.score(me)


register("mybot", MyBot)
