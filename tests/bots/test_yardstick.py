"""The rule-based `heuristic` bot is the fixed yardstick of every strength measurement: its play must
stay exactly as it was when the multi-player strength targets were set (commit 52c3683). This pins a
fingerprint of its self-play games on fixed seeds (South 2/3/4 players, North 3 players): every move and
the final scores. The value was computed at commit 52c3683 with the same code as below; if this test
fails, the heuristic bot (or the engine under it) plays differently and every comparison against it is
void -- make a new bot under a new name instead."""
import hashlib

from thurn_ai.bots import make_bot
from thurn_ai.play.match import play_game
from thurn_ai.game.rules import Rules

FINGERPRINT_52C3683 = "0b85d1f9d37fc9f01b53ab1bc0b271a0aa27d81f87af4bd9344bcb965877e579"


def test_heuristic_plays_exactly_as_at_the_yardstick_commit():
    h = hashlib.sha256()
    for players, board in ((2, "south"), (3, "south"), (4, "south"), (3, "north")):
        for seed in range(3):
            bots = [make_bot("heuristic", seed=i) for i in range(players)]
            rec = play_game(Rules(players=players, board=board), bots, seed=seed)
            h.update((" ".join(rec.moves) + "|" + ",".join(map(str, rec.scores)) + "\n").encode())
    assert h.hexdigest() == FINGERPRINT_52C3683
