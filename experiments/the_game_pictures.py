"""The pictures of docs/the-game.md, drawn by thurn-ai's own renderer (thurn_ai.render.board.save_png, what
`thurn-ai show --png` draws): one game of the rule-based bot against itself, the same game as

    thurn-ai play --bots heuristic,heuristic --seed 1 --log

seen at three moments: seat 0's first route just before it closes, the same turn after the close (its
houses on the board, its tiles and carriage in the panel), and the end of the game with the final scores.

    python experiments/the_game_pictures.py [--out-dir docs/img] [--seed 1]

It prints what the close gave (the page's text describes it) and writes, atomically, the-game-route.png,
the-game-closed.png and the-game-end.png. Seconds on one core; the same pictures each run.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from thurn_ai import Rules
from thurn_ai.bots import make_bot
from thurn_ai.game.state import CloseLog
from thurn_ai.play.match import derive_seed, play_game, replay
from thurn_ai.render.board import save_png

ROOT = Path(__file__).resolve().parent.parent
BOT = "heuristic"


def moments(seed: int):
    """(the state before seat 0's first close, the state when that turn has ended, the final state, the
    close's CloseAward), replaying the game `thurn-ai play --bots heuristic,heuristic --seed SEED` plays."""
    record = play_game(Rules(players=2), [make_bot(BOT, derive_seed("bot", seed, i)) for i in range(2)], seed)
    log, seen = CloseLog(), {}

    def before(state, player, move):
        log.before(state, move)
        if player == 0 and state.move_str(move) == "close" and "route" not in seen:
            seen["route"] = state.clone()

    def after(state):
        award = log.after(state)
        if award is not None and award.player == 0 and "award" not in seen:
            seen["award"] = award
        if "award" in seen and "closed" not in seen and (state.current_player != 0 or state.is_terminal()):
            seen["closed"] = state.clone()

    final = replay(record, on_move=before, after_move=after)
    return seen["route"], seen["closed"], final, seen["award"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "img")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    route, closed, final, award = moments(args.seed)
    names = route.board.cities
    cities = [names[c] for c in route.export()["route"][0]]
    print(f"turn {route.turn + 1}: seat 0 closes {', '.join(cities)} ({len(cities)} cities)")
    print(f"  houses: {', '.join(award.houses)}; tiles: {', '.join(f'{t.stack} {t.value}' for t in award.tiles)}; "
          f"carriage: {award.carriage}; points: {award.points:+d}")
    print(f"end after {final.turn} turns: scores {final.scores()}, winner seat {final.winner()}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    save_png(route, args.out_dir / "the-game-route.png", viewer=0,
             title=f"Turn {route.turn + 1}: seat 0 (red) has a route of {len(cities)} cities and closes it")
    save_png(closed, args.out_dir / "the-game-closed.png", viewer=0,
             title=f"The same turn, closed: red's houses in {', '.join(award.houses)}")
    save_png(final, args.out_dir / "the-game-end.png", viewer=None,
             title=f"The end after {final.turn} turns: scores {final.scores()[0]} to {final.scores()[1]}")
    print(f"wrote the-game-route.png, the-game-closed.png, the-game-end.png in {args.out_dir}")


if __name__ == "__main__":
    main()
