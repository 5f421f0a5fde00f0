"""Issue 71 in the terminal: a mistyped command, bot or option gets a suggestion (click's own for options),
and terminal play shows a compact text map (render.text.render_map)."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import thurn_ai
from thurn_ai.cli import cli, main
from thurn_ai.position import position_from_dict
from thurn_ai.render.text import render_map


def run(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.mark.parametrize("args, says", [
    (["tournement"], "no such command 'tournement' (did you mean 'tournament'?)"),
    (["play", "--bots", "mcst,random"], "unknown bot 'mcst' in spec 'mcst' (did you mean 'mcts'?)"),
    (["play", "--bots", "hueristic,random"], "(did you mean 'heuristic'?)"),
    (["play", "--bots", "mcts(iteration=5),random"], "has no option iteration (did you mean 'iterations'?)"),
    (["play", "--bot", "mcts"], "Did you mean"),                      # click's own, for options
])
def test_a_mistyped_name_gets_a_suggestion_in_one_error_line(args, says, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and says in lines[0], err


def test_a_name_far_from_every_known_one_gets_no_guess(capsys):
    code, _, err = run(["play", "--bots", "zzzzqqq,random"], capsys)
    assert code == 2 and "did you mean" not in err and "known bots:" in err


def test_the_map_marks_houses_and_routes_and_where_each_route_can_grow():
    d = thurn_ai.new_game(players=2, seed=3).to_dict(viewer=0)      # the deck unknown: dealt around the routes
    d["players"][0].update(route=["Augsburg", "München"], houses=["Freiburg", "Carlsruhe"], houses_left=18)
    d["players"][1].update(route=["Ulm"], houses=["Ulm"], houses_left=19)
    d["deck_size"] -= 3
    state = position_from_dict(d, seed=1)
    text = render_map(state, viewer=0)
    board = state.board
    lines = text.splitlines()
    # one line a province (and the free cities, if any), every city named once
    named = " ".join(lines[1:1 + len(board.provinces) + bool(board.free_cities)])
    assert all(c in named for c in board.cities)
    shown = lambda c: c + ("*" if c in d["display"] else "")      # noqa: E731
    assert f"{shown('Freiburg')}[0]" in text and f"{shown('Ulm')}[1]<1>" in text and f"{shown('Augsburg')}<0>" in text
    # the route's ends and the cities next to them by road, not on the route
    route = next(line for line in lines if line.strip().startswith("seat 0 (you) route"))
    assert "Augsburg - München" in route and "Augsburg to " in route and "München to " in route
    aug, mue = board.city_index("Augsburg"), board.city_index("München")
    near = [board.cities[c] for c in range(board.n_cities) if board.adjacent(aug, c) and c != mue]
    assert all(c in route.split("München to")[0] for c in near)


def test_terminal_play_shows_the_map_each_turn_and_on_request():
    result = CliRunner().invoke(cli, ["play", "--bots", "human,greedy", "--seed", "4"], input="map\nquit\n")
    out = result.output
    assert out.count("map: * in the display, [0] a house of seat 0") == 2          # at the turn's start, then for `map`
    assert "Baiern" in out


def test_a_tournaments_first_screen_is_its_result_table_and_says_where_the_rest_is(tmp_path, capsys):
    out_dir = tmp_path / "t"
    code, out, err = run(["tournament", "--bots", "heuristic,random", "--games", "2", "--jobs", "1",
                          "--out", str(out_dir), "--no-progress"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) <= 10 and all(len(x) <= 100 for x in lines[1:-1]), out
    assert lines[3].split()[:2] == ["bot", "seats"] and "rating" in lines[3] and "sigma" not in out
    assert any(x.startswith("heuristic ") for x in lines) and any(x.startswith("random ") for x in lines)
    assert "score parts (mean" not in out and "officials" in lines[-1]
    assert "--verbose" in lines[-1] and f"thurn-ai report {out_dir}" in lines[-1]
    code, out, err = run(["tournament", "--out", str(out_dir), "--resume", "--verbose", "--no-progress"], capsys)
    assert code == 0, err
    for table in ("score parts", "officials (uses per game", "seats (all bots)", "game length in turns",
                  "mu - 3 sigma"):
        assert table in out, table
