"""Advice chosen by play (issue 53): the amendment of the heuristic's rule (its condition, words and spec), the
amended bot, the candidates drawn from the fitting games alone, the fit's choice and its stability, and the
confirmation that waits for the fit's committed choice."""
from __future__ import annotations

import json
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.bots.spec import BotSpec
from thurn_ai.errors import BotSpecError
from thurn_ai.game.officials import OFFICIALS, official_of
from thurn_ai.studies.officials import advice_play as AP
from thurn_ai.studies.officials import sided  # noqa: F401  (registers the sided bot)
from thurn_ai.studies.officials.choice import choice_officials
from thurn_ai.studies.officials.plan import StudyError
from thurn_ai.studies.officials.rulecard import split_by_game

from ..helpers import experiment


# ------------------------------------------------------------------------------------------ the amendment

def test_the_condition_holds_inside_its_bounds_and_display_fit_only():
    a = AP.Amendment("postmaster", True, hand_max=3, route_min=1, route_max=2, fit=True)
    hand = np.array([3, 4, 3, 3, 3, 0])
    route = np.array([2, 2, 0, 3, 1, 1])
    fit = np.array([True, True, True, True, False, True])
    assert list(a.holds(hand, route, fit)) == [True, False, False, False, False, True]
    assert a.says("postmaster", 2, 1, True) is True and a.says("postmaster", 2, 1, False) is None
    assert a.says("postal_carrier", 2, 1, True) is None              # another official: the host's choice
    skip = AP.Amendment("postal_carrier", False, hand_min=5)
    assert skip.says("postal_carrier", 5, 9, False) is False and skip.says("postal_carrier", 4, 0, True) is None


def test_the_amendment_in_words():
    assert (AP.Amendment("postmaster", True, hand_max=3, route_max=2).words()
            == "also take the Postmaster with ≤ 3 cards in hand and a route of ≤ 2 cities")
    assert (AP.Amendment("postal_carrier", False, 3, 4, 5, None, fit=False).words()
            == "do without the Postal Carrier with 3–4 cards in hand and a route of ≥ 5 cities and no face-up card "
               "extending the route")
    assert AP.Amendment("cartwright", True, route_min=2, route_max=2, fit=True).words() == (
        "also take the Cartwright with a route of 2 cities and a face-up card extending the route")


@pytest.mark.parametrize("bad", [dict(official="nobody", take=True), dict(official="postmaster", take=1),
                                 dict(official="postmaster", take=True, hand_min=4, hand_max=3),
                                 dict(official="postmaster", take=True, route_max=-1),
                                 dict(official="postmaster", take=True, fit="yes")])
def test_an_amendment_refuses_what_is_not_one(bad):
    with pytest.raises(StudyError):
        AP.Amendment(**bad)


def test_the_amended_spec_round_trips_through_its_text():
    a = AP.Amendment("postmaster", True, hand_max=3, route_max=2, fit=True)
    spec = a.spec()
    assert str(spec) == ("sided(host=heuristic,side=amend,official=postmaster,take=true,hand_max=3,route_max=2,"
                         "fit=true)")
    assert BotSpec.parse(str(spec)) == spec
    assert make_bot(str(spec)).amendment == a


@pytest.mark.parametrize("spec", ["sided(host=heuristic,side=amend,official=postmaster)",
                                  "sided(host=heuristic,side=amend,take=true)",
                                  "sided(host=heuristic,side=amend,official=postmaster,take=1)",
                                  "sided(host=heuristic,side=amend,official=postmaster,take=true,hand_min=5,hand_max=2)",
                                  "sided(host=heuristic,side=card,take=true)"])
def test_the_sided_bot_refuses_a_broken_amendment(spec):
    with pytest.raises(BotSpecError):
        make_bot(spec)


AMENDMENTS = st.builds(AP.Amendment, st.sampled_from(("postmaster", "postal_carrier", "administrator")),
                       st.booleans(), st.none(), st.one_of(st.none(), st.integers(1, 6)), st.none(),
                       st.one_of(st.none(), st.integers(0, 4)), st.one_of(st.none(), st.booleans()))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=AMENDMENTS, seed=st.integers(0, 10_000))
