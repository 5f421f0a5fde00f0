"""The rule-based bots (greedy, heuristic) and the human bot."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.bots.human import HumanBot
from thurn_ai.render.text import render_view
from thurn_ai.cli import cli
from thurn_ai.errors import BotSpecError
from thurn_ai.play.match import derive_seed, play_game
from thurn_ai.position import position_from_dict
from thurn_ai.game.rules import Rules

RULE_BOTS = ("greedy", "heuristic")
OTHER_DISPLAY = ["Würzburg", "Würzburg", "Carlsruhe", "Mannheim", "Ulm", "Kempten"]


def position(players, phase="after_play", board="south", variant=None, display=OTHER_DISPLAY, turn_state=None,
             to_move=0):
    """A hand-written position (the deck and unlisted cards are dealt from what is left)."""
    rules = {"players": len(players), "board": board}
    if variant:
        rules["variant"] = variant
    data = {"rules": rules, "to_move": to_move, "phase": phase, "display": list(display),
            "players": players}
    if turn_state is not None:
        data["turn_state"] = turn_state
    return position_from_dict(data, seed=3)


def choose(spec, state, seed=0, obs_seed=1):
    return state.move_str(make_bot(spec, seed).choose(Observation(state, state.current_player, obs_seed)))


def play_turn(spec, state, obs_seed=1):
    """Let the bot finish the current player's turn; returns the moves in notation."""
    bot = make_bot(spec, 0)
    p, out = state.current_player, []
    while not state.is_terminal() and state.current_player == p:
        m = bot.choose(Observation(state, p, obs_seed + len(out)))
        out.append(state.move_str(m))
        state.apply(m)
    return out


# ---------------------------------------------------------------- whole games

GAMES = [("south", None, 2), ("south", None, 3), ("south", None, 4),
         ("north", None, 2), ("north", None, 3), ("north", "classic", 4)]


@pytest.mark.parametrize("board,variant,players", GAMES)
def test_rule_bots_play_legal_games_to_the_end(board, variant, players):
    # play_game raises on an illegal move; mixing in random keeps unusual positions coming
    specs = ["heuristic", "greedy", "random", "heuristic"][:players]
    rules = Rules(players=players, board=board, variant=variant)
    for seed in (1, 2):
        rec = play_game(rules, [make_bot(s, seed * 10 + i) for i, s in enumerate(specs)], seed=seed)
        assert not rec.truncated
        assert len(rec.scores) == players
        # the rule-based bots close routes and place houses
        for seat, spec in enumerate(specs):
            if spec != "random":
                assert rec.details[seat]["closes"] >= 2
                assert rec.details[seat]["houses_unplaced"] < 20


@pytest.mark.parametrize("spec", RULE_BOTS)
def test_same_seed_same_game(spec):
    rules = Rules(players=3)
    a = play_game(rules, [make_bot(spec, 5), make_bot("greedy", 6), make_bot(spec, 7)], seed=9)
    b = play_game(rules, [make_bot(spec, 5), make_bot("greedy", 6), make_bot(spec, 7)], seed=9)
    assert a.moves == b.moves and a.scores == b.scores


@pytest.mark.parametrize("spec", RULE_BOTS)
def test_choices_use_only_what_the_player_knows(spec):
    """Two observations of the same position differ in the re-dealt hidden cards; a bot that reads only
    its own hand and public facts chooses the same move from both."""
    g = thurn_ai.new_game(players=3, seed=4)
    bot = make_bot(spec, 0)
    checked = 0
    while not g.is_terminal() and checked < 120:
        p = g.current_player
        a = bot.choose(Observation(g, p, 11))
        b = make_bot(spec, 0).choose(Observation(g, p, 987654321))
        assert a == b, f"{g.move_str(a)} != {g.move_str(b)} in {g}"
        g.apply(a)
        checked += 1


def test_heuristic_beats_random_and_greedy_in_seat_swapped_games():
    rules = Rules(players=2)
    wins = {"random": 0, "greedy": 0}
    games = 6
    for opponent in wins:
        for g in range(games):
            seats = [make_bot("heuristic", g), make_bot(opponent, g + 100)]
            me = g % 2
            if me:
                seats.reverse()
            rec = play_game(rules, seats, seed=1000 + g)
            wins[opponent] += rec.winner == me
    assert wins["random"] == games
    assert wins["greedy"] >= games - 1


