"""The officials study, value at the moment of choice: at every decision of recorded games where the player
to move may use an official, the search rates the best move that uses it and the best move that does not.

    >>> from thurn_ai.studies.officials.choice import ChoiceSettings, run_choice
    >>> from thurn_ai.studies.officials.choice_tables import choice_table
    >>> rows = run_choice("OUT/raw/search/2p_none/records.jsonl", "OUT/raw/search/choice_2p",
    ...                   ChoiceSettings(bot=BotSpec("mcts", {}), iterations=1000), games=50, jobs=2, resume=True)
    >>> choice_table(rows)        # per player count, official and phase: how often using it is right

How a decision is rated (docs/officials.md, "Value at the moment of choice"):

* The search is the analysis `thurn-ai hint` runs (thurn_ai.play.analysis.analyse): it sees only what the player
  to move may know (hidden cards re-dealt at random from a seed derived from the game and the move), with
  the spec and budget of the settings.
* Each side of the decision gets a search of its own: one whose root may use only the moves that use the
  official ("with"), one whose root may use only the others ("without"); later decisions in the search are
  free. Each side's best move is its most visited one, rated by the search's estimated win probability and
  score; both searches have the same budget and seed (common random numbers: they start from the same
  re-dealt worlds, which narrows the difference). A side is rated as well as the other however rarely an
  unrestricted search would try it (an unrestricted search hardly tries the Administrator).
* Δ win = with − without (the official's value at this decision, in the search's estimate), Δ score alike.
  `se_win` approximates the standard error of Δ win: each side's rating from v visits gets sqrt(p(1−p)/v)
  (the most a value in [0, 1] can vary), combined as if independent (the common seed makes it smaller).
* The better side by win probability (then score) is the search's choice (`best`, `best_uses`).

Rows are appended to OUT/rows.jsonl as each game is finished (a game's rows, then a line marking it done),
so an interrupted run continues with the games not yet done; the settings live in OUT/choice.json and a
resume with other settings is refused. Each decision's search seeds derive from the settings' seed, the
game's seed and the move's index, so a resumed run gives the same rows as an uninterrupted one.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from ...bots.spec import BotSpec
from ...play.analysis import analyse, bot_spec
from ...errors import ThurnError
from ...fileio import atomic_write_text, load_json, loads_json, open_append, path_text
from ...game.state import new_game
from ...play.match import GameRecord, derive_seed, position_at, record_walk
from ...game.officials import OFFICIALS, game_stage, official_of
from .plan import StudyError
from ...position import save_position
from ...game.rules import HOUSES
from ...game.rules import PLAYER_COUNTS

__all__ = ["SearchSettings", "ChoiceSettings", "CHOICE_COLUMNS", "ROWS_FILE", "META_FILE", "choice_officials",
           "rate_decision", "analyse_game", "run_choice", "load_choice", "read_game_records", "check_choice_data",
           "save_example_positions", "LATER_COLUMNS", "prefers_using", "side_move", "fresh_seed", "last_round_start",
           "SMALL_SAMPLE", "choice_folder", "rate_records", "read_done", "example_names",
           "run_choice_study", "load_choice_study", "study_records"]

ROWS_FILE = "rows.jsonl"
META_FILE = "choice.json"
#: fewer rated decisions than this in a cell: the report says the sample is too small
SMALL_SAMPLE = 30

CHOICE_COLUMNS = (
    "players", "source", "game", "game_seed", "move", "turn", "seat", "bot", "official", "phase", "decision",
    "houses_placed", "own_houses_placed", "route_len", "hand_size", "hand", "score", "played", "used",
    "search", "iterations", "best", "best_uses",
    "with_move", "with_win", "with_score", "with_visits",
    "without_move", "without_win", "without_score", "without_visits",
    "d_win", "d_score", "se_win", "seed")
#: columns of rows rated by a later version of the study (read as nan / False from older rows): the units
#: of the win ratings (calibrated: a calibrated win chance, else the evaluation's win share), the
#: decision's place in the game (endgame: made in the round the game ended in), and each side's chosen
#: move re-rated by an independent search (fresh_*, ChoiceSettings.fresh)
LATER_COLUMNS = ("calibrated", "endgame", "with_fresh_win", "with_fresh_score", "with_fresh_visits",
                 "without_fresh_win", "without_fresh_score", "without_fresh_visits",
                 "d_win_fresh", "d_score_fresh", "se_win_fresh")


@dataclass(frozen=True)
class SearchSettings:
    """The rating searches of a part of the study: the searching bot's spec (`mcts` gets the default
    search's options, thurn_ai.bots.default_search.DEFAULT_SEARCH, as in `thurn-ai hint`), its iterations
    per search (None: the spec's own or hint's default) and the base seed."""

    bot: BotSpec = BotSpec("mcts", {})
    iterations: int | None = None
    seed: int = 0

    def __post_init__(self):
        if self.iterations is not None and (isinstance(self.iterations, bool) or not isinstance(self.iterations, int)
                                            or self.iterations < 1):
            raise StudyError(f"rating iterations must be a positive whole number, not {self.iterations!r}")

    def spec(self, players: int) -> BotSpec:
        """The full spec the searches run with at this player count (every option written out)."""
        return bot_spec(self.bot, self.iterations, players=players)

    def to_dict(self) -> dict:
        """The settings as their file saves them (the spec as text)."""
        return {**asdict(self), "bot": str(self.bot)}


@dataclass(frozen=True)
class ChoiceSettings(SearchSettings):
    """How the decisions are rated (SearchSettings: each side of a decision gets a search of `iterations`).
    fresh: also re-rate each side's chosen move with an independent search (its own seed, the same budget),
    whose value of that move no selection has biased (the first search's best move is the maximum of noisy
    means, which reads high, the more so the more moves the side has)."""

    fresh: bool = False

    def to_dict(self) -> dict:
        d = super().to_dict()
        if not self.fresh:        # as rows rated before the option existed recorded their settings
            d.pop("fresh")
        return d


# ---------------------------------------------------------------------------------- one decision

def choice_officials(state) -> list[str]:
    """The officials the player to move may use at this decision where there is also a move without it
    (in OFFICIALS order; at most one in practice, as each decision offers one official)."""
    offs = [official_of(state, m) for m in state.legal_moves()]
    present = {o for o in offs if o}
    return [o for o in OFFICIALS if o in present and any(x != o for x in offs)]


def _binomial_se(p: float, n: int) -> float:
    p = min(max(p, 0.0), 1.0)
    return math.sqrt(p * (1 - p) / n) if n > 0 else math.nan


def _side_rating(state, official: str, using: bool, spec: BotSpec, seed: int, fresh_seed: int | None = None) -> dict:
    """The best move on one side of the decision (using `official` or not), from a search restricted to
    that side at the root: its most visited move, with that move's win probability, score and visits.
    With fresh_seed, a second search of that side with its own seed re-rates the same move (fresh_win,
    fresh_score, fresh_visits, fresh_se; nan when the second search never tried it)."""
    a = analyse(state, state.current_player, bot=spec, seed=seed, official=official, using=using)
    top = max(a.options, key=lambda x: x.visits)        # ties: the search's order
    out = {"move": top.notation, "win": top.win_prob, "score": top.mean_score, "visits": top.visits,
           "se": _binomial_se(top.win_prob, top.visits), "iterations": a.iterations, "calibrated": a.calibrated}
    if fresh_seed is not None:
        b = analyse(state, state.current_player, bot=spec, seed=fresh_seed, official=official, using=using)
        again = next((o for o in b.options if o.notation == top.notation and o.visits > 0), None)
        out.update({"fresh_win": again.win_prob if again else math.nan,
                    "fresh_score": again.mean_score if again else math.nan,
                    "fresh_visits": again.visits if again else 0,
                    "fresh_se": _binomial_se(again.win_prob, again.visits) if again else math.nan})
    return out


def side_move(state, official: str, using: bool, settings: ChoiceSettings, seed: int) -> str:
    """The move (notation) a search restricted at the root to one side of the decision (using `official`
    or not) plays: that side's most visited move, as rate_decision rates it."""
    return _side_rating(state, official, using, settings.spec(state.n_players), seed)["move"]


