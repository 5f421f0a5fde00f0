"""The officials for a designer and for a player (issue 53): the `sided` bot (a rule picks the side at an offer),
the symmetric ablations' variants (an official removed is never used, "always" uses it at every offer), the
game measures and their paired comparison, the study's one estimator (tie-break, shared ties as a
sensitivity), the card against the heuristic's own rule, and the card as a constraint on the search."""
import json
import os
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.bots.spec import BotSpec
from thurn_ai.errors import BotSpecError
from thurn_ai.game.officials import OFFICIALS, official_of
from thurn_ai.play.match import record_walk
from thurn_ai.studies.officials import card_play as CP
from thurn_ai.studies.officials import rulecard as RC
from thurn_ai.studies.officials import symmetric as S
from thurn_ai.studies.officials import validation_cells as VC
from thurn_ai.studies.officials.choice import choice_officials
from thurn_ai.studies.officials.plan import StudyError
from thurn_ai.studies.officials.rated import control_comparison

from ..helpers import experiment

ROOT = Path(__file__).resolve().parents[2]


def offers_in(records_path):
    """(state's offered official, the move's official) at every offer of every recorded game."""
    from thurn_ai.play.match import read_records
    out = []
    for record in read_records(records_path):
        for _i, state, move in record_walk(record):
            offered = choice_officials(state)
            if offered:
                out.append((offered[0], official_of(state, move)))
    return out


# ------------------------------------------------------------------------------------------ the sided bot

@pytest.mark.parametrize("official", OFFICIALS)
def test_always_takes_the_official_at_every_offer_and_never_never_does(tmp_path, official):
    for mode in ("always", "never"):
        cell = S.DesignCell("heuristic", 2, f"{mode}_{official}", 2)
        games = S.play_cell(cell, tmp_path)
        offers = [(o, used) for o, used in offers_in(tmp_path / f"heuristic_2p_{mode}_{official}" / "records.jsonl")
                  if o == official]
        if mode == "always":
            assert offers and all(used == official for _o, used in offers)
            assert (games.uses > 0).all()
        else:   # forbidden: never on offer as a choice (the forced Postmaster of an empty hand is no choice)
            assert all(used != official for _o, used in offers)
            assert (games.uses == 0).all()


def test_the_card_held_heuristic_plays_as_the_rulecard_bot():
    g = thurn_ai.new_game(players=3, seed=7)
    sided, card = make_bot("sided(host=heuristic,side=card)", seed=3), make_bot("rulecard", seed=3)
    rng = random.Random(7)
    while not g.is_terminal():
        obs = Observation(g, g.current_player, rng.getrandbits(63))
        m = sided.choose(obs)
        assert m == card.choose(obs)
        g.apply(m)
    assert sided.offers == card.offers and sided.used == card.used and sum(sided.offers.values()) > 10


def test_the_card_held_search_plays_on_the_cards_side_at_every_offer():
    g = thurn_ai.new_game(players=2, seed=11)
    host = make_bot("heuristic")
    sided = make_bot("sided(host=mcts,side=card,iterations=20,policy=handset,eval=simple)", seed=1)
    checked = 0
    while not g.is_terminal() and checked < 6:
        obs = Observation(g, g.current_player, 5)
        offered = choice_officials(g)
        if offered:
            m = sided.choose(obs)
            hand, route, _ = RC.offer_features(g)
            assert (official_of(g, m) == offered[0]) == RC.CARD.says_use(2, offered[0], hand, route)
            assert sided.host.official_filter == make_bot("mcts").official_filter     # the restriction lifted
            checked += 1
        g.apply(host.choose(obs))
    assert checked == 6


@pytest.mark.parametrize("spec", ["sided(side=always)", "sided(side=sometimes,official=postmaster)",
                                  "sided(host=greedy)", "sided(host=heuristic,iterations=10)",
                                  "sided(official=nobody)", "sided(forbid=postmaster)"])
def test_the_sided_bot_refuses_what_it_cannot_do(spec):
    with pytest.raises(BotSpecError):
        make_bot(spec)


