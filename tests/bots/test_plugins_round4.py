"""Plugin bots, hostile input fourth round (issue 57): a built-in name cannot be taken; a plugin's failures
(a factory returning no bot, choose() raising, sys.exit anywhere) are one `error:` line; paths holding ':'
can be listed in THURN_AI_BOT_MODULES; a web request never imports an installed plugin.

Each case runs in its own process (a module's registrations are global to a process)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bots.test_plugins import make_plugin, thurn

PLAY = ["play", "--quiet", "--seed", "1"]


def module(tmp_path: Path, body: str, name: str = "plug.py") -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("from thurn_ai.bots import register\nfrom thurn_ai.bots.random_bot import RandomBot\n" + body)
    return str(path)


def one_error(out, says: str) -> None:
    """Exit status 2 and one `error:` line (after a tournament's line saying what it plays), no traceback."""
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = [line for line in out.stderr.splitlines() if not line.startswith("tournament: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert says in lines[0], lines[0]


def test_a_module_cannot_take_a_built_in_name(tmp_path):
    m = module(tmp_path, "register('mcts', RandomBot)\n")
    one_error(thurn([*PLAY, "--bot-module", m, "--bots", "mcts,random"], tmp_path), "'mcts' is a built-in bot's")
    one_error(thurn([*PLAY, "--bots", "mcts,random"], tmp_path, {"THURN_AI_BOT_MODULES": m}),
              "'mcts' is a built-in bot's")


def test_a_factory_returning_no_bot_is_one_error(tmp_path):
    m = module(tmp_path, "register('nobot', lambda seed=0: None)\n")
    one_error(thurn([*PLAY, "--bot-module", m, "--bots", "nobot,random"], tmp_path), "returned None, not a bot")


CRASHING = """
class Crash(RandomBot):
    def choose(self, obs):
        raise ZeroDivisionError("my bug")
register('crash', Crash)
"""


@pytest.mark.parametrize("command", [PLAY, ["tournament", "--games", "2", "--jobs", "2", "--no-progress"]],
                         ids=["play", "tournament-jobs-2"])
def test_a_bot_raising_in_choose_is_one_error(tmp_path, command):
    m = module(tmp_path, CRASHING)
    one_error(thurn([*command, "--bot-module", m, "--bots", "crash,random", *(
        ["--out", str(tmp_path / "t")] if command[0] == "tournament" else [])], tmp_path),
        "bot crash: choose() raised ZeroDivisionError: my bug")


def test_sys_exit_in_a_plugin_is_one_error_not_a_quiet_exit(tmp_path):
    m = module(tmp_path, "import sys\nsys.exit(0)\n", "exits.py")
    one_error(thurn([*PLAY, "--bot-module", m, "--bots", "random,random"], tmp_path), "called sys.exit(0)")
    m = module(tmp_path, "import sys\nclass Quit(RandomBot):\n    def choose(self, obs):\n        sys.exit(3)\n"
                         "register('quitter', Quit)\n", "quits.py")
    one_error(thurn([*PLAY, "--bot-module", m, "--bots", "quitter,random"], tmp_path), "called sys.exit(3)")


def test_a_path_with_a_colon_in_the_environment_and_in_worker_processes(tmp_path):
    m = module(tmp_path / "a:b", "class Colon(RandomBot):\n    pass\nregister('colonbot', Colon)\n")
    by_env = thurn([*PLAY, "--bots", "colonbot,random"], tmp_path, {"THURN_AI_BOT_MODULES": json.dumps([m])})
    assert by_env.returncode == 0, by_env.stderr
    # --bot-module exports it to the tournament's workers (as a JSON list, since the path holds ':')
    out = thurn(["tournament", "--bot-module", m, "--bots", "colonbot,random", "--games", "2", "--jobs", "2",
                 "--no-progress", "--out", str(tmp_path / "t")], tmp_path)
    assert out.returncode == 0, out.stderr
    one_error(thurn([*PLAY, "--bots", "random,random"], tmp_path, {"THURN_AI_BOT_MODULES": "[not json"}),
              "is not a JSON list of strings")


@pytest.mark.parametrize("broken", [False, True], ids=["plugin", "broken-plugin"])
def test_a_web_request_never_imports_an_installed_plugin(tmp_path, broken):
    pytest.importorskip("starlette")
    site = tmp_path / "site"
    site.mkdir()
    make_plugin(site, broken=broken)
    code = ("import sys\nfrom thurn_ai.errors import ThurnError\nfrom thurn_ai.web.sessions import GameSession\n"
            "try:\n    GameSession(['mybot', 'human'])\nexcept ThurnError as e:\n    print('refused:', e)\n"
            "from thurn_ai.bots import known_bots\n"
            "print('offered' if 'mybot' in known_bots(loaded_only=True) else 'not offered')\n"
            "print('imported' if 'my_bot' in sys.modules else 'not imported')\n")
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": path})
    assert out.returncode == 0, out.stderr
    assert "refused: bot 'mybot' is an installed plugin" in out.stdout, out.stdout
    assert "not imported" in out.stdout and "NoSuchClass" not in out.stdout
    assert "not offered" in out.stdout         # the page's list of bots (/api/startup) leaves it out
