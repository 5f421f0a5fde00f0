"""The server's games and replays, kept in memory: a game being played (seats, bots, the state, the
moves so far) and a game record being replayed (the state after every move).

Every method that can be given bad input raises a ThurnError with one message; the server turns it into
a 4xx answer. A session has a lock, so two requests for one game never move it at once; the lock is held
only while the game is read or moved, never while a bot thinks (a search runs on a copy of what the bot
may see, so the game can be shown meanwhile).

Memory is bounded: at most MAX_SESSIONS games and replays; a replay keeps the state of every
CHECKPOINT-th move and recomputes the others, holds at most MAX_REPLAY_MOVES moves, and the replays kept
hold at most MAX_KEPT_REPLAY_MOVES moves together (the oldest replays are dropped first).
"""
from __future__ import annotations

import json
import random
import secrets
import threading
from collections import OrderedDict

from ..bots.base import Searcher
from ..bots.spec import BotSpec, check_request_spec, make_bot, split_specs
from ..errors import PositionError, ThurnError
from ..fileio import short_repr
from ..game.state import GameState
from ..play.match import GameRecord, Moved, ReplayError, Table, derive_seed
from ..game.notation import illegal_move_error, move_city, move_kind
from ..position import position_from_dict, position_viewer
from ..game.rules import PLAYER_COUNTS, Rules
from .hints import check_search_limits
from .views import move_fields, state_view

HUMAN = "human"
MAX_SESSIONS = 64          # games and replays kept; the oldest is dropped first
MAX_RECORD_BYTES = 32 * 2 ** 20
# A played game has a few hundred moves (random bots: ~6,000); the engine's max_turns safeguard allows
# far more. A replay holds ~0.5 kB a move (its log line and the moves' text), plus a state every
# CHECKPOINT moves (~1 kB each; a move is recomputed in ~0.1 ms).
MAX_REPLAY_MOVES = 50_000
MAX_KEPT_REPLAY_MOVES = 400_000
CHECKPOINT = 64


class SessionError(ThurnError):
    """A request that does not fit the session's state now (HTTP 409): a move when a bot is to move, a
    bot step on a person's turn, a move after the end."""


def is_human(spec: BotSpec) -> bool:
    """Whether a seat is played by a person in the page (`human`, which takes no options)."""
    if spec.name == HUMAN and spec.options:
        raise ThurnError(f"seat {short_repr(str(spec))}: '{HUMAN}' takes no options (a person plays in the page)")
    return spec.name == HUMAN


def log_entry(board, moved: Moved, who: str) -> dict:
    """One line of the game's log: the move's index, turn, seat, who made it, the move, its official and
    (if it closed a route) what the close awarded."""
    row = move_fields(board, moved.move, moved.text, moved.official)
    entry = {"i": moved.index, "turn": moved.turn, "seat": moved.player, "by": who, "move": row["move"],
             "city": row["city"], "kind": row["kind"], "official": row["official"],
             "official_label": row["official_label"]}
    if moved.close is not None:
        entry["close"] = moved.close.to_dict()
    return entry


