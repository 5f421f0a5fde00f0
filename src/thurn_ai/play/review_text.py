"""A game review as text a person reads in a terminal (what `thurn-ai review` prints): the settings, each
seat's summary and its labelled decisions, the turning points."""
from __future__ import annotations

from .review import THRESHOLDS, DecisionReview, Review
from .win_chance import chance_line, win_chance_for

_PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def _pct(x: float | None) -> str:
    return "  ?" if x is None else f"{100 * x:3.0f}%"


def decision_line(d: DecisionReview) -> str:
    """One decision: its move number (from 1, as a replay counts them), turn, phase, the move played and the
    better one with the seat's win chance and expected points after each, the loss and its label."""
    where = f"move {d.index + 1:>3} (turn {d.turn + 1}, {d.phase})"
    if d.loss_win is None or d.loss_points is None or d.played_points is None:
        return f"  {where}: played {d.played!r}: not rated (the search does not consider it)"
    played = f"played {d.played!r} ({_pct(d.played_win)}, {d.played_points:.1f} pts)"
    better = f"better {d.best!r} ({_pct(d.best_win)}, {d.best_points:.1f} pts)"
    loss = f"{-100 * d.loss_win:+.0f} points of win chance (±{100 * (d.uncertainty or 0):.0f}), " \
           f"{-d.loss_points:+.1f} game points"
    return f"  {where}: {played}; {better}: {loss}  {(d.label or '').upper()}"


def review_lines(r: Review, name: str = "the game") -> list[str]:
    """The review of `name` as lines of text."""
    scores = f", final scores {' '.join(map(str, r.scores))}" if r.scores else ""
    out = [f"review of {name}: {r.players} players ({', '.join(r.bots)}){scores}",
           f"search: {r.spec}", chance_line(win_chance_for(r.spec, r.players)) + " (how sure: hint --explain)",
           "labels: " + ", ".join(f"{k} from {100 * v:.0f}" for k, v in THRESHOLDS.items())
           + " points of lost win chance" + ("" if r.calibrated else " (evaluation units: not calibrated)"),
           f"uncertainty: {r.uncertainty}", ""]
    for s in r.summaries:
        counts = ", ".join(f"{s.counts.get(k, 0)} {_PLURAL[k] if s.counts.get(k, 0) != 1 else k}"
                           for k in THRESHOLDS)
        out.append(f"seat {s.seat} ({s.bot}): {s.decisions} decisions ({s.rated} rated), mean loss "
                   f"{100 * s.mean_loss_win:.1f} points of win chance and {s.mean_loss_points:.2f} game points; "
                   f"{counts}")
        out.extend(decision_line(d) for d in r.decisions if d.seat == s.seat and d.label)
        if s.turning_points:
            out.append(f"  turning points: move {', '.join(str(i + 1) for i in s.turning_points)}")
        out.append("")
    return out
