"""The search's officials choices against the heuristic bot's (thurn_ai/studies/officials/agreement.py and
experiments/officials_agreement.py), on a tiny study played here."""
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from thurn_ai.bots.spec import BotSpec
from thurn_ai.play.tournament import run_tournament
from thurn_ai.studies.officials import agreement as A
from thurn_ai.play.match import position_at
from thurn_ai.studies.officials.choice import ChoiceSettings, run_choice
from thurn_ai.studies.officials.plan import StudyError
from thurn_ai.studies.officials.records import keep_records, read_kept

from tests.helpers import experiment

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A study folder as experiments/officials.py leaves it: two 2-player games of the heuristic bot with
    their offers rated by a tiny search (search_choices.parquet) and the games kept (records/search/)."""
    base = tmp_path_factory.mktemp("agreement")
    raw = base / "raw" / "search" / "2p_none"
    run_tournament(["heuristic", "heuristic"], players=2, games=2, seed=3, jobs=1, out_dir=raw, progress=False)
    settings = ChoiceSettings(bot=BotSpec.parse("mcts(iterations=20)"), seed=5)
    rows = run_choice(raw / "records.jsonl", base / "choice", settings, source="2p_none")
    rows.to_parquet(base / "search_choices.parquet", index=False)
    keep_records(base / "raw", base / "records")
    return {"dir": base, "rows": rows, "records": base / "records" / "search"}


def test_the_heuristic_in_its_own_games_makes_the_choices_it_made(study):
    """The heuristic played these games: asked again in each rebuilt position (the one before the
    recorded move, seen by the seat to move) it makes the choice the record shows at every offer."""
    rows, records = study["rows"], study["records"]
    assert len(rows) > 20 and set(rows.official) >= {"postmaster", "postal_carrier"}
    uses = A.heuristic_uses(rows, records)
    assert uses.index.equals(rows.index)
    assert (uses == rows["used"]).all()
    kept = read_kept(records / "2p_none.jsonl.gz")
    for r in rows.head(5).itertuples():      # the rows name the position the record reaches at that move
        state = position_at(kept[r.game], r.move)
        assert state.current_player == r.seat and state.move_str(state.parse_move(r.played)) == r.played
    cells = A.measure(rows, records, resamples=99)
    played = [c for c in cells if c.choice == "played"]
    assert all(c.agreement == 1.0 for c in played)
    everything = next(c for c in played if c.players is None and c.official is None)
    assert (everything.offers, everything.games) == (len(rows), 2)


@pytest.mark.parametrize("change", ["move", "played", "seed", "game"])
def test_a_row_that_does_not_match_its_record_is_refused(study, change):
    rows = study["rows"].copy()
    k = rows.index[3]
    if change == "move":
        rows.loc[k, "move"] = rows.loc[k, "move"] + 1
    elif change == "played":
        rows.loc[k, "played"] = "administrator" if rows.loc[k, "played"] != "administrator" else "draw deck"
    elif change == "seed":
        rows.loc[rows.game == rows.loc[k, "game"], "game_seed"] = 7
    else:
        rows.loc[k, "game"] = 99
    with pytest.raises(StudyError):
        A.heuristic_uses(rows, study["records"])


def test_kappa_of_a_hand_computed_table():
    # search uses / heuristic uses: 15 both, 10 only the search, 5 only the heuristic, 20 neither
    search = [True] * 15 + [True] * 10 + [False] * 5 + [False] * 20
    heur = [True] * 15 + [False] * 10 + [True] * 5 + [False] * 20
    assert A.table_of(search, heur).tolist() == [[20, 5], [10, 15]]
    po = 35 / 50
    pe = (25 / 50) * (20 / 50) + (25 / 50) * (30 / 50)       # both use + both do without, by chance
    assert A.kappa(search, heur) == pytest.approx((po - pe) / (1 - pe))
    same, *_, k, low, high, undefined = A.cell(search, heur, games=np.arange(50) % 10, resamples=199)
    assert same == pytest.approx(po) and k == pytest.approx((po - pe) / (1 - pe))
    assert low < k < high and undefined == 0


def test_kappa_is_undefined_where_one_side_is_constant():
    assert math.isnan(A.kappa([True, True, True, True], [True, False, True, False]))
    assert math.isnan(A.kappa([True, False, True, False], [False] * 4))
    assert A.kappa([True, False, True, False], [True, False, True, False]) == pytest.approx(1.0)
    same, a_low, a_high, k, k_low, k_high, undefined = A.cell([True] * 6, [True, True, False] * 2,
                                                              games=[0, 0, 1, 1, 2, 2], resamples=99)
    assert same == pytest.approx(4 / 6) and a_low <= same <= a_high
    assert math.isnan(k) and math.isnan(k_low) and math.isnan(k_high) and undefined == 1


def test_the_interval_resamples_whole_games():
    rng = np.random.default_rng(1)
    games = np.repeat(np.arange(30), 8)
    # choices that go together within a game (a game's own tendency), as offers of one game do
    tendency = rng.random(30)[games]
    search = rng.random(len(games)) < tendency
    heur = np.where(rng.random(len(games)) < 0.8, search, ~search)
    base = A.cell(search, heur, games, resamples=499)
    # every offer twice, in its own game: the same games, so the same interval
    twice = A.cell(np.repeat(search, 2), np.repeat(heur, 2), np.repeat(games, 2), resamples=499)
    assert twice[1:3] == pytest.approx(base[1:3]) and twice[4:6] == pytest.approx(base[4:6])
    # each offer its own game (what resampling offers would do): narrower, as if the offers were independent
    alone = A.cell(np.repeat(search, 2), np.repeat(heur, 2), np.arange(2 * len(games)), resamples=499)
    assert alone[5] - alone[4] < base[5] - base[4]


def test_the_script_writes_its_tables_and_refuses_a_bad_folder_in_one_line(study, tmp_path):
    exp = experiment("officials_agreement")
    exp.main(["--study-dir", str(study["dir"]), "--allow-dirty"])
    table = pd.read_csv(study["dir"] / "agreement.csv")
    assert set(table.choice) == {"played", "rated"} and "all" in set(table.players.astype(str))
    text = (study["dir"] / "agreement.md").read_text(encoding="utf-8")
    assert "kappa" in text and "resampling whole games" in text
    for bad in (tmp_path / "missing", ROOT / "results"):
        with pytest.raises(SystemExit) as e:
            exp.main(["--study-dir", str(bad), "--allow-dirty"])
        assert str(e.value).startswith("error: ") and "\n" not in str(e.value)


def test_a_records_file_names_its_tournament_whether_kept_or_live():
    from thurn_ai.studies.officials.records import is_kept, tournament_name
    assert tournament_name(Path("raw/search/2p_none/records.jsonl")) == "2p_none"
    assert tournament_name(Path("records/search/3p_post.master.jsonl.gz")) == "3p_post.master"  # dots kept
    assert is_kept("records/search/2p_none.jsonl.gz") and not is_kept("raw/2p_none/records.jsonl")
    assert not is_kept("raw/2p_none/records.json.gz")
