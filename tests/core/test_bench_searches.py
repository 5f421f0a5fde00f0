"""experiments/bench_searches.py and its library side (thurn_ai.play.bench): the same positions for every
search, the trees the bots would build, the best round kept per search and player count, the ratios, bad
input. The measurements themselves (callgrind, timing) run in child processes for minutes, so here they are
replaced by recorded answers; the findings read off a saved file (thurn_ai.studies.pages)."""
import json
from pathlib import Path

import pytest

from thurn_ai.play.bench import COMPARED_SEARCHES, search_positions, search_trees
from thurn_ai.studies.benchmarks import _searches
from thurn_ai.studies.provenance import package_root

from tests.helpers import experiment


def test_the_positions_are_the_same_every_time_and_of_the_player_count():
    a, b = search_positions(3, 4), search_positions(3, 4)
    assert len(a) == 4 and all(g.n_players == 3 and not g.is_terminal() for g in a)
    assert [g.to_dict() for g in a] == [g.to_dict() for g in b]
    assert len({json.dumps(g.to_dict(), sort_keys=True) for g in a}) == 4


@pytest.mark.parametrize("spec", COMPARED_SEARCHES)
def test_each_compared_search_builds_trees_that_search_the_same_way_twice(spec):
    positions = search_positions(2, 2)
    first = [t.run(40) for t in search_trees(spec, positions)]
    trees = search_trees(spec, positions)
    assert [t.run(40) for t in trees] == first == [40, 40]
    again = search_trees(spec, positions)
    for t in again:
        t.run(40)
    assert [t.root_children() for t in trees] == [t.root_children() for t in again]


def _fake(rounds_cpu: dict):
    """timed() answering from rounds_cpu[spec] (a CPU time per round, taken in turn), instructions() with a
    count per spec."""
    calls = []

    def timed(root, specs, count, iterations, players, shift):
        calls.append((tuple(specs), shift))
        return {spec: {p: {"cpu_seconds": cpu, "wall_seconds": cpu + 1, "iterations": 100, "playout_moves": 2000}
                       for p in players}
                for spec, cpu in ((spec, rounds_cpu[spec].pop(0)) for spec in specs)}

    def instructions(root, spec, count, iterations, players):
        return {"mcts": 110_000, "mcts(policy=handset)": 100_000}[spec] * 100
    return timed, instructions, calls


def test_the_child_times_every_search_position_by_position(tmp_path):
    """One round for real (a few iterations): every search, every position, one process."""
    mod = experiment("bench_searches")
    root = package_root(Path(mod.__file__).resolve().parent.parent)
    res = mod.timed(root, ["mcts", "anchor-1k"], 2, 20, [2, 4], shift=1)
    for spec in ("mcts", "anchor-1k"):
        for p in (2, 4):
            assert res[spec][p]["iterations"] == 40 and res[spec][p]["cpu_seconds"] > 0


def test_the_searches_take_turns_keep_their_best_round_and_are_compared_with_the_first(tmp_path, monkeypatch):
    mod = experiment("bench_searches")
    timed, instructions, calls = _fake({"mcts": [0.5, 0.3, 0.4], "mcts(policy=handset)": [0.25, 0.2, 0.3]})
    monkeypatch.setattr(mod, "timed", timed)
    monkeypatch.setattr(mod, "instructions", instructions)
    out = tmp_path / "searches-x.json"
    assert mod.main(["--specs", "mcts", "mcts(policy=handset)", "--rounds", "3", "--players", "2", "3",
                     "--out", str(out)]) == 0
    # every search in each round's process, each round starting the turns one search later
    assert calls == [(("mcts", "mcts(policy=handset)"), k) for k in range(3)]
    res = json.loads(out.read_text())
    row = res["searches"]["mcts"]["2"]
    assert row["cpu_us_per_iteration"] == pytest.approx(3000.0)          # best round: 0.3 s / 100 iterations
    assert row["instructions_per_iteration"] == 110_000
    ratio = res["ratio_to_first"]["mcts(policy=handset)"]["3"]
    assert ratio["instructions_per_iteration"] == pytest.approx(100 / 110)
    assert ratio["cpu_us_per_iteration"] == pytest.approx(0.2 / 0.3)
    numbers = _searches(tmp_path)
    assert numbers["search.learned_prior_cost.instructions.p2"].value == pytest.approx(0.1)
    assert numbers["search.learned_prior_cost.cpu.p3"].value == pytest.approx(0.3 / 0.2 - 1)
    assert numbers["search.iterations_per_cpu_second.mcts_policy_handset.p2"].value == pytest.approx(500)


@pytest.mark.parametrize("argv, says", [(["--specs", "mcts(nope=1)"], "nope"),
                                        (["--specs", "heuristic"], "tree search"),
                                        (["--rounds", "0"], "--rounds"), (["--players", "5"], "invalid choice")])
def test_bad_input_is_one_error_line(argv, says, capsys):
    mod = experiment("bench_searches")
    with pytest.raises(SystemExit) as e:
        mod.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and says in err and "Traceback" not in err


def test_a_timed_game_reports_every_seats_searches_and_cpu_and_replays_from_its_seed():
    from thurn_ai.play.bench import timed_game
    seen = []
    table, bots, cpu = timed_game("mcts(iterations=40)", 3, 7, on_search=lambda p, obs, r: seen.append((p, obs, r)))
    assert table.over and table.seats == ["heuristic", "mcts(iterations=40)", "heuristic"]   # seat seed mod n
    assert [b.spec for b in bots][1] == "mcts(iterations=40)" and cpu[1] > 0 and len(cpu) == 3
    assert seen and {p for p, _, _ in seen} == {1}          # heuristic never searches
    assert all(obs.player == p and r.iterations == 40 for p, obs, r in seen)
    again, _, _ = timed_game("mcts(iterations=40)", 3, 7)
    assert again.moves == table.moves                                   # same seed, same game


def test_the_profile_parts_are_read_off_callgrinds_inclusive_counts():
    from thurn_ai.play.bench import PROFILE_PARTS, profile_parts
    text = ("3,000,000 (100.0%)  ???:__pyx_f_8thurn_ai_7_search_4Tree_iterate [x.so]\n"
            "1,500,000 (50.0%)  ???:__pyx_f_8thurn_ai_7_search_4Tree_play_out [x.so]\n"
            "  900,000 (30.0%)  ???:__pyx_f_8thurn_ai_7_search_4Tree_play_out [x.so]\n")
    parts = profile_parts(text, 1000)
    assert set(parts) == set(PROFILE_PARTS)
    assert parts["iteration"] == 3000.0 and parts["playout and evaluation"] == 1500.0   # the largest count
    assert parts["determinization"] == 0.0                                              # not listed
