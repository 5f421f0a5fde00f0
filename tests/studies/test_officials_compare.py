"""Two searches' officials advice compared (studies/officials/compare_searches.py, experiments/officials_compare.py)."""
import math

import pandas as pd
import pytest

from thurn_ai.studies.officials.compare_searches import advice_shift, shift_lines

from tests.helpers import experiment


def _rows(games: int, used, official="postmaster", hand=4, offers=5):
    """Hand-made rated offers: `games` games of `offers` offers each; used(game, k) says whether the player used it."""
    return pd.DataFrame([{"players": 2, "source": "2p_none", "game": g, "official": official, "phase": "early",
                          "hand_size": hand, "route_len": 1, "used": bool(used(g, k)), "d_win": 0.1, "bot": "mcts(x)"}
                         for g in range(1, games + 1) for k in range(offers)])


def test_a_cell_that_flips_is_found_with_its_change_and_interval():
    before = _rows(20, lambda g, k: False)
    after = _rows(20, lambda g, k: True)
    t = advice_shift(before, after).set_index(["official", "factor", "level"])
    r = t.loc[("postmaster", "hand size", "4 cards")]
    assert (r.before_offers, r.after_offers, r.before_games) == (100, 100, 20)
    assert (r.before_taken, r.after_taken, r.change) == (0.0, 1.0, 1.0)
    assert r.before_rule == "do without" and r.after_rule == "use it" and r.rule_changed
    assert r.change_lo == pytest.approx(1.0) and r.change_hi == pytest.approx(1.0)
    empty = t.loc[("postmaster", "hand size", "0–1 cards")]
    assert empty.before_offers == 0 and math.isnan(empty.change) and not empty.rule_changed
    text = "\n".join(shift_lines(t.reset_index(), "A", "B"))
    assert "do without (0.0%) → use it (100.0%)" in text


def test_the_change_interval_resamples_whole_games():
    # every offer of a game goes the same way: 20 games, not 100 offers, carry the information
    before = _rows(20, lambda g, k: g % 2 == 0)
    def four_cards(after):
        t = advice_shift(before, after)
        return t[(t.factor == "hand size") & (t.level == "4 cards")].iloc[0]

    clustered = four_cards(_rows(20, lambda g, k: g <= 14))
    spread = four_cards(_rows(20, lambda g, k: (g * 5 + k) % 10 < 7))
    assert clustered.after_taken == pytest.approx(spread.after_taken) == pytest.approx(0.7)
    assert clustered.change_hi - clustered.change_lo > 1.5 * (spread.change_hi - spread.change_lo)


def test_the_comparison_script_names_a_missing_study(tmp_path, capsys):
    exp = experiment("officials_compare")
    assert exp.main(["--before", str(tmp_path), "--after", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no rated decisions") and err.count("\n") == 1
    for d, used in (("a", lambda g, k: False), ("b", lambda g, k: True)):
        (tmp_path / d).mkdir()
        _rows(12, used).to_parquet(tmp_path / d / "search_choices.parquet")
    assert exp.main(["--before", str(tmp_path / "a"), "--after", str(tmp_path / "b")]) == 0
    md = (tmp_path / "b" / "compared.md").read_text()
    assert "do without (0.0%) → use it (100.0%)" in md and "`mcts(x)`" in md
    assert len(pd.read_csv(tmp_path / "b" / "compared.csv")) > 0


def test_the_comparison_shows_the_agreement_with_the_heuristic_before_and_after(tmp_path):
    exp = experiment("officials_compare")
    for d, agree, kappa in (("a", 0.9, 0.6), ("b", 0.8, float("nan"))):
        (tmp_path / d).mkdir()
        _rows(12, lambda g, k: True).to_parquet(tmp_path / d / "search_choices.parquet")
        pd.DataFrame([{"players": p, "official": "postmaster", "choice": c, "offers": 60,
                       "agreement": agree - 0.1 * (p != "all"),
                       "agreement_low": 0.5, "agreement_high": 0.95, "kappa": kappa, "kappa_low": 0.5,
                       "kappa_high": 0.7} for p in ("2", "all") for c in ("played", "rated")]
                     ).to_csv(tmp_path / d / "agreement.csv", index=False)
    assert exp.main(["--before", str(tmp_path / "a"), "--after", str(tmp_path / "b")]) == 0
    md = (tmp_path / "b" / "compared.md").read_text()
    assert "| postmaster | 60 / 60 | 90.0% | 80.0% | 0.60 [0.50, 0.70] | – |" in md
    assert md.count("| postmaster |") == 1            # every count, the played choice: one row an official
