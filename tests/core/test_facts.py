"""Facts with one home: each is read from its home by the code that applies it, so the places agree.

The route tile for a route's length (game.board.Board.route_tile_stacks, read by the bots) is the tile the
engine awards; the officials' other names (game.officials.OFFICIAL_ALIASES) are read by move notation
and by bot specs alike; the player counts (game.rules.PLAYER_COUNTS) bound the rules, the command line
and the web; the game stages (early, middle, late) are named apart from the decision phases; one play
loop (play.match.Table) records, takes back and replays."""
import random

import pytest

import thurn_ai
from thurn_ai import _core
from thurn_ai.bots import make_bot
from thurn_ai.bots.features import View
from thurn_ai.bots.spec import parse_spec
from thurn_ai.cli import main
from thurn_ai.errors import BotSpecError, PositionError, RulesError
from thurn_ai.game import officials
from thurn_ai.game.notation import make_move, move_kind
from thurn_ai.game.rules import PLAYER_COUNTS, Rules
from thurn_ai.play.match import GameRecord, ReplayError, Table, play_game, replay, use_counts, USE_COLUMNS


@pytest.mark.parametrize("rules", [Rules(players=3), Rules(players=2, board="north", variant="classic"),
                                   Rules(players=4, board="north")], ids=["south", "north-classic", "north-horses"])
def test_the_bots_route_tile_is_the_tile_the_engine_awards(rules):
    """At every close of some played games the bots' route tile value (Board.route_tile_stacks) is the
    value of the route tile the engine then awards (0: none)."""
    board = rules.load_board()
    route_stacks = {st.id for st in board.tiles if st.kind == "route"}
    closes = 0
    for seed in range(4):
        table = Table.new(rules, seed, ["random"] * rules.players)
        bots = [make_bot("greedy", seed * 10 + i) for i in range(rules.players)]
        rng = random.Random(seed)
        expected = {}     # awards so far -> the route tile value the bots expect of the next
        while not table.over:
            state, p = table.state, table.to_move
            move = bots[p].choose(table.observation()) if rng.random() < 0.9 else rng.choice(state.legal_moves())
            if move_kind(move) == "close":
                expected[len(table.closes.awards)] = View(state, p).route_tile_value(len(state.route(p)))
            table.apply(move)
        for i, award in enumerate(table.closes.awards):
            got = [t.value for t in award.tiles if t.stack in route_stacks]
            assert got == ([expected[i]] if expected[i] else []), (seed, i, award)
            closes += 1
    assert closes > 20


def test_an_officials_other_names_work_in_notation_and_in_bot_specs():
    g = thurn_ai.new_game(players=2, seed=1)
    for alias, official in officials.OFFICIAL_ALIASES.items():
        assert officials.official_name(alias.upper()) == official
        assert parse_spec(f"greedy(forbid={alias})")[1]["forbid"] == {official}
        if official in _core.KINDS:      # the officials that are a move of their own
            assert g.parse_move(alias) == make_move(official)
    with pytest.raises(BotSpecError, match="unknown official 'baker'"):
        parse_spec("greedy(forbid=baker)")
    assert officials.OFFICIALS == _core.OFFICIALS


def test_the_player_counts_bound_the_rules_the_command_line_and_the_web():
    for n in range(0, 7):
        if n in PLAYER_COUNTS:
            assert Rules(players=n).players == n
        else:
            with pytest.raises(RulesError, match="players must be 2, 3 or 4"):
                Rules(players=n)
    with pytest.raises(SystemExit) as e:
        main(["play", "--bots", ",".join(["random"] * (PLAYER_COUNTS[-1] + 1))])
    assert e.value.code == 2


def test_game_stages_are_not_decision_phases():
    assert set(officials.STAGES).isdisjoint(_core.PHASES)
    assert [officials.stage_of(n) for n in (0, 6, 7, 13, 14, 20)] == ["early"] * 2 + ["middle"] * 2 + ["late"] * 2


def test_a_tables_record_takes_back_and_replays():
    rules = Rules(players=2)
    rec = play_game(rules, [make_bot("heuristic", 1), make_bot("random", 2)], seed=4)
    # the usage columns of a record add up: each official's total is the sum of its stages
    for seat in range(2):
        row = use_counts(rec.official_uses[seat])
        assert list(row) == USE_COLUMNS
        for o in officials.OFFICIALS:
            assert row[f"uses_{o}"] == sum(row[f"uses_{o}_{st}"] for st in officials.STAGES)
    table = Table.new(rules, rec.seed, rec.bots)
    moves = list(table.replay(rec.moves[:40]))
    snapshot = table.snapshot()
    for moved in table.replay(rec.moves[40:60]):
        assert moved.index == 40 + moved.index - 40
    table.restore(snapshot)
    assert table.moves == rec.moves[:40] and len(moves) == 40
    rest = list(table.replay(rec.moves[40:]))
    again = table.record()
    assert again.to_json() == rec.to_json() and rest[-1].index == len(rec.moves) - 1
    bad = GameRecord.from_json(rec.to_json())
    bad.moves[3] = "close"
    with pytest.raises(ReplayError, match=r"record move 4 \('close'\) does not replay") as e:
        replay(bad)
    assert isinstance(e.value, PositionError) and e.value.index == 3
