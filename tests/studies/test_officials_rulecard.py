"""The officials' rule card (thurn_ai/studies/officials/rulecard.py): the joint-rule fit (it recovers a planted
rule; the split is by game; the committed data fit the bot's card), the clustered paired agreement, the
`rulecard` bot (legal moves, it follows the card at every offer, the heuristic elsewhere, seeded
reproducibility) and the paired play table."""
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import thurn_ai
from thurn_ai.studies.officials import findings as F
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.errors import BotSpecError
from thurn_ai.game.officials import STAGES, official_of
from thurn_ai.studies.officials import rulecard as RC
from thurn_ai.studies.officials.choice import choice_officials

ROOT = Path(__file__).resolve().parents[2]


def synthetic_offers(rule, games=200, per_game=20, noise=0.0, seed=1, players=(2, 3)):
    """Offers of the Postmaster whose `used` follows `rule`, a share `noise` of them flipped."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in players:
        for g in range(1, games + 1):
            for _ in range(per_game):
                hand, route = int(rng.integers(2, 9)), int(rng.integers(0, 7))
                used = bool(rule.says_use(hand, route)) ^ bool(rng.random() < noise)
                rows.append({"players": n, "source": f"{n}p_none", "game": g, "official": "postmaster",
                             "hand_size": hand, "route_len": route, "phase": STAGES[int(rng.integers(3))],
                             "used": used})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ the fit

@pytest.mark.parametrize("planted", [RC.Rule(True, 4, 2), RC.Rule(True, 6, None), RC.Rule(True, None, 1),
                                     RC.Rule(False), RC.Rule(True)])
def test_the_fit_recovers_a_planted_rule_through_noise(planted):
    offers = synthetic_offers(planted, noise=0.15)
    assert RC.fit_rule(offers) == planted


def test_a_limit_that_adds_less_than_min_gain_is_left_off_the_card():
    # the search takes it always except at 9 cards, which almost never happens: "always", not "at most 8"
    offers = synthetic_offers(RC.Rule(True), noise=0.0)
    offers.loc[offers.index[:3], ["hand_size", "used"]] = [9, False]
    assert RC.fit_rule(offers) == RC.Rule(True)
    assert RC.fit_rule(offers, min_gain=0.0) == RC.Rule(True, 8, None)


def test_the_split_is_by_game_half_of_each_player_count_and_seeded():
    offers = synthetic_offers(RC.Rule(True, 4, 2), games=31, per_game=5)
    fit = RC.split_by_game(offers, seed=7)
    sides = offers.assign(fit=fit).groupby(["players", "game"]).fit.agg(["min", "max"])
    assert (sides["min"] == sides["max"]).all()                       # a game lies on one side
    per_count = offers.assign(fit=fit).groupby("players").apply(lambda g: g[g.fit].game.nunique())
    assert (per_count == 15).all()                                    # half of 31 games, rounded down
    assert fit.equals(RC.split_by_game(offers, seed=7))
    assert not fit.equals(RC.split_by_game(offers, seed=8))


def test_the_agreement_table_checks_on_the_other_half_only():
    always = synthetic_offers(RC.Rule(True), games=60, noise=0.1)
    fit = RC.split_by_game(always)
    # flip every choice of the fitting half: the rule fitted there is "never", and agrees with the
    # held-out half at about 10% of its offers; had the check used the fitting half, 90%
    flipped = always.assign(used=np.where(fit, ~always.used, always.used))
    card = RC.agreement_table(flipped).set_index(["players", "rule"]).xs(RC.CARD_RULE, level="rule")
    assert (card.fitted == "never").all()
    assert (card.test_offers == (~fit).groupby(always.players).sum()).all()
    assert (card.share < 0.2).all()
    planted = RC.Rule(True, 4, 2)
    offers = synthetic_offers(planted, games=60, noise=0.1)
    straight = RC.agreement_table(offers).set_index(["players", "rule"]).xs(RC.CARD_RULE, level="rule")
    assert (straight.share > 0.85).all() and (straight.fitted == planted.text()).all()
    # the card beats "always" on held-out offers, and the clustered interval says so
    always = RC.agreement_table(offers).set_index(["players", "rule"]).xs("always", level="rule")
    assert (always.d_card_lo > 0).all()


def test_paired_agreement_is_clustered_by_game():
    rng = np.random.default_rng(3)
    games = np.repeat(np.arange(40), 25)
    # the difference is the same within a game: 40 independent values, not 1000
    per_game = rng.random(40) < 0.5
    a, b = per_game[games].astype(int), np.zeros(len(games), int)
    d, lo, hi = RC.paired_agreement(a, b, games)
    assert d == pytest.approx(a.mean())
    naive = 1.96 * a.std() / np.sqrt(len(a))
    assert (hi - lo) / 2 > 3 * naive                                 # much wider than if offers were independent
    assert RC.paired_agreement(a, a, games) == (0.0, 0.0, 0.0)


def test_the_committed_offers_fit_the_bots_card():
    offers = pd.read_parquet(ROOT / "results" / "officials" / "search_choices.parquet")
    assert RC.fit_card(offers[RC.split_by_game(offers)]) == RC.CARD


def test_rules_read_as_a_card_line():
    assert RC.Rule(False).text() == "never" and RC.Rule(True).text() == "always"
    assert RC.Rule(True, 4, 1).text() == "with at most 4 cards in hand and a route of at most 1 city"
    assert RC.Rule(True, 4, 1).says_use(4, 1) and not RC.Rule(True, 4, 1).says_use(5, 1)
    assert RC.CARD.says_use(2, "cartwright", 9, 9) and not RC.CARD.says_use(4, "administrator", 0, 0)


# ------------------------------------------------------------------------------------------ the bot

def play_checked(players, seed, card=None):
    """A game of rulecard against heuristic seats; at each of rulecard's moves, checks it is legal, that at
    an offer it is on the card's side, and that elsewhere it is the heuristic's move. Returns the moves."""
    g = thurn_ai.new_game(players=players, seed=seed)
    bots = [RC.RuleCardBot(seed=seed, card=card)] + [make_bot("heuristic", seed=seed + k) for k in range(1, players)]
    heur = make_bot("heuristic", seed=seed)
    moves, offers = [], 0
    rng = random.Random(seed)
    while not g.is_terminal():
        p = g.current_player
        obs_seed = rng.getrandbits(63)
        m = bots[p].choose(Observation(g, p, obs_seed))
        assert m in g.legal_moves()
        if p == 0:
            offered = choice_officials(g)
            if offered:
                offers += 1
                o = offered[0]
                hand, route, _ = RC.offer_features(g)
                assert (official_of(g, m) == o) == bots[0].card.says_use(players, o, hand, route)
            else:
                assert m == heur.choose(Observation(g, p, obs_seed))
        moves.append(m)
        g.apply(m)
    return moves, offers, bots[0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rulecard_plays_legal_moves_and_follows_the_card_at_every_offer(players):
    _moves, offers, bot = play_checked(players, seed=20 + players)
    assert offers > 5 and sum(bot.offers.values()) == offers
    assert bot.used["administrator"] == 0                              # the card: never


def test_rulecard_follows_another_card_too():
    contrary = RC.RuleCard(tuple((n, o, RC.Rule(o != "postal_carrier")) for n in (2, 3, 4)
                                 for o in ("postmaster", "administrator", "postal_carrier", "cartwright")))
    _, offers, bot = play_checked(2, seed=5, card=contrary)
    assert offers and bot.used["postal_carrier"] == 0 and bot.used["administrator"] == bot.offers["administrator"]


def test_rulecard_is_reproducible_from_its_seed():
    assert play_checked(3, seed=9)[0] == play_checked(3, seed=9)[0]


def test_rulecard_by_spec_and_its_refusals():
    assert isinstance(make_bot("rulecard"), RC.RuleCardBot)
    with pytest.raises(BotSpecError):
        make_bot("rulecard(forbid=postmaster)")
    with pytest.raises(BotSpecError):
        make_bot("rulecard(card=x)")


# ------------------------------------------------------------------------------------------ play

def test_paired_play_table_pairs_by_game_and_seat():
    rows = RC.play_cells("heuristic", 2, 8, seed=3, cards=("rulecard", "rulecard(only=postal_carrier)"))
    table = RC.paired_play_table(rows).set_index("cell")
    assert set(table.index) == {"card", "only postal_carrier"}
    control = rows[(rows.cell == "control") & rows.focus]
    for cell, spec in (("card", "rulecard"), ("only postal_carrier", "rulecard(only=postal_carrier)")):
        card = rows[(rows.cell == cell) & rows.focus]
        t = table.loc[cell]
        assert (card.spec == spec).all() and len(card) == 8 and len(control) == 8
        assert list(card.seat) == list(control.seat) and list(card.game_seed) == list(control.game_seed)
        assert t.games == 8 and t.card_wins == card.win.sum() and t.control_wins == control.win.sum()
        assert t.d_win == pytest.approx((card.win.to_numpy() - control.win.to_numpy()).mean())
    assert table.loc["card", "card_uses_administrator"] == 0


def test_one_line_of_the_card_leaves_the_other_officials_to_the_heuristic():
    g = thurn_ai.new_game(players=3, seed=4)
    only = make_bot("rulecard(only=postmaster)", seed=1)
    heur = make_bot("heuristic", seed=1)
    rng = random.Random(4)
    seen = 0
    while not g.is_terminal():
        obs_seed = rng.getrandbits(63)
        m = only.choose(Observation(g, g.current_player, obs_seed))
        offered = choice_officials(g)
        if offered and offered[0] == "postmaster":
            hand, route, _ = RC.offer_features(g)
            assert (official_of(g, m) == "postmaster") == RC.CARD.says_use(3, "postmaster", hand, route)
            seen += 1
        else:
            assert m == heur.choose(Observation(g, g.current_player, obs_seed))
        g.apply(m)
    assert seen > 5 and only.offers["postmaster"] == seen and only.offers["administrator"] == 0
    with pytest.raises(BotSpecError):
        make_bot("rulecard(only=mayor)")


# ------------------------------------------------------------------------------------------ the report

def _small_play():
    return RC.paired_play_table(pd.concat([RC.play_cells("heuristic", 2, 4, seed=3),
                                           RC.play_cells("heuristic", 3, 6, seed=3)]))


def test_the_card_reads_in_short_lines_with_one_number_an_official():
    from thurn_ai.studies.officials import rulecard_report as RR
    offers = pd.read_parquet(ROOT / "results" / "officials" / "search_choices.parquet")
    agreement = RC.agreement_table(offers)
    block = RR.card_block(F.rulecard_findings(agreement, _small_play()), "abc1234", "results/officials/rulecard.md")
    assert block[0] == RR.CARD_START and block[-1] == RR.CARD_END
    assert max(len(x) for x in block) <= 120                            # the README's limit
    assert any("[the card's report](results/officials/rulecard.md)" in x for x in block)   # one line: the site
    rows = [x for x in block if x.startswith("| ") and "---" not in x][1:]
    assert len(rows) == 4 + 1                                          # an official a line, one line of play
    pooled = F.pooled_agreement(agreement)
    pm = agreement[(agreement.rule == RC.CARD_RULE) & (agreement.official == "postmaster")]
    assert pooled.loc["postmaster"].test_offers == pm.test_offers.sum()
    assert f"{100 * pooled.loc['postmaster'].share:.0f}% of {pm.test_offers.sum():,} offers" in rows[0]
    assert rows[1].startswith("| Administrator | never |") and rows[2].startswith("| Postal Carrier | always |")


def test_card_rule_text_names_the_common_limit_and_the_exceptions():
    from thurn_ai.studies.officials import rulecard_report as RR
    card = RC.RuleCard(((2, "postmaster", RC.Rule(True, 5, 2)), (3, "postmaster", RC.Rule(True, 4, 2)),
                        (4, "postmaster", RC.Rule(True, 4, None))))
    assert RR.card_rule_text("postmaster", card) == "≤ 4 (2p: 5) cards in hand and route ≤ 2 (4p: any) cities"
    assert RR.card_rule_text("postmaster", RC.RuleCard(((2, "postmaster", RC.Rule(False)),))) == "never"


def test_the_card_block_replaces_only_its_own_lines():
    from thurn_ai.studies.officials import rulecard_report as RR
    text = f"# t\n\nbefore\n\n{RR.CARD_START}\nold\n{RR.CARD_END}\n\nafter\n"
    new = RR.with_card_block(text, [RR.CARD_START, "new", RR.CARD_END])
    assert new == f"# t\n\nbefore\n\n{RR.CARD_START}\nnew\n{RR.CARD_END}\n\nafter\n"
    with pytest.raises(ValueError, match="no block"):
        RR.with_card_block("# no block\n", [RR.CARD_START, RR.CARD_END])
    assert RR.CARD_START in (ROOT / "docs" / "officials-advice.md").read_text(encoding="utf-8")   # where it writes
    assert RR.CARD_START not in (ROOT / "README.md").read_text(encoding="utf-8")     # the README's block is by hand


def test_the_play_comparisons_are_holm_adjusted_among_themselves():
    play = pd.DataFrame({"p_win": [0.01, 0.02, 0.5]})
    assert list(F.holm_play(play).p_holm) == pytest.approx([0.03, 0.04, 0.5])


def test_offers_from_records_are_the_studys_offers_without_the_searches(tmp_path):
    """Replaying the kept records of the study's 2-player control games gives the offers, their features
    and the search's choices exactly as the choice part saved them (offer_features reads what the study
    read)."""
    import gzip
    records = tmp_path / "records.jsonl"
    lines = gzip.open(ROOT / "results" / "officials" / "records" / "search" / "2p_none.jsonl.gz", "rt",
                      encoding="utf-8").read().splitlines()
    records.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    got = RC.offers_from_records(records, source="2p_none")
    saved = pd.read_parquet(ROOT / "results" / "officials" / "search_choices.parquet")
    cols = ["players", "source", "game", "official", "phase", "hand_size", "route_len", "used"]
    want = saved[(saved.source == "2p_none") & saved.game.isin(got.game.unique())][cols]
    assert len(got) > 100 and got.game.nunique() == 3
    pd.testing.assert_frame_equal(got[cols].reset_index(drop=True), want.reset_index(drop=True), check_dtype=False)


def test_the_script_fits_another_searchs_games_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    import gzip

    from tests.helpers import experiment
    exp = experiment("officials_rulecard")
    records = tmp_path / "2p_none" / "records.jsonl"
    records.parent.mkdir()
    lines = gzip.open(ROOT / "results" / "officials" / "records" / "search" / "2p_none.jsonl.gz", "rt",
                      encoding="utf-8").read().splitlines()
    records.write_text("\n".join(lines[:6]) + "\n", encoding="utf-8")
    exp.main(["--part", "fit", "--records", str(records), "--out", str(tmp_path / "out")])
    table = pd.read_csv(tmp_path / "out" / "rulecard_agreement.csv")
    offers = pd.read_parquet(tmp_path / "out" / "rulecard_offers.parquet")
    assert set(offers.source) == {"2p_none"} and offers.game.nunique() == 6
    assert set(table.test_games) == {3}                                # half of 6 games checked
    capsys.readouterr()
    missing = tmp_path / "missing.jsonl"
    assert exp.main(["--part", "fit", "--records", str(missing), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "missing.jsonl" in err and err.count("\n") == 1


@pytest.mark.parametrize("games", [8, 60, 600])
def test_the_detectable_difference_at_any_number_of_games(games):
    """statsmodels answers with an array at some sample sizes (60 did): the table holds a number, 2.8
    standard errors of the paired difference for many games, more for few (the t distribution)."""
    rng = np.random.default_rng(games)
    base = {"opponent": "heuristic", "players": 2, "focus": True, "game_seed": 0, "score": 0.0,
            **{f"uses_{o}": 0 for o in ("postmaster", "administrator", "postal_carrier", "cartwright")}}
    rows = pd.DataFrame([{**base, "cell": cell, "game": g, "win": int(rng.random() < 0.5)}
                         for cell in ("card", "control") for g in range(games)])
    t = RC.paired_play_table(rows).iloc[0]
    d = rows[rows.cell == "card"].win.to_numpy() - rows[rows.cell == "control"].win.to_numpy()
    se = d.std(ddof=1) / np.sqrt(games)
    assert 2.75 * se < t.detectable < (3.6 if games < 10 else 2.9) * se


def test_the_kept_records_give_the_same_offers_as_the_raw_ones(tmp_path):
    """A kept tournament (records/<study>/<name>.jsonl.gz, as a clean clone has it) reads as its raw records."""
    import gzip
    kept = ROOT / "results" / "officials" / "records" / "search" / "2p_none.jsonl.gz"
    lines = gzip.open(kept, "rt", encoding="utf-8").read().splitlines()[:2]
    raw = tmp_path / "records.jsonl"
    raw.write_text("\n".join(lines) + "\n", encoding="utf-8")
    small = tmp_path / "2p_none.jsonl.gz"
    with gzip.open(small, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    a = RC.offers_from_records(raw, source="2p_none")
    b = RC.offers_from_records(small, source="2p_none")
    assert len(a) > 50 and a.game.nunique() == 2
    pd.testing.assert_frame_equal(a, b)
