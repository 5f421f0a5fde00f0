"""A game review as text a person reads in a terminal (what `thurn-ai review` prints): the settings, each
seat's summary (accuracy, points lost, labels, worst turns) and its labelled decisions with the better line."""
from __future__ import annotations

from .review import DecisionReview, PlayerSummary, Review
from .review_table import TABLE_MOVER
from .win_chance import chance_details, chance_line, win_chance_for

_PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
_OFFICIAL = {"postmaster": "Postmaster", "administrator": "Administrator", "postal_carrier": "Postal Carrier",
             "cartwright": "Cartwright"}


def count_text(n: int, label: str) -> str:
    """'1 inaccuracy', '2 inaccuracies', '0 blunders'."""
    return f"{n} {label if n == 1 else _PLURAL.get(label, label + 's')}"


def points_text(x: float) -> str:
    """'1 point', '2.5 points'."""
    return f"{x:.1f} point{'' if f'{x:.1f}' == '1.0' else 's'}"


def move_text(move: str, official: str | None) -> str:
    """A move with the official it uses: 'draw Ulm [Postmaster]'."""
    return f"'{move}'" + (f" [{_OFFICIAL.get(official, official)}]" if official else "")


def _pct(x: float) -> str:
    return f"{100 * x:3.0f}%"


def decision_line(d: DecisionReview) -> str:
    """One decision: its move number (from 1, as `thurn-ai replay` numbers moves), turn, phase, the move played
    and the better one with the seat's expected final points and win chance after each, the better line (the
    rest of the turn it starts), the loss in points and its label."""
    where = f"move {d.index + 1:>3} (turn {d.turn + 1}, {d.phase})"
    played = f"played {move_text(d.played, d.played_official)} ({d.played_points:.1f} pts, {_pct(d.played_win)})"
    better = f"better {move_text(d.best, d.best_official)} ({d.best_points:.1f} pts, {_pct(d.best_win)})"
    loss = f"-{d.loss_points:.1f} points" + (f" (±{d.uncertainty:.1f})" if d.uncertainty is not None else "")
    if d.loss_search is not None:
        loss += f" at the table (the search: -{d.loss_search:.1f})"
    out = f"  {where}: {played}; {better}: {loss}  {(d.label or '').upper()}"
    if len(d.best_line) > 1:
        out += f"\n      best line: {' → '.join(d.best_line)} ({d.best_line_then})"
    return out


def summary_line(s: PlayerSummary) -> str:
    """A seat in one line: accuracy, the points its decisions lost, the labels."""
    counts = ", ".join(count_text(s.counts.get(k, 0), k) for k in _PLURAL)
    return (f"seat {s.seat} ({s.bot}): accuracy {s.accuracy:.0f}%, lost {points_text(s.total_loss_points)} in "
            f"{s.decisions} decision{'' if s.decisions == 1 else 's'}; {counts}")


def worst_turns_line(s: PlayerSummary) -> str | None:
    if not s.worst_turns:
        return None
    return "  worst turns: " + ", ".join(f"turn {w.turn + 1} (-{w.loss_points:.1f}, move {w.move + 1})"
                                         for w in s.worst_turns)


def review_lines(r: Review, name: str = "the game", replay: str | None = None, explain: bool = False) -> list[str]:
    """The review of `name` as lines of text; `replay`: the command that replays the record (e.g.
    'thurn-ai replay game.jsonl --game 1'), for the last line's "go to the position" hint; explain: what lies
    behind the win chances (chance_details) under their line."""
    scores = f", final scores {' '.join(map(str, r.scores))}" if r.scores else ""
    thresholds = ", ".join(f"{k} from {v:g}" for k, v in r.thresholds.items())
    out = [f"review of {name}: {r.players} players ({', '.join(r.bots)}){scores}",
           f"search: {r.spec}",
           chance_line(chance := win_chance_for(r.spec, r.players))
           + ("" if explain else " (--explain: how sure is this?)"),
           *([f"  {d}" for d in chance_details(chance)] if explain else []),
           "unit: expected final points (what the best continuation after a move can still reach, as the search "
           "rates it), with the win chance beside it" + ("" if r.calibrated else " (evaluation units: not calibrated)"),
           f"labels: {thresholds} points lost; accuracy: the mean over a seat's decisions of "
           f"100·exp(-points lost / {r.accuracy_points:g})",
           f"uncertainty: {r.uncertainty}",
           *(["at the table: every move the search labels a mistake or a blunder played on "
              "after the move played and after the best, the other players by the bots that sat at the table and "
              f"the player by {TABLE_MOVER}, from {r.table_deals} deals of what the player could not see; that loss "
              "replaces the search's (± its standard error)"]
             if r.table_deals else []), ""]
    for s in r.summaries:
        out.append(summary_line(s))
        if (worst := worst_turns_line(s)) is not None:
            out.append(worst)
        out.extend(decision_line(d) for d in r.decisions if d.seat == s.seat and d.label)
        out.append("")
    first = next(iter(sorted(r.labelled, key=lambda d: -d.loss_points)), None)
    if replay and first is not None:
        out.append(f"to see a move's position and a hint there: {replay} --move {first.index + 1} "
                   f"--position-out move{first.index + 1}.json && thurn-ai hint move{first.index + 1}.json")
    return out
