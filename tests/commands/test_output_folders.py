"""`thurn-ai officials --out` and `thurn-ai report --plots` never overwrite a user's files (issue 26): they
write into a new or empty folder, which they mark, or into a folder they marked before; any other folder
is refused with one `error:` line and left as it was."""
from __future__ import annotations

import pytest

from thurn_ai.bots.spec import BotSpec
from thurn_ai.studies import officials as S
from thurn_ai.cli import main
from thurn_ai.play.tournament import run_tournament

OFFICIALS_MARK = ".thurn-ai-officials"
PLOTS_MARK = ".thurn-ai-plots"


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
    captured = capsys.readouterr()
    return e.value.code, captured.err


@pytest.fixture(scope="module")
def study_file(tmp_path_factory):
    """Saved ablation games of random bots (2 games, 2 players, one official): what --from re-analyses."""
    folder = tmp_path_factory.mktemp("study")
    df = S.run_ablation(BotSpec.parse("random"), players=(2,), games=2, seed=3, officials=("administrator",), jobs=1,
                        out_dir=None, resume=False, progress=False, log=None)
    path = folder / "games.parquet"
    df.to_parquet(path)
    return path


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("t") / "t"
    run_tournament(["random", "greedy"], games=2, seed=1, jobs=1, out_dir=out, progress=False)
    return out


def test_officials_refuses_a_folder_of_the_users(tmp_path, study_file, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "report.md").write_text("my own notes")
    (out / "summary.png").write_bytes(b"my picture")
    code, err = run_cli(["officials", "--from", study_file, "--out", out], capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert "report.md" in err and "new or empty folder" in err
    assert (out / "report.md").read_text() == "my own notes"
    assert (out / "summary.png").read_bytes() == b"my picture"
    assert sorted(p.name for p in out.iterdir()) == ["report.md", "summary.png"]


def test_officials_marks_its_folder_and_rewrites_it(tmp_path, study_file, capsys):
    out = tmp_path / "empty"
    out.mkdir()                                              # an empty folder is used
    for _ in range(2):                                       # and a rerun rewrites what it wrote
        code, err = run_cli(["officials", "--from", study_file, "--out", out, "--quiet"], capsys)
        assert code == 0, err
        assert (out / OFFICIALS_MARK).exists() and (out / "report.md").exists()


def test_report_refuses_a_plots_folder_of_the_users(tmp_path, tournament, capsys):
    plots = tmp_path / "pictures"
    plots.mkdir()
    (plots / "scores.png").write_bytes(b"holiday")
    code, err = run_cli(["report", tournament, "--plots", plots], capsys)
    assert code == 2 and err.count("\n") == 1 and "scores.png" in err, err
    assert (plots / "scores.png").read_bytes() == b"holiday"
    assert [p.name for p in plots.iterdir()] == ["scores.png"]


def test_report_marks_its_plots_folder_and_rewrites_it(tmp_path, tournament, capsys):
    for plots in (tmp_path / "new" / "plots", None):         # a new folder; the default RESULTS_DIR/plots
        for _ in range(2):
            code, err = run_cli(["report", tournament] + (["--plots", plots] if plots else []), capsys)
            assert code == 0, err
        folder = plots or tournament / "plots"
        assert (folder / PLOTS_MARK).exists() and (folder / "scores.png").read_bytes()[:4] == b"\x89PNG"