class GameSession:
    """A game played from the page: `seats` are bot specs, `human` for a person clicking moves."""

    kind = "game"

    def __init__(self, seats: list[str], rules: Rules | None = None, seed: int | None = None,
                 position: dict | None = None):
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise ThurnError(f"seats must be a list of bot specs (use 'human' for a person), not {short_repr(seats)}")
        if len(seats) not in PLAYER_COUNTS:
            raise ThurnError(f"a game has {PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]} seats, not {len(seats)}")
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        self.id = secrets.token_hex(8)
        self.seed = seed
        self.seats = [check_request_spec(s.strip()) for s in seats]     # the seats' text, as the record keeps it
        specs = [BotSpec.parse(s) for s in self.seats]                    # read once, here at the request's edge
        self.humans = [i for i, s in enumerate(specs) if is_human(s)]
        self.bots = [None if i in self.humans else make_bot(s, derive_seed("bot", seed, i))
                     for i, s in enumerate(self.seats)]
        for bot in self.bots:
            check_search_limits(bot)
        if position is not None:
            self.table = Table(position_from_dict(position, seed), seed, self.seats)
            self.from_position = True
            viewer = position_viewer(position)
            if viewer is not None and viewer not in self.humans:
                raise ThurnError(f"the position is seat {viewer}'s view: seat {viewer} must be played by "
                                 f"'{HUMAN}' (the other hands were dealt at random)")
        else:
            self.table = Table.new(rules or Rules(players=len(seats)), seed, self.seats)
            self.from_position = False
        if self.state.n_players != len(self.seats):
            raise ThurnError(f"the game has {self.state.n_players} players but {len(self.seats)} seats were given")
        self.rules = self.state.rules
        self.log: list[dict] = []
        self.lock = threading.RLock()      # view() is also taken inside play() and step()
        self._undo: list[tuple] = []       # the person's decisions this turn that can be taken back
        self.thinking = False              # a bot's step is searching (outside the lock)
        # the moves the bots that ask (Bot.inform) are yet to be told of, with each move's number: told at
        # the next step, when no move before it can be taken back any more
        self._news: list[tuple[int, tuple]] = []

    @property
    def state(self) -> GameState:
        return self.table.state

    # ---- who sees what

    @property
    def viewer(self) -> int | None:
        """Whose view the page shows: the person to move, else the first person; everything when nobody
        plays in person or the game is over."""
        if not self.humans or self.state.is_terminal():
            return None
        p = self.state.current_player
        return p if p in self.humans else self.humans[0]

    def view(self) -> dict:
        with self.lock:
            viewer = self.viewer
            mover_is_person = not self.state.is_terminal() and self.state.current_player in self.humans
            v = state_view(self.state, viewer, legal=mover_is_person)
            v.update(kind=self.kind, id=self.id, seats=self.seats, humans=self.humans, seed=self.seed,
                     from_position=self.from_position, log=list(self.log), waiting_for=self.waiting_for())
            v["undo"] = len(self._undo)
            return v

    def waiting_for(self) -> str:
        """'person', 'bot' or 'nobody' (the game is over): what the page does next."""
        if self.state.is_terminal():
            return "nobody"
        return "person" if self.state.current_player in self.humans else "bot"

    # ---- moving

    def _apply(self, move: int, who: str) -> dict:
        self._news += [(len(self.table.moves), item) for item in self.table.news(self.bots, move)]
        entry = log_entry(self.state.board, self.table.apply(move), who)
        self.log.append(entry)
        return entry

    def _restore(self, snapshot: tuple, n_log: int) -> None:
        """Back to a table snapshot and log length: the moves taken back are no news."""
        self.table.restore(snapshot)
        del self.log[n_log:]
        self._news = [(i, item) for i, item in self._news if i < len(self.table.moves)]

    def _persons_turn(self) -> int:
        """The seat to move, if a person sits there and the game is not over; else SessionError."""
        s = self.state
        if s.is_terminal():
            raise SessionError("the game is over")
        p = s.current_player
        if p not in self.humans:
            raise SessionError(f"seat {p} ({self.seats[p]}) is to move, not a person: ask it to step")
        return p

    def play(self, text) -> dict:
        """A person's move, in notation: {"moved": its log entry, "view": the view after it}; IllegalMoveError
        (saying why and what is possible) if it is not legal, SessionError if it is not a person's turn."""
        with self.lock:
            self._persons_turn()
            s = self.state
            if not isinstance(text, str):
                raise ThurnError(f"a move is given in notation, e.g. 'draw deck', not {short_repr(text)}")
            move = s.parse_move(text)
            if not s.is_legal(move):
                raise illegal_move_error(s, move)
            self._remember_for_undo(move)
            return {"moved": self._apply(move, HUMAN), "view": self.view()}

    def play_set(self, texts) -> dict:
        """A set of the person's houses or discards, picked in any order: played in the engine's order (board
        order, notation.py), the houses followed by 'done' when the close still asks for more. All or
        nothing: a move that is not legal leaves the game as it was. One Undo takes the set back (while
        the turn has not passed). {"moved": the last log entry, "view"} as play()."""
        with self.lock:
            p = self._persons_turn()
            s = self.state
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts) or len(texts) > 40:
                raise ThurnError(f"moves: a list of houses or discards in notation, e.g. ['house Ulm', "
                                 f"'house Passau'], not {short_repr(texts)}")
            moves = [s.parse_move(t) for t in texts]
            kinds = {move_kind(m) for m in moves}
            want = "house" if s.phase == "houses" else "discard" if s.phase == "discard" else None
            if want is None or kinds - {want}:
                raise SessionError(f"a set of moves is for the houses of a close or the discards after it; now "
                                   f"the phase is {s.phase} ({', '.join(sorted(kinds)) or 'no move'} given)")
            board = s.board
            moves.sort(key=lambda m: board.city_index(board.cities[move_city(m)]))
            snapshot, n_log = self.table.snapshot(), len(self.log)
            entry = None
            try:
                for m in moves:
                    if self.state.current_player != p or not self.state.is_legal(m):
                        raise illegal_move_error(self.state, m)
                    entry = self._apply(m, HUMAN)
                st = self.state
                if want == "house" and not st.is_terminal() and st.current_player == p and st.phase == "houses":
                    entry = self._apply(st.parse_move("done"), HUMAN)
            except ThurnError:
                self._restore(snapshot, n_log)
                raise
            st = self.state
            if st.is_terminal() or (st.current_player != p and st.current_player in self.humans):
                self._undo.clear()
            else:
                self._undo.append((snapshot, n_log))
            return {"moved": entry, "view": self.view()}

    def is_search(self) -> bool:
        """Whether the seat to move is a bot that searches (its step takes a core for a while)."""
        with self.lock:
            s = self.state
            return not s.is_terminal() and isinstance(self.bots[s.current_player], Searcher)

    def step(self) -> dict:
        """One move of the bot to move ({"moved", "view"} as play()); SessionError on a person's turn,
        after the end, or while this game's bot is already thinking. The bot thinks outside the lock, on
        its own observation, so the game can be viewed meanwhile; nothing else can move the game then
        (it is a bot's turn, and a second step is refused)."""
        with self.lock:
            s = self.state
            if s.is_terminal():
                raise SessionError("the game is over")
            p = s.current_player
            bot = self.bots[p]
            if bot is None:
                raise SessionError(f"seat {p} is played by a person: waiting for their move")
            if self.thinking:
                raise SessionError(f"seat {p} ({self.seats[p]}) is thinking already: wait for its move")
            self._undo.clear()
            self.thinking = True
            turn = len(self.table.moves)
            obs = self.table.observation()
            news, self._news = self._news, []
        try:
            for _, (told, seen, player, m) in news:
                told.inform(seen, player, m)
            move = bot.choose(obs)
        finally:
            with self.lock:
                self.thinking = False
        with self.lock:
            if len(self.table.moves) != turn:      # cannot happen (see above); never apply a stale move
                raise SessionError("the game moved on while the bot was thinking")
            self.table.check_bot_move(move)
            return {"moved": self._apply(move, self.seats[p]), "view": self.view()}

    # ---- taking back the person's own decisions

    def _remember_for_undo(self, move: int) -> None:
        """Keep the game as it is before the person's `move`, unless the move shows a card that was hidden
        (a draw refills the display from the deck; the deck and the Administrator deal new cards): taking
        that back would let the person look at the deck and choose again. After such a move, at the game's
        end, and once another person's turn begins, there is nothing to take back. A move that passes the turn
        to a bot stays undoable until that bot moves (step() forgets it): a mis-tapped last card is no loss."""
        s = self.state
        after = s.clone()
        after.apply(move)
        if after.export()["deck_n"] != s.export()["deck_n"] or after.is_terminal() \
                or (after.current_player != s.current_player and after.current_player in self.humans):
            self._undo.clear()
            return
        self._undo.append((self.table.snapshot(), len(self.log)))

    def undo(self) -> dict:
        """Take back the person's last decision of this turn: {"undone": its log entry, "view"};
        SessionError when there is none (nothing played yet, a card was shown, or the turn passed)."""
        with self.lock:
            if not self._undo:
                raise SessionError("there is no decision of this turn to take back (a draw shows cards "
                                   "and cannot be taken back, nor a turn that has passed)")
            snapshot, n_log = self._undo.pop()
            undone = self.log[n_log] if n_log < len(self.log) else None
            self._restore(snapshot, n_log)
            return {"undone": undone, "view": self.view()}

    # ---- the game as data

    def record(self) -> GameRecord:
        """The game record so far (JSON line form with to_json()); replayable with `thurn-ai replay`."""
        if self.from_position:
            raise SessionError("a game set up from a position has no game record (a record replays from "
                               "the first move of a new game); export the position instead")
        with self.lock:
            return self.table.record()


