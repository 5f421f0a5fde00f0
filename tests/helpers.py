"""Helpers for the tests: building positions for the rules tests, and loading a script of experiments/.

A position is built through the public API only: `new_game()`, `export()`, edit the fields, `load()`.
Every card of the 66 stays accounted for: cards named for hands, routes, the display and the discard
pile are taken from the full set, and the rest go to the deck (or to another pile with `rest=`).

    g = build(hands={0: ["Ulm", "Augsburg"]}, routes={0: ["Stuttgart", "Ingolstadt"]}, phase="play")
    g.apply("right Ulm")
"""
from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import thurn_ai
from thurn_ai._core import OFFICIALS, PHASES
from thurn_ai.game.notation import move_city, move_kind
from thurn_ai.game.rules import DISPLAY_SIZE, HOUSES
# official codes in the engine's state (index 0 = none), by name
OFFICIAL_CODE = {name: i + 1 for i, name in enumerate(OFFICIALS)}
OFFICIAL_CODE[None] = 0


def cities(g, names):
    """City indices of names (the board's spelling rules apply)."""
    return [g.board.city_index(n) for n in names]


def names_of(g, indices):
    return [g.board.cities[i] for i in indices]


def stack(g, tile_id):
    return g.board.tile_index(tile_id)


def build(players=2, *, seed=1, rules=None, current=0, phase="play", hands=None, routes=None,
          display=None, discard=None, deck=None, rest="deck", houses=None, houses_left=None,
          carriage=None, stack_pos=None, tiles=None, draws=None, plays=None, official=None,
          forced_pm=False, end_player=None, turn=None, known=None, horse_cards=None):
    """A position in the classic base game (South board unless `rules` says otherwise).

    hands/routes/houses: {seat: [city names]} (routes in order, left end first). display/discard/deck:
    city-name lists; the cards not named anywhere go to `rest` ("deck", "discard" or ("hand", seat)).
    phase: the decision due. For "play" the first draw is taken (draws=1), for "after_play" one card is
    played (plays=1), unless draws/plays are given. carriage: {seat: carriage index} (0 = size 3).
    tiles: {seat: {tile_id: [values taken]}}; stack_pos: {tile_id: tiles already taken from the stack}.
    end_player: the seat that triggered the end (and holds the game-end tile, unless tiles say more).
    horse_cards: {seat: [city names]} laid as horses (the horses variant).
    """
    if rules is None:
        rules = thurn_ai.Rules(players=players)
    g = thurn_ai.new_game(rules=rules, seed=seed)
    b = g.board
    n, nc = rules.players, b.n_cities
    d = g.export()
    supply = Counter({x: b.cards_per_city for x in range(nc)})

    def take(names, what):
        counts = [0] * nc
        for x in cities(g, names):
            if supply[x] == 0:
                raise ValueError(f"{what}: no {b.cities[x]} card left (only {b.cards_per_city} exist)")
            supply[x] -= 1
            counts[x] += 1
        return counts

    hands = hands or {}
    routes = routes or {}
    d["hand"] = [take(hands.get(p, []), f"hand {p}") for p in range(n)]
    d["route"] = []
    for p in range(n):
        r = routes.get(p, [])
        take(r, f"route {p}")
        d["route"].append(cities(g, r))
    if display is None:      # a full display, one card per city from the end of the list (a fixed choice)
        display = [b.cities[x] for x in range(nc - 1, -1, -1) if supply[x] > 0][:DISPLAY_SIZE]
    d["display"] = take(display, "display")
    d["horse_cards"] = [take((horse_cards or {}).get(p, []), f"horse cards {p}") for p in range(n)]
    d["discard"] = take(discard or [], "discard")
    d["deck"] = take(deck or [], "deck")
    left = [supply[x] for x in range(nc)]
    if rest == "deck":
        d["deck"] = [a + b_ for a, b_ in zip(d["deck"], left)]
    elif rest == "discard":
        d["discard"] = [a + b_ for a, b_ in zip(d["discard"], left)]
    else:
        _, seat = rest
        d["hand"][seat] = [a + b_ for a, b_ in zip(d["hand"][seat], left)]
    d["display_n"], d["deck_n"], d["discard_n"] = sum(d["display"]), sum(d["deck"]), sum(d["discard"])
    d["known"] = [[0] * nc for _ in range(n)]
    for p, names in (known or {}).items():
        for x in cities(g, names):
            d["known"][p][x] += 1

    houses = houses or {}
    d["houses"] = [sorted(cities(g, houses.get(p, []))) for p in range(n)]
    d["houses_left"] = [HOUSES - len(d["houses"][p]) for p in range(n)]
    for p, v in (houses_left or {}).items():
        d["houses_left"][p] = v
    d["carriage"] = [(carriage or {}).get(p, -1) for p in range(n)]
    d["stack_pos"] = [0] * len(b.tiles)
    for tid, k in (stack_pos or {}).items():
        d["stack_pos"][stack(g, tid)] = k
    d["tiles_n"] = [[0] * len(b.tiles) for _ in range(n)]
    d["tiles_pts"] = [[0] * len(b.tiles) for _ in range(n)]
    for p, held in (tiles or {}).items():
        for tid, vals in held.items():
            t = stack(g, tid)
            d["tiles_n"][p][t] = len(vals)
            d["tiles_pts"][p][t] = sum(vals)
    if end_player is not None:
        d["end_triggered"], d["end_player"] = 1, end_player

    d["current"] = current
    d["phase"] = PHASES.index(phase)
    d["forced_pm"] = int(forced_pm)
    d["official"] = OFFICIAL_CODE["postmaster" if forced_pm else official]
    default_draws = {"draw": 0}.get(phase, 2 if forced_pm else 1)
    d["draws"] = default_draws if draws is None else draws
    d["plays"] = (1 if phase in ("after_play", "houses", "cartwright", "discard") else 0) if plays is None \
        else plays
    d["last_house"] = -1
    d["last_discard"] = 0
    d["placed_now"] = 0
    d["official_uses"] = [[0] * len(OFFICIALS) for _ in range(n)]
    d["official_uses"][current][0] = int(forced_pm)    # a forced Postmaster counts as used
    d["closes"] = [0] * n
    if turn is not None:
        d["turn"] = turn
    g.load(d)
    g.settle()
    return g