def test_the_amended_bot_takes_or_skips_where_the_condition_holds_and_is_the_heuristic_elsewhere(a, seed):
    game = thurn_ai.new_game(players=2, seed=seed)
    amended, host = make_bot(str(a.spec()), seed=3), make_bot("heuristic", seed=3)
    rng = random.Random(seed)
    ruled = 0
    while not game.is_terminal():
        obs = Observation(game, game.current_player, rng.getrandbits(63))
        own = host.choose(obs)
        move = amended.choose(obs)
        offered = choice_officials(game)
        p = game.current_player
        rules = (offered and offered[0] == a.official
                 and a.holds(sum(game.hand(p).values()), len(game.route(p)), AP.display_fits(game)))
        if rules:
            ruled += 1
            assert (official_of(game, move) == a.official) == a.take
            if (official_of(game, own) == a.official) == a.take:
                assert move == own              # the host's own move where it is on the ruled side
        else:
            assert move == own
        game.apply(move)
    assert amended.offers[a.official] == ruled and sum(amended.offers.values()) == ruled


def test_display_fit_is_whether_a_face_up_card_extends_the_route_at_either_end():
    from thurn_ai.bots.features import View
    game, rng, seen = thurn_ai.new_game(players=2, seed=5), random.Random(5), set()
    while not game.is_terminal() and len(seen) < 2:
        v = View(game)
        ends = {v.route[0], v.route[-1]} if v.route else set()
        adj = v.info.adj
        expected = any(v.display[x] and x not in v.route and any(adj[e] >> x & 1 for e in ends)
                       for x in range(len(v.display)))
        assert AP.display_fits(game) == expected
        seen.add(expected)
        game.apply(rng.choice(game.legal_moves()))
    assert seen == {True, False}


# ------------------------------------------------------------------------------------------ the candidates

