"""Issue 41, part B: the paths a new user takes in the first hour work and explain themselves
(resume from the saved settings, a repository that stands alone, readable output, a fast --help)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from thurn_ai import cli

ROOT = Path(__file__).resolve().parents[2]


def run_cli(argv, capsys):
    """(exit code, stdout, stderr) of `thurn-ai ARGV`."""
    with pytest.raises(SystemExit) as e:
        cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return e.value.code, out, err


def cli_error(argv, capsys) -> str:
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ")
    return last


# ---------------------------------------------------------------- --resume reads tournament.json

@pytest.fixture(scope="module")
def started(tmp_path_factory):
    out = tmp_path_factory.mktemp("resume") / "t"
    with pytest.raises(SystemExit) as e:
        cli.main(["tournament", "--bots", "heuristic,greedy", "--games", "2", "--seed", "5", "--jobs", "1",
                  "--no-progress", "--json", "--out", str(out)])
    assert e.value.code == 0
    return out


def test_resume_with_only_out_continues_the_saved_tournament(started, capsys):
    capsys.readouterr()
    code, out, err = run_cli(["tournament", "--out", started, "--resume", "--games", "4", "--jobs", "1",
                              "--no-progress", "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["specs"] == ["heuristic", "greedy"] and result["seed"] == 5
    assert "continue with --out" in err
    meta = json.loads((started / "tournament.json").read_text())
    assert meta["games"] == 4 and meta["seed"] == 5


@pytest.mark.parametrize("extra, word", [
    (["--bots", "heuristic,random"], "--bots heuristic,random contradicts"),
    (["--players", "3"], "--players 3 contradicts"),
    (["--seed", "6"], "--seed 6 contradicts"),
    (["--board", "north"], "--board north contradicts"),
    (["--variant", "horses"], "--variant horses contradicts"),
    (["--english-tile"], "--english-tile contradicts"),
])
def test_resume_refuses_settings_that_contradict_the_saved_ones(started, capsys, extra, word):
    line = cli_error(["tournament", "--out", started, "--resume", "--jobs", "1", "--no-progress"] + extra, capsys)
    assert word in line and "saved in" in line


def test_resume_accepts_the_same_settings_given_again(started, capsys):
    code, _, err = run_cli(["tournament", "--out", started, "--resume", "--bots", "heuristic, greedy",
                            "--seed", "5", "--players", "2", "--board", "south", "--variant", "classic",
                            "--jobs", "1", "--no-progress", "--json"], capsys)
    assert code == 0, err


def test_resume_without_a_saved_tournament_says_so(tmp_path, capsys):
    line = cli_error(["tournament", "--out", tmp_path / "none", "--resume"], capsys)
    assert "holds no saved tournament" in line
    assert "missing option '--bots'" in cli_error(["tournament", "--out", tmp_path / "x"], capsys)


# ---------------------------------------------------------------- the repository stands alone

def test_no_file_cites_rules_texts_outside_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    files = [f for f in files if f.endswith((".md", ".json", ".py", ".toml", ".txt", ".cff", ".yml"))
             and f != "tests/commands/test_first_hour.py"]
    citing = [f for f in files if (ROOT / f).is_file()
              and re.search(r"shared/rules|/work/shared", (ROOT / f).read_text(encoding="utf-8", errors="replace"))]
    assert citing == []


def test_the_board_files_cite_the_docs_that_state_them():
    for name, doc in (("south", "docs/rules.md"), ("north", "docs/north.md")):
        data = json.loads((ROOT / "src/thurn_ai/game/boards" / f"{name}.json").read_text(encoding="utf-8"))
        assert data["source"].startswith(doc) and (ROOT / doc).is_file()


def _table_rows(text: str) -> dict[str, tuple[set[str], int]]:
    rows = {}
    for m in re.finditer(r"^\| (\S+) \| ([^|]+) \| (\d+) \|$", text, re.M):
        rows[m.group(1)] = ({c.strip() for c in m.group(2).split(",")}, int(m.group(3)))
    return rows


def test_the_south_board_in_docs_rules_matches_the_board_file():
    board = json.loads((ROOT / "src/thurn_ai/game/boards/south.json").read_text(encoding="utf-8"))
    section = (ROOT / "docs/rules.md").read_text(encoding="utf-8").split("## 12. The South board")[1]
    provinces_part, roads_part = section.split("The 45 roads")
    roads_part = roads_part.split("Bonus tiles")[0]
    neighbours: dict[str, set[str]] = {}
    for road in board["roads"]:
        a, b = road["cities"]
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    in_docs = _table_rows(roads_part)
    assert {c: (n, len(n)) for c, n in neighbours.items()} == in_docs
    by_province: dict[str, set[str]] = {}
    for c in board["cities"]:
        by_province.setdefault(c["province"], set()).add(c["name"])
    assert {p: (c, len(c)) for p, c in by_province.items()} == _table_rows(provinces_part)
    for tile in board["tiles"]:
        values = ", ".join(map(str, tile["values"]))
        assert re.search(rf"^\| [^|]+ \| {re.escape(values)} \|", section, re.M), tile["id"]


# ---------------------------------------------------------------- a fast --help

HEAVY = ("pandas", "scipy", "matplotlib")


@pytest.mark.parametrize("argv", [["--help"], ["officials", "--help"], ["tournament", "--help"],
                                  ["report", "--help"], ["hint", "--help"], ["replay", "--help"]])
def test_help_does_not_import_pandas_scipy_or_matplotlib(argv):
    code = ("import sys\nfrom thurn_ai.cli import main\ntry:\n    main(%r)\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in %r if m in sys.modules), file=sys.stderr)" % (argv, HEAVY))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "Usage:" in r.stdout
    assert r.stderr.strip().splitlines()[-1] == "[]"


def test_top_level_help_lists_every_command_on_one_line():
    r = subprocess.run([sys.executable, "-m", "thurn_ai.cli", "--help"], capture_output=True, text=True,
                       timeout=120)
    listed = r.stdout.split("Commands:")[1].strip().splitlines()
    assert len(listed) == len(cli.COMMANDS) and all("..." not in line for line in listed)


# ---------------------------------------------------------------- output that explains itself

INTERNAL_KEYS = ("route7", "outside_baiern", "wuerttemberg_hohenzollern", "boehmen_salzburg", "houses_unplaced",
                 "postal_carrier", "game_end", "turns_low", "turns_high", "seat_0", "games_of")


def test_play_between_bots_prints_a_summary_and_the_log_on_request(capsys):
    code, out, _ = run_cli(["play", "--bots", "random,random", "--seed", "7"], capsys)
    assert code == 0 and len(out.splitlines()) < 12
    assert "2,152 turns" in out and "--log" in out and "winner: seat" in out
    code, out, _ = run_cli(["play", "--bots", "heuristic,greedy", "--seed", "7", "--log"], capsys)
    assert code == 0 and "turn   1  seat 0 (heuristic)" in out and len(out.splitlines()) > 50


def test_tournament_and_report_name_things_in_words(tmp_path, capsys):
    out_dir = tmp_path / "t"
    code, out, _ = run_cli(["tournament", "--bots", "heuristic,greedy,random", "--players", "3", "--games", "6",
                            "--jobs", "1", "--no-progress", "--out", out_dir, "--verbose"], capsys)
    assert code == 0
    code, report, _ = run_cli(["report", out_dir, "--no-plots"], capsys)
    assert code == 0
    for text in (out, report):
        assert not [k for k in INTERNAL_KEYS if k in text]
        for label in ("mean rank", "tile: route 7+", "tile: outside Baiern", "houses not placed",
                      "Postal Carrier", "95% CI", "shortest", "seat 0"):
            assert label in text, label


def test_show_names_the_tiles_in_words_and_explains_negative_scores(capsys):
    code, out, _ = run_cli(["show", ROOT / "results/officials/positions/heuristic_administrator_1.json"], capsys)
    assert code == 0
    assert "outside_baiern" not in out and "route7" not in out
    assert "outside Baiern" in out and "scores so far" in out


# ---------------------------------------------------------------- replay, hint

@pytest.fixture(scope="module")
def record(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "game.jsonl"
    with pytest.raises(SystemExit):
        cli.main(["play", "--bots", "heuristic,greedy", "--seed", "7", "--quiet", "--record", str(path)])
    return path


def test_replay_at_writes_a_position_that_hint_reads(record, tmp_path, capsys):
    pos = tmp_path / "turn12.json"
    code, out, _ = run_cli(["replay", record, "--at", "12", "--position-out", pos], capsys)
    assert code == 0 and "turn 12" in out and f"thurn-ai hint {pos}" in out
    json.loads(pos.read_text())                     # the saved position is JSON
    code, out, _ = run_cli(["hint", pos, "--iterations", "50", "--top", "2"], capsys)
    assert code == 0 and "turn 12" in out and "share of search" in out
    code, out, _ = run_cli(["replay", record, "--at", "12", "--position-out", tmp_path / "all.json", "--complete"],
                           capsys)
    assert code == 0 and "(you)" not in out
    assert "has no turn 999" in cli_error(["replay", record, "--at", "999"], capsys)
    assert "need --at" in cli_error(["replay", record, "--position-out", tmp_path / "x.json"], capsys)


def test_replay_step_shows_the_board_and_says_what_to_press(record):
    r = subprocess.run([sys.executable, "-m", "thurn_ai.cli", "replay", str(record), "--step"], input="\nq\n",
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Enter: turn 2, q: stop" in r.stdout and "Enter: turn 3, q: stop" in r.stdout
    assert "display:" in r.stdout and "tiles left:" in r.stdout
    assert "stopped before turn 3" in r.stdout and "turn   3" not in r.stdout


def test_replay_json(record, capsys):
    code, out, _ = run_cli(["replay", record, "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["complete"] and len(data["details"]) == 2
    assert data["record"]["bots"] == ["heuristic", "greedy"]


POSITION = ROOT / "results/officials/positions/heuristic_administrator_1.json"


def test_hint_which_official_gives_its_study_caveat(capsys):
    from thurn_ai.play.turn_options import CAVEAT
    code, out, _ = run_cli(["hint", POSITION, "--iterations", "50", "--which-official"], capsys)
    assert code == 0 and "caution:" in out and "not tested advice" in out and "Validation by play" in out
    assert "win chance" in out and "final score" in out
    code, out, _ = run_cli(["hint", POSITION, "--iterations", "50", "--which-official", "--json"], capsys)
    assert json.loads(out)["caveat"] == CAVEAT


# ---------------------------------------------------------------- bench names the commit

def test_bench_names_the_commit_of_the_checkout_it_runs_from(monkeypatch, tmp_path, capsys):
    from thurn_ai.studies import provenance
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    monkeypatch.chdir(tmp_path)                     # the current folder's repository is not the one asked
    commit, _ = provenance.source_commit()
    assert commit is not None and commit.split("+")[0] == head
    fake = tmp_path / "site-packages" / "thurn_ai" / "studies"
    fake.mkdir(parents=True)
    monkeypatch.setattr(provenance, "__file__", str(fake / "provenance.py"))
    assert provenance.source_commit() == (None, "not run from a git checkout (an installed copy)")
    code, out, _ = run_cli(["bench", "--players", "2", "--playouts", "1", "--no-search"], capsys)
    assert code == 0 and out.startswith("commit unknown: not run from a git checkout") and "None" not in out


# ---------------------------------------------------------------- --json where it was missing; one seat numbering

def test_show_json(capsys):
    code, out, _ = run_cli(["show", POSITION, "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["viewer"] == 1 and len(data["scores"]) == 4
    assert {"id": "outside_baiern", "name": "outside Baiern", "values": [3]} in data["tiles_left"]
    assert data["position"]["format"] == "thurn-ai position"


def test_officials_json_and_seats_numbered_from_0_like_every_command(capsys):
    games = ROOT / "results/officials/heuristic_games.parquet"
    code, out, _ = run_cli(["officials", "--from", games, "--json", "--quiet"], capsys)
    data = json.loads(out)
    assert code == 0 and {"usage", "ablation", "seats", "wbc"} <= set(data)
    assert sorted({r["seat"] for r in data["seats"] if r["players"] == 4}) == [0, 1, 2, 3]
    code, out, _ = run_cli(["officials", "--from", games, "--quiet"], capsys)
    assert "seat 0 starts" in out and "seat 1 starts" not in out and "seat 4 " not in out


def test_validate_says_why_early_scores_are_negative(capsys):
    code, out, _ = run_cli(["validate", ROOT / "examples/position.json"], capsys)
    assert code == 0 and out.startswith("ok: ") and "-1 for each house not yet placed" in out