def test_rule_bot_games_are_short():
    rec = play_game(Rules(players=2), [make_bot("heuristic", 1), make_bot("greedy", 2)], seed=3)
    assert rec.turns < 200          # random games take thousands of moves


# ---------------------------------------------------------------- decisions in set positions

@pytest.mark.parametrize("spec", RULE_BOTS)
def test_closes_a_route_that_cannot_grow(spec):
    # Lodz is a dead end; Budweis's other neighbour Linz is neither in hand nor on display. With the
    # 4-carriage the route is shorter than the next carriage, so only the dead end makes the bot close.
    g = position([{"hand": ["Freiburg", "Basel"], "route": ["Lodz", "Pilsen", "Budweis"], "carriage": 4},
                  {"hand_size": 3}])
    assert choose(spec, g) == "close"


def test_heuristic_plays_the_fitting_card_first_then_closes():
    g = position([{"hand": ["Linz", "Basel"], "route": ["Lodz", "Pilsen", "Budweis"]}, {"hand_size": 3}])
    moves = play_turn("heuristic", g)
    assert moves[:2] == ["right Linz", "close"]
    assert g.export()["closes"][0] == 1


@pytest.mark.parametrize("spec", RULE_BOTS)
def test_house_option_that_completes_a_province(spec):
    # Option A (Mannheim + one of Stuttgart/Ulm) completes Baden; option B (Stuttgart + Ulm) does not
    g = position([{"hand": ["Basel"], "route": ["Mannheim", "Stuttgart", "Ulm"],
                   "houses": ["Carlsruhe", "Freiburg"]}, {"hand_size": 3}], phase="houses")
    moves = play_turn(spec, g)
    placed = [m.split(" ", 1)[1] for m in moves if m.startswith("house ")]
    assert "Mannheim" in placed and len(placed) == 2
    assert len({"Stuttgart", "Ulm"} & set(placed)) == 1
    d = g.to_dict()
    assert "baden" in d["players"][0]["tiles"]


@pytest.mark.parametrize("spec", RULE_BOTS)
def test_draws_a_face_up_card_that_extends_the_route(spec):
    g = position([{"hand": ["Basel"], "route": ["Ulm", "Augsburg"]}, {"hand_size": 3}], phase="draw",
                 display=["München", "Würzburg", "Carlsruhe", "Mannheim", "Passau", "Linz"])
    assert choose(spec, g) == "draw München"


@pytest.mark.parametrize("spec", RULE_BOTS)
def test_horses_variant_lays_a_horse_instead_of_breaking_the_route(spec):
    # capacity 2 cannot pull 3 route cards; Amsterdam fits neither end, so: horse, not a new route
    g = position([{"hand": ["Amsterdam"], "route": ["Berlin", "Halle", "Leipzig"]}, {"hand_size": 3}],
                 phase="play", board="north", variant="horses",
                 display=["Bremen", "Kassel", "Münster", "Cöln", "Coblenz", "Frankfurt"],
                 turn_state={"official_used": "postmaster", "draws": 2, "plays": 0})
    assert choose(spec, g) == "horse Amsterdam"


def test_heuristic_uses_the_postal_carrier_for_a_second_fitting_card():
    g = position([{"hand": ["München", "Salzburg", "Basel"], "route": ["Ulm", "Augsburg"]}, {"hand_size": 3}])
    assert choose("heuristic", g) in ("right München", "right Salzburg")
    assert choose("heuristic(forbid=carrier)", g) in ("stop", "close")


@pytest.mark.parametrize("spec", RULE_BOTS)
def test_takes_the_cartwright(spec):
    g = position([{"hand": ["Basel"], "route": ["Ulm", "Augsburg", "München"], "carriage": 4},
                  {"hand_size": 3}], phase="cartwright", turn_state={"draws": 1, "plays": 1})
    assert choose(spec, g) == "cartwright"


def test_heuristic_keeps_cards_that_make_the_next_route():
    # Zürich-Basel-Freiburg form a route; Lodz and Würzburg are loose
    g = position([{"hand": ["Zürich", "Basel", "Freiburg", "Lodz", "Würzburg"], "route": []},
                  {"hand_size": 3}], phase="discard", turn_state={"draws": 1, "plays": 1})
    play_turn("heuristic", g)
    hand = g.to_dict()["players"][0]["hand"]
    assert sorted(hand) == ["Basel", "Freiburg", "Zürich"]


# ---------------------------------------------------------------- options

