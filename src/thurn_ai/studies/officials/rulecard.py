"""The officials' rule card: rules a player can read at the table (cards in hand, route length, stage) fitted to the
search's choices at the offers on half the games (split by game), checked on the other half (agreement_table),
and RuleCardBot (`rulecard`): the heuristic bot with the card picking the side at an offer. CARD is the card the
committed data fit (a test fits it again); results/officials/rulecard.md reports it."""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd

from ...bots.base import Bot, Observation
from ...bots.features import View
from ...bots.heuristic import HeuristicBot, Planner
from ...bots.spec import register
from ...errors import BotSpecError
from ...game.notation import PLAY_KINDS, move_kind
from ...game.officials import OFFICIALS, STAGES, game_stage, official_name, official_of
from ...game.rules import PLAYER_COUNTS
from ...stats.summary import wilson_interval
from .choice import choice_officials

__all__ = ["CARD", "CARD_CELL", "CONTROL_CELL", "CONTROL_BOT", "HAND_LIMITS", "MIN_GAIN", "ROUTE_LIMITS", "RULES",
           "SPLIT_SEED", "Rule", "RuleCard", "RuleCardBot", "agreement_table", "cell_name", "fit_card", "fit_rule",
           "heuristic_move", "offer_features", "offers_from_records", "paired_agreement", "paired_play_table",
           "play_cells", "split_by_game"]

#: the seed of the split of the committed offers into a fitting half and a checking half
SPLIT_SEED = 40
#: the limits a rule may set: cards in hand, cities in the route (None: no limit)
HAND_LIMITS = tuple(range(10))
ROUTE_LIMITS = tuple(range(8))
#: the least share of the fitting offers a limit more must add to the agreement to be on the card
MIN_GAIN = 0.01


# ------------------------------------------------------------------------------------------ the rules

@dataclass(frozen=True)
class Rule:
    """Use the official when the hand holds at most hand_max cards and the route at most route_max cities
    (None: no limit on that); use=False: never use it."""

    use: bool = True
    hand_max: int | None = None
    route_max: int | None = None

    def says_use(self, hand, route):
        """Whether the rule uses the official at these hand sizes and route lengths (numbers or arrays)."""
        out = np.full(np.shape(hand), self.use, dtype=bool)
        if self.use and self.hand_max is not None:
            out &= np.asarray(hand) <= self.hand_max
        if self.use and self.route_max is not None:
            out &= np.asarray(route) <= self.route_max
        return bool(out) if out.ndim == 0 else out

    @property
    def limits(self) -> int:
        return 0 if not self.use else (self.hand_max is not None) + (self.route_max is not None)

    def text(self) -> str:
        """The rule in words, as the card prints it."""
        if not self.use:
            return "never"
        if not self.limits:
            return "always"
        parts = []
        if self.hand_max is not None:
            parts.append(f"at most {self.hand_max} cards in hand")
        if self.route_max is not None:
            parts.append(f"a route of at most {self.route_max} {'city' if self.route_max == 1 else 'cities'}")
        return "with " + " and ".join(parts)


@dataclass(frozen=True)
class RuleCard:
    """One Rule per player count and official: rules = ((players, official, Rule), ...)."""

    rules: tuple

    def __post_init__(self):        # one order, so two cards with the same rules are equal
        object.__setattr__(self, "rules", tuple(sorted(self.rules, key=lambda x: (x[0], OFFICIALS.index(x[1])))))

    def rule(self, players: int, official: str) -> Rule:
        for n, o, r in self.rules:
            if n == players and o == official:
                return r
        raise KeyError(f"the card has no rule for the {official} at {players} players")

    def says_use(self, players: int, official: str, hand: int, route: int) -> bool:
        return self.rule(players, official).says_use(hand, route)


#: the card the committed offers (results/officials/search_choices.parquet, split SPLIT_SEED) fit; the
#: rulecard bot plays it (tests/test_officials_rulecard.py fits it again from the committed data)
CARD = RuleCard((
    (2, "postmaster", Rule(True, 5, 2)), (3, "postmaster", Rule(True, 4, 2)), (4, "postmaster", Rule(True, 4, 1)),
    *((n, "administrator", Rule(False)) for n in PLAYER_COUNTS),
    *((n, "postal_carrier", Rule(True)) for n in PLAYER_COUNTS),
    *((n, "cartwright", Rule(True)) for n in PLAYER_COUNTS),
))