# ------------------------------------------------------------------------------------------ variants, measures

def test_variants_read_and_write_their_names_and_specs():
    assert [v.name for v in S.VARIANTS][:3] == ["normal", "never_postmaster", "always_postmaster"]
    assert all(S.Variant.parse(v.name) == v for v in S.VARIANTS) and len(S.VARIANTS) == 9
    heuristic = BotSpec.parse("heuristic")
    assert str(S.Variant.parse("never_cartwright").spec(heuristic)) == "heuristic(forbid=cartwright)"
    assert str(S.Variant.parse("always_administrator").spec(heuristic)) == \
        "sided(host=heuristic,side=always,official=administrator)"
    for bad in ("sometimes_postmaster", "never_", "always_nobody"):
        with pytest.raises(StudyError):
            S.Variant.parse(bad)
    # paired deals: every variant of a host and count shares one seed; hosts and counts do not
    assert len({S.cell_seed(h, n) for h in S.HOSTS for n in (2, 3, 4)}) == 6


def test_game_measures_agree_with_the_rows_and_the_replay(tmp_path):
    games = S.play_cell(S.DesignCell("heuristic", 3, "normal", 6), tmp_path)
    from thurn_ai.play.tournament import load_results
    rows = load_results(tmp_path / "heuristic_3p_normal")
    assert len(games) == 6 and (games.margin >= 0).all() and (games.spread >= games.margin).all()
    for g in games.itertuples():
        r = rows[rows.game == g.game]
        assert g.turns == r.turns.iloc[0] and g.first_win == r[r.seat == 0].win.iloc[0]
        assert g.tile_points == pytest.approx(r.tiles.mean()) and g.lead_changes >= 0
    # the seat the replay finds ending the game holds the game-end tile
    replayed = S._replayed(tmp_path / "heuristic_3p_normal" / "records.jsonl")
    for game, seen in replayed.items():
        r = rows[rows.game == game]
        assert r[r.seat == seen["ender"]].tile_game_end.iloc[0] > 0


def synthetic_games(shift=5.0, games=40, seed=1):
    rng = np.random.default_rng(seed)
    base = {m: rng.normal(10, 2, games) for m in S.GAME_MEASURES}
    frames = []
    for variant, add in (("normal", 0.0), ("never_postmaster", shift), ("always_postmaster", 0.0)):
        frames.append(pd.DataFrame({"host": "heuristic", "players": 2, "variant": variant,
                                    "game": range(1, games + 1), "game_seed": range(100, 100 + games),
                                    **{m: base[m] + add + rng.normal(0, 0.5, games) for m in S.GAME_MEASURES}}))
    return pd.concat(frames, ignore_index=True)


def test_the_paired_comparison_finds_a_planted_shift_and_holm_adjusts_per_measure():
    t = S.comparison_table(synthetic_games()).set_index(["variant", "measure"])
    assert t.loc[("never_postmaster", "turns"), "d"] == pytest.approx(5.0, abs=0.5)
    assert t.loc[("never_postmaster", "turns"), "verdict"] == "higher"
    assert t.loc[("always_postmaster", "turns"), "verdict"] == "no change detected"
    pair = t.xs("turns", level="measure")
    assert sorted(pair.p_holm) == pytest.approx(sorted(np.minimum(1, np.sort(pair.p) * [2, 1])))  # two tests
    assert "uses" not in t.index.get_level_values("measure")


def test_unpaired_deals_are_refused():
    games = synthetic_games()
    games.loc[games.variant == "never_postmaster", "game_seed"] += 1
    with pytest.raises(StudyError):
        S.comparison_table(games)


def test_the_seat_advantage_is_the_first_seats_share_minus_the_fair_share():
    games = synthetic_games().assign(first_win=lambda d: (d.game % 2).astype(float))
    levels = S.levels_table(games).set_index(["variant", "measure"])
    assert levels.loc[("normal", "first_win"), "mean"] == pytest.approx(0.5 - 0.5)


# ------------------------------------------------------------------------------------------ the estimator

