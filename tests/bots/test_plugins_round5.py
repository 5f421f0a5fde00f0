"""Plugin bots, hostile input fifth round (issue 72, audit 5 N9): a choose() that returns something other
than a move code (a string, None, a float) is one `error:` line naming the bot, never a TypeError deep in
the engine."""
from __future__ import annotations

import pytest

from tests.bots.test_plugins import thurn
from tests.bots.test_plugins_round4 import PLAY, module, one_error

RETURNING = """
class Odd(RandomBot):
    def choose(self, obs):
        return {value}
register('odd', Odd)
"""


@pytest.mark.parametrize("value", ['"draw deck"', "None", "1.5", "[0]"])
def test_a_bot_whose_choose_returns_no_move_code_is_one_error(tmp_path, value):
    m = module(tmp_path, RETURNING.format(value=value))
    one_error(thurn([*PLAY, "--bot-module", m, "--bots", "odd,random"], tmp_path), "not a move code")


def test_a_numpy_integer_is_a_move_code(tmp_path):
    m = module(tmp_path, """
import numpy as np
class Np(RandomBot):
    def choose(self, obs):
        return np.int64(super().choose(obs))
register('np', Np)
""")
    out = thurn([*PLAY, "--bot-module", m, "--bots", "np,random"], tmp_path)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("name", ["loop/x.py", "~nosuchuser_72/x.py"])
def test_a_bot_module_path_that_cannot_be_resolved_is_one_error(tmp_path, name):
    # before: RuntimeError tracebacks (a symbolic link loop, an unknown user's home)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    path = str(tmp_path / name) if name.startswith("loop") else name
    one_error(thurn([*PLAY, "--bot-module", path, "--bots", "random,random"], tmp_path), "--bot-module")