def legal(g):
    """The legal moves in notation."""
    return {g.move_str(m) for m in g.legal_moves()}


def legal_of_kind(g, kind):
    """City names of the legal moves of one kind ('left', 'right', 'new', 'house', 'draw', ...)."""
    return {g.board.cities[move_city(m)] for m in g.legal_moves() if move_kind(m) == kind}


def play(g, *moves):
    """Apply moves in notation, in order."""
    for m in moves:
        g.apply(m)
    return g


def route_names(g, seat):
    return names_of(g, g.export()["route"][seat])


def house_names(g, seat):
    return set(names_of(g, g.export()["houses"][seat]))


def total_cards(d):
    """Every city card in a state export, wherever it lies."""
    return (sum(map(sum, d["hand"])) + sum(d["display"]) + sum(d["deck"]) + sum(d["discard"])
            + sum(len(r) for r in d["route"]) + sum(map(sum, d["horse_cards"])))


def phase_outcomes(g):
    """Every state in which the current phase has just ended, by trying every sequence of moves in it
    (one state per sequence)."""
    phase = g.phase

    def walk(h):
        if h.phase != phase:           # e.g. placing the last possible house ends the phase by itself
            yield h
            return
        for m in h.legal_moves():
            nxt = h.clone()
            nxt.apply(m)
            yield from walk(nxt)

    return walk(g)


def reachable_house_sets(g):
    """Every set of cities a player can end the houses phase with, by trying all house sequences."""
    assert g.phase == "houses"
    seat = g.current_player
    before = set(g.export()["houses"][seat])
    return {frozenset(names_of(h, set(h.export()["houses"][seat]) - before)) for h in phase_outcomes(g)}


def downward_closure(maximal_sets):
    """All subsets of the given sets (houses are optional city by city)."""
    out = set()
    for s in maximal_sets:
        items = sorted(s)
        for mask in range(1 << len(items)):
            out.add(frozenset(items[i] for i in range(len(items)) if mask >> i & 1))
    return out


def finish_turn(g):
    """Complete the current turn with the simplest legal choices: one card (the deck, else the first
    face-up one), extend the route at the first possible end (else start anew with the first card), no
    official, no closing, discard from the lowest city. Returns the state."""
    seat = g.current_player
    while not g.is_terminal() and g.current_player == seat:
        moves = legal(g)
        phase = g.phase
        if phase == "draw":
            g.apply("draw deck" if "draw deck" in moves else sorted(moves)[0])
        elif phase == "play":
            extend = sorted(m for m in moves if m.startswith(("right ", "left ")))
            g.apply((extend or sorted(m for m in moves if m.startswith("new ")))[0])
        else:
            simple = {"after_play": "stop", "houses": "done", "cartwright": "no cartwright"}.get(phase)
            g.apply(simple or sorted(moves)[0])
    return g


def free_turn_start(players: int = 2, seed: int = 3):
    """A game at the first decision of a turn where the player to move may choose any official (heuristic
    moves until then)."""
    from thurn_ai.bots import make_bot
    from thurn_ai.bots.base import Observation
    g = thurn_ai.new_game(players=players, seed=seed)
    bot = make_bot("heuristic")
    n = 0
    while n < 12 or g.turn_state().forced_pm or g.turn_state().official or g.phase != "draw":
        g.apply(bot.choose(Observation(g, g.current_player, n)))
        n += 1
    return g


def experiment(name: str):
    """The script experiments/<name>.py as a module (the scripts are not part of the package). It is
    registered in sys.modules first: dataclasses look their module up there."""
    path = Path(__file__).resolve().parent.parent / "experiments" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"experiments_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


__all__ = ["free_turn_start", "build", "legal", "legal_of_kind", "play", "cities", "names_of", "stack", "route_names",
           "house_names", "total_cards", "reachable_house_sets", "downward_closure", "finish_turn",
           "HOUSES", "experiment"]


def write_random_record(path: Path) -> Path:
    """A record file of one 2-player game between random bots (seed 7), written to `path`: the small valid
    input the command-line tests feed to replay, review and show."""
    from thurn_ai.bots import make_bot
    from thurn_ai.game.rules import Rules
    from thurn_ai.play.match import play_game
    rec = play_game(Rules(players=2), [make_bot("random", 1), make_bot("random", 2)], 7)
    path.write_text(rec.to_json() + "\n", encoding="utf-8")
    return path