def test_a_shared_top_score_counts_by_the_tie_break_unless_asked_otherwise():
    rows = pd.DataFrame({"players": 2, "game": [1, 2, 1, 2], "seat": 0, "rated": True,
                         "rating": ["first", "first", "control-first", "control-first"],
                         "win": [1, 0, 0, 0], "win_share": [0.5, 0.0, 0.0, 0.0]})
    assert control_comparison(rows, 2, "first")["d_control"] == pytest.approx(0.5)
    assert control_comparison(rows, 2, "first", "win_share")["d_control"] == pytest.approx(0.25)


def test_the_validation_cells_report_both_counts_and_the_3_player_verdict_depends_on_it():
    rows = pd.concat([pd.read_parquet(ROOT / "results/officials/validation_games.parquet"),
                      pd.read_parquet(ROOT / "results/officials/validation_cells_games.parquet")], ignore_index=True)
    rows = rows[~((rows.players == 2) & (rows.rating == "first") & (rows.game > 400))]
    rows = rows[~((rows.players != 2) & (rows.game > 402))]
    t = VC.estimator_table(rows).set_index(["outcome", "players", "rating"])
    win, share = t.loc[("win", 3, "first")], t.loc[("win_share", 3, "first")]
    assert 100 * win.d_control == pytest.approx(-7.2, abs=0.05) and win.verdict == "no difference detected"
    assert 100 * share.d_control == pytest.approx(-9.1, abs=0.05) and share.verdict == "loses to its control"
    assert share.p_holm == pytest.approx(0.0075, abs=0.0005)


# ------------------------------------------------------------------------------------------ the card for a player

def test_the_card_is_compared_with_the_heuristics_choice_on_the_held_out_offers_only():
    offers = pd.DataFrame({"players": 2, "source": "2p_none", "game": np.repeat(range(1, 41), 5),
                           "official": "postmaster", "hand_size": 3, "route_len": 1})
    offers["used"] = offers.game % 2 == 0            # the search uses it in even games
    offers["host_used"] = True                        # the heuristic always does; the card (≤5 & ≤2) too here
    offers.loc[offers.game % 4 == 0, "host_used"] = False
    t = CP.baseline_table(offers).iloc[0]
    held = offers[~RC.split_by_game(offers)]
    assert t.offers == len(held)
    assert t.card == pytest.approx(held.used.mean())
    assert t.host == pytest.approx((held.used == held.host_used).mean())
    assert t.d_card_host == pytest.approx(t.card - t.host)


def test_the_card_as_a_constraint_pairs_the_held_search_with_the_search_in_its_seat(tmp_path):
    standard = BotSpec.parse("mcts(iterations=8,policy=handset,eval=simple)")
    rows = CP.play_constraint(2, 4, seed=1, standard=standard, out_dir=tmp_path)
    card, control = rows[(rows.cell == "card") & rows.focus], rows[(rows.cell == "control") & rows.focus]
    assert list(card.seat) == list(control.seat) and list(card.game_seed) == list(control.game_seed)
    assert (card.spec == str(CP.constraint_spec(standard))).all() and (control.spec == str(standard)).all()
    t = CP.constraint_table(rows).iloc[0]
    assert t.games == 4 and t.d_win == pytest.approx((card.win.to_numpy() - control.win.to_numpy()).mean())
    assert t.card_uses_administrator == 0                                     # the card: never


