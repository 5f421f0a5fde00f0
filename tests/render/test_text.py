"""The text of the game (thurn_ai.render.text): a player's view shows what that player may know and
nothing else, and shows it as the state has it; a move line reads back as its move and names the official
the move uses; the end of a game names the state's winner and a score breakdown that adds up."""
from __future__ import annotations

import re
from collections import Counter

import pytest

import thurn_ai
from thurn_ai._core import KINDS, SHIFT
from thurn_ai.bots import make_bot
from thurn_ai.game.officials import OFFICIAL_LABEL
from thurn_ai.play.match import GameRecord, play_game, replay
from thurn_ai.render.text import describe_end, move_line, render_view

from tests.helpers import build

KIND_NAME = {code: name for name, code in KINDS.items()}
GAMES = [("south", 2, 1), ("south", 3, 2), ("north", 2, 3), ("north", 4, 4)]   # board, players, seed


def positions(board, players, seed, every=120):
    """Positions along one random game (the state's own generator, so the same seed gives the same game)."""
    g = thurn_ai.new_game(board=board, players=players, seed=seed)
    out = [g.clone()]
    while not g.is_terminal():
        g.apply_random()
        if g.turn % every == 0 and g.turn != out[-1].turn:
            out.append(g.clone())
    return out + [g]


def card_counts(text):
    """'Ulm x2, Basel' -> Counter({'Ulm': 2, 'Basel': 1}); '-' -> Counter()."""
    if text == "-":
        return Counter()
    out = Counter()
    for item in text.split(", "):
        name, _, k = item.partition(" x")
        out[name] += int(k) if k else 1
    return out


def seat_blocks(view, n):
    """{seat: (its headline, {'hand': ..., 'route': ..., 'houses': ..., 'horses': ...})} of a view."""
    lines = view.splitlines()
    out = {}
    for p in range(n):
        i = next(k for k, line in enumerate(lines) if re.match(rf"seat {p}( \(you\))?: ", line))
        fields = {}
        for line in lines[i + 1:]:
            if not line.startswith("    "):
                break
            key, _, value = line.strip().partition(": ")
            fields[key] = value
        out[p] = (lines[i], fields)
    return out


def nonzero(counts: dict) -> Counter:
    return Counter({k: v for k, v in counts.items() if v})


@pytest.mark.parametrize("board,players,seed", GAMES)
def test_a_view_shows_the_state_as_it_is(board, players, seed):
    for g in positions(board, players, seed):
        d = g.export()
        horses = g.rules.resolved_variant == "horses"
        view = render_view(g, None)
        assert view.splitlines()[0].endswith(f"seat {g.current_player} to move ({g.phase})")
        for p, (head, fields) in seat_blocks(view, players).items():
            assert re.search(rf": score {g.scores()[p]}, houses left {g.houses_left(p)}\b", head), head
            if not horses:
                size = g.carriage(p)
                assert (f"carriage {size} (" in head) if size else ("carriage none" in head), head
            assert card_counts(fields["hand"]) == nonzero(g.hand(p))
            route = fields["route"]
            assert (route.split(" - ") if route != "-" else []) == g.route(p)
            assert set(card_counts(fields["houses"])) == g.houses(p)
            if horses:
                shown = fields["horses"].partition("horse cards: ")[2].rstrip(")")
                assert card_counts(shown) == nonzero(g.horse_cards(p))
        assert ("the game ends after this round" in view) == bool(d["end_triggered"])


@pytest.mark.parametrize("board,players,seed", GAMES)
def test_a_view_shows_the_viewers_hand_and_only_what_is_known_of_the_others(board, players, seed):
    hidden_somewhere = False
    for g in positions(board, players, seed):
        for viewer in range(players):
            view = render_view(g, viewer)
            for p, (head, fields) in seat_blocks(view, players).items():
                assert head.startswith(f"seat {p} (you): ") == (p == viewer)
                if p == viewer:
                    assert card_counts(fields["hand"]) == nonzero(g.hand(p))
                    continue
                size = sum(g.hand(p).values())
                m = re.fullmatch(r"(\d+) cards?(?: \(known: (.*)\))?", fields["hand"])
                assert m and int(m[1]) == size, fields["hand"]
                assert card_counts(m[2] or "-") == nonzero(g.known(p))
            # everything the viewer cannot see, dealt again at random, shows the same view
            other = g.determinize(viewer, seed=seed * 7 + viewer)
            assert render_view(other, viewer) == view
            hidden_somewhere |= render_view(other, None) != render_view(g, None)
    assert hidden_somewhere        # the redeal did change hidden cards, so the test above could fail