def offers_frame(games=40, seed=0, plant=None):
    """Synthetic offers: per game 30 Postmaster offers where the host takes and the search agrees, plus for the
    games `plant(game, fitting)` selects 10 offers (2 cards, route 1, a face-up fit) where the host skips and the
    search takes."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in (2, 3):
        for g in range(games):
            for _ in range(30):
                rows.append((n, "s", g, "postmaster", int(rng.integers(3, 9)), int(rng.integers(2, 6)),
                             bool(rng.integers(2)), True, True))
            rows.append((n, "s", g, "postal_carrier", 4, 2, False, False, False))
    frame = pd.DataFrame(rows, columns=["players", "source", "game", "official", "hand_size", "route_len",
                                        "display_fit", "used", "host_used"])
    fitting = split_by_game(frame)
    extra = []
    for (n, s, g), f in frame.groupby(["players", "source", "game"]):
        if plant and plant(g, bool(fitting[f.index[0]])):
            extra += [(n, s, g, "postmaster", 2, 1, True, True, False)] * 10
    return pd.concat([frame, pd.DataFrame(extra, columns=frame.columns)], ignore_index=True)


def test_candidates_come_from_the_fitting_games_alone():
    held_out_only = offers_frame(plant=lambda g, fitting: not fitting)
    assert AP.candidates(held_out_only) == ()
    fitting_only = offers_frame(plant=lambda g, fitting: fitting)
    found = AP.candidates(fitting_only)
    # the host skips the Postmaster only at the planted offers: taking it always moves all of them (no bound
    # needed), and so does taking it wherever a face-up card fits (the planted offers' line)
    assert [c.amendment for c in found] == [AP.Amendment("postmaster", True),
                                            AP.Amendment("postmaster", True, fit=True)]
    for c in found:
        assert c.toward == c.changed == 10 * 40 and c.away == 0        # 40 fitting games of 80


def test_candidates_need_most_of_their_changes_toward_the_search():
    frame = offers_frame(plant=lambda g, fitting: True)
    half = frame.index[(frame.hand_size == 2)][::2]
    frame.loc[half, "used"] = False             # the search agrees with the host at half the planted offers
    assert AP.candidates(frame) == ()
    frame.loc[half[::2], "used"] = True
    assert AP.candidates(frame) != ()


def test_candidates_are_deterministic_ranked_and_capped():
    frame = offers_frame(games=60, plant=lambda g, fitting: True)
    # the search does without the Postmaster wherever a face-up card fits and the route has 4+ cities
    frame.loc[(frame.official == "postmaster") & frame.display_fit & (frame.route_len >= 4), "used"] = False
    a = AP.candidates(frame)
    assert a == AP.candidates(frame.sample(frac=1, random_state=3))
    assert [c.toward for c in a] == sorted((c.toward for c in a), reverse=True)
    assert all(c.toward > AP.CANDIDATES.majority * c.changed for c in a)
    skip = [c.amendment for c in a if not c.amendment.take]
    assert AP.Amendment("postmaster", False, route_min=4, fit=True) in skip
    assert len(a) > 2 and AP.candidates(frame, AP.CandidateRule(most=2)) == a[:2]


def test_a_candidate_list_written_reads_back_the_same(tmp_path):
    found = AP.candidates(offers_frame(plant=lambda g, fitting: fitting))
    AP.write_candidates(tmp_path / "c.json", found, "synthetic")
    back = AP.read_candidates(tmp_path / "c.json")
    assert tuple(back.values()) == found and list(back) == ["c1", "c2"]
    assert json.loads((tmp_path / "c.json").read_text())["candidates"][0]["spec"].startswith("sided(")


# ------------------------------------------------------------------------------------------ the fit

def pooled(values: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame([{"cell": c, "players": 0, "games": 10, "d_win": d, "d_win_lo": d - 0.1,
                          "d_win_hi": d + 0.1, "p": 0.5} for c, d in values.items()])


def cands(*labels):
    return {label: AP.Candidate(AP.Amendment("postmaster", True, hand_max=i + 1), 1, 1, 1, 0)
            for i, label in enumerate(labels)}


def test_the_choice_is_the_largest_pooled_difference_and_only_above_zero():
    found = cands("c1", "c2", "c3")
    chosen = AP.choose(pooled({"c1": 0.01, "c2": 0.03, "c3": -0.02}), found)
    assert chosen.label == "c2" and chosen.amendment == found["c2"].amendment and chosen.d_win == 0.03
    tie = AP.choose(pooled({"c1": 0.02, "c2": 0.03, "c3": 0.03}), found)
    assert tie.label == "c2"                                  # a tie: the candidate ranked first
    none = AP.choose(pooled({"c1": -0.01, "c2": 0.0, "c3": -0.02}), found)
    assert none.label is None and none.amendment is None and none.best == "c2"
    assert none.words().startswith("the heuristic's own rule")


def test_stability_resamples_the_deals_and_counts_each_choice():
    rng = np.random.default_rng(0)
    found = cands("c1", "c2")
    strong = {n: pd.DataFrame({"c1": rng.choice([0.0, 1.0], 300, p=[0.7, 0.3]), "c2": np.zeros(300)})
              for n in (2, 3, 4)}
    s = AP.stability(strong, found, resamples=500, seed=1)
    assert s["c1"] == 1.0 and s.sum() == pytest.approx(1.0)
    even = np.tile([-1.0, 1.0], 150)                    # both: no difference on the deals played
    flat = {n: pd.DataFrame({"c1": even, "c2": rng.permutation(even)}) for n in (2, 3, 4)}
    s = AP.stability(flat, found, resamples=500, seed=1)
    assert 0.1 < s["c1"] < 0.6 and 0.1 < s["c2"] < 0.6 and 0.1 < s["none"] and s.sum() == pytest.approx(1.0)
    assert s.equals(AP.stability(flat, found, resamples=500, seed=1))
    zero = {n: pd.DataFrame({"c1": np.zeros(20), "c2": np.zeros(20)}) for n in (2, 3)}
    assert AP.stability(zero, found, resamples=50)["none"] == 1.0


def game_rows(cell, wins, players=2, seeds=None):
    return pd.DataFrame({"cell": cell, "players": players, "game": range(len(wins)), "focus": True,
                         "game_seed": seeds if seeds is not None else range(len(wins)), "win": wins})


def test_paired_wins_pair_by_deal_and_refuse_other_deals():
    rows = pd.concat([game_rows("control", [1, 0, 0, 1]), game_rows("c1", [1, 1, 0, 0])])
    d = AP.paired_wins(rows)[2]
    assert list(d.c1) == [0, 1, 0, -1]
    with pytest.raises(StudyError, match="not paired"):
        AP.paired_wins(pd.concat([game_rows("control", [1, 0]), game_rows("c1", [1, 1], seeds=[0, 9])]))


def test_the_confirmation_says_its_verdict_in_fixed_words():
    wins = [1] * 300 + [0] * 300
    rows = pd.concat([game_rows("control", [0] * 600, n) for n in (2, 3, 4)]
                     + [game_rows("amended", wins if n == 2 else [0] * 600, n) for n in (2, 3, 4)])
    t = AP.confirm_table(rows).set_index("players")
    assert t.verdict[2] == "wins in play" and t.verdict[3] == "no difference detected"
    assert t.p_holm[2] >= t.p[2] and t.verdict[0] == "wins in play"
    assert AP.verdict(-0.05, 0.001) == "loses in play" and set(AP.VERDICTS.values()) >= {AP.verdict(0.1, 0.2)}


def test_the_confirmation_says_what_its_deals_could_detect():
    # the same spread of paired differences on four times the deals: about half the detectable difference
    small = AP.confirm_table(pd.concat([game_rows("control", [0, 1, 0, 1] * 25, n) for n in (2, 3, 4)]
                                       + [game_rows("amended", [1, 0, 0, 1] * 25, n) for n in (2, 3, 4)]))
    large = AP.confirm_table(pd.concat([game_rows("control", [0, 1, 0, 1] * 100, n) for n in (2, 3, 4)]
                                       + [game_rows("amended", [1, 0, 0, 1] * 100, n) for n in (2, 3, 4)]))
    ratio = small.set_index("players").detectable / large.set_index("players").detectable
    assert ((ratio > 1.9) & (ratio < 2.1)).all()
    # pooled: differences 1, -1, 0, 0 (sd 0.71) on 1,200 pairs: (1.96 + 0.84) x 0.71 / sqrt(1200) = 0.057
    assert float(large.set_index("players").detectable[0]) == pytest.approx(0.057, abs=0.002)


def test_the_confirmation_refuses_to_run_before_the_fit_has_chosen(tmp_path, capsys):
    script = experiment("officials_advice")
    args = ["--part", "confirm", "--out", str(tmp_path), "--allow-dirty"]
    assert script.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "fit" in err and err.count("\n") == 1
    AP.write_choice(tmp_path / "fit_choice.json", AP.choose(pooled({"c1": -0.01}), cands("c1")), {2: 10})
    assert script.main(args) == 2
    assert "nothing to confirm" in capsys.readouterr().err


def test_a_fit_choice_written_reads_back_the_same(tmp_path):
    chosen = AP.choose(pooled({"c1": 0.01, "c2": 0.03}), cands("c1", "c2"))
    AP.write_choice(tmp_path / "f.json", chosen, {2: 10})
    assert AP.read_choice(tmp_path / "f.json") == chosen


def test_the_designs_are_whole_seat_rotations_on_seeds_no_other_study_uses():
    for design in (AP.FIT, AP.CONFIRM):
        assert all(g % n == 0 for n, g in design.games)
    assert all(g >= 600 for _n, g in AP.CONFIRM.games)
    fit_seeds = {AP.FIT.seed_at(n) for n, _ in AP.FIT.games}
    confirm_seeds = {AP.CONFIRM.seed_at(n) for n, _ in AP.CONFIRM.games}
    assert not fit_seeds & confirm_seeds
    assert set(OFFICIALS) >= {c.amendment.official for c in cands("c1").values()}


def test_the_confirmation_plays_only_a_committed_choice():
    from pathlib import Path
    script = experiment("officials_advice")
    root = Path(script.ROOT)
    assert script.committed(root / "results" / "officials_advice" / "candidates.json")
    assert not script.committed(root / "results" / "officials_advice" / "no_such_choice.json")


def test_the_docs_state_the_host_rule_as_the_code_says_it():
    """The rule a player is given (docs) is the heuristic's rule in the code's words (card_play.HOST_RULE)."""
    from pathlib import Path

    from thurn_ai.studies.officials.card_play import HOST_RULE
    root = Path(__file__).resolve().parents[2]
    for page in ("docs/officials-advice.md", "docs/officials-design.md"):
        text = " ".join((root / page).read_text(encoding="utf-8").split())
        for official, words in HOST_RULE.items():
            name = official.replace("_", " ").title()
            assert f"**{name}**: {words}." in text, f"{page}: {name}"