def offer_features(state) -> tuple[int, int, str]:
    """What a rule sees at an offer, for the player to move: cards in hand (at a Postmaster offer the first card drawn
    is in it), cities in the route, the game's stage."""
    p = state.current_player
    return sum(state.hand(p).values()), len(state.route(p)), game_stage(state)


def _candidates(family: str) -> list[Rule]:
    """The rules of a family (never and always are in every one but the one-rule families)."""
    hands, routes = [Rule(True, h) for h in HAND_LIMITS], [Rule(True, None, r) for r in ROUTE_LIMITS]
    both = [Rule(True, h, r) for h, r in product(HAND_LIMITS, ROUTE_LIMITS)]
    plain = [Rule(False), Rule(True)]
    return {"never": [Rule(False)], "always": [Rule(True)], "hand": plain + hands, "route": plain + routes,
            "card": plain + hands + routes + both}[family]


def fit_rule(rows: pd.DataFrame, family: str = "card", min_gain: float = MIN_GAIN) -> Rule:
    """The rule of `family` (never, always, hand, route, card: any of them, or both limits) that agrees with the
    search's choice (`used`) at the most offers of `rows` (columns hand_size, route_len, used)."""
    hand, route, used = rows.hand_size.to_numpy(), rows.route_len.to_numpy(), rows.used.to_numpy(bool)
    best: dict[int, tuple[tuple, Rule]] = {}      # limits -> ((agreeing offers, looseness), the rule)
    for rule in _candidates(family):
        k = int((rule.says_use(hand, route) == used).sum())
        key = (k, 99 if rule.hand_max is None else rule.hand_max, 99 if rule.route_max is None else rule.route_max)
        if rule.limits not in best or key > best[rule.limits][0]:
            best[rule.limits] = (key, rule)
    (k, *_), chosen = best[min(best)]
    for n in sorted(best)[1:]:
        (kn, *_), rule = best[n]
        if kn > k and kn - k >= min_gain * len(rows):
            (k, *_), chosen = best[n]
    return chosen


def fit_card(rows: pd.DataFrame) -> RuleCard:
    """A card Rule per player count and official of the offers in `rows`."""
    return RuleCard(tuple((int(n), o, fit_rule(g)) for (n, o), g in rows.groupby(["players", "official"])))


def offers_from_records(path, source: str = "", board_file=None) -> pd.DataFrame:
    """The offers of recorded games (a tournament's records.jsonl, or its kept copy records/<study>/<name>.jsonl.gz)
    with what the player did at each, and no rating (what the card is fitted on: the choice part's rows without its
    searches): players, source, game, official, phase (the stage), hand_size, route_len, used."""
    from ...play.match import record_walk
    from .choice import read_game_records

    from .records import is_kept, read_kept

    if is_kept(path):
        games = read_kept(path)
    else:
        games = {game: record for game, (_line, record) in read_game_records(path, board_file).items()}
    rows = []
    for game, record in games.items():
        for _, state, move in record_walk(record):
            for official in choice_officials(state):
                hand, route, stage = offer_features(state)
                rows.append({"players": record.rules.players, "source": source, "game": game, "official": official,
                             "phase": stage, "hand_size": hand, "route_len": route,
                             "used": official_of(state, move) == official})
    return pd.DataFrame(rows, columns=["players", "source", "game", "official", "phase", "hand_size", "route_len",
                                       "used"])


