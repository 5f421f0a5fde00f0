"""The officials study, what a run will cost, said before it starts: games, searches and core-hours of each part,
from a short timing on this machine (one cheap game for the decision counts, a few searches at the real budget)."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ...bots import make_bot
from ...bots.base import Observation
from ...bots.spec import BotSpec
from ...game.rules import Rules
from ...play.match import play_game
from .choice import choice_officials
from .rated import SEARCHES_AT_AN_OFFER, ValidationCell
from ...play.turn_options import open_choices

__all__ = ["Timing", "measure", "part_costs", "format_costs"]

#: searches timed at the real budget
TIMED = 3
#: each official's share of the offers (the search study's rated games: 16,625 Postmaster, 16,853
#: Administrator, 6,340 Postal Carrier and 1,167 Cartwright offers), for a validation cell that follows one
OFFER_SHARE = {"postmaster": 0.405, "administrator": 0.411, "postal_carrier": 0.155, "cartwright": 0.029}


@dataclass(frozen=True)
class Timing:
    """Per game of `players`: decisions that need a search (all seats), decisions with an official on
    offer, and CPU seconds of one search at the real budget."""
    players: int
    searches_per_game: float
    offers_per_game: float
    seconds_per_search: float
    #: turn starts a game that are not forced (all seats), and the options each has (none and the possible
    #: officials, play.turn_options.open_choices): what the turn question rates
    turns_per_game: float = 0.0
    options_per_turn: float = 0.0


def _cheap(spec: BotSpec) -> BotSpec:
    """The spec's bot at 10 iterations, forbidding nothing (it plays the games the timed positions come from)."""
    return BotSpec(spec.name, {"iterations": 10, **spec.without("iterations", "time", "forbid").options})


def measure(players: int, spec: BotSpec, seed: int = 0) -> Timing:
    """A short timing of `spec` (a search bot) at this player count (see the module doc)."""
    cheap = _cheap(spec)
    rules = Rules(players=players)
    positions: list = []
    counts = {"searches": 0, "offers": 0, "turns": 0, "options": 0}
    last_turn = [-1]

    def seen(state, player, move):
        if state.turn != last_turn[0]:
            last_turn[0] = state.turn
            if not state.turn_state().forced_pm:
                counts["turns"] += 1
                counts["options"] += len(open_choices(state))
        if len(state.legal_moves()) > 1:
            counts["searches"] += 1
            counts["offers"] += bool(choice_officials(state))
            if len(positions) < 40:
                positions.append(state.clone())

    play_game(rules, [make_bot(cheap, seed + s) for s in range(players)], seed, on_move=seen)
    bot = make_bot(spec, seed)
    picked = positions[len(positions) // 4::max(1, len(positions) // (2 * TIMED))][:TIMED] or positions[:1]
    t0 = time.process_time()
    for state in picked:
        bot.choose(Observation(state, state.current_player, seed))
    per_search = (time.process_time() - t0) / max(1, len(picked))
    return Timing(players, counts["searches"], counts["offers"], per_search, counts["turns"],
                  counts["options"] / max(1, counts["turns"]))


def part_costs(timings: dict, ablation_games: dict | None = None, officials: int = 4, rated_games: dict | None = None,
               fresh: bool = True, validation_games: dict | None = None, ratings=("first", "fresh"),
               turn_games: dict | None = None, same_budget: bool = True) -> list[dict]:
    """Rows {part, players, games, searches, core_hours} for the parts given: the ablation (a control and `officials`
    tournaments of ablation_games[n] games, every seat searching), the rating of rated_games[n] control games (two
    searches an offer, four with fresh), the validation (validation_games[n] games per cell of `ratings`, one tuple
    or {players: tuple}: every seat searches; the rated seat's rating searches at its offers share one search's
    budget with same_budget, as the validation plays them, else each costs a search), the turn question on
    turn_games[n] control games (two searches per option of each turn that is not forced)."""
    rows = []

    def add(part, n, games, searches):
        rows.append({"part": part, "players": n, "games": games, "searches": round(searches),
                     "core_hours": searches * timings[n].seconds_per_search / 3600})

    for n, t in sorted(timings.items()):
        if ablation_games and n in ablation_games:
            games = ablation_games[n] * (1 + officials)
            add("ablation", n, games, games * t.searches_per_game)
        if rated_games and n in rated_games:
            add("choice", n, rated_games[n], rated_games[n] * t.offers_per_game * (4 if fresh else 2))
        if turn_games and n in turn_games:
            add("turns", n, turn_games[n], turn_games[n] * t.turns_per_game * t.options_per_turn * 2)
        if validation_games and n in validation_games:
            for rating in (ratings.get(n, ()) if isinstance(ratings, dict) else ratings):
                cell = ValidationCell.parse(rating)
                share = 1 / SEARCHES_AT_AN_OFFER[cell.rating] if same_budget else 1
                offers = t.offers_per_game / n * (1 if cell.official is None else OFFER_SHARE[cell.official])
                if cell.control:   # at the rated seat's offers: a side-picking search (scale x the standard
                    extra = offers * (cell.scale - 1 + share * cell.scale)     # one) and one side's search
                else:              # its searches instead of one (with same_budget they share one's budget)
                    extra = offers * (cell.scale - 1 if same_budget else SEARCHES_AT_AN_OFFER[cell.rating] - 1)
                add(f"validation ({rating})", n, validation_games[n],
                    validation_games[n] * (t.searches_per_game + extra))
    return rows


def format_costs(rows: list[dict], timings: dict) -> str:
    """The cost table as text, with the timing it rests on."""
    lines = ["what each part will cost (estimated from a short timing on this machine):"]
    for n, t in sorted(timings.items()):
        lines.append(f"  {n} players: {t.searches_per_game:.0f} searched decisions a game, {t.offers_per_game:.0f} "
                     f"with an official on offer, {t.turns_per_game:.0f} turn starts ({t.options_per_turn:.1f} options "
                     f"each), {t.seconds_per_search:.3f} CPU s a search")
    w = max([len("part")] + [len(r["part"]) for r in rows])  # the widest part name sets the column
    lines.append(f"  {'part':<{w}} {'players':>7} {'games':>7} {'searches':>10} {'core-hours':>10}")
    for r in rows:
        lines.append(f"  {r['part']:<{w}} {r['players']:>7} {r['games']:>7} {r['searches']:>10} "
                     f"{r['core_hours']:>10.2f}")
    total = sum(r["core_hours"] for r in rows)
    lines.append(f"  total {total:.1f} core-hours (divide by the cores working: --jobs, or a cluster's workers)")
    return "\n".join(lines)
