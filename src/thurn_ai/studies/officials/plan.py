"""The officials study, its plan: the conditions (a control and one tournament per official for each player
count), their seeds and games, and playing or loading them as the study's canonical DataFrame (one row per
player per game). See thurn_ai/studies/officials/__init__.py for the design.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...bots.search_options import SearchOptions
from ...bots.base import Searcher
from ...bots.spec import BotSpec, make_bot
from ...errors import ThurnError
from ...fileio import path_text
from ...game.officials import OFFICIAL_LABEL as _LABELS, OFFICIALS, STAGES

CONTROL = "none"
OFFICIAL_LABEL = {**_LABELS, CONTROL: "(none)"}
CANONICAL_COLUMNS = ("players", "official", "game", "seed", "seat", "bot", "restricted",
                     "score", "win", "rank", "turns")


class StudyError(ThurnError):
    """Bad options for the officials study (unknown official, player count, empty data...)."""


# the study's usage columns: each official in each game stage, named where a game record's uses become
# columns (play.match; a tournament's results add each official's total)
from ...play.match import STAGE_USE_COLUMNS as USE_COLUMNS, use_column  # noqa: E402, F401  (USE_COLUMNS: re-exported)
from ...game.rules import PLAYER_COUNTS, is_player_count  # noqa: E402


def with_forbid(spec: BotSpec, official: str) -> BotSpec:
    """The spec with `forbid=official` added: mcts(iterations=300) -> mcts(iterations=300,forbid=...)."""
    if spec.option("forbid"):
        raise StudyError(f"the full bot {str(spec)!r} already forbids {'+'.join(sorted(spec.option('forbid')))}; "
                         "give the study an unrestricted bot")
    if official not in OFFICIALS:
        raise StudyError(f"no official {official!r} (officials: {', '.join(OFFICIALS)})")
    return spec.with_(forbid=frozenset({official}))


def study_spec(bot: BotSpec, players: int, iterations: int | None = None) -> BotSpec:
    """The spec a study plays `bot` with at this player count. `mcts` is the default search's options
    (thurn_ai.bots.default_search.DEFAULT_SEARCH, as `thurn-ai hint` searches), every option that makes the
    search written out so the data name it; `iterations` (a bot that searches: bots.base.Searcher) replaces
    the spec's budget, and an mcts spec without one gets the bot's default."""
    from ...play.analysis import bot_spec

    if not isinstance(make_bot(bot), Searcher):       # the bot declares whether it searches
        if iterations is not None:
            raise StudyError(f"a budget in iterations is for a bot that searches (mcts, pimc, ...), not {bot.name}")
        return bot
    if bot.name == "mcts" and iterations is None and not {"iterations", "time"} & set(bot.options):
        iterations = SearchOptions().iterations
    if bot.name == "mcts" or iterations is not None:
        return bot_spec(bot, iterations, players=players)
    return bot


def parse_budget(text) -> dict[int, int] | None:
    """Iterations per decision by player count: '1000' (every count) or '2=1000,3=1000,4=3000' (counts
    not named keep the spec's own budget); None for None or ''. StudyError for anything else."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    if isinstance(text, dict):
        items = list(text.items())
    elif isinstance(text, int) and not isinstance(text, bool):
        items = [(n, text) for n in PLAYER_COUNTS]
    else:
        parts = [t.strip() for t in str(text).split(",") if t.strip()]
        if not parts:            # ",,,": no budget named (read as none, it ran the spec's own budget)
            raise StudyError(f"budget {str(text)[:40]!r} names no iterations, e.g. 1000 or 2=1000,3=1000,4=3000")
        items = []
        try:
            if len(parts) == 1 and "=" not in parts[0]:
                items = [(n, int(parts[0])) for n in PLAYER_COUNTS]
            else:
                for part in parts:
                    n, _, it = part.partition("=")
                    items.append((int(n), int(it)))
        except ValueError:
            raise StudyError(f"budget {str(text)[:40]!r}: expected iterations, e.g. 1000 or 2=1000,3=1000,4=3000") \
                from None
    out = {}
    for n, it in items:
        if isinstance(n, bool) or n not in PLAYER_COUNTS:
            raise StudyError(f"budget {str(text)[:40]!r}: player counts are 2, 3 or 4, not {n!r}")
        if isinstance(it, bool) or not isinstance(it, int) or not 1 <= it <= 10_000_000:
            raise StudyError(f"budget {str(text)[:40]!r}: iterations are a whole number from 1 to 10,000,000, "
                             f"not {it!r}")
        if n in out:
            raise StudyError(f"budget {str(text)[:40]!r}: {n} players given twice")
        out[n] = it
    return out


def study_bots(bot: BotSpec, players, budget=None) -> dict[int, BotSpec]:
    """{players: spec} for a study of `bot` (study_spec) with a budget per player count (parse_budget)."""
    budget = parse_budget(budget) or {}
    return {n: study_spec(bot, n, budget.get(n)) for n in parse_players(players)}


def bot_for(bot: BotSpec | dict[int, BotSpec], players: int) -> BotSpec:
    """The full bot's spec at this player count: `bot` itself, or bot[players] for a mapping."""
    if isinstance(bot, dict):
        if players not in bot:
            raise StudyError(f"no bot given for {players} players")
        return bot[players]
    return bot


@dataclass(frozen=True)
class Condition:
    """One tournament of the study: `official` forbidden for one rotating seat, or CONTROL (none)."""

    players: int
    official: str
    index: int  # 0 for the control, 1.. for the officials (fixes the seed)

    @property
    def name(self) -> str:
        return f"{self.players}p_{self.official}"

    def specs(self, bot: BotSpec) -> list[str]:
        """The seats' specs as the tournament saves them (text): the restricted bot first, then the full bot."""
        if self.official == CONTROL:
            return [str(bot)] * self.players
        return [str(with_forbid(bot, self.official))] + [str(bot)] * (self.players - 1)

    def seed(self, base_seed: int, paired: bool = True) -> int:
        """The tournament's seed. Paired (the design): the control and every ablation of a player count share it, so
        game g deals the same cards and gives each seat the same bot seed in all of them and only the restriction
        differs (paired deals: thurn_ai/studies/officials/design.py compares them game by game)."""
        return base_seed + 100 * self.players + (0 if paired else self.index)


def parse_officials(text) -> tuple[str, ...]:
    if text is None:
        return OFFICIALS
    names = [t.strip().lower().replace("-", "_") for t in (text.split(",") if isinstance(text, str) else text)]
    names = [n for n in names if n]
    bad = [n for n in names if n not in OFFICIALS]
    if bad or not names:
        raise StudyError(f"unknown official {', '.join(bad) or '(none given)'}; use {', '.join(OFFICIALS)}")
    return tuple(dict.fromkeys(names))


def parse_players(text) -> tuple[int, ...]:
    try:
        counts = [int(t) for t in (text.split(",") if isinstance(text, str) else text)]
    except (TypeError, ValueError):
        raise StudyError(f"player counts {text!r}: expected e.g. 2,3,4") from None
    if not counts or any(not is_player_count(n) for n in counts):
        raise StudyError(f"player counts {text!r}: each must be 2, 3 or 4")
    return tuple(dict.fromkeys(counts))


def plan(players=PLAYER_COUNTS, officials=OFFICIALS) -> list[Condition]:
    players, officials = parse_players(players), parse_officials(officials)
    out = []
    for n in players:
        out.append(Condition(n, CONTROL, 0))
        out += [Condition(n, o, 1 + OFFICIALS.index(o)) for o in officials]
    return out


def rotation_games(games, players: int) -> int:
    """Games rounded up to a multiple of the player count, so every seat gets every bot equally often.
    `games` is one number for every player count or a mapping {players: games}."""
    if isinstance(games, dict):
        if players not in games:
            raise StudyError(f"no number of games given for {players} players")
        games = games[players]
    if not isinstance(games, int) or games < 1:
        raise StudyError(f"games must be positive, not {games}")
    return -(-games // players) * players


def turns_column(phase: str) -> str:
    return f"turns_{phase}"


def forced_column(phase: str) -> str:
    """Turns a seat began with an empty hand in this phase: the rules then make it draw two cards (the
    forced Postmaster), which is no choice, so usage does not count it and `forbid` cannot stop it."""
    return f"forced_postmaster_{phase}"


def phase_turns(records_path, board_file=None) -> pd.DataFrame:
    """Turns each seat began in each game phase, by replaying a tournament's records.jsonl: the denominator that turns
    uses per phase into a rate (the phases differ in length)."""
    from ...play.match import GameRecord, replay
    from ...game.officials import game_stage
    from ...play.tournament import complete_lines

    rows = []
    # complete lines only: a tournament killed while appending a record leaves its last line cut
    lines = complete_lines(Path(records_path)).splitlines()
    for line in filter(str.strip, lines):
        rec = GameRecord.from_json(line, board_file=board_file)
        counts = [dict.fromkeys(STAGES, 0) for _ in range(rec.rules.players)]
        forced = [dict.fromkeys(STAGES, 0) for _ in range(rec.rules.players)]
        last_turn = [-1]

        def count(state, player, move, last_turn=last_turn, counts=counts, forced=forced):   # this game's
            if state.turn != last_turn[0]:  # the first decision of a turn
                last_turn[0] = state.turn
                counts[player][game_stage(state)] += 1
                forced[player][game_stage(state)] += bool(state.turn_state().forced_pm)

        replay(rec, on_move=count)
        game = json.loads(line)["game"]
        rows += [{"game": game, "seat": seat, **{turns_column(ph): c[ph] for ph in STAGES},
                  **{forced_column(ph): f[ph] for ph in STAGES}}
                 for seat, (c, f) in enumerate(zip(counts, forced))]
    return pd.DataFrame(rows, columns=["game", "seat", *map(turns_column, STAGES), *map(forced_column, STAGES)])


def with_phase_turns(df: pd.DataFrame, folder, board_file=None) -> pd.DataFrame:
    """df (one tournament) with the turns_<phase> columns, if the tournament's records are saved
    (`board_file`: the board file the games were played on, see phase_turns)."""
    records = Path(folder) / "records.jsonl"
    if not records.exists():
        return df
    return df.merge(phase_turns(records, board_file), on=["game", "seat"], how="left", validate="one_to_one")


def standardize(raw: pd.DataFrame, cond: Condition) -> pd.DataFrame:
    """run_tournament's rows -> the canonical columns (see the module doc)."""
    cols = {c.lower(): c for c in raw.columns}

    def pick(*names):
        for n in names:
            if n in cols:
                return raw[cols[n]]
        raise StudyError(f"tournament results lack a column {names[0]!r} (have {', '.join(raw.columns)})")

    # 'spec' is the raw spec, text as the tournament's file holds it (read here, at the edge); 'bot' may be a
    # label ('x #2')
    bot = pick("spec", "bot").astype(str)
    out = pd.DataFrame({
        "players": cond.players, "official": cond.official,
        "game": pick("game").astype(int), "seed": pick("game_seed", "seed").astype("int64"),
        "seat": pick("seat").astype(int), "bot": bot,
        "restricted": [bool(BotSpec.parse(s).option("forbid")) for s in bot],
        "score": pick("score").astype(float), "win": pick("win").astype(int),
        "rank": pick("rank").astype(int), "turns": pick("turns").astype(int),
    })
    for o in OFFICIALS:
        for ph in STAGES:
            # accept 'uses_postmaster_early', 'postmaster_early', 'official_postmaster_early', ...
            pat = re.compile(rf"(^|_){o}_{ph}$")
            match = [c for c in raw.columns if pat.search(c.lower())]
            if not match:
                raise StudyError(f"tournament results lack the usage column for {o} / {ph}")
            out[use_column(o, ph)] = raw[match[0]].fillna(0).astype(int).to_numpy()
    return out


def study_board_file(rules_kwargs):
    """The board file a study's rules_kwargs name (the user's --board-file), or None on a packaged board."""
    from ...game.board import is_packaged_board

    board = (rules_kwargs or {}).get("board")
    return None if board is None or is_packaged_board(board) else board


def run_ablation(bot, players=PLAYER_COUNTS, games=100, seed: int = 0, officials=OFFICIALS,
                 jobs=None, rules_kwargs=None, out_dir=None, resume: bool = False,
                 progress: bool = True, log=print, paired: bool = True, scheduler: str | None = None) -> pd.DataFrame:
    """Play the control and ablation tournaments (games each, or games[n] for n players; rounded up to a multiple of n).
    """
    from ...play.tournament import run_tournament

    board_file = study_board_file(rules_kwargs)
    frames = []
    for cond in plan(players, officials):
        n_games = rotation_games(games, cond.players)
        specs = cond.specs(bot_for(bot, cond.players))
        if log:
            log(f"[officials] {cond.name}: {n_games} games of {' vs '.join(specs[:2])}, "
                f"seed {cond.seed(seed, paired)}")
        raw = run_tournament(specs, players=cond.players, games=n_games, seed=cond.seed(seed, paired),
                             jobs=jobs, rules_kwargs=rules_kwargs,
                             out_dir=None if out_dir is None else str(Path(out_dir) / cond.name),
                             resume="auto" if resume else False, progress=progress, scheduler=scheduler)
        rows = standardize(raw, cond)
        frames.append(rows if out_dir is None else with_phase_turns(rows, Path(out_dir) / cond.name, board_file))
    return pd.concat(frames, ignore_index=True)


def load_ablation(out_dir, bot: BotSpec | dict[int, BotSpec], players=PLAYER_COUNTS, officials=OFFICIALS,
                  board_file=None) -> pd.DataFrame:
    """The games saved by run_ablation(out_dir=...) so far, without playing any (an unfinished tournament contributes
    its complete games); StudyError if a tournament folder is missing."""
    from ...play.tournament import load_results

    frames = []
    for cond in plan(players, officials):
        folder = Path(out_dir) / cond.name
        if not folder.is_dir():
            raise StudyError(f"{path_text(folder)} is missing: run the study first")
        frames.append(with_phase_turns(standardize(load_results(folder), cond), folder, board_file))
    return pd.concat(frames, ignore_index=True)


def choice_bots(bots: dict[int, BotSpec], iterations=None) -> dict[int, BotSpec]:
    """{players: spec} of the search that rates the decisions of a study whose full bots are `bots`
    ({players: spec}): an mcts study bot rates with itself (its options, its budget), any other with the
    default search; `iterations` (one number or {players: n}, parse_budget) replaces the budget, else a
    non-search study gets the budget `thurn-ai hint` uses."""
    from ...play.analysis import bot_spec

    budget = parse_budget(iterations) or {}
    out = {}
    for n, spec in bots.items():
        out[n] = bot_spec(spec if spec.name == "mcts" else BotSpec("mcts", {}), budget.get(n), players=n)
    return out
