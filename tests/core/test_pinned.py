"""Pinned behaviour: move-tree counts and game fingerprints that a refactor must leave unchanged.

Issue 11 (architecture) restructures the compiled core, the search and the library around them; this file
proves the game itself did not change. Everything here is deterministic: chance (deck draws) comes from
the state's own seeded generator, so `clone()` + `apply()` replays the same cards and a move tree is well
defined (perft, as in python-chess's perft files: the number of move sequences of depth 1..k).

What is pinned (expected values in tests/data/pinned/pinned.json, computed at the commit named there:
ec99561, the last commit before the issue-11 work, from a clean export of that commit with its own build
of the compiled modules; the same values held at a182b1b and in the working tree when first committed):
  positions/NAME   the complete JSON position (`g.to_dict()`) reached by fixed-seed `apply_random()` play
                   from `thurn_ai.new_game(...)` (South 2/3/4 players, North horses 3 players, North classic
                   2 players; at the start and in the phases draw, play, after_play, houses, discard,
                   cartwright, and at the first decision after the end was triggered) is stored whole in
                   tests/data/pinned/positions.json; the positions are loaded from that file for the
                   perft counts, so a change to the random-move generator shows as one failure, not forty.
  perft/NAME       counts of move sequences of depth 1..DEPTH, the depth-DEPTH count under each first
                   move ("divide", keyed by notation) and a sha256 over the legal-move lists of every
                   node of the tree (codes, depth-first), so a tree with equal counts but other moves fails.
  state/NAME       sha256 of the raw fields (`export()`, the keys it had at pin time), of every player's
                   view (`to_dict(viewer=p)`), of `determinize(p, seed)` for every p, and of the end of a
                   compiled `playout()` from the position.
  game/...         sha256 over the moves and final scores/ranking/winner of whole games: uniform random
                   games (`apply_random()`, and a `random.Random(seed)` choice among `legal_moves()` with
                   the notation of every move), and bot games through `thurn_ai.play.match.play_game` with
                   `make_bot(spec, seed=i)` (random, greedy, mcts(iterations=50), pimc(iterations=50,
                   worlds=2), search options away from the defaults, a mixed table) on South 2/3/4 and North.
                   The heuristic bot's self-play is pinned in tests/bots/test_yardstick.py, not here.
  analyse/...      the rows (move, notation, visits, and share/win_prob/mean_score/value rounded to 6
                   places) of `make_bot(spec, seed=s).analyse(Observation(g, g.current_player, seed=t))`
                   and its principal_variation(), for mcts(iterations=300), pimc and some non-default
                   options, at fixed pinned positions.
Not pinned but checked: the round trips to_dict() -> position_from_dict() -> to_dict()/export(), a
player's view with a seed, and pickle.

When a change is deliberate (the game really should play differently), re-pin and say so in the commit:

    python tests/core/test_pinned.py --print     # print the current values (JSON) and the differences
    python tests/core/test_pinned.py --write     # rewrite tests/data/pinned/*.json at the current commit

Never re-pin to make a refactor pass: a refactor leaves every value here as it is.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
from array import array

import pytest

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.play.match import play_game
from thurn_ai.position import position_from_dict
from thurn_ai.game.rules import Rules

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "pinned")
PINNED_FILE = os.path.join(DATA, "pinned.json")
POSITIONS_FILE = os.path.join(DATA, "positions.json")
DEPTH = 5

# ---------------------------------------------------------------- which games and positions

CONFIGS = {
    "south2": dict(players=2, board="south"),
    "south3": dict(players=3, board="south"),
    "south4": dict(players=4, board="south"),
    "north3": dict(players=3, board="north", variant="horses"),
    "north2classic": dict(players=2, board="north", variant="classic"),
}
SEEDS = {"south2": 11, "south3": 12, "south4": 13, "north3": 14, "north2classic": 15}
# (label, phase wanted, uniformly random moves to play first); "end" = first decision after the end
# of the game was triggered. Cartwright exists only in the classic variant.
STOPS = [("start", "draw", 0), ("draw", "draw", 300), ("play", "play", 40), ("after_play", "after_play", 100),
         ("houses", "houses", 0), ("discard", "discard", 0), ("cartwright", "cartwright", 0), ("end", "end", 0)]


def rules_of(config: str) -> Rules:
    return Rules(**CONFIGS[config])


def reach(config: str, phase: str, after: int):
    """The first position in phase `phase` after at least `after` moves of the state's own uniformly
    random play from new_game(seed=SEEDS[config]) (or, if that game ends first, of the next of the seeds
    SEEDS[config] + 1000 j); None if none of ten games gets there."""
    for j in range(10):
        g = thurn_ai.new_game(rules=rules_of(config), seed=SEEDS[config] + 1000 * j)
        k = 0
        while not g.is_terminal():
            if k >= after:
                if phase == "end" and g.export()["end_triggered"]:
                    return g
                if g.phase == phase:
                    return g
            g.apply_random()
            k += 1
    return None


def position_names() -> list[str]:
    return [f"{c}/{label}" for c in CONFIGS for label, phase, _ in STOPS
            if not (phase == "cartwright" and rules_of(c).resolved_variant != "classic")]


def reach_named(name: str):
    config, label = name.split("/")
    _, phase, after = next(s for s in STOPS if s[0] == label)
    return reach(config, phase, after)


_POSITIONS: dict | None = None


def stored_positions() -> dict:
    global _POSITIONS
    if _POSITIONS is None:
        with open(POSITIONS_FILE, encoding="utf-8") as f:
            _POSITIONS = json.load(f)["positions"]
    return _POSITIONS


def load(name: str):
    return position_from_dict(stored_positions()[name])


# ---------------------------------------------------------------- what is computed


def sha(obj) -> str:
    if not isinstance(obj, bytes):
        obj = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(obj).hexdigest()


def perft(g, depth: int, h=None) -> int:
    if depth == 0:
        return 1
    if g.is_terminal():
        return 0
    moves = g.legal_moves()
    if h is not None:
        h.update(array("i", moves).tobytes() + b";")
    n = 0
    for m in moves:
        c = g.clone()
        c.apply(m)
        n += perft(c, depth - 1, h)
    return n


def perft_case(name: str) -> dict:
    g = load(name)
    counts = [perft(g, d) for d in range(1, DEPTH)]
    h = hashlib.sha256()
    divide = {}
    total = 0
    if not g.is_terminal():
        moves = g.legal_moves()
        h.update(array("i", moves).tobytes() + b";")
        for m in moves:
            c = g.clone()
            c.apply(m)
            divide[g.move_str(m)] = k = perft(c, DEPTH - 1, h)
            total += k
    return {"counts": counts + [total], "divide": divide, "tree": h.hexdigest()}


# the raw fields export() had when the values were pinned (a field added later does not break the pin)
EXPORT_KEYS = ("current", "phase", "official", "forced_pm", "draws", "plays", "last_house", "last_discard",
               "end_triggered", "end_player", "truncated", "turn", "placed_now", "display_n", "deck_n",
               "discard_n", "rng", "prng", "hand", "known", "display", "deck", "discard", "route",
               "horse_cards", "houses", "houses_left", "carriage", "stack_pos", "tiles_n", "tiles_pts",
               "official_uses", "closes")


def raw(g) -> dict:
    e = g.export()
    return {k: e[k] for k in EXPORT_KEYS}


def state_case(name: str) -> dict:
    g = load(name)
    n = g.n_players
    end = g.clone()
    steps = end.playout()
    return {"export": sha(raw(g)),
            "views": sha([g.to_dict(viewer=p) for p in range(n)]),
            "determinize": sha([raw(g.determinize(p, 1000 + p)) for p in range(n)]),
            "playout": sha([steps, end.scores(), end.ranking(), end.winner(), raw(end)])}


def random_game_case(config: str, seed: int, how: str) -> str:
    g = thurn_ai.new_game(rules=rules_of(config), seed=seed)
    h = hashlib.sha256()
    if how == "apply_random":
        moves = array("i")
        while not g.is_terminal():
            moves.append(g.apply_random())
        h.update(moves.tobytes())
    else:                                    # a seeded choice among legal_moves(), with the notation
        rnd = random.Random(seed)
        while not g.is_terminal():
            m = rnd.choice(g.legal_moves())
            h.update(f"{m}:{g.move_str(m)};".encode())
            g.apply(m)
    h.update(json.dumps([g.scores(), g.ranking(), g.winner(), g.turn]).encode())
    return h.hexdigest()


def as_pinned(spec: str) -> str:
    """The search a pinned name stands for: mcts's defaults as they were pinned (the hand-set evaluation and
    prior; since mcts's defaults became eval=learned and policy=learned the old ones are spelled out, and the
    names stay)."""
    if not spec.startswith("mcts"):
        return spec
    old = [o for o in ("eval=simple", "policy=handset") if o.split("=")[0] + "=" not in spec]
    if not old:
        return spec
    return spec[:-1] + "," + ",".join(old) + ")" if spec.endswith(")") else spec + "(" + ",".join(old) + ")"


def bot_game_case(config: str, specs: list[str], seed: int) -> str:
    rules = rules_of(config)
    bots = [make_bot(as_pinned(specs[i % len(specs)]), seed=i) for i in range(rules.players)]
    rec = play_game(rules, bots, seed=seed)
    return sha([rec.moves, rec.scores, rec.ranking, rec.winner, rec.turns, rec.truncated,
                rec.official_uses])


def analyse_case(name: str, spec: str, seed: int, obs_seed: int) -> list:
    g = load(name)
    bot = make_bot(as_pinned(spec), seed=seed)
    obs = Observation(g, g.current_player, seed=obs_seed)
    rows = [[r.move, r.notation, r.visits, round(r.share, 6), round(r.win_prob, 6),
             round(r.mean_score, 6), round(r.value, 6)] for r in bot.analyse(obs)]
    return {"rows": rows, "pv": bot.principal_variation(obs)}


GAME_BOTS = ["random", "greedy", "mcts(iterations=50)", "pimc(iterations=50,worlds=2)"]
# (full random playouts, horizon=0, make whole games take minutes: pinned in analyse/ only)
OPTION_BOTS = ["mcts(iterations=50,select=ucb,c=0.7,playout=random,reward=win,horizon=2)",
               "mcts(iterations=30,playout=plan,eval=plan,reward=margin,tiles=0.5,temp=2,widen=0.5,eps=0.1,"
               "prior=0.3,scale=5,horizon=2)",
               "mcts(iterations=50,forbid=postmaster+cartwright)"]
ANALYSE_AT = ["south2/play", "south3/after_play", "south4/houses", "north3/draw", "north2classic/discard",
              "south3/end"]


def cases() -> dict:
    """name -> function computing the value pinned under that name."""
    out = {}
    for name in position_names():
        out[f"perft/{name}"] = lambda name=name: perft_case(name)
        out[f"state/{name}"] = lambda name=name: state_case(name)
    for config in CONFIGS:
        for seed in (0, 1):
            for how in ("apply_random", "choice"):
                out[f"game/{how}/{config}/{seed}"] = (
                    lambda config=config, seed=seed, how=how: random_game_case(config, seed, how))
        for spec in GAME_BOTS:
            for seed in ((0, 1) if spec in ("random", "greedy") else (0,)):
                out[f"game/{spec}/{config}/{seed}"] = (
                    lambda config=config, spec=spec, seed=seed: bot_game_case(config, [spec], seed))
    for spec in OPTION_BOTS:
        out[f"game/{spec}/south3/2"] = lambda spec=spec: bot_game_case("south3", [spec], 2)
    mixed = ["heuristic", "mcts(iterations=50)", "greedy", "pimc(iterations=50,worlds=2)"]
    for config in ("south4", "north3"):
        out[f"game/mixed/{config}/3"] = lambda config=config: bot_game_case(config, mixed, 3)
    for i, name in enumerate(ANALYSE_AT):
        out[f"analyse/mcts(iterations=300)/{name}"] = (
            lambda name=name, i=i: analyse_case(name, "mcts(iterations=300)", 7 + i, 100 + i))
        out[f"analyse/pimc(iterations=300,worlds=3)/{name}"] = (
            lambda name=name, i=i: analyse_case(name, "pimc(iterations=300,worlds=3)", 7 + i, 100 + i))
    for spec in ["mcts(iterations=300,select=ucb,c=0.7,playout=random,reward=win,horizon=0)",
                 "mcts(iterations=300,playout=plan,eval=plan,reward=margin,tiles=0.5,temp=2,widen=0.5)",
                 "mcts(iterations=300,workers=2)"]:
        out[f"analyse/{spec}/south3/play"] = lambda spec=spec: analyse_case("south3/play", spec, 5, 55)
    return out


CASES = cases()


def _pinned() -> dict:
    with open(PINNED_FILE, encoding="utf-8") as f:
        return json.load(f)


PINNED = _pinned() if os.path.exists(PINNED_FILE) else {"commit": None, "values": {}}


# ---------------------------------------------------------------- the tests


def test_every_case_is_pinned():
    assert sorted(CASES) == sorted(PINNED["values"]), "re-pin: python tests/core/test_pinned.py --write"
    assert sorted(position_names()) == sorted(stored_positions())


@pytest.mark.parametrize("name", position_names())
def test_fixed_seed_play_reaches_the_stored_position(name):
    g = reach_named(name)
    assert g is not None, f"{name}: the game ended before the position"
    assert g.to_dict() == stored_positions()[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_pinned_value(name):
    assert CASES[name]() == PINNED["values"][name]


@pytest.mark.parametrize("name", position_names())
def test_position_round_trips(name):
    d = stored_positions()[name]
    g = position_from_dict(d)
    assert g.to_dict() == d
    again = position_from_dict(json.loads(json.dumps(g.to_dict())))
    assert again.export() == g.export()
    assert pickle.loads(pickle.dumps(g)).export() == g.export()
    for p in range(g.n_players):
        view = g.to_dict(viewer=p)
        assert position_from_dict(view, seed=3).to_dict(viewer=p) == view
    # clone + apply is deterministic (what makes perft well defined over a stochastic game)
    if not g.is_terminal():
        for m in g.legal_moves():
            a, b = g.clone(), g.clone()
            a.apply(m)
            b.apply(m)
            assert a.export() == b.export()


# ---------------------------------------------------------------- re-pinning


def _commit() -> str:
    root = os.path.dirname(DATA)
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("--print", "--write"):
        print(__doc__)
        return 2
    global _POSITIONS
    commit = _commit()
    positions = {}
    for name in position_names():
        g = reach_named(name)
        if g is None:
            raise SystemExit(f"{name}: the game ended before the position; change STOPS")
        positions[name] = g.to_dict()
    _POSITIONS = positions
    values = {name: CASES[name]() for name in sorted(CASES)}
    if argv[0] == "--print":
        print(json.dumps(values, indent=1, sort_keys=True))
        old = PINNED["values"]
        changed = [n for n in values if old.get(n) != values[n]] + [n for n in old if n not in values]
        print(f"# {len(values)} values at {commit}; differ from the pinned ({PINNED['commit']}): "
              f"{', '.join(changed) or 'none'}", file=sys.stderr)
        return 0
    os.makedirs(DATA, exist_ok=True)
    note = "computed by `python tests/core/test_pinned.py --write`; see that file's docstring"
    with open(POSITIONS_FILE, "w", encoding="utf-8") as f:
        f.write('{"commit": %s, "note": %s, "positions": {\n' % (json.dumps(commit), json.dumps(note)))
        f.write(",\n".join(f"{json.dumps(n)}: {json.dumps(d, sort_keys=True)}" for n, d in positions.items()))
        f.write("\n}}\n")
    with open(PINNED_FILE, "w", encoding="utf-8") as f:
        json.dump({"commit": commit, "note": note, "depth": DEPTH, "values": values}, f, indent=1,
                  sort_keys=True)
        f.write("\n")
    print(f"pinned {len(values)} values and {len(positions)} positions at {commit}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
