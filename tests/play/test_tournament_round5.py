"""Hostile input, fifth round, tournaments (issue 72, audit 5 N8): a resume compares the rules each saved
game's record was played under with the settings, so an edited `rules` in tournament.json never mixes two
rule sets in one folder."""
import json
from pathlib import Path

import pytest

from thurn_ai.play.tournament import run_tournament

from tests.commands.test_cli_edges import invoke

SPECS = ["random", "greedy"]


def run(out, games=4, seed=3, **kw):
    return run_tournament(SPECS, games=games, seed=seed, jobs=1, out_dir=out, progress=False, **kw)


def edit_rules(out: Path, **changes):
    meta = json.loads((out / "tournament.json").read_text())
    meta["rules"].update(changes)
    meta["games"] = 8
    (out / "tournament.json").write_text(json.dumps(meta))


@pytest.mark.parametrize("change", [{"max_turns": 30}, {"all_provinces_tile": "english"}])
def test_resume_refuses_rules_edited_in_tournament_json(tmp_path, change):
    # before: the 4 saved games kept, 4 new ones played under the edited rules, exit 0
    out = tmp_path / "t"
    run(out, games=4)
    before = {n: (out / n).read_bytes() for n in ("results.csv", "records.jsonl")}
    edit_rules(out, **change)
    # the command line takes the settings from tournament.json itself
    r = invoke(["tournament", "--resume", "--out", out, "--no-progress"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    last = r.stderr.splitlines()[-1]            # after the run's header line
    assert last.startswith("error: ") and "disagrees with the games saved there: game 1 was played under the " \
        "rules" in last, r.stderr
    assert {n: (out / n).read_bytes() for n in before} == before            # nothing dropped or added


def test_resume_with_the_rules_unchanged_extends(tmp_path):
    out = tmp_path / "t"
    first = run(out, games=2)
    again = run(out, games=4, resume=True)
    assert len(again) == 8 and first.equals(again[again.game <= 2].reset_index(drop=True))
