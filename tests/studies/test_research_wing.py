"""What the experiments share, in the library: a strength cell and its summary.csv (thurn_ai.studies.strength),
and where a result came from (thurn_ai.studies.provenance: the code state of a checkout, the runs' tally,
a results folder's README)."""
import subprocess
import sys
import time

import pandas as pd
import pytest

from thurn_ai.stats.summary import wilson_interval
from thurn_ai.studies import provenance, strength

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]


# ---------------------------------------------------------------- a strength cell

def test_a_cell_is_summarised_from_its_games_and_again_from_its_folder(tmp_path):
    row = strength.run_cell("c", 2, "random", 4, "south", tmp_path, jobs=1, seed=5, others="greedy")
    games = pd.read_csv(tmp_path / "runs" / "c" / "results.csv")
    mine, other = games[games["spec"] == "random"], games[games["spec"] == "greedy"]
    assert row["games"] == len(mine) == 4 and row["players"] == 2 and row["fair"] == 0.5
    assert row["wins"] == pytest.approx(mine["win_share"].sum())
    lo, hi = wilson_interval(mine["win_share"].sum(), 4)
    assert (row["ci_low"], row["ci_high"]) == (round(lo, 4), round(hi, 4))
    assert row["mcts_score"] == round(mine["score"].mean(), 2)
    assert row["heuristic_scores"] == str(round(other["score"].mean(), 2))
    # how often the cell's bot outscored the other seat in the same game, ties half
    pairs = mine.set_index("game")["score"].to_frame("me").join(other.set_index("game")["score"].rename("it"))
    share = ((pairs["me"] > pairs["it"]) + 0.5 * (pairs["me"] == pairs["it"])).mean()
    assert row["outscored"] == f"{100 * round(share, 3):.0f}%"
    again = strength.summarize_saved("c", 2, "random", "south", tmp_path, before=row)
    assert again == row                                  # the same games: the same row, its time kept
    assert strength.summarize_saved("c", 2, "random", "south", tmp_path, before=None)["seconds"] == "–"
    assert strength.summarize_saved("none", 2, "random", "south", tmp_path, before=None) is None


def test_the_summary_keeps_its_rows_in_the_cells_order(tmp_path):
    path = tmp_path / "summary.csv"
    assert strength.read_summary(path, "cell") == {}
    rows = {name: {"cell": name, "games": n, "extra": "dropped"} for name, n in (("b", 2), ("new", 3), ("a", 1))}
    strength.write_summary(path, rows, ["cell", "games"], order=["a", "b"])
    assert path.read_text().splitlines() == ["cell,games", "a,1", "b,2", "new,3"]      # unknown names last
    assert strength.read_summary(path, "cell")["new"] == {"cell": "new", "games": "3"}
    assert strength.pct(0.1234) == "12.3%"


# ---------------------------------------------------------------- provenance

