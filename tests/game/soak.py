"""Soak test: many whole games on every board, variant and player count, invariants checked all along.
Part of the test suite (it runs the suite's own checks for as long as it is given), run by hand from
the checkout's root:

    python -m tests.game.soak --minutes 3                 # as long as that, configurations in turn
    python -m tests.game.soak --games 20 --seed 7 --json  # 20 games per configuration, JSON summary
    python -m tests.game.soak --game north-horses-3p-bots:1234   # one game again (from a failure)

Configurations: South (classic), North (horses) and North (classic) for 2, 3 and 4 players, each with
  * random games stepped in Python (`apply_random`), and
  * bot games played by thurn_ai.play.match.play_game, the seats drawn from random, greedy, heuristic and
    mcts(iterations=50); the record must round-trip through JSON and replay to the same scores.
Checked before every move and at the end, with the test suite's own checks (imported, not copied:
tests/game/test_north.py's check_invariants for every board — cards, houses and tiles conserved, routes,
placements, scores, a legal move before the end — and, on the South board, tests/game/test_properties.py's
per-move Tracker — houses, tiles and carriages only for the mover, one official per turn):
  * the game ends by the rules (never by the max_turns safeguard, never more than MAX_MOVES moves);
  * every --roundtrip-every moves and at the end, the position round-trips: position_from_dict(to_dict())
    is the same state, the saved text holds the same data, and the view of the player to move loads (a
    state consistent with it, whose view is the same).
A failure does not stop the run: it is listed with its configuration and seed (rerun it with --game).
Exit status 1 if any invariant was violated.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path

import thurn_ai
from tests.game.test_north import check_invariants      # the suite's invariant checks, reused, not copied
from tests.game.test_properties import Tracker
from thurn_ai.bots import make_bot
from thurn_ai.game.rules import PLAYER_COUNTS
from thurn_ai.play.match import GameRecord, derive_seed, play_game, replay
from thurn_ai.position import dumps_position, position_from_dict

GAMES = [("south", "classic"), ("north", "horses"), ("north", "classic")]
PLAYERS = PLAYER_COUNTS
KINDS = ("random", "bots")
BOTS = ("random", "greedy", "heuristic", "mcts(iterations=50)")
MAX_MOVES = 20_000


class Config:
    def __init__(self, board: str, variant: str, players: int, kind: str):
        self.board, self.variant, self.players, self.kind = board, variant, players, kind
        self.rules = thurn_ai.Rules(players=players, board=board, variant=variant)

    @property
    def key(self) -> str:
        return f"{self.board}-{self.variant}-{self.players}p-{self.kind}"


CONFIGS = [Config(b, v, n, k) for b, v in GAMES for n in PLAYERS for k in KINDS]


class Checker:
    """Checks one game's positions: the suite's invariants every move, a round trip now and then."""

    def __init__(self, cfg: Config, seed: int, roundtrip_every: int):
        self.cfg, self.rng, self.every = cfg, random.Random(seed), roundtrip_every
        self.moves = self.roundtrips = 0
        self.tracker = None

    def before_move(self, g) -> None:
        check_invariants(g, self.cfg.rules)
        if self.moves % self.every == 0:
            self.roundtrip(g)
        self.moves += 1
        if self.moves > MAX_MOVES:
            raise AssertionError(f"the game did not end within {MAX_MOVES} moves")

    def roundtrip(self, g) -> None:
        d = g.to_dict()
        assert position_from_dict(d).export() == g.export(), "complete position does not reload the same"
        assert json.loads(dumps_position(d)) == d, "the saved text changes the position"
        viewer = g.current_player if not g.is_terminal() else self.rng.randrange(g.n_players)
        view = g.to_dict(viewer=viewer)
        h = position_from_dict(view, seed=self.rng.getrandbits(32))
        assert h.to_dict(viewer=viewer) == view, "a state dealt from a view has another view"
        check_invariants(h, self.cfg.rules)
        self.roundtrips += 1

    def final(self, g) -> None:
        check_invariants(g, self.cfg.rules)
        d = g.export()
        assert g.is_terminal() and not d["truncated"] and d["end_triggered"], "the game must end by the rules"
        assert g.legal_moves() == []
        self.roundtrip(g)


def play_random(cfg: Config, seed: int, chk: Checker) -> dict:
    g = thurn_ai.new_game(rules=cfg.rules, seed=seed)
    tracker = Tracker(g) if cfg.board == "south" else None
    rng = random.Random(seed ^ 0x5EED)
    while not g.is_terminal():
        chk.before_move(g)
        move = rng.choice(g.legal_moves())
        if tracker:
            tracker.apply(move)            # applies it and checks the change
        else:
            g.apply(move)
    chk.final(g)
    return {"bots": []}


def play_bots(cfg: Config, seed: int, chk: Checker) -> dict:
    rng = random.Random(seed)
    specs = [rng.choice(BOTS) for _ in range(cfg.players)]
    bots = [make_bot(s, derive_seed("soak bot", seed, i)) for i, s in enumerate(specs)]
    last = []

    def on_move(state, player, move):
        if not last:
            last.append(state)
        chk.before_move(state)

    rec = play_game(cfg.rules, bots, seed, on_move=on_move)
    final = last[0]                         # play_game plays this one state to the end
    chk.final(final)
    again = GameRecord.from_json(rec.to_json())
    replayed = replay(again)
    assert replayed.export() == final.export() and replayed.scores() == rec.scores, "the record does not replay"
    return {"bots": specs}


def play_one(cfg: Config, seed: int, roundtrip_every: int) -> tuple[Checker, dict | None, str | None]:
    chk = Checker(cfg, seed, roundtrip_every)
    try:
        info = (play_random if cfg.kind == "random" else play_bots)(cfg, seed, chk)
        return chk, info, None
    except Exception as e:                                     # noqa: BLE001 — every failure is reported
        where = traceback.extract_tb(e.__traceback__)[-1]
        return chk, None, f"{type(e).__name__}: {e} (move {chk.moves}, {Path(where.filename).name}:{where.lineno})"


def run(args) -> dict:
    start = time.monotonic()
    deadline = start + args.minutes * 60 if args.minutes else None
    stats = {c.key: dict.fromkeys(("games", "moves checked", "round trips", "violations", "seconds"), 0)
             for c in CONFIGS}
    bot_seats: dict[str, int] = defaultdict(int)
    failures = []
    index = 0
    while True:
        if args.games and index >= args.games:
            break
        for cfg in CONFIGS:
            if deadline and time.monotonic() > deadline:
                break
            seed = derive_seed("soak", args.seed, cfg.key, index)
            t0 = time.monotonic()
            chk, info, error = play_one(cfg, seed, args.roundtrip_every)
            s = stats[cfg.key]
            s["games"] += 1
            s["moves checked"] += chk.moves
            s["round trips"] += chk.roundtrips
            s["seconds"] += time.monotonic() - t0
            if error:
                s["violations"] += 1
                failures.append({"config": cfg.key, "seed": seed, "error": error,
                                 "rerun": f"python -m tests.game.soak --game {cfg.key}:{seed}"})
                if not args.json:
                    print(f"VIOLATION {cfg.key} seed {seed}: {error}", file=sys.stderr)
            else:
                for spec in info["bots"]:
                    bot_seats[spec] += 1
        else:
            index += 1
            continue
        break
    games = sum(s["games"] for s in stats.values())
    return {"seed": args.seed, "minutes": round((time.monotonic() - start) / 60, 2), "games": games,
            "moves checked": sum(s["moves checked"] for s in stats.values()),
            "round trips": sum(s["round trips"] for s in stats.values()),
            "violations": len(failures), "bot seats": dict(bot_seats),
            "configurations": {k: {**v, "seconds": round(v["seconds"], 1)} for k, v in stats.items()},
            "failures": failures}


def print_summary(summary: dict) -> None:
    print(f"{'configuration':<28} {'games':>6} {'moves checked':>14} {'round trips':>12} {'violations':>10} "
          f"{'seconds':>8}")
    for key, s in summary["configurations"].items():
        print(f"{key:<28} {s['games']:>6} {s['moves checked']:>14} {s['round trips']:>12} {s['violations']:>10} "
              f"{s['seconds']:>8}")
    print(f"\n{summary['games']} games in {summary['minutes']} minutes, {summary['moves checked']} moves "
          f"checked, {summary['round trips']} position round trips, bot seats {summary['bot seats']}")
    print(f"violations: {summary['violations']}")
    for f in summary["failures"]:
        print(f"  {f['config']} seed {f['seed']}: {f['error']}\n    rerun: {f['rerun']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="Without --games or --minutes, one game per configuration.")
    ap.add_argument("--games", type=int, default=0, help="games per configuration (0: until --minutes)")
    ap.add_argument("--minutes", type=float, default=0, help="stop starting games after this long")
    ap.add_argument("--seed", type=int, default=1, help="base seed (each game's seed derives from it)")
    ap.add_argument("--roundtrip-every", type=int, default=25, metavar="N",
                    help="round-trip the position every N moves (and at the end)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--game", metavar="CONFIG:SEED", help="play one game again, e.g. south-classic-2p-bots:42")
    args = ap.parse_args(argv)
    if args.games < 0 or args.minutes < 0 or args.roundtrip_every < 1:
        ap.error("--games and --minutes must be >= 0, --roundtrip-every >= 1")
    if args.game:
        key, _, seed = args.game.rpartition(":")
        cfg = next((c for c in CONFIGS if c.key == key), None)
        if cfg is None or not seed.isdigit():
            ap.error(f"--game: use CONFIG:SEED with one of {', '.join(c.key for c in CONFIGS)}")
        chk, info, error = play_one(cfg, int(seed), 1)
        print(f"{cfg.key} seed {seed}: {chk.moves} moves, {chk.roundtrips} round trips, "
              + (f"VIOLATION {error}" if error else f"ok {info['bots']}"))
        return 1 if error else 0
    if not args.games and not args.minutes:
        args.games = 1
    summary = run(args)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print_summary(summary)
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