def fresh_seed(seed: int) -> int:
    """The seed of the independent re-rating searches of a decision rated with `seed` (both sides share
    it, as the first searches share theirs)."""
    return derive_seed("officials-fresh", seed)


def prefers_using(with_rating: dict, without_rating: dict, fresh: bool = False) -> bool:
    """Whether the rating prefers the side that uses the official: the higher win rating, then score
    (fresh: the independent re-ratings; a side the re-rating could not rate loses)."""
    key = ("fresh_win", "fresh_score") if fresh else ("win", "score")

    def value(r):
        return tuple(-math.inf if math.isnan(r[k]) else r[k] for k in key)
    return value(with_rating) > value(without_rating)


def rate_decision(state, settings: ChoiceSettings, seed: int, officials=None) -> dict:
    """The ratings of one decision, from the view of the player to move only: {'search', 'iterations',
    'best', 'best_official', 'ratings': {official: (with, without)}} where each rating is a dict with
    move (notation), win, score, visits and se (and the fresh_* re-ratings when settings.fresh); 'best'
    is the better side's move (prefers_using: by win, then score; by the re-ratings when fresh) of the
    first official on offer, 'iterations' the iterations of one side's search."""
    spec = settings.spec(state.n_players)
    officials = choice_officials(state) if officials is None else officials
    again = fresh_seed(seed) if settings.fresh else None
    out = {o: (_side_rating(state, o, True, spec, seed, again), _side_rating(state, o, False, spec, seed, again))
           for o in officials}
    best = best_official = None
    if out:
        o, (w, wo) = next(iter(out.items()))
        uses = prefers_using(w, wo, settings.fresh)
        best, best_official = (w["move"], o) if uses else (wo["move"], None)
    return {"search": str(spec), "iterations": max((x["iterations"] for side in out.values() for x in side), default=0),
            "best": best, "best_official": best_official, "ratings": out}


