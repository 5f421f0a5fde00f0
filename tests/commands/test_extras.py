"""A lean base install: what only one feature needs is an extra (pyproject.toml), imported when the feature
is used, and a feature whose extra is missing says which one in one `error:` line. Here the extras are
hidden from an installed environment (thurn_ai.extras.have answers no); tests/project/test_install.py runs the
README's commands in a fresh base install, where they really are missing."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from thurn_ai import extras

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_heavy_dependencies_are_extras_and_the_test_extra_pulls_them():
    base = " ".join(PROJECT["dependencies"])
    for heavy in ("pyarrow", "dask", "distributed", "gymnasium", "starlette", "mkdocs"):
        assert heavy not in base, heavy
    opt = PROJECT["optional-dependencies"]
    assert {"parquet", "dask", "gym", "serve", "pettingzoo", "openspiel", "docs", "test"} <= set(opt)
    test = next(r for r in opt["test"] if r.startswith("thurn-ai["))
    assert set(test[len("thurn-ai["):-1].split(",")) >= {"parquet", "dask", "gym", "pettingzoo", "serve", "docs"}


def test_no_module_imports_an_extra_at_its_top():
    """pyarrow and dask are imported where they are used (pandas imports pyarrow itself), never when a
    module of the package is imported."""
    # (pandas itself imports pyarrow when it is installed, so only a base install shows pyarrow's absence:
    # tests/project/test_install.py; here the modules of dask)
    code = ("import sys, importlib, pkgutil, thurn_ai\n"
            "import thurn_ai.cli, thurn_ai.play.tournament, thurn_ai.studies.officials, thurn_ai.studies.learned.data\n"
            "import thurn_ai.stats.summary, thurn_ai.play.workers, thurn_ai.commands.tournament\n"
            "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


@pytest.fixture
def without(monkeypatch):
    """Hide extras: thurn_ai.extras.have(extra) is False for the ones named (their modules are not found;
    patched below have(), which modules import by name)."""
    hidden = set()
    real = extras._findable
    monkeypatch.setattr(extras, "_findable",
                        lambda module: real(module) and not any(module in extras.EXTRAS[x] for x in hidden))
    return hidden


def test_a_tournament_without_parquet_keeps_its_results_in_csv(tmp_path, without):
    from thurn_ai.play.tournament import load_results, run_tournament
    without.add("parquet")
    df = run_tournament(["greedy", "random"], players=2, games=2, seed=1, jobs=1, out_dir=tmp_path / "t",
                        progress=False)
    assert not (tmp_path / "t" / "results.parquet").exists()
    again = load_results(tmp_path / "t")
    assert len(again) == len(df) == 4


def test_a_saved_parquet_file_without_pyarrow_is_read_from_its_csv_or_named(tmp_path, without):
    from thurn_ai.errors import TournamentError
    from thurn_ai.play.tournament import load_results, run_tournament
    run_tournament(["greedy", "random"], players=2, games=2, seed=1, jobs=1, out_dir=tmp_path / "t", progress=False)
    assert (tmp_path / "t" / "results.parquet").exists()
    without.add("parquet")
    assert len(load_results(tmp_path / "t")) == 4              # results.csv stands in
    with pytest.raises(TournamentError, match=r'pip install "thurn-ai\[parquet\]"'):
        load_results(tmp_path / "t" / "results.parquet")


def test_features_say_which_extra_they_need(tmp_path, without, monkeypatch, capsys):
    from thurn_ai.cli import cli
    without.add("parquet")
    with pytest.raises(SystemExit) as e:
        cli.main(["officials", "--bot", "random", "--games", "2", "--players", "2", "--out", str(tmp_path / "s")],
                 prog_name="thurn-ai")
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith("error: thurn-ai officials --out") and len(err.splitlines()) == 1
    assert 'pip install "thurn-ai[parquet]"' in err
    monkeypatch.setitem(sys.modules, "distributed", None)       # `import distributed` fails
    from thurn_ai.errors import TournamentError
    from thurn_ai.play.workers import connect
    with pytest.raises(TournamentError, match=r'--scheduler needs dask.distributed.*pip install "thurn-ai\[dask\]"'):
        connect("tcp://127.0.0.1:1")


def test_need_names_the_extra():
    with pytest.raises(extras.ThurnError,
                       match=r'x needs nosuchmodule, which is not installed: pip install "thurn-ai\[t\]"'):
        extras.EXTRAS["t"] = ("nosuchmodule",)
        try:
            extras.need("t", "x")
        finally:
            del extras.EXTRAS["t"]
    assert extras.have("parquet")           # the test extra installs them all


@pytest.mark.parametrize("adapter, module, extra", [("gym", "gymnasium", "gym"),
                                                   ("pettingzoo", "pettingzoo", "pettingzoo"),
                                                   ("openspiel", "pyspiel", "openspiel")])
def test_each_adapter_without_its_library_names_its_own_extra(adapter, module, extra):
    """Issue 57: the Gymnasium adapter named the [pettingzoo] extra. Each adapter is imported in a process
    where its library cannot be imported (sys.modules[name] = None)."""
    code = (f"import sys; sys.modules[{module!r}] = None\n"
            f"try:\n    import thurn_ai.adapters.{adapter}\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f'pip install "thurn-ai[{extra}]"' in out.stdout, out.stdout