def test_a_views_tiles_use_the_rules_reading_of_the_all_provinces_tile():
    b = thurn_ai.Rules().load_board()
    outside = next(st for st in b.tiles if st.kind == "each_province")
    for reading, name, not_name in (("german", "outside Baiern", "all provinces"),
                                    ("english", "all provinces", "outside Baiern")):
        g = build(rules=thurn_ai.Rules(all_provinces_tile=reading), phase="draw",
                  tiles={0: {outside.id: [outside.values[0]]}}, stack_pos={outside.id: 1})
        head = seat_blocks(render_view(g, 0), 2)[0][0]
        assert f"tiles {name} {outside.values[0]}" in head
        assert not_name not in render_view(g, 0), reading      # the seat's tiles and the tiles left agree


@pytest.mark.parametrize("board,players,seed", GAMES[:1] + GAMES[2:3])
def test_move_lines_read_back_as_their_moves_and_name_the_official_used(board, players, seed):
    g = thurn_ai.new_game(board=board, players=players, seed=seed)
    kinds, labels = set(), set()
    while not g.is_terminal():
        for m in g.legal_moves():
            notation, _, label = move_line(g, m).partition("   [")
            assert g.parse_move(notation) == m
            kinds.add(KIND_NAME[m >> SHIFT])
            if not label:
                continue
            # the official in brackets is the one the engine counts as used by this move
            h = g.clone()
            p = h.current_player
            before = h.official_uses(p)
            h.apply(m)
            used = [o for o, k in h.official_uses(p).items() if k != before[o]]
            assert [OFFICIAL_LABEL[o] + "]" for o in used] == [label]
            labels.add(label)
        # a move without brackets uses none
        p, before = g.current_player, g.official_uses(g.current_player)
        m = g.legal_moves()[g.turn * 7919 % len(g.legal_moves())]
        label = move_line(g, m).partition("   [")[2]
        g.apply(m)
        assert label or g.official_uses(p) == before
    assert kinds >= set(KINDS) - {"horse" if board == "south" else "cartwright", "no_cartwright"}
    assert len(labels) >= 3


@pytest.mark.parametrize("board,players,max_turns", [("south", 2, 5000), ("south", 4, 5000), ("south", 2, 12)])
def test_the_end_of_a_game_names_the_states_winner_and_adds_up(board, players, max_turns):
    rules = thurn_ai.Rules(board=board, players=players, max_turns=max_turns)
    bots = [make_bot("greedy", seed=s) for s in range(players)]
    rec = GameRecord.from_json(play_game(rules, bots, seed=players).to_json())   # as `replay` reads it
    final = replay(rec)
    lines = describe_end(rec)
    places = [re.fullmatch(r"  (\d+)\. seat (\d) (\S+) +(-?\d+)  \(carriage (\d+), tiles (\d+), "
                           r"minus (\d+) houses? not placed\)", line) for line in lines[2:-1]]
    assert all(places), lines
    assert [int(m[1]) for m in places] == list(range(1, players + 1))
    assert [int(m[2]) for m in places] == final.ranking()
    for m in places:
        p, score = int(m[2]), int(m[4])
        assert m[3] == rec.bots[p]
        assert score == final.scores()[p]
        assert int(m[5]) + int(m[6]) - int(m[7]) == score
        assert int(m[7]) == final.houses_left(p)
    assert lines[-1].startswith(f"winner: seat {final.winner()} ({rec.bots[final.winner()]}) "
                                f"after {final.turn} turns")
    assert final.winner() == final.ranking()[0]
    truncated = bool(final.export()["truncated"])
    assert truncated == (max_turns < 100)
    assert lines[-1].endswith("[stopped by the turn limit]") == truncated


@pytest.mark.parametrize("players", [2, 3])
def test_the_end_of_a_horses_game_names_no_carriage(players):
    """The North board plays the horses variant by default: no carriages, so none is named (it said 0)."""
    rules = thurn_ai.Rules(board="north", players=players)
    assert rules.resolved_variant == "horses"
    bots = [make_bot("greedy", seed=s) for s in range(players)]
    rec = GameRecord.from_json(play_game(rules, bots, seed=3).to_json())
    final = replay(rec)
    places = [re.fullmatch(r"  \d\. seat (\d) \S+ +(-?\d+)  \(tiles (\d+), minus (\d+) houses? not placed\)", line)
              for line in describe_end(rec)[2:-1]]
    assert all(places) and [int(m[1]) for m in places] == final.ranking()
    assert all(int(m[3]) - int(m[4]) == int(m[2]) == final.scores()[int(m[1])] for m in places)