def _hand_text(state, player: int) -> str:
    return " ".join(c for c, k in state.hand(player).items() for _ in range(k))


def decision_rows(state, played: int, settings: ChoiceSettings, seed: int, base: dict) -> list[dict]:
    """The rows of one decision (one per official on offer); `played` is the move the game went on with."""
    officials = choice_officials(state)
    if not officials:
        return []
    p = state.current_player
    r = rate_decision(state, settings, seed, officials)
    placed = max(HOUSES - state.houses_left(q) for q in range(state.n_players))
    common = {**base, "turn": state.turn, "seat": p, "phase": game_stage(state),
              "decision": state.phase, "houses_placed": placed, "own_houses_placed": HOUSES - state.houses_left(p),
              "route_len": len(state.route(p)), "hand_size": sum(state.hand(p).values()),
              "hand": _hand_text(state, p), "score": state.score(p), "played": state.move_str(played),
              "search": r["search"], "iterations": r["iterations"], "best": r["best"], "seed": seed}
    rows = []
    for o in officials:
        w, wo = r["ratings"][o]
        row = {**common, "official": o, "used": official_of(state, played) == o,
               "best_uses": r["best_official"] == o}
        for side, rating in (("with", w), ("without", wo)):
            for k in ("move", "win", "score", "visits"):
                row[f"{side}_{k}"] = rating[k]
        row["d_win"] = w["win"] - wo["win"]
        row["d_score"] = w["score"] - wo["score"]
        row["se_win"] = math.hypot(w["se"], wo["se"])
        row["calibrated"] = bool(w["calibrated"] and wo["calibrated"])
        if settings.fresh:
            for side, rating in (("with", w), ("without", wo)):
                for k in ("win", "score", "visits"):
                    row[f"{side}_fresh_{k}"] = rating[f"fresh_{k}"]
            row["d_win_fresh"] = w["fresh_win"] - wo["fresh_win"]
            row["d_score_fresh"] = w["fresh_score"] - wo["fresh_score"]
            row["se_win_fresh"] = math.hypot(w["fresh_se"], wo["fresh_se"])
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------- one game

def analyse_game(record: GameRecord, settings: ChoiceSettings, game: int, source: str = "") -> list[dict]:
    """Replay a recorded game and rate every decision at which an official could be used (every seat)."""
    spec_of_seat = list(record.bots)
    last_round = last_round_start(record)
    rows = []
    for i, state, move in record_walk(record):
        if choice_officials(state):
            seed = derive_seed("officials-choice", settings.seed, record.seed, i)
            base = {"players": record.rules.players, "source": source, "game": game, "game_seed": record.seed,
                    "move": i, "bot": spec_of_seat[state.current_player], "endgame": state.turn >= last_round}
            rows += decision_rows(state, move, settings, seed, base)
    return rows