class ReplaySession:
    """A game record opened in the page, for stepping and scrubbing: the state after every CHECKPOINT-th
    move is kept, the others are recomputed from the one before (a state for every move cost 1.5 kB a
    move: 300 MB for one long record)."""

    kind = "replay"

    def __init__(self, text: object, game: int = 1, source: str = "record"):
        if not isinstance(text, str):
            raise PositionError("a game record is text: one JSON object a line")
        named = "the record" if source == "record" else source     # a file's name stands alone
        if len(text.encode("utf-8", "surrogatepass")) > MAX_RECORD_BYTES:
            raise PositionError(f"{named} is larger than {MAX_RECORD_BYTES // 2 ** 20} MB")
        lines = [(i + 1, ln) for i, ln in enumerate(text.lstrip("\ufeff").split("\n")) if ln.strip()]
        if not lines:
            raise PositionError(f"{named} holds no game record (one JSON object a line)")
        if isinstance(game, bool) or not isinstance(game, int) or not 1 <= game <= len(lines):
            n = len(lines)
            raise PositionError(f"{named} holds {n} game{'s' if n != 1 else ''}; game "
                                f"{short_repr(game)} is out of range (1-{n})")
        line_no, line = lines[game - 1]
        try:
            rec = GameRecord.from_json(line)
        except PositionError as e:
            raise PositionError(f"{named} line {line_no}: {e}") from None
        if len(rec.moves) > MAX_REPLAY_MOVES:
            raise PositionError(f"{named} line {line_no}: the game has {len(rec.moves):,} moves; the server "
                                f"replays games of at most {MAX_REPLAY_MOVES:,} moves (use `thurn-ai replay`)")
        self.id = secrets.token_hex(8)
        self.record = rec
        self.record_line = line         # what a review reads (web/reviews.py); it pickles, unlike the rules
        self.bots, self.seed = rec.bots, rec.seed
        self.games = len(lines)
        self.game = game
        self.source = source
        table = Table.new(rec.rules, rec.seed, rec.bots)
        self.checkpoints = [table.state.clone()]     # the state after move k * CHECKPOINT
        self.codes: list[int] = []             # the moves as the engine's codes
        # each move's log entry as JSON text: a long replay comes back from the worker process as a few
        # large objects, whose unpickling holds Python's lock a short time (a dict per move: ~35 ms)
        self.log: list[str] = []
        board = table.state.board
        try:
            for moved in table.replay(rec.moves):
                self.log.append(json.dumps(log_entry(board, moved, rec.bots[moved.player]), separators=(",", ":")))
                self.codes.append(moved.move)
                if (moved.index + 1) % CHECKPOINT == 0:
                    self.checkpoints.append(table.state.clone())
        except ReplayError as e:
            raise PositionError(f"{source} line {line_no}: move {e.index + 1} ({short_repr(e.text)}) does "
                                f"not replay: {e.reason}") from None
        self.lock = threading.Lock()
        self._summary_json: bytes | None = None

    def __getstate__(self) -> dict:
        """What a worker process sends back (app.replay_upload): the checkpoints, moves, log and summary;
        not the record (its rules hold the board, which does not pickle) nor the lock."""
        self.summary_json()
        return {k: v for k, v in self.__dict__.items() if k not in ("record", "lock")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, record=None, lock=threading.Lock())

    @property
    def n_moves(self) -> int:
        return len(self.codes)

    def state_at(self, at) -> GameState:
        """The state after `at` moves (a new object the caller may keep)."""
        if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= self.n_moves:
            raise ThurnError(f"a replay position is a move number from 0 to {self.n_moves}, not {short_repr(at)}")
        k = at // CHECKPOINT
        state = self.checkpoints[k].clone()
        for move in self.codes[k * CHECKPOINT:at]:
            state.apply(move)
        return state

    def view(self, at: int, viewer: int | None = None) -> dict:
        state = self.state_at(at)
        if viewer is not None and (isinstance(viewer, bool) or not isinstance(viewer, int)
                                   or not 0 <= viewer < state.n_players):
            raise ThurnError(f"viewer must be a seat from 0 to {state.n_players - 1} (or none), not "
                             f"{short_repr(viewer)}")
        v = state_view(state, viewer)
        v.update(kind=self.kind, id=self.id, at=at, n_moves=self.n_moves, seats=self.bots,
                 seed=self.seed, game=self.game, games=self.games,
                 next_move=json.loads(self.log[at]) if at < self.n_moves else None)
        return v

    def summary(self) -> dict:
        rec = self.record
        return {"id": self.id, "kind": self.kind, "bots": rec.bots, "seed": rec.seed, "n_moves": self.n_moves,
                "game": self.game, "games": self.games, "rules": rec.rules.to_dict(),
                "log": [json.loads(e) for e in self.log],
                "scores": rec.scores, "winner": rec.winner, "source": self.source}

    def summary_json(self) -> bytes:
        """summary() as JSON, made once: requests for a long replay share one copy."""
        with self.lock:
            if self._summary_json is None:
                self._summary_json = json.dumps(self.summary(), separators=(",", ":")).encode()
            return self._summary_json


