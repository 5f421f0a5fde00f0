"""Records written by play_game are byte-identical for the same seed, before and after the play loop
moved into play.match.Table: the JSON lines of a few games (both boards, both variants, 2-4 players, bots
that use every official) are pinned by sha256. A change to these pins means a record of the same game
is no longer the same file: never re-pin to make a refactor pass."""
import hashlib
import json

import pytest

from thurn_ai.bots import make_bot
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import derive_seed, play_game

GAMES = {   # name: (rules, bot specs, seed)
    "south-2p-random": (Rules(players=2), ["random", "random"], 3),
    "north-3p-horses-greedy": (Rules(players=3, board="north"), ["greedy", "random", "greedy"], 5),
    "south-4p-heuristic": (Rules(players=4), ["heuristic", "greedy", "heuristic(forbid=postmaster)", "random"], 7),
    "north-2p-classic-heuristic": (Rules(players=2, board="north", variant="classic"), ["heuristic", "greedy"], 11),
}

PINS = {
    "north-2p-classic-heuristic": "8a5d7634bb749579409ebd18e796b086c0eb28e98a36622b8fcc8aeb924bd369",
    "north-3p-horses-greedy": "6a7cde65354064c902d01f6360e9d0cf61bba0e2f6df43ee71fd38391f897ef8",
    "south-2p-random": "2910283cd24a09e1d24782a4a07b186a9bd9b6270adeac48bca2c9b0b0900b1d",
    "south-4p-heuristic": "fa872f1c81eccd0c75a674e55ae770dd3febbf903160debd9bf1cde3aa0596f6",
}
#: sha256 of the web's move log of the same games (its replay, as JSON text a move)
LOG_PINS = {
    "north-2p-classic-heuristic": "497b9c8e9acddf579f9f00b5282aa144e903826be758af0afc643cb7d05afdee",
    "south-4p-heuristic": "75302e69afa2cca966e720cce0a5ffd4b6ce5aaf688272bf23d96271f4a0f176",
}


def record_line(name: str) -> str:
    rules, specs, seed = GAMES[name]
    bots = [make_bot(s, derive_seed("bot", seed, i)) for i, s in enumerate(specs)]
    return play_game(rules, bots, seed).to_json()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_record_is_the_same_file_for_the_same_seed(name):
    line = record_line(name)
    assert hashlib.sha256(line.encode()).hexdigest() == PINS[name], line[:300]


@pytest.mark.parametrize("name", sorted(LOG_PINS))
def test_the_web_plays_and_replays_the_same_game(name):
    """A game the web server's session steps bot by bot is the game play_game plays (the same record,
    byte for byte), and its log is the log of that record's replay (pinned)."""
    pytest.importorskip("starlette")
    from thurn_ai.web.sessions import GameSession, ReplaySession
    line = record_line(name)
    replayed = ReplaySession(line + "\n")
    assert hashlib.sha256("\n".join(replayed.log).encode()).hexdigest() == LOG_PINS[name]
    rules, specs, seed = GAMES[name]
    game = GameSession(list(specs), rules=rules, seed=seed)
    while game.waiting_for() == "bot":
        game.step()
    assert game.record().to_json() == line
    assert [json.dumps(e, separators=(",", ":")) for e in game.log] == replayed.log


def test_the_record_walk_and_position_at_rebuild_every_position():
    """One replay of a record for the studies (issue 54): record_walk gives each move with the position it
    was made in, position_at the position before any move, and both agree with replaying move by move."""
    from thurn_ai.errors import PositionError
    from thurn_ai.game.state import new_game
    from thurn_ai.play.match import position_at, record_walk, replay

    record = play_game(Rules(players=3), [make_bot("greedy"), make_bot("random"), make_bot("heuristic")], seed=11)
    state = new_game(rules=record.rules, seed=record.seed)
    walked = 0
    for i, at, move in record_walk(record):
        assert i == walked and at.to_dict() == state.to_dict()
        assert at.legal_moves() and move in at.legal_moves() and move == state.parse_move(record.moves[i])
        if i in (0, 7, len(record.moves) - 1):
            assert position_at(record, i).to_dict() == at.to_dict()
        state.apply(record.moves[i])
        walked += 1
    assert walked == len(record.moves)
    assert position_at(record, len(record.moves)).to_dict() == replay(record).to_dict()
    for bad in (-1, len(record.moves) + 1, True):
        with pytest.raises(PositionError, match="there is no position before move"):
            position_at(record, bad)