def last_round_start(record: GameRecord) -> int:
    """The turn in which the recorded game's end was triggered (its last round begins there; the
    decisions from then on decide the game directly: a game-ending Cartwright, the last houses). A
    game that ended without a trigger (cut short) has none: its turn count."""
    state = new_game(rules=record.rules, seed=record.seed)
    for text in record.moves:
        turn = state.turn
        state.apply(text)
        if state.export()["end_triggered"]:
            return turn
    return state.turn


# ---------------------------------------------------------------------------------- the runner

def read_game_records(path, board_file=None, games: int | None = None) -> dict[int, tuple[str, GameRecord]]:
    """{game number: (record line, GameRecord)} of a tournament's records.jsonl (its complete lines: a
    tournament still running may be writing the last one); the first `games` game numbers if given."""
    from ...play.tournament import complete_lines

    p = Path(path)
    if not p.is_file():
        raise StudyError(f"{path_text(path)}: no such records file (play the games first)")
    out = {}
    for k, line in enumerate(filter(str.strip, complete_lines(p).splitlines()), 1):
        data = loads_json(line, f"{path_text(path)} line {k}", StudyError)
        game = data.get("game", k) if isinstance(data, dict) else k
        try:
            out[int(game)] = (line, GameRecord.from_json(line, board_file=board_file))
        except ThurnError as e:
            raise StudyError(f"{path_text(path)} line {k}: {e}") from None
    numbers = sorted(out)
    if games is not None:
        numbers = numbers[:games]
    return {g: out[g] for g in numbers}


def _game_task(args) -> tuple[int, list[dict]]:
    game, line, settings, source, board_file = args
    record = GameRecord.from_json(line, board_file=board_file)
    return game, analyse_game(record, settings, game, source)


def _results(task, tasks, jobs: int, client=None):
    from ...play.workers import run_each
    return run_each(task, tasks, jobs, client)


def _read_done(path: Path) -> tuple[dict[int, list[dict]], bool]:
    """The rows of the games marked done in a rows file, and whether the file holds anything else
    (a cut last line, rows of a game that was not finished)."""
    from ...play.tournament import complete_lines

    if not path.exists():
        return {}, False
    good = complete_lines(path)          # bounded (MAX_LOG_BYTES), a regular file only
    text_ends_whole = path.stat().st_size == len(good.encode("utf-8"))
    rows: dict[int, list[dict]] = {}
    done: dict[int, list[dict]] = {}
    for k, line in enumerate(filter(str.strip, good.splitlines()), 1):
        item = loads_json(line, f"{path_text(path)} line {k}", StudyError)
        if "row" in item:
            rows.setdefault(item["row"]["game"], []).append(item["row"])
        elif "done" in item:
            g = item["done"]
            got = rows.pop(g, [])
            if len(got) != item["rows"]:
                raise StudyError(f"{path_text(path)} line {k}: game {g} is marked done with {item['rows']} rows, "
                                 f"but {len(got)} precede it")
            done[g] = got
    return done, bool(rows) or not text_ends_whole


def _plain(v):
    """JSON has no NaN: an unrated value is written as null (and read back as NaN by pandas)."""
    return None if isinstance(v, float) and math.isnan(v) else v


def _game_lines(game: int, rows: list[dict]) -> str:
    lines = [json.dumps({"row": {k: _plain(v) for k, v in r.items()}}, ensure_ascii=False, allow_nan=False)
             for r in rows]
    lines.append(json.dumps({"done": game, "rows": len(rows)}))
    return "\n".join(lines) + "\n"


def run_choice(records_path, out_dir, settings: ChoiceSettings, games: int | None = None, jobs: int = 1,
               resume: bool = False, source: str = "", board_file=None, progress: bool = False,
               log=None, client=None) -> pd.DataFrame:
    """Rate every decision with an official on offer in the first `games` games of a records file, into
    out_dir (see the module doc); returns the rows of those games, sorted by game, move and official.
    client: a Dask client (thurn_ai.play.tournament.connect) to rate the games on, else `jobs` processes.

    resume: continue the rows already in out_dir (they must have been made with the same settings);
    without it out_dir must not hold rows yet."""
    return _frame(rate_records(records_path, out_dir, settings, _game_task, META_FILE, "choice", games=games,
                               jobs=jobs, resume=resume, source=source, board_file=board_file, progress=progress,
                               log=log, client=client))