class Sessions:
    """Games and replays by id, at most `limit` (the oldest dropped first), the replays holding at most
    `replay_moves` moves together (the oldest replays dropped first)."""

    def __init__(self, limit: int = MAX_SESSIONS, replay_moves: int = MAX_KEPT_REPLAY_MOVES):
        self.limit = limit
        self.replay_moves = replay_moves
        self._items: OrderedDict[str, GameSession | ReplaySession] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session):
        with self._lock:
            self._items[session.id] = session
            while len(self._items) > self.limit:
                self._items.popitem(last=False)
            replays = [s for s in self._items.values() if isinstance(s, ReplaySession)]
            held = sum(r.n_moves for r in replays)
            for old in replays[:-1]:
                if held <= self.replay_moves:
                    break
                del self._items[old.id]
                held -= old.n_moves
        return session

    def get(self, session_id: str, kind: str):
        s = self._items.get(session_id)
        if s is None or s.kind != kind:
            raise NotFound(f"no {kind} {short_repr(session_id)} on this server (it may have been "
                           "dropped after many newer ones, or the server was restarted)")
        return s


class NotFound(ThurnError):
    """An id the server does not know (HTTP 404)."""


def seats_from(value) -> list[str]:
    """Seats as a list of specs, from a list or a comma-separated text ('human,mcts(iterations=500)')."""
    if isinstance(value, str):
        return split_specs(value)
    return value


__all__ = ["GameSession", "ReplaySession", "Sessions", "SessionError", "NotFound", "HUMAN", "seats_from"]
