"""What a script needs to drive the board page in a browser (the browser tests, experiments/serve_screenshot.py):
Chromium's launch flags and a simple scripted player that chooses the next move to click."""
from __future__ import annotations

# The closed network here refuses most connections: Chromium must not try its background services.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def choose_like_a_beginner(view, board) -> str:
    """A move of a simple player who builds one route and closes it: the move to click next."""
    moves = [m["move"] for m in view["legal"]]
    me = view["position"]["players"][view["to_move"]]
    route = me["route"]
    ends = {board.city_index(route[0]), board.city_index(route[-1])} if route else set()
    fits = [m for m in moves if m.split()[0] in ("draw",) and m != "draw deck"
            and any(board.adjacent(board.city_index(m.split(" ", 1)[1]), e) for e in ends)]
    for wanted in (["close"], [m for m in moves if m.startswith("house ")], ["done"], ["cartwright"],
                   [m for m in moves if m.split()[0] in ("left", "right")]):
        hit = [m for m in wanted if m in moves]
        if hit:
            return hit[0]
    if view["phase"] == "after_play":
        return "stop"
    if not route and any(m.startswith("new ") for m in moves):
        return next(m for m in moves if m.startswith("new "))
    if fits:                          # a card that fits the route (in the play phase: the Postmaster)
        return fits[0]
    if "draw deck" in moves:
        return "draw deck"
    return moves[-1]