def rate_records(records_path, out_dir, settings, task, meta_file: str, label: str, games: int | None = None,
                 jobs: int = 1, resume: bool = False, source: str = "", board_file=None, progress: bool = False,
                 log=None, client=None) -> list[dict]:
    """Rate the first `games` games of a records file into out_dir/ROWS_FILE, a game at a time, resuming
    (the runner of the choice part and of the turn question): task((game, line, settings, source,
    board_file)) -> (game, rows) rates one game (a module-level function, so processes and a cluster can
    run it); the settings (their to_dict()) and source are kept in out_dir/meta_file and a resume with other
    settings is refused. Returns the rows of those games in game order."""
    out = Path(out_dir)
    records = read_game_records(records_path, board_file, games)
    if games is not None and len(records) < games and log:
        log(f"[{label}] {records_path} holds {len(records)} complete games, fewer than the {games} asked for")
    meta = {"settings": settings.to_dict(), "source": source}
    meta_path, rows_path = out / meta_file, out / ROWS_FILE
    if meta_path.exists():
        if not resume:
            raise StudyError(f"{path_text(out)} already holds {label} rows: resume them, or choose another folder")
        saved = load_json(meta_path, "settings file", StudyError)
        if saved != meta:
            raise StudyError(f"{path_text(out)} was made with other settings ({json.dumps(saved)}); "
                             f"these are {json.dumps(meta)}: use another folder")
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(meta_path, json.dumps(meta, indent=1) + "\n")
    done, untidy = _read_done(rows_path)
    if untidy:       # drop a cut line and the rows of an unfinished game before appending again
        atomic_write_text(rows_path, "".join(_game_lines(g, done[g]) for g in sorted(done)))
    tasks = [(g, line, settings, source, board_file) for g, (line, _rec) in records.items() if g not in done]
    if log and tasks:
        log(f"[{label}] {source or records_path}: {len(tasks)} games to rate ({len(records) - len(tasks)} done), "
            f"search {settings.spec(next(iter(records.values()))[1].rules.players)}")
    from tqdm import tqdm

    with tqdm(total=len(records), initial=len(records) - len(tasks), desc=label, unit="game",
              disable=not progress, dynamic_ncols=True) as bar:
        with open_append(rows_path, "rows file", StudyError) as f:       # never through a link
            for game, rows in _results(task, tasks, jobs, client):
                f.write(_game_lines(game, rows))
                f.flush()
                os.fsync(f.fileno())
                done[game] = rows
                bar.update(1)
    return [r for g in sorted(records) for r in done.get(g, [])]


def _frame(rows: list[dict]) -> pd.DataFrame:
    return with_later_columns(pd.DataFrame(rows, columns=[*CHOICE_COLUMNS, *LATER_COLUMNS]))


def with_later_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Rated decisions with every column of this version (LATER_COLUMNS absent from older rows: nan, and
    False for the flags), sorted by player count, source, game, move and official."""
    df = df.copy()
    for c in LATER_COLUMNS:
        if c not in df:
            df[c] = False if c in ("calibrated", "endgame") else math.nan
    if len(df):
        df = df.sort_values(["players", "source", "game", "move", "official"], kind="stable", ignore_index=True)
    for c in ("used", "best_uses", "calibrated", "endgame"):
        df[c] = df[c].fillna(False).astype(bool)
    return df


def read_done(out_dir) -> list[dict]:
    """The rows of the games marked done in out_dir/ROWS_FILE, in game order ([] without the file)."""
    done, _ = _read_done(Path(out_dir) / ROWS_FILE)
    return [r for g in sorted(done) for r in done[g]]


def load_choice(out_dir) -> pd.DataFrame:
    """The rows of the finished games in a choice folder (without rating anything)."""
    path = Path(out_dir) / ROWS_FILE
    if not path.exists():
        raise StudyError(f"{path_text(out_dir)} holds no choice rows: run the choice part first")
    return _frame(read_done(out_dir))


def check_choice_data(df: pd.DataFrame) -> None:
    missing = [c for c in CHOICE_COLUMNS if c not in df.columns]
    if missing:
        raise StudyError(f"choice data lacks columns: {', '.join(missing)}")


def save_example_positions(examples: pd.DataFrame, records: dict, out_dir, prefix: str = "") -> list[str]:
    """Write each example decision as a position file (the view of the player to move, so it holds
    nothing that player could not know) that `thurn-ai hint` opens. records: {(players, source):
    {game: GameRecord}}. Returns the file names (relative to out_dir), in the order of `examples`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = example_names(examples, prefix)
    for r, name in zip(examples.itertuples(), names):
        rec = records[(r.players, r.source)][r.game]
        save_position(position_at(rec, r.move), out / name, viewer=int(r.seat))
    return names