def split_by_game(rows: pd.DataFrame, seed: int = SPLIT_SEED) -> pd.Series:
    """True for the offers of the fitting half: per player count, half its games (rounded down) drawn with
    numpy's generator seeded `seed`; every offer of a game falls on the same side."""
    rng = np.random.default_rng(seed)
    fitting = set()
    for _n, g in rows[["players", "source", "game"]].drop_duplicates().sort_values(
            ["players", "source", "game"]).groupby("players"):
        keys = list(g.itertuples(index=False, name=None))
        fitting |= {keys[i] for i in rng.permutation(len(keys))[:len(keys) // 2]}
    return pd.Series([k in fitting for k in zip(rows.players, rows.source, rows.game)], index=rows.index)


# ------------------------------------------------------------------------------------------ the comparison

def _rule_predictor(family):
    def fit(train):
        rule = fit_rule(train, family)
        return (lambda rows: rule.says_use(rows.hand_size.to_numpy(), rows.route_len.to_numpy())), rule.text()
    return fit


def _stage_majority(train):
    """Per stage, what the search did at most offers of that stage."""
    said = (train.groupby("phase").used.mean() > 0.5).to_dict()
    text = "; ".join(f"{s}: {'use' if said[s] else 'skip'}" for s in STAGES if s in said)
    return (lambda rows: rows.phase.map(said).fillna(False).to_numpy(bool)), text


def _card_by_stage(train):
    """The card's rule fitted in each stage on its own (a rule for an unseen stage: the card's)."""
    rules = {s: fit_rule(g) for s, g in train.groupby("phase")}
    whole = fit_rule(train)

    def predict(rows):
        out = np.zeros(len(rows), bool)
        for s, idx in rows.groupby("phase").indices.items():
            g = rows.iloc[idx]
            out[idx] = rules.get(s, whole).says_use(g.hand_size.to_numpy(), g.route_len.to_numpy())
        return out
    return predict, "; ".join(f"{s}: {rules[s].text()}" for s in STAGES if s in rules)


def _cell_table(train):
    """Per cell of hand (2..7+) x route (0..5+) x stage, the search's majority choice (a cell the fitting
    half lacks: the card's rule): the most these three factors can say, and no card."""
    def keys(rows):
        return list(zip(rows.hand_size.clip(upper=7), rows.route_len.clip(upper=5), rows.phase))
    said = train.assign(k=keys(train)).groupby("k").used.mean().gt(0.5).to_dict()
    whole = fit_rule(train)

    def predict(rows):
        default = whole.says_use(rows.hand_size.to_numpy(), rows.route_len.to_numpy())
        return np.array([said.get(k, d) for k, d in zip(keys(rows), default)], bool)
    return predict, f"{len(said)} cells"


#: the rules compared: (name, fit(train) -> (predict(rows) -> bool array, the fitted rule in words))
RULES = (("never", _rule_predictor("never")), ("always", _rule_predictor("always")),
         ("hand alone", _rule_predictor("hand")), ("route alone", _rule_predictor("route")),
         ("stage alone", _stage_majority), ("the card: hand and route", _rule_predictor("card")),
         ("hand and route by stage", _card_by_stage), ("hand x route x stage table", _cell_table))
CARD_RULE = "the card: hand and route"
SINGLE_RULES = ("hand alone", "route alone", "stage alone")


def paired_agreement(a, b, games) -> tuple[float, float, float]:
    """Rule a's agreement minus rule b's on the same offers (a, b: 1 where each reproduces the search's
    choice), with a 95% interval clustered by game (statsmodels OLS of the difference on a constant,
    cluster-robust covariance): offers of one game are not independent."""
    import statsmodels.api as sm
    d = np.asarray(a, float) - np.asarray(b, float)
    if not len(d):
        return (math.nan,) * 3
    if not d.any():
        return (0.0, 0.0, 0.0)
    groups = pd.factorize(pd.Series(list(games)))[0]
    fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    lo, hi = fit.conf_int()[0]
    return float(fit.params[0]), float(lo), float(hi)


def agreement_table(rows: pd.DataFrame, seed: int = SPLIT_SEED) -> pd.DataFrame:
    """Per player count, official and rule (RULES): the rule fitted on the fitting half of the games
    (split_by_game), and on the other half how many offers it reproduces the search's choice at (share,
    Wilson 95% interval; the interval treats offers as independent, the paired columns do not); for the
    card's row and the single-factor rules, the card's agreement minus theirs on the same offers
    (paired_agreement, clustered by game: d_card, d_card_lo, d_card_hi)."""
    fitting = split_by_game(rows, seed)
    out = []
    for (n, o), g in sorted(rows.groupby(["players", "official"]), key=lambda x: (x[0][0], OFFICIALS.index(x[0][1]))):
        train, test = g[fitting.loc[g.index]], g[~fitting.loc[g.index]]
        used = test.used.to_numpy(bool)
        right = {}
        for name, fit in RULES:
            predict, text = fit(train)
            right[name] = predict(test) == used
            k = int(right[name].sum())
            lo, hi = wilson_interval(k, len(test))
            out.append({"players": int(n), "official": o, "rule": name, "fitted": text,
                        "fit_games": train.game.nunique(), "fit_offers": len(train),
                        "test_games": test.game.nunique(), "test_offers": len(test), "agree": k,
                        "share": k / len(test) if len(test) else math.nan, "lo": lo, "hi": hi})
        games = list(zip(test.source, test.game))
        for row in out[-len(RULES):]:
            if row["rule"] in SINGLE_RULES + ("always", "never"):
                d, lo, hi = paired_agreement(right[CARD_RULE], right[row["rule"]], games)
                row.update(d_card=d, d_card_lo=lo, d_card_hi=hi)
    return pd.DataFrame(out)


# ------------------------------------------------------------------------------------------ the bot

def heuristic_move(bot: HeuristicBot, obs: Observation, moves: list[int]) -> int:
    """The heuristic bot's move among `moves` (one side of an offer): its own move when it is among them,
    else its planner's best of them (the second draw, the second card, the draw or play without the
    official), as its own decisions value them."""
    if len(moves) == 1:
        return moves[0]
    own = bot.choose(obs)
    if own in moves:
        return own
    planner = Planner(View(obs.state, obs.player), bot)
    phase = obs.state.phase
    if phase == "play":
        draws = [m for m in moves if move_kind(m) in ("draw", "deck")]
        if draws:                      # the Postmaster's second card: the draw its planner values most
            return planner._argmax(planner.draw_values(draws))
        return planner.choose_play(moves)
    if phase == "after_play":
        plays = [m for m in moves if move_kind(m) in PLAY_KINDS]
        if plays:                      # the Postal Carrier's second card
            return planner._argmax(planner._play_values(plays, carrier_bonus=bot.turn_cost))
        return planner.choose_after_play(moves)
    if phase == "draw":
        return planner.choose_draw(moves)
    return moves[0]


class RuleCardBot(Bot):
    """The `heuristic` bot with its official choices taken from the rule card (CARD): at each offer of an official the
    card says use it or not, and the heuristic plays its best move on that side. only=<an official>: the card's rule
    for that official alone, the heuristic's own choices for the others (what one line of the card does in play)."""

    spec = "rulecard"

    def __init__(self, seed: int = 0, forbid=frozenset(), card: RuleCard | None = None, only: str | None = None):
        if forbid:
            raise BotSpecError("rulecard: the card decides every official; it forbids none")
        if card is not None and not isinstance(card, RuleCard):
            raise ValueError(f"rulecard: card is a RuleCard, not {card!r}")
        self.only = None if only is None else official_name(str(only))
        if only is not None and self.only is None:
            raise ValueError(f"rulecard: only= names an official ({', '.join(OFFICIALS)}), not {only!r}")
        super().__init__(seed=seed)
        self.heuristic = HeuristicBot(seed=seed)
        self.card = CARD if card is None else card
        #: offers met and how often the card used the official there (per official; the card's offers only)
        self.offers = dict.fromkeys(OFFICIALS, 0)
        self.used = dict.fromkeys(OFFICIALS, 0)

    def choose(self, obs: Observation) -> int:
        state = obs.state
        offered = choice_officials(state)
        if not offered or (self.only is not None and offered[0] != self.only):
            return self.heuristic.choose(obs)
        official = offered[0]
        hand, route, _stage = offer_features(state)
        use = self.card.says_use(state.n_players, official, hand, route)
        self.offers[official] += 1
        self.used[official] += use
        side = [m for m in state.legal_moves() if (official_of(state, m) == official) == use]
        return heuristic_move(self.heuristic, obs, side)


register("rulecard", RuleCardBot)


# ------------------------------------------------------------------------------------------ play

#: the card's seat against each opponent is paired with this bot in the same seat on the same deals
CONTROL_BOT = "heuristic"
#: the cells of the paired games: the whole card (spec rulecard), one line of it (rulecard(only=...)), and
#: the control (heuristic) on the same deals
CARD_CELL, CONTROL_CELL = "card", "control"


def cell_name(spec: str) -> str:
    """The cell a card's spec plays in: 'card' (rulecard), 'only postmaster' (rulecard(only=postmaster))."""
    from ...bots.spec import parse_spec
    _, kwargs = parse_spec(spec)
    return f"only {kwargs['only']}" if "only" in kwargs else CARD_CELL


def play_cells(opponent: str, players: int, games: int, seed: int, jobs: int = 1, out_dir=None,
               cards=("rulecard",), control_bot: str = CONTROL_BOT) -> pd.DataFrame:
    """Tournaments on the same deals (the same seed and game numbers): each card spec of `cards` in one rotating seat
    against `opponent` in the others (cell_name; or cards = {cell: spec} names the cells), and the bot the cards are
    built on (`control_bot`: the heuristic, or the mcts a card constrains) in its place (cell 'control')."""
    from pathlib import Path

    from ...play.tournament import run_tournament

    named = list(cards.items()) if isinstance(cards, dict) else [(cell_name(s), s) for s in cards]
    frames = []
    for cell, spec in (*named, (CONTROL_CELL, control_bot)):
        folder = None if out_dir is None else str(Path(out_dir) / f"{players}p_{cell.replace(' ', '_')}")
        raw = run_tournament([spec] + [opponent] * (players - 1), players=players, games=games, seed=seed,
                             jobs=jobs, out_dir=folder, resume="auto" if folder else False, progress=False)
        frames.append(raw.assign(cell=cell, focus=raw.spec == spec))
    control = frames[-1]
    seat = frames[0][frames[0].focus].set_index("game").seat
    for f in frames[:-1]:
        if not (f[f.focus].set_index("game").seat.reindex(seat.index) == seat).all():
            raise ValueError("the cards' seats differ: not paired")
    if opponent == control_bot:         # every seat of the control is the same bot: the card's seat is its
        control["focus"] = control.seat.to_numpy() == seat.reindex(control.game).to_numpy()
    elif not (control[control.focus].set_index("game").seat.reindex(seat.index) == seat).all():
        raise ValueError("the card's and the control's seats differ: not paired")
    return pd.concat(frames, ignore_index=True).assign(opponent=opponent)


def paired_play_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per opponent, player count and card cell: the card's seat against the heuristic bot in the same seat on the same
    deal (the control cell): games, win rates (Wilson), the paired difference of wins (card - control, mean and 95% t
    interval over games, paired t test's p-value; ties broken by the rules' tie-break, as every study here counts
    wins) and of scores, the smallest difference the games detect with 80% power (statsmodels TTestPower, from the
    differences' spread), and each official's uses a game in the two seats."""
    from scipy import stats as sps
    from statsmodels.stats.power import TTestPower

    from ...stats.summary import mean_ci

    out = []
    for (opp, n, cell), g in rows.assign(card=rows.cell).groupby(["opponent", "players", "card"], sort=False):
        if cell == CONTROL_CELL:
            continue
        g = pd.concat([g, rows[(rows.opponent == opp) & (rows.players == n) & (rows.cell == CONTROL_CELL)]])
        a = g[(g.cell == cell) & g.focus].set_index("game").sort_index()
        c = g[(g.cell == CONTROL_CELL) & g.focus].set_index("game").reindex(a.index)
        if (a.game_seed != c.game_seed).any():
            raise ValueError(f"{opp}, {n} players: the cells dealt different games (not paired)")
        dw = (a.win - c.win).astype(float).to_numpy()
        ds = (a.score - c.score).astype(float).to_numpy()
        m = len(dw)
        row = {"opponent": opp, "players": int(n), "cell": cell, "games": m, "card_wins": int(a.win.sum()),
               "control_wins": int(c.win.sum())}
        for name, k in (("card", row["card_wins"]), ("control", row["control_wins"])):
            lo, hi = wilson_interval(k, m)
            row.update({f"{name}_rate": k / m, f"{name}_lo": lo, f"{name}_hi": hi})
        row["d_win"], row["d_win_lo"], row["d_win_hi"] = mean_ci(dw)
        row["p_win"] = float(sps.ttest_1samp(dw, 0.0).pvalue) if dw.std() > 0 else 1.0
        row["d_score"], row["d_score_lo"], row["d_score_hi"] = mean_ci(ds)
        row["discordant"] = int((dw != 0).sum())
        sd = dw.std(ddof=1)
        # the effect size (in standard deviations of the differences); statsmodels returns it as an array
        # for some sample sizes
        es = float(np.ravel(TTestPower().solve_power(nobs=m, alpha=0.05, power=0.8))[0]) if m > 1 else math.nan
        row["detectable"] = es * sd
        for o in OFFICIALS:
            row[f"card_uses_{o}"] = float(a[f"uses_{o}"].mean())
            row[f"control_uses_{o}"] = float(c[f"uses_{o}"].mean())
        out.append(row)
    return pd.DataFrame(out)
