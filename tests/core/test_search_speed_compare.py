"""experiments/search_speed_compare.py: the comparison's bookkeeping (best round per checkout, the ratio, the
verdict on the fingerprints, the exit status, bad input). The searches themselves run in child processes
that take a minute or more, so here `child` is replaced by recorded answers."""
import json

import pytest

from tests.helpers import experiment


def _script():
    return experiment("search_speed_compare")


def _checkouts(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for c in (old, new):
        (c / "thurn_ai").mkdir(parents=True)
    return old, new


def _fake_child(times, prints):
    """child(checkout, what) answering from times[name] (one dict per round, taken in turn) and prints[name]."""
    calls = []

    def child(checkout, what):
        name = checkout.name
        calls.append((name, what))
        if what == "time":
            return times[name].pop(0)
        return prints[name]
    return child, calls


def test_each_checkout_keeps_its_best_round_and_the_ratio_is_old_over_new(tmp_path, monkeypatch, capsys):
    mod = _script()
    old, new = _checkouts(tmp_path)
    times = {"old": [{"2": {"seconds": 9.0, "positions": 20}}, {"2": {"seconds": 6.0, "positions": 20}},
                     {"2": {"seconds": 7.0, "positions": 20}}],
             "new": [{"2": {"seconds": 2.0, "positions": 20}}, {"2": {"seconds": 4.0, "positions": 20}},
                     {"2": {"seconds": 3.0, "positions": 20}}]}
    same = {"cases": 640, "sha256": "ab"}
    child, calls = _fake_child(times, {"old": same, "new": same})
    monkeypatch.setattr(mod, "child", child)
    out = tmp_path / "res.json"
    assert mod.main([str(old), str(new), "--rounds", "3", "--out", str(out)]) == 0
    # the checkouts take turns, round after round, then one fingerprint each
    assert calls == [("old", "time"), ("new", "time")] * 3 + [("old", "fingerprint"), ("new", "fingerprint")]
    res = json.loads(out.read_text())
    r = res["players"]["2"]
    assert (r["old_seconds"], r["new_seconds"], r["speedup"]) == (6.0, 2.0, 3.0)
    assert res["fingerprint"]["same"] is True and res["rounds"] == 3
    assert "3.00x" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "old", "res.json"]   # no temporary file left


def test_different_fingerprints_fail_the_comparison(tmp_path, monkeypatch, capsys):
    mod = _script()
    old, new = _checkouts(tmp_path)
    times = {n: [{"3": {"seconds": 1.0, "positions": 20}}] for n in ("old", "new")}
    child, _ = _fake_child(times, {"old": {"cases": 640, "sha256": "ab"}, "new": {"cases": 640, "sha256": "cd"}})
    monkeypatch.setattr(mod, "child", child)
    assert mod.main([str(old), str(new), "--rounds", "1"]) == 1
    assert "DIFFERENT" in capsys.readouterr().out


def test_bad_input_is_refused_with_one_message(tmp_path, capsys):
    mod = _script()
    old, new = _checkouts(tmp_path)
    for args, says in (([str(old), str(tmp_path / "nowhere")], "not a thurn-ai checkout"),
                       ([str(old), str(new), "--rounds", "0"], "--rounds must be at least 1")):
        with pytest.raises(SystemExit) as e:
            mod.main(args)
        assert e.value.code == 2
        assert says in capsys.readouterr().err


def test_a_failing_child_names_the_checkout(tmp_path):
    """A checkout that is not built (no compiled core) stops the comparison with a message, not a traceback."""
    mod = _script()
    old, _ = _checkouts(tmp_path)
    with pytest.raises(SystemExit) as e:
        mod.child(old, "fingerprint")
    assert str(old) in str(e.value) and "failed" in str(e.value)