def test_the_scripts_refuse_a_pilot_of_part_rotations(capsys):
    for name in ("officials_design", "officials_card"):
        assert experiment(name).main(["--pilot", "10", "--part", "report"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error:") and err.count("\n") == 1


def test_the_sided_module_is_listed_for_worker_processes_once_beside_what_was_there(monkeypatch):
    from thurn_ai.bots.spec import BOT_MODULES_ENV, listed_modules
    from thurn_ai.studies.officials.sided import BOT_MODULE, export_module
    monkeypatch.setenv(BOT_MODULES_ENV, "my.bots")
    export_module()
    export_module()
    assert listed_modules(os.environ[BOT_MODULES_ENV]) == ["my.bots", BOT_MODULE]


@pytest.mark.parametrize("first", ["thurn_ai.studies.officials", "thurn_ai.play.analysis",
                                   "thurn_ai.bots.default_search", "thurn_ai.web.server"])
def test_a_process_that_lists_the_sided_module_imports_any_module_first(first):
    """A worker process of a tournament has the sided module listed (export_module), and whichever module it
    imports first loads the listed ones on the way: no import loop (CI once failed on one)."""
    import subprocess
    import sys

    from thurn_ai.bots.spec import BOT_MODULES_ENV
    from thurn_ai.studies.officials.sided import BOT_MODULE
    env = {**os.environ, BOT_MODULES_ENV: BOT_MODULE}
    sided = "sided(host=heuristic,side=always,official=postmaster)"
    code = f"import {first}; from thurn_ai.bots import make_bot; print(make_bot({sided!r}).spec)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.startswith("sided(")


def test_the_design_report_marks_the_detected_changes_and_says_a_pilot_is_one(tmp_path):
    from thurn_ai.studies.officials import symmetric_report as SR
    games = synthetic_games()
    levels, comparison = S.levels_table(games), S.comparison_table(games)
    plots = [SR.write_plot(comparison, tmp_path, "heuristic")]
    assert (tmp_path / "design_heuristic.png").stat().st_size > 0
    text = SR.report(games, levels, comparison, SR.planned_table(games), "abc1234", "cmd", plots, pilot=True)
    assert "**A pilot**" in text and "![design_heuristic.png](design_heuristic.png)" in text
    turns = comparison.set_index(["variant", "measure"]).loc[("never_postmaster", "turns")]
    assert f"**{SR.difference_text(turns.to_frame().T.assign(measure='turns').iloc[0])}**" in text
    assert "- `heuristic`, **never Postmaster**: 2 players game length (turns)" in text
    numbers = SR.numbers(comparison, prefix="pilot.")
    assert numbers["pilot.heuristic.2p.never_postmaster.turns"].value == pytest.approx(turns.d)
    assert not any(".normal." in name for name in numbers)
    # with the levels, the normal game's level of each shown measure too, a share printed as a percent
    numbers = SR.numbers(comparison, levels=levels)
    normal = levels.set_index(["variant", "measure"]).loc[("normal", "turns")]
    assert numbers["heuristic.2p.normal.turns"].value == pytest.approx(normal["mean"])
    assert numbers["heuristic.2p.normal.turns"].text() == f"{normal['mean']:.1f} [{normal.lo:.1f}, {normal.hi:.1f}]"
    assert numbers["heuristic.2p.normal.by_carriage"].text().endswith("]") and "%" in \
        numbers["heuristic.2p.normal.by_carriage"].text()
    assert "heuristic.2p.normal.uses" not in numbers and "heuristic.2p.never_postmaster.turns" in numbers


def test_the_populations_table_marks_a_change_both_populations_detect_at_every_count():
    from thurn_ai.studies.officials import symmetric_report as SR
    # heuristic: never_postmaster raises every measure at 2 and 3 players; mcts: at 2 and 3 players, but
    # not at 3 players for one measure (no shift there), so only that measure is not "both"
    frames = []
    for host, seed in (("heuristic", 1), ("mcts", 2)):
        for n in (2, 3):
            g = synthetic_games(seed=seed + n).assign(host=host, players=n)
            if host == "mcts" and n == 3:
                keep = (g.variant == "never_postmaster")
                g.loc[keep, "margin"] = g.loc[g.variant == "normal", "margin"].to_numpy()
            frames.append(g)
    comparison = S.comparison_table(pd.concat(frames, ignore_index=True))
    t = SR.populations_table(comparison).set_index(["variant", "measure"])
    assert t.loc[("never_postmaster", "turns"), "heuristic"] == "++" and t.loc[("never_postmaster", "turns"), "both"]
    assert t.loc[("never_postmaster", "margin"), "mcts"] == "+·"
    assert not t.loc[("never_postmaster", "margin"), "both"]
    assert t.loc[("always_postmaster", "turns"), "mcts"] == "··" and not t.loc[("always_postmaster", "turns"), "both"]
    assert not t.opposite.any()
    lines = "\n".join(SR._populations_lines(comparison))
    assert "**++ / ++**" in lines and "| ++ / +· |" in lines and "opposite directions" not in lines
    assert "- **never Postmaster**: game length (turns) higher" in lines and "winner's margin higher" not in lines
    # the mcts population's margin falls at 2 players where heuristic's rises: opposite directions
    flipped = comparison.copy()
    at = (flipped.host == "mcts") & (flipped.players == 2) & (flipped.measure == "margin") & \
        (flipped.variant == "never_postmaster")
    flipped.loc[at, "verdict"] = "lower"
    assert SR.populations_table(flipped).set_index(["variant", "measure"]).loc[("never_postmaster", "margin"),
                                                                              "opposite"]
    assert "opposite directions by the two populations at some count" in "\n".join(SR._populations_lines(flipped))
    # counts are matched by player count, not by position: mcts played at 3 players only and fell there;
    # heuristic rose at 2 players (which mcts did not play) and changed nothing at 3: not opposite
    only3 = comparison[~((comparison.host == "mcts") & (comparison.players == 2))].copy()
    turns = (only3.measure == "turns") & (only3.variant == "never_postmaster")
    only3.loc[turns & (only3.host == "mcts"), "verdict"] = "lower"
    only3.loc[turns & (only3.host == "heuristic") & (only3.players == 3), "verdict"] = "no change detected"
    row = SR.populations_table(only3).set_index(["variant", "measure"]).loc[("never_postmaster", "turns")]
    assert (row["heuristic"], row["mcts"], row["opposite"], row["both"]) == ("+·", "−", False, False)
    # and where heuristic rises at 3 players too, they are opposite there
    only3.loc[turns & (only3.host == "heuristic") & (only3.players == 3), "verdict"] = "higher"
    assert SR.populations_table(only3).set_index(["variant", "measure"]).loc[("never_postmaster", "turns"),
                                                                             "opposite"]
    # one population: no section
    assert SR.populations_table(comparison[comparison.host == "mcts"]).empty
    assert SR._populations_lines(comparison[comparison.host == "mcts"]) == []


def test_the_design_resumes_after_the_cells_games_parquet_holds_in_full(tmp_path, monkeypatch):
    """A new machine has no raw tournaments: a cell saved in full is skipped, a partly saved one is played again
    and replaces its rows."""
    script = experiment("officials_design")
    cells = tuple(S.DesignCell("mcts", 2, v, 4) for v in ("normal", "never_postmaster", "always_postmaster"))

    def rows(cell, games):
        return pd.DataFrame({"host": cell.host, "players": cell.players, "variant": cell.variant,
                             "game": list(games), "game_seed": 1, **{m: 1.0 for m in S.GAME_MEASURES},
                             "turns": 30.0})

    S.save_games(pd.concat([rows(cells[0], range(1, 5)), rows(cells[1], range(1, 3))]), tmp_path / script.GAMES)
    played = []

    def play_cell(cell, raw, jobs=1):
        played.append(cell.variant)
        return rows(cell, range(1, cell.games + 1))

    monkeypatch.setattr(script.sym, "play_cell", play_cell)
    script.play(cells, tmp_path, tmp_path / "raw", jobs=1, code="abc1234")
    assert played == ["never_postmaster", "always_postmaster"]
    runs = json.loads((tmp_path / "runs.json").read_text())        # one run a played cell, with its cost
    assert [(r["variant"], r["code"], r["cells"]) for r in runs] == [
        ("never_postmaster", "abc1234", 1), ("always_postmaster", "abc1234", 1)]
    assert all(r["cpu_seconds"] >= 0 and r["seconds"] >= 0 for r in runs)
    games = pd.read_parquet(tmp_path / script.GAMES)
    assert games.groupby("variant").game.apply(sorted).map(tuple).to_dict() == {
        v: (1, 2, 3, 4) for v in ("normal", "never_postmaster", "always_postmaster")}
