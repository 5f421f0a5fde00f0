"""The library API for analysis (issue 11, item 5): thurn_ai.play.analysis (what `hint` prints, as data), the
typed accessors of GameState, the log of what each close awarded (also in game records), `left X` on a
one-card route, and illegal-move errors that say why."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from thurn_ai.bots.spec import BotSpec
import thurn_ai
from tests.helpers import build, legal, play
from thurn_ai import IllegalMoveError, PositionError, Rules
from thurn_ai.play.analysis import Analysis, analyse, bot_spec
from thurn_ai.bots import known_bots, make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.bots.default_search import DEFAULT_SEARCH
from thurn_ai.cli import main
from thurn_ai.game.state import CloseAward, CloseLog, Tile
from thurn_ai.play.match import GameRecord, play_game, replay_closes
from thurn_ai.position import save_position

CONFIGS = [Rules(players=2), Rules(players=3), Rules(players=4), Rules(players=3, board="north"),
           Rules(players=2, board="north", variant="classic")]
LONG_ROUTE = ["Basel", "Freiburg", "Carlsruhe", "Mannheim", "Würzburg", "Nürnberg"]
needs_mcts = pytest.mark.skipif("mcts" not in known_bots(), reason="the mcts bot is not registered")


def random_positions(rules, seed, every=25):
    """Positions along a uniformly random game (every few moves, and the end)."""
    g = thurn_ai.new_game(rules=rules, seed=seed)
    rnd = random.Random(seed)
    while not g.is_terminal():
        yield g
        for _ in range(rnd.randint(1, every)):
            if g.is_terminal():
                break
            g.apply(rnd.choice(g.legal_moves()))
    yield g


# ---------------------------------------------------------------- typed accessors

@pytest.mark.parametrize("rules", CONFIGS, ids=lambda r: f"{r.board}-{r.players}p-{r.resolved_variant}")
def test_accessors_agree_with_to_dict_and_export(rules):
    b = rules.load_board()
    n = 0
    for seed in range(4):
        for g in random_positions(rules, seed):
            d, raw = g.to_dict(), g.export()
            assert g.display() == d["display"]
            for p, row in enumerate(d["players"]):
                assert g.hand(p) == dict(Counter(row["hand"]))
                assert list(g.hand(p)) == [c for c in b.cities if c in g.hand(p)]        # board order
                assert g.known(p) == dict(Counter(row["known"]))
                assert g.horse_cards(p) == dict(Counter(row["horse_cards"]))
                assert g.route(p) == row["route"]
                assert g.houses(p) == set(row["houses"])
                assert g.houses_left(p) == row["houses_left"]
                assert g.carriage(p) == row["carriage"]
                assert g.official_uses(p) == row["official_uses"]
                assert g.closes(p) == row["closes"]
                assert g.score(p) == g.scores()[p]
                tiles = g.tiles(p)
                for t, st in enumerate(b.tiles):
                    mine = [x.value for x in tiles if x.stack == st.id]
                    assert len(mine) == raw["tiles_n"][p][t] and sum(mine) == raw["tiles_pts"][p][t]
                    taken = list(st.values[:raw["stack_pos"][t]])
                    assert not Counter(mine) - Counter(taken)           # only values taken from the stack
                assert [x.stack for x in tiles] == [st.id for st in b.tiles for x in tiles if x.stack == st.id]
                n += 1
    assert n > 50


def test_accessors_refuse_a_seat_that_does_not_play():
    g = thurn_ai.new_game(players=2)
    for bad in (2, -1, "0", True, 1.0):
        with pytest.raises(ValueError, match="seat from 0 to 1"):
            g.hand(bad)
    with pytest.raises(ValueError):
        g.tiles(5)


def test_two_tiles_from_one_stack_stay_two_tiles():
    g = build(tiles={0: {"route5": [2, 1], "baden": [3]}}, stack_pos={"route5": 2, "baden": 1},
              houses={0: ["Carlsruhe", "Freiburg", "Mannheim"]})
    assert g.tiles(0) == [Tile("route5", 2), Tile("route5", 1), Tile("baden", 3)]
    assert g.to_dict()["players"][0]["tiles"]["route5"] == {"count": 2, "points": 3}    # the file form
    assert g.tiles(1) == []


def test_tiles_split_between_players_uses_what_the_others_hold():
    # route7 gave 4, 3, 2, 1: seat 0 holds two worth 5, seat 1 one worth 3 and seat 0's pair must be 4+1
    g = build(players=3, tiles={0: {"route7": [4, 1]}, 1: {"route7": [3]}, 2: {"route7": [2]}},
              stack_pos={"route7": 4})
    assert g.tiles(0) == [Tile("route7", 4), Tile("route7", 1)]
    # a real tie (two pairs worth 5): the state cannot tell; the points stay right, lower seat first
    g = build(tiles={0: {"route7": [3, 2]}, 1: {"route7": [4, 1]}}, stack_pos={"route7": 4})
    assert sorted(g.tiles(0) + g.tiles(1)) == sorted(Tile("route7", v) for v in (4, 3, 2, 1))
    assert sum(t.value for t in g.tiles(0)) == 5 == sum(t.value for t in g.tiles(1))


# ---------------------------------------------------------------- what each close awarded

def test_close_log_of_the_cartwright_example():
    sizes = [s for s, _ in thurn_ai.load_board("south").carriages]
    g = build(routes={0: LONG_ROUTE[:4]}, hands={0: [LONG_ROUTE[4]]}, carriage={0: sizes.index(6)})
    before = g.score(0)
    log = CloseLog()
    assert log.apply(g, "right Würzburg") is None and log.apply(g, "close") is None
    assert g.phase == "houses"
    assert log.apply(g, "done") is None and g.phase == "cartwright"
    award = log.apply(g, "cartwright")
    assert award == CloseAward(player=0, move=1, turn=0, route=tuple(LONG_ROUTE[:5]), houses=(),
                               tiles=(Tile("route5", 2), Tile("game_end", 1)), carriage=7, cartwright=True,
                               carriage_points=10 - 7, points=6, ends_game=True)
    assert g.score(0) - before == award.points and log.awards == [award]
    assert CloseAward.from_dict(json.loads(json.dumps(award.to_dict()))) == award


def test_close_log_houses_in_board_order():
    g = build(routes={0: ["Kempten", "Ulm"]}, hands={0: ["Augsburg"]})
    log = CloseLog()
    for m in ("right Augsburg", "close", "house Kempten", "house Ulm"):
        award = log.apply(g, m)
    assert award is not None and award.houses == ("Kempten", "Ulm") and award.route == ("Kempten", "Ulm", "Augsburg")
    assert award.points == 2 + award.carriage_points and award.carriage == 3


@pytest.mark.parametrize("rules", CONFIGS[:4], ids=lambda r: f"{r.board}-{r.players}p")
def test_close_awards_add_up_to_the_scores(rules):
    for seed in range(3):
        rec = play_game(rules, [make_bot("random", seed * 7 + i) for i in range(rules.players)], seed)
        assert rec.closes
        for p in range(rules.players):
            mine = [a for a in rec.closes if a.player == p]
            assert sum(a.points for a in mine) == rec.scores[p] + 20            # a game starts at -20
            assert sum(t.value for a in mine for t in a.tiles) == rec.details[p]["tiles"]
            assert sum(a.carriage_points for a in mine) == rec.details[p]["carriage"]
            assert sum(len(a.houses) for a in mine) == 20 - rec.details[p]["houses_unplaced"]
            assert len(mine) == rec.details[p]["closes"]
        for a in rec.closes:
            assert rec.moves[a.move] == "close"
            assert len(a.route) >= 3 and set(a.houses) <= set(a.route)
            assert not a.cartwright or a.carriage is not None
        assert sum(a.ends_game for a in rec.closes) == (0 if rec.truncated else 1)
        assert replay_closes(rec) == rec.closes


def test_records_carry_the_closes_and_older_records_still_load():
    rec = play_game(Rules(players=2), [make_bot("random", 1), make_bot("random", 2)], 4)
    again = GameRecord.from_json(rec.to_json())
    assert again.closes == rec.closes and again.to_json() == rec.to_json()
    old = json.loads(rec.to_json())
    del old["closes"]
    older = GameRecord.from_json(json.dumps(old))
    assert older.closes == [] and older.moves == rec.moves
    assert replay_closes(older) == rec.closes
    for bad, message in (({"player": 5}, "player"), ({"tiles": [{"stack": "route5"}]}, "tiles"),
                         ({"route": "Ulm"}, "route"), ({"move": 10 ** 6}, "past the record"),
                         ({"colour": "red"}, "unknown field")):
        d = json.loads(rec.to_json())
        d["closes"][0].update(bad)
        with pytest.raises(PositionError, match=message):
            GameRecord.from_json(json.dumps(d))


# ---------------------------------------------------------------- notation and errors

def test_left_and_right_are_the_same_move_on_a_one_card_route():
    g = build(routes={0: ["Ulm"]}, hands={0: ["Stuttgart", "Lodz"]})
    assert "right Stuttgart" in legal(g) and "left Stuttgart" not in legal(g)   # listed once
    a, b = g.clone(), g.clone()
    assert a.parse_move("left Stuttgart") == b.parse_move("right Stuttgart")
    a.apply("left Stuttgart")
    b.apply("right Stuttgart")
    assert a.export() == b.export() and a.route(0) == ["Ulm", "Stuttgart"]
    # on a longer route the ends differ again
    assert a.parse_move("left Augsburg") != a.parse_move("right Augsburg")
    # no road: still an error, about the move as written
    with pytest.raises(IllegalMoveError, match="'left Lodz'.*Lodz has no road to Ulm, the route's only card"):
        g.apply("left Lodz")


@pytest.mark.parametrize("setup,move,message", [
    ("houses", "house Augsburg", "houses are placed in board order: place Augsburg first, then Kempten"),
    ("houses", "house Lodz", "Lodz is not on the route being closed"),
    ("play", "draw Ulm", "Ulm is not in the display"),
    ("play", "right Basel", "holds no Basel card"),
    ("play", "close", "after a card is played"),
    ("after", "close", "a route needs 3 cards to be closed"),
    ("after", "right Augsburg", "Augsburg has no road to Stuttgart, the right end of the route "
                                "(it connects to Ulm: play 'left Augsburg')"),
    ("after", "new Augsburg", "cannot start a new one"),
    ("after", "draw deck", "cards are drawn at the start of a turn"),
    ("draw", "right Augsburg", "draw a card first"),
])
def test_illegal_moves_say_why(setup, move, message):
    if setup == "houses":
        g = build(routes={0: ["Kempten", "Ulm"]}, hands={0: ["Augsburg"]})
        play(g, "right Augsburg", "close", "house Kempten")
    elif setup == "draw":
        g = build(phase="draw", routes={0: ["Ulm", "Stuttgart"]}, hands={0: ["Augsburg"]})
    else:
        g = build(routes={0: ["Ulm"]}, hands={0: ["Stuttgart", "Augsburg"]},
                  display=["Lodz", "Lodz", "Basel", "Basel", "Linz", "Linz"])
        if setup == "after":
            g.apply("right Stuttgart")
    before = g.export()
    with pytest.raises(IllegalMoveError) as e:
        g.apply(move)
    assert message in str(e.value) and "possible now:" in str(e.value)
    assert g.export() == before


# ---------------------------------------------------------------- thurn_ai.play.analysis

@pytest.fixture(scope="module")
def position(tmp_path_factory):
    g = thurn_ai.new_game(players=3, seed=5)
    bot = make_bot("heuristic")
    for i in range(40):
        g.apply(bot.choose(Observation(g, g.current_player, i)))
    path = tmp_path_factory.mktemp("pos") / "pos.json"
    save_position(g, path)
    return g, path


@needs_mcts
def test_analysis_is_what_hint_prints(position, capsys):
    g, path = position
    a = analyse(g, iterations=150, seed=3)
    assert isinstance(a, Analysis) and a.player == g.current_player
    assert a.bot == bot_spec(BotSpec("mcts", {}), 150, None, 3)
    assert a.bot == DEFAULT_SEARCH.with_(iterations=150)
    with pytest.raises(SystemExit):
        main(["hint", str(path), "--iterations", "150", "--seed", "3", "--json", "--top", "99"])
    out = json.loads(capsys.readouterr().out)
    mine = a.to_dict()
    for k in ("player", "bot", "iterations", "options", "recommended_turn", "best"):
        assert out[k] == mine[k], k
    with pytest.raises(SystemExit):
        main(["hint", str(path), "--iterations", "150", "--seed", "3"])
    text = capsys.readouterr().out
    assert f"recommended: {a.recommended_turn.moves[0]}" in text and a.recommended_turn.then in text
    # the data itself: legal ranked options, a turn that replays, the same answer for the same seed
    assert {o.move for o in a.options} <= set(g.legal_moves())
    assert [o.notation for o in a.options] == [g.move_str(o.move) for o in a.options]
    assert a.best is a.options[0] and a.recommended_turn.codes[0] == a.best.move
    assert a.principal_variation[0] == a.best.notation
    s = g.clone()
    for m in a.recommended_turn.moves:
        s.apply(m)
    assert analyse(g, iterations=150, seed=3) == a
    json.dumps(a.to_dict())


@needs_mcts
def test_analysis_refuses_what_it_cannot_analyse(position):
    g, _ = position
    with pytest.raises(PositionError, match="is to move"):
        analyse(g, player=(g.current_player + 1) % 3, iterations=10)
    with pytest.raises(thurn_ai.BotSpecError, match="cannot analyse"):
        analyse(g, bot=BotSpec.parse("greedy"))
    over = g.clone()
    over.playout()
    with pytest.raises(PositionError, match="game is over"):
        analyse(over, iterations=10)


def test_a_recommended_turn_stops_at_cards_nobody_has_seen():
    """A search's line goes on past the Administrator's new display and a draw from the deck with cards it
    imagined: the turn shown stops there and says what it waits for (browser-review-3 D6: "administrator,
    draw Freiburg" named a card nobody had seen)."""
    from thurn_ai.play.analysis import describe_turn
    g = thurn_ai.new_game(players=3, seed=3)
    g.apply(g.parse_move(f"draw {g.display()[0]}"))          # the forced Postmaster's first draw
    g.apply(g.parse_move("deck"))
    while g.current_player != 0 or g.phase != "draw":
        g.apply(sorted(g.legal_moves())[0])
    admin = g.parse_move("administrator")
    assert g.is_legal(admin)
    after = g.clone()
    after.apply(admin)
    line = [admin, after.parse_move(f"draw {after.display()[0]}")]
    turn = describe_turn(g, line)
    assert turn.moves == ("administrator",) and "new display" in turn.then
    deck = describe_turn(g, [g.parse_move("deck"), after.parse_move(f"draw {after.display()[0]}")])
    assert deck.moves == ("draw deck",) and "deck" in deck.then


def test_analyse_takes_a_spec_as_a_value_and_refuses_its_text_or_anything_else():
    """A spec travels as a BotSpec value: its text is read where it comes in (the CLI, a data file, a
    notebook's BotSpec.parse), so analyse() refuses text with one clear error naming the way to read it."""
    g = thurn_ai.new_game(players=2, seed=1)
    assert analyse(g, bot=BotSpec.parse("pimc(worlds=2)"), iterations=20).bot.name == "pimc"
    for bad, kind in (("pimc(worlds=2)", "str"), (3, "int")):
        with pytest.raises(thurn_ai.BotSpecError, match=f"bot must be a BotSpec .BotSpec.parse reads a spec's text., "
                                                        f"not {kind}"):
            analyse(g, bot=bad, iterations=10)      # type: ignore[arg-type]


@needs_mcts
def test_a_renamed_search_is_not_taken_for_the_search_a_map_was_fitted_for(monkeypatch):
    """A win map is calibrated for the search it records (bots.default_search.search_identity: the bot, its
    options, its weights' digests), not for whatever has the same evaluation: a search registered under
    another name is another search, so its chance is read through the nearest map but marked uncalibrated,
    and a search without the learned evaluation gets its raw share, named as not a probability."""
    from thurn_ai.bots import register
    from thurn_ai.bots import spec as registry
    from thurn_ai.bots.mcts import MCTSBot

    class RenamedSearch(MCTSBot):
        spec = "renamed-search"
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))      # registered for this test only
    register("renamed-search", RenamedSearch)
    g = thurn_ai.new_game(players=2, seed=1)
    learned = analyse(g, bot=BotSpec.parse("renamed-search(eval=learned)"), iterations=30)
    assert not learned.calibrated and learned.chance.win_map is not None
    assert "renamed-search" in learned.chance.assumes()
    simple = analyse(g, bot=BotSpec.parse("renamed-search(eval=simple)"), iterations=30)
    assert not simple.calibrated and simple.chance.win_map is None
    assert all(o.win_prob == o.search_win for o in simple.options)