@pytest.mark.parametrize("spec", RULE_BOTS)
def test_forbid_removes_officials(spec):
    rules = Rules(players=2)
    all_four = f"{spec}(forbid=postmaster+administrator+postal_carrier+cartwright)"
    used_free = used_forbidden = 0
    for seed in (1, 2, 3):
        free = play_game(rules, [make_bot(spec, 1), make_bot("greedy", 2)], seed=seed)
        used_free += sum(sum(phases.values()) for phases in free.official_uses[0].values())
        rec = play_game(rules, [make_bot(all_four, 1), make_bot("greedy", 2)], seed=seed)
        used_forbidden += sum(sum(phases.values()) for phases in rec.official_uses[0].values())
    assert used_free > 0           # the bot does use officials when allowed ...
    assert used_forbidden == 0     # ... and none when all are forbidden


def test_close_at_option_and_bad_options():
    g = position([{"hand": ["Linz", "Passau"], "route": ["Lodz", "Pilsen", "Budweis"]}, {"hand_size": 3}])
    assert choose("greedy(close_at=3)", g) in ("close", "right Linz")
    assert choose("heuristic(close_at=3)", g) == "close"
    for bad in ("greedy(close_at=2)", "heuristic(turn_cost=-1)", "heuristic(colour=red)",
                "heuristic(turn_cost=1e308)", "heuristic(partial=inf)", "heuristic(close_at=1000)"):
        with pytest.raises(BotSpecError):
            make_bot(bad)


# ---------------------------------------------------------------- the human bot

def test_human_bot_reasks_until_the_input_is_a_legal_move():
    g = thurn_ai.new_game(players=2, seed=1)
    answers = iter(["", "99", "close", "draw Atlantis", "2"])
    out = []
    bot = HumanBot(read=lambda prompt: next(answers), write=out.append)
    move = bot.choose(Observation(g, 0, 1))
    assert move == g.legal_moves()[1]
    text = "\n".join(out)
    assert "no move number 99" in text
    assert "'close' is not possible now" in text
    assert "unknown city 'Atlantis'" in text


def test_human_bot_accepts_notation_in_any_spelling():
    g = position([{"hand": ["München", "Basel"], "route": ["Ulm", "Augsburg"]}, {"hand_size": 3}],
                 phase="play", turn_state={"draws": 1, "plays": 0, "official_used": "postmaster"})
    bot = HumanBot(read=lambda prompt: "RIGHT muenchen", write=lambda s: None)
    assert g.move_str(bot.choose(Observation(g, 0, 1))) == "right München"


def test_human_view_hides_the_opponents_unknown_cards():
    g = position([{"hand": ["Basel"], "route": []}, {"hand": ["Lodz", "Linz"], "known": ["Linz"]}],
                 phase="draw", display=OTHER_DISPLAY)
    text = render_view(g, 0)
    assert "Basel" in text and "Linz" in text      # own hand; a card known to be in seat 1's hand
    assert "Lodz" not in text                      # seat 1's card drawn from the deck
    assert "2 cards" in text
    assert "Lodz" in render_view(g, None)          # the complete view shows it


def _greedy_choices_for_seat0(seed):
    """The answers a person would type to make seat 0 play exactly like greedy in `play --seed`."""
    rules = Rules(players=2)
    answers = []

    def note(state, p, move):
        if p == 0 and len(state.legal_moves()) > 1:
            answers.append(state.move_str(move))

    bots = [make_bot("greedy", derive_seed("bot", seed, i)) for i in range(2)]
    rec = play_game(rules, bots, seed, on_move=note)
    return answers, rec


def test_a_person_can_play_a_whole_game_from_the_terminal():
    answers, expected = _greedy_choices_for_seat0(seed=4)
    typed = ["what", "0"] + answers          # two bad answers first, then the game
    result = CliRunner().invoke(cli, ["play", "--bots", "human,greedy", "--seed", "4"],
                                input="\n".join(typed) + "\n")
    assert result.exit_code == 0, result.output
    assert "cannot read move 'what'" in result.output
    assert "no move number 0" in result.output
    assert "final scores:" in result.output
    assert f"winner: seat {expected.winner}" in result.output
    assert "hand:" in result.output and "display:" in result.output


def test_end_of_input_stops_the_game_cleanly():
    result = CliRunner().invoke(cli, ["play", "--bots", "human,greedy"], input="1\n")
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)      # click's Abort, not a traceback