def example_names(examples: pd.DataFrame, prefix: str = "") -> list[str]:
    """The position file names of the examples: <prefix><official>_<k>.json, k = 1, 2, ... per official."""
    names: list[str] = []
    count: dict[str, int] = {}
    for o in examples.official:
        count[o] = count.get(o, 0) + 1
        names.append(f"{prefix}{o}_{count[o]}.json")
    return names


# ---------------------------------------------------------------------------------- a study's games

def choice_folder(out_dir, players: int) -> Path:
    return Path(out_dir) / f"choice_{players}p"


def run_choice_study(bot, players=PLAYER_COUNTS, games=100, choice_games=None, choice_bot="mcts",
                     seed: int = 0, choice_seed: int = 0, iterations: int | None = None, jobs=None,
                     rules_kwargs=None, out_dir=None, progress: bool = False, log=print, fresh: bool = False,
                     scheduler: str | None = None) -> pd.DataFrame:
    """Value at the moment of choice in a study's control games (every seat the full bot `bot`, one spec
    or {players: spec}): the control tournaments are played (or resumed) in out_dir/<n>p_none exactly as
    run_ablation plays them, then the first choice_games[n] of them (one number or {players: n}; None: all)
    are rated with `choice_bot` (a spec or {players: spec}) into out_dir/choice_<n>p, resuming. fresh:
    each side's chosen move is also re-rated by an independent search (ChoiceSettings.fresh); scheduler:
    a Dask scheduler address to play and rate on."""
    from .plan import CONTROL, Condition, bot_for, parse_players, rotation_games, study_board_file
    from ...play.tournament import check_jobs, connect, run_tournament

    if out_dir is None:
        raise StudyError("the choice part needs an output folder: the games' records are kept there")
    jobs = check_jobs(jobs)
    client = connect(scheduler) if scheduler else None
    board_file = study_board_file(rules_kwargs)
    frames = []
    for n in parse_players(players):
        cond = Condition(n, CONTROL, 0)
        folder = Path(out_dir) / cond.name
        n_games = rotation_games(games, n)
        if log:
            log(f"[choice] {cond.name}: {n_games} control games of {bot_for(bot, n)}, seed {cond.seed(seed)}")
        run_tournament(cond.specs(bot_for(bot, n)), players=n, games=n_games, seed=cond.seed(seed), jobs=jobs,
                       rules_kwargs=rules_kwargs, out_dir=str(folder), resume="auto", progress=progress,
                       scheduler=scheduler)
        want = None if choice_games is None else (choice_games.get(n) if isinstance(choice_games, dict)
                                                  else choice_games)
        settings = ChoiceSettings(bot=bot_for(choice_bot, n), iterations=iterations, seed=choice_seed, fresh=fresh)
        frames.append(run_choice(folder / "records.jsonl", choice_folder(out_dir, n), settings, games=want,
                                 jobs=jobs, resume=True, source=cond.name, board_file=board_file,
                                 progress=progress, log=log, client=client))
    return pd.concat(frames, ignore_index=True) if frames else _frame([])


def load_choice_study(out_dir, players=PLAYER_COUNTS) -> pd.DataFrame:
    """The rated decisions saved by run_choice_study so far (player counts without a choice folder are
    left out); StudyError if there are none at all."""
    from .plan import parse_players

    frames = [load_choice(choice_folder(out_dir, n)) for n in parse_players(players)
              if (choice_folder(out_dir, n) / ROWS_FILE).exists()]
    if not frames:
        raise StudyError(f"{path_text(out_dir)} holds no choice rows: run the choice part first")
    return pd.concat(frames, ignore_index=True)


def study_records(out_dir, df: pd.DataFrame, board_file=None) -> dict:
    """{(players, source): {game: GameRecord}} of the games `df` rates, read from a study's folders
    (what save_example_positions needs)."""
    out = {}
    for (n, source), g in df.groupby(["players", "source"]):
        recs = read_game_records(Path(out_dir) / source / "records.jsonl", board_file)
        out[(n, source)] = {k: rec for k, (_line, rec) in recs.items() if k in set(g.game)}
    return out
