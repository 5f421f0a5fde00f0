"""Bots from outside the package (docs/writing-a-bot.md): `--bot-module FILE.py|MODULE`, the environment
variable THURN_AI_BOT_MODULES, and plugins named in the entry-point group `thurn_ai.bots`.

Every run is a fresh `thurn-ai` process (the registry is per process), started from a folder outside the
source tree, with the example bot examples/my_bot.py. The installed-plugin path is also run against a
non-editable install in tests/project/test_install.py; here the entry point is made visible to Python by a
`.dist-info` folder on PYTHONPATH, which is how an installed distribution's entry points are found."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "my_bot.py"


def thurn(args, cwd, env_extra=None, timeout=300):
    env = {k: v for k, v in os.environ.items() if k not in ("THURN_AI_BOT_MODULES",)}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "thurn_ai.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def table_rows(stdout: str) -> dict[str, list[str]]:
    """The first table's rows by bot name."""
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if parts and parts[0] in ("mybot", "greedy", "random", "mcts(iterations=30)", "heuristic"):
            rows.setdefault(parts[0], parts)
    return rows


def test_a_bot_module_file_plays_in_a_cli_tournament_with_worker_processes(tmp_path):
    out = thurn(["tournament", "--bot-module", str(EXAMPLE), "--bots", "mybot,random", "--games", "4",
                 "--seed", "1", "--jobs", "2", "--no-progress", "--out", "t"], tmp_path)
    assert out.returncode == 0, out.stderr
    rows = table_rows(out.stdout)
    assert set(rows) == {"mybot", "random"}
    assert rows["mybot"][1] == "4"                          # seats: it played all four games
    records = (tmp_path / "t" / "records.jsonl").read_text().splitlines()
    assert len(records) == 4 and all('"mybot"' in r for r in records)


def test_a_tournament_of_a_bot_module_resumes_with_the_module_given_again(tmp_path):
    first = thurn(["tournament", "--bot-module", str(EXAMPLE), "--bots", "mybot,random", "--games", "2", "--jobs", "1",
                   "--no-progress", "--out", "t"], tmp_path)
    assert first.returncode == 0, first.stderr
    lost = thurn(["tournament", "--out", "t", "--resume", "--no-progress"], tmp_path)
    assert lost.returncode == 2 and "unknown bot 'mybot'" in lost.stderr and "--bot-module" in lost.stderr
    again = thurn(["tournament", "--out", "t", "--resume", "--bot-module", str(EXAMPLE), "--no-progress"], tmp_path)
    assert again.returncode == 0 and "mybot" in again.stdout, again.stderr


def test_the_example_bot_takes_options_from_its_spec_and_is_reproducible(tmp_path):
    args = ["play", "--bot-module", str(EXAMPLE), "--bots", "mybot(min_route=4),heuristic", "--seed", "3", "--quiet"]
    first, again = thurn(args, tmp_path), thurn(args, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout and "mybot" in first.stdout
    bad = thurn(["play", "--bot-module", str(EXAMPLE), "--bots", "mybot(depth=2),heuristic"], tmp_path)
    assert bad.returncode == 2 and "mybot has no option depth (known: forbid, min_route)" in bad.stderr, bad.stderr
    bad = thurn(["play", "--bot-module", str(EXAMPLE), "--bots", "mybot(min_route=0),heuristic"], tmp_path)
    assert bad.returncode == 2 and "min_route must be between 1 and 9" in bad.stderr, bad.stderr


def test_a_bot_module_by_name_and_by_environment(tmp_path):
    pkg = tmp_path / "lib"
    pkg.mkdir()
    shutil.copy(EXAMPLE, pkg / "my_bot.py")
    by_name = thurn(["play", "--bot-module", "my_bot", "--bots", "mybot,random", "--seed", "1", "--quiet"], tmp_path,
                    {"PYTHONPATH": str(pkg)})
    assert by_name.returncode == 0 and "mybot" in by_name.stdout, by_name.stderr
    by_env = thurn(["tournament", "--bots", "mybot,random", "--games", "2", "--jobs", "2", "--no-progress"], tmp_path,
                   {"THURN_AI_BOT_MODULES": str(EXAMPLE)})
    assert by_env.returncode == 0 and "mybot" in by_env.stdout, by_env.stderr


def test_bad_bot_modules_are_one_error_line(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('this plugin is broken')\n")
    cases = [([str(tmp_path / "nope.py")], "no such file"),
             (["no_such_module_xyz"], "no module named 'no_such_module_xyz'"),
             ([str(broken)], "failed to import: RuntimeError: this plugin is broken"),
             (["not a module!"], "neither a .py file nor a module name")]
    for module, said in cases:
        out = thurn(["tournament", "--bot-module", *module, "--bots", "mybot,random", "--games", "2"], tmp_path)
        assert out.returncode == 2, (module, out.stderr)
        assert out.stderr.startswith("error:") and len(out.stderr.splitlines()) == 1, out.stderr
        assert said in out.stderr, out.stderr
    unknown = thurn(["play", "--bots", "mybot,random"], tmp_path)
    assert unknown.returncode == 2 and "--bot-module FILE.py" in unknown.stderr, unknown.stderr


def make_plugin(site: Path, broken: bool = False) -> None:
    """An installed distribution as Python finds it: its module and a .dist-info with entry_points.txt."""
    shutil.copy(EXAMPLE, site / "my_bot.py")
    info = site / "my_thurn_bots-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-thurn-bots\nVersion: 0.1.0\n")
    target = "my_bot:NoSuchClass" if broken else "my_bot:MyBot"
    (info / "entry_points.txt").write_text(f"[thurn_ai.bots]\nmybot = {target}\nmcts = my_bot:MyBot\n")


def test_an_installed_plugin_needs_no_option(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    make_plugin(site)
    env = {"PYTHONPATH": str(site)}
    out = thurn(["tournament", "--bots", "mybot,mcts(iterations=30)", "--games", "2", "--jobs", "2", "--no-progress"],
                tmp_path, env)
    assert out.returncode == 0, out.stderr
    rows = table_rows(out.stdout)
    assert set(rows) == {"mybot", "mcts(iterations=30)"}
    # a plugin cannot replace a built-in bot: the plugin's `mcts` (MyBot) has no option `iterations`, so the
    # game above was played by the search
    code = "from thurn_ai.bots import known_bots; print(known_bots())"
    listed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                            env={**os.environ, **env}, timeout=120)
    assert "'mybot'" in listed.stdout, listed.stderr


def test_a_broken_plugin_fails_only_when_its_bot_is_used(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    make_plugin(site, broken=True)
    env = {"PYTHONPATH": str(site)}
    fine = thurn(["play", "--bots", "greedy,random", "--quiet"], tmp_path, env)
    assert fine.returncode == 0, fine.stderr
    bad = thurn(["play", "--bots", "mybot,random", "--quiet"], tmp_path, env)
    assert bad.returncode == 2 and bad.stderr.startswith("error: bot mybot: its plugin 'my_bot:NoSuchClass'"), \
        bad.stderr


def test_register_checks_its_arguments():
    from thurn_ai.bots import register
    from thurn_ai.errors import BotSpecError
    with pytest.raises(BotSpecError, match="a bot name is a word"):
        register("my bot", object)
    with pytest.raises(BotSpecError, match="is not a class or function"):
        register("mybot2", 3)