@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "src" / "thurn_ai").mkdir(parents=True)
    (root / "src" / "thurn_ai" / "x.py").write_text("A = 1\n")
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("a\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*GIT, "add", "."], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "x"], cwd=root, check=True)
    return root


def test_the_code_state_names_changes_to_the_code_only(repo, tmp_path):
    head = provenance.commit(repo)
    assert len(head) >= 7 and provenance.code_state(repo) == head
    (repo / "docs" / "a.md").write_text("b\n")                     # not code
    assert provenance.code_state(repo) == head
    (repo / "src" / "thurn_ai" / "x.py").write_text("A = 2\n")
    assert provenance.code_state(repo) == f"{head} with uncommitted changes to src/thurn_ai/x.py"
    assert provenance.code_state(repo, ("cext",)) == head           # only the paths asked about
    assert provenance.commit(tmp_path / "nowhere") == "unknown"


def test_an_experiment_on_uncommitted_code_stops_with_one_error_line(repo, capsys):
    head = provenance.commit(repo)
    assert provenance.committed_code_or_exit(repo) == head
    (repo / "src" / "thurn_ai" / "x.py").write_text("A = 2\n")
    with pytest.raises(SystemExit) as stop:
        provenance.committed_code_or_exit(repo)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert err.startswith("error: uncommitted changes to src/thurn_ai/x.py") and "--allow-dirty" in err
    # allowed, the code state it returns says what differs (the outputs then name it)
    assert provenance.committed_code_or_exit(repo, allow_dirty=True) == (
        f"{head} with uncommitted changes to src/thurn_ai/x.py")


def test_an_experiment_scripts_errors_end_in_one_line_and_status_2(tmp_path, capsys):
    """script_main: the user's errors (bad input, a missing file, uncommitted code) print one `error:` line
    (an OSError by its message and file, no [Errno N]) and return 2; other errors (a bug) still raise."""
    from thurn_ai.errors import ThurnError

    @provenance.script_main
    def main(kind):
        if kind == "input":
            raise ThurnError("--games must be positive")
        if kind == "file":
            return len((tmp_path / "missing.csv").read_text())
        if kind == "dirty":
            raise provenance.DirtyTree("uncommitted changes to src")
        if kind == "bug":
            raise KeyError("a bug")
        return 0

    assert main("none") == 0 and capsys.readouterr().err == ""
    for kind, said in (("input", "error: --games must be positive\n"),
                       ("file", f"error: No such file or directory: {tmp_path / 'missing.csv'}\n"),
                       ("dirty", "error: uncommitted changes to src\n")):
        assert main(kind) == 2 and capsys.readouterr().err == said
    with pytest.raises(KeyError):
        main("bug")
    wider = provenance.script_main(errors=(KeyError,))(lambda: {}["x"])
    assert wider() == 2 and capsys.readouterr().err == "error: 'x'\n"


def test_a_checkouts_package_is_under_src_since_the_src_layout(repo, tmp_path):
    assert provenance.package_root(repo) == repo / "src"
    (tmp_path / "old" / "thurn_ai").mkdir(parents=True)
    assert provenance.package_root(tmp_path / "old") == tmp_path / "old"


def test_the_runs_tally_adds_time_and_keeps_each_code_once(tmp_path):
    provenance.tally_run(tmp_path, "a", played_with="abc")
    provenance.tally_run(tmp_path, "a", seconds=2.5)
    provenance.tally_run(tmp_path, "a", seconds=1.0, played_with="abc")
    provenance.tally_run(tmp_path, "b", seconds=3.0, played_with="def")
    runs = provenance.tally_run(tmp_path, "", keep_only=("a",))
    assert runs == {"a": {"seconds": 3.5, "played_with": ["abc"]}}
    # one runs.json format: log_run's list of runs, which the tally is computed from
    assert {r["part"] for r in provenance.read_runs(tmp_path)} == {"a"}
    provenance.log_run(tmp_path, "a", 1.0, "def", games=3)
    assert provenance.tally_run(tmp_path, "")["a"] == {"seconds": 4.5, "played_with": ["abc", "def"]}
    assert provenance.read_runs(tmp_path)[-1] == {"part": "a", "code": "def", "seconds": 1.0, "games": 3,
                                                  "command": provenance.run_command()}


def test_a_run_names_its_command_and_the_findings_carry_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", [str(tmp_path / "experiments" / "x.py"), "--seed", "7", "--out", "a b"])
    assert provenance.run_command() == "python experiments/x.py --seed 7 --out 'a b'"
    provenance.log_run(tmp_path, "play", 1.0, "abc1234", seed=7)
    from thurn_ai.studies.pages import _runs
    assert _runs(tmp_path) == ({"part": "play", "code": "abc1234",
                                "command": "python experiments/x.py --seed 7 --out 'a b'", "seed": 7},)


def test_a_runs_file_of_the_earlier_tally_form_reads_as_runs(tmp_path):
    (tmp_path / "runs.json").write_text('{"search": {"seconds": 7.5, "played_with": ["abc", "def"]}, "x": "old"}')
    assert provenance.read_runs(tmp_path) == [{"part": "search", "code": "abc", "seconds": 7.5},
                                              {"part": "search", "code": "def", "seconds": 0.0}]
    assert provenance.tally_run(tmp_path, "") == {"search": {"seconds": 7.5, "played_with": ["abc", "def"]}}


def test_a_results_readme_names_its_command_commit_and_machine_and_keeps_the_notes(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance, "machine_info", lambda: {"commit": "abc1234", "cpu": "a CPU"})
    provenance.write_results_readme(tmp_path, "Title", "python experiments/x.py --y", ["body", ""])
    assert (tmp_path / "README.md").read_text().splitlines() == [
        "# Title", "", "Produced by `python experiments/x.py --y` (commit abc1234, a CPU, 2 worker processes).",
        "", "body"]
    (tmp_path / "NOTES.md").write_text("hand-written\n\n")
    provenance.write_results_readme(tmp_path, "Title", "cmd", ["body", ""], setup="one core")
    text = (tmp_path / "README.md").read_text()
    assert "(commit abc1234, a CPU, one core)" in text and text.endswith("body\n\nhand-written\n")


def test_the_cpu_clock_counts_the_work_of_finished_worker_processes():
    before, own = provenance.cpu_clock(), time.process_time()
    # a child that spends about 0.4 CPU s, then ends (as a --jobs pool's workers do when the pool stops)
    subprocess.run([sys.executable, "-c", "import time\nt = time.process_time()\n"
                    "while time.process_time() - t < 0.4: pass"], check=True)
    spent = provenance.cpu_clock() - before
    assert spent - (time.process_time() - own) >= 0.3       # the child's CPU, which process_time() misses
