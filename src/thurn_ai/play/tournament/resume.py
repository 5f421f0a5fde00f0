"""Resuming a tournament from its folder alone: the settings saved in tournament.json fill in every setting
the caller leaves out, and a setting the caller gives must agree with the saved one.

    >>> s = resume_settings("t1")                       # what `thurn-ai tournament --out t1 --resume` plays
    >>> s.specs, s.players, s.seed, s.rules.board
    (['heuristic', 'greedy'], 2, 1, 'south')
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ThurnError, TournamentError
from ...fileio import path_text
from ...game.rules import Rules
from .store import META_FILE, read_meta


@dataclass
class ResumeSettings:
    """The settings to resume with. conflicts: (setting, given, saved) for each given setting that
    contradicts the saved one (the caller refuses them; a resume never plays other settings)."""
    specs: list[str]
    players: int
    seed: int
    rules: Rules
    conflicts: list[tuple[str, object, object]] = field(default_factory=list)


def has_saved_tournament(out_dir) -> bool:
    """Whether out_dir holds a tournament.json (of any kind: one that is not a regular file is refused by
    resume_settings, not taken for a missing one)."""
    return os.path.lexists(Path(out_dir) / META_FILE)


def resume_settings(out_dir, specs: list[str] | None = None, players: int | None = None,
                    seed: int | None = None, board: str | None = None, variant: str | None = None,
                    all_provinces_tile: str | None = None, board_file=None) -> ResumeSettings:
    """The settings of the tournament saved in out_dir, with those given (not None) checked against them.

    A TournamentError if out_dir holds no tournament.json or a damaged one. The saved rules name a
    packaged board, or the board file the tournament was started with: that file is read only when given
    again as board_file (a saved file never makes the program open another file)."""
    path = Path(out_dir) / META_FILE
    if os.path.lexists(path) and not path.is_file():
        raise TournamentError(f"tournament file {path_text(path)} is not a regular file (a folder, device, FIFO, "
                              "socket or a dangling link)")
    if not path.is_file():
        raise TournamentError(f"{path_text(out_dir)} holds no saved tournament ({META_FILE} is missing): "
                              "give every setting to start it")
    meta = read_meta(path)
    saved_specs, saved_players, saved_seed, saved_rules = (meta.get(k) for k in ("specs", "players", "seed", "rules"))
    if not (isinstance(saved_specs, list) and saved_specs and all(isinstance(s, str) for s in saved_specs)):
        raise TournamentError(f"tournament file {path_text(path)} is damaged: specs is not a list of bot specs")
    if not isinstance(saved_seed, int) or isinstance(saved_seed, bool):
        raise TournamentError(f"tournament file {path_text(path)} is damaged: seed is not a whole number")
    if not isinstance(saved_rules, dict):
        raise TournamentError(f"tournament file {path_text(path)} is damaged: rules is not an object")
    try:
        rules = Rules.from_dict(saved_rules, board_file=board_file, packaged_only=True)
    except ThurnError as e:
        b = saved_rules.get("board")
        if board_file is None and isinstance(b, str) and (b.endswith(".json") or "/" in b):
            raise TournamentError(f"the tournament in {path_text(out_dir)} was played on the board file "
                                  f"{b!r}: give it again with --board-file") from None
        raise TournamentError(f"tournament file {path_text(path)} is damaged: {e}") from None
    if saved_players != rules.players:
        raise TournamentError(f"tournament file {path_text(path)} is damaged: players {saved_players!r} but the "
                              f"rules are for {rules.players}")
    conflicts = []

    def check(name, given, saved):
        if given is not None and given != saved:
            conflicts.append((name, given, saved))

    check("bots", None if specs is None else [s.strip() for s in specs], saved_specs)
    check("players", players, saved_players)
    check("seed", seed, saved_seed)
    saved_board = saved_rules.get("board")
    if board_file is None:
        check("board", board, saved_board)
    check("variant", variant, rules.resolved_variant)
    check("tile", all_provinces_tile, rules.all_provinces_tile)
    return ResumeSettings(specs=list(saved_specs), players=saved_players, seed=saved_seed, rules=rules,
                          conflicts=conflicts)
