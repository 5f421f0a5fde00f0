"""thurn-ai hint: search a position and print the ranked options for the player to move."""
from __future__ import annotations

import json

import click

from ..bots import make_bot
from ..bots.base import Observation
from ..bots.mcts import strongest_options
from ..bots.officials import official_of
from ..bots.spec import parse_spec
from ..errors import BotSpecError, PositionError
from ..match import derive_seed
from ..notation import move_kind
from ..position import describe, load_position
from .options import ITERATIONS, SECONDS, SEED, TOP, data_board_file_option

DEFAULT_BOT = "mcts"
DEFAULT_ITERATIONS = 2000
OFFICIAL_LABEL = {"postmaster": "Postmaster", "administrator": "Administrator",
                  "postal_carrier": "Postal Carrier", "cartwright": "Cartwright"}


def _spec_text(name: str, kwargs: dict) -> str:
    def text(v):
        if isinstance(v, frozenset):
            return "+".join(sorted(v)) or "none"
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)
    return name + ("(" + ",".join(f"{k}={text(v)}" for k, v in kwargs.items()) + ")" if kwargs else "")


def search_spec(bot_spec: str, iterations: int | None, seconds: float | None, players: int = 2) -> str:
    """The bot spec with --iterations / --time applied (they override the spec's own budget); `mcts`
    gets the strongest measured configuration for the player count, every option it does not set
    itself written out, so the output says exactly what searched."""
    name, kwargs = parse_spec(bot_spec)
    if name == DEFAULT_BOT:
        kwargs = {**strongest_options(players), **kwargs}
    if iterations is not None:
        kwargs["iterations"] = iterations
        kwargs.pop("time", None)
    if seconds is not None:
        kwargs["time"] = seconds
    if iterations is None and seconds is None and "iterations" not in kwargs and "time" not in kwargs \
            and name == DEFAULT_BOT:
        kwargs["iterations"] = DEFAULT_ITERATIONS
    return _spec_text(name, kwargs)


def analyse_position(state, player: int, spec: str, seed: int, viewer: int | None = None) -> dict:
    """Ranked options, the recommended turn and the budget actually used, as JSON-ready data."""
    bot = make_bot(spec, derive_seed("hint-bot", seed))
    if not callable(getattr(bot, "analyse", None)):
        raise BotSpecError(f"bot {spec!r} cannot analyse a position (it has no analyse()); "
                           "use a search bot such as mcts or pimc")
    obs = Observation(state, player, derive_seed("hint-observation", seed))
    rows = bot.analyse(obs)
    if not rows:
        raise PositionError("the search found no move to rank")
    options = []
    for r in rows:
        m = r["move"]
        off = official_of(state, m)
        options.append({"move": state.move_str(m), "official": off, "visits": int(r.get("visits", 0)),
                        "share": float(r.get("share", 0.0)), "win_prob": float(r.get("win_prob", 0.0)),
                        "mean_score": float(r.get("mean_score", 0.0))})
    line = [rows[0]["move"]]
    pv = getattr(bot, "principal_variation", None)
    if callable(pv):
        got = list(pv(obs))
        if got and got[0] == rows[0]["move"]:
            line = got
    turn = _describe_line(state, line)
    return {"position": describe(state, viewer), "player": player, "bot": spec,
            "iterations": sum(o["visits"] for o in options), "options": options, "recommended_turn": turn,
            "best": options[0]}


def _describe_line(state, line: list[int]) -> dict:
    """The recommended turn in notation, and what it is still waiting for (a card from the deck, the
    rest of the turn), by replaying the line on a copy of the position."""
    s = state.clone()
    p = s.current_player
    moves, officials = [], []
    for m in line:
        if s.is_terminal() or s.current_player != p or not s.is_legal(m):
            break
        off = official_of(s, m)
        moves.append(s.move_str(m))
        officials.append(off)
        s.apply(m)
    if s.is_terminal():
        then = "the game ends"
    elif s.current_player != p:
        then = "the turn ends"
    elif moves and move_kind(line[len(moves) - 1]) == "deck":
        then = "the rest depends on the card drawn from the deck"
    else:
        then = f"then decide again ({s.phase})"
    return {"moves": moves, "officials": officials, "then": then}


@click.command("hint")
@click.argument("position_file", type=click.Path(dir_okay=False))
@click.option("--iterations", type=ITERATIONS, default=None,
              help=f"Search iterations (default {DEFAULT_ITERATIONS} for {DEFAULT_BOT}).")
@click.option("--time", "seconds", type=SECONDS, default=None,
              help="Search time in seconds instead of an iteration budget.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the search (and of dealing cards a player's view leaves unknown).")
@data_board_file_option("position")
@click.option("--bot", "bot_spec", default=DEFAULT_BOT, show_default=True,
              help="The searching bot: any spec whose bot can analyse, e.g. mcts(c=0.5) or pimc.")
@click.option("--top", type=TOP, default=10, show_default=True,
              help="How many options to print.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def command(position_file, iterations, seconds, seed, board_file, bot_spec, top, as_json):
    """Search POSITION_FILE from the view of the player to move and print the ranked options for the
    next decision, the recommended turn and the expected outcome.

    Example: thurn-ai hint position.json --iterations 5000"""
    state, viewer = load_position(position_file, seed=seed, board_file=board_file)
    if state.is_terminal():
        raise PositionError(f"{position_file}: the game is over, there is no move to hint")
    player = state.current_player
    if viewer is not None and viewer != player:
        raise PositionError(f"{position_file} is seat {viewer}'s view, but seat {player} is to move: a hint "
                            "needs the view of the player to move (or a complete position)")
    spec = search_spec(bot_spec, iterations, seconds, state.n_players)
    result = analyse_position(state, player, spec, seed, viewer)
    result["file"] = position_file
    if as_json:
        result["options"] = result["options"][:top]
        click.echo(json.dumps(result, ensure_ascii=False))
        return
    click.echo(result["position"])
    click.echo(f"search: {spec}, {result['iterations']} visits at the root, from seat {player}'s view"
               + (f" (the strongest configuration measured for {state.n_players} players)"
                  if parse_spec(bot_spec)[0] == DEFAULT_BOT else ""))
    click.echo("")
    click.echo(f"  {'#':>2}  {'move':<32} {'share':>6} {'win':>6} {'score':>6}")
    for i, o in enumerate(result["options"][:top], 1):
        name = o["move"] + (f" [{OFFICIAL_LABEL[o['official']]}]" if o["official"] else "")
        click.echo(f"  {i:>2}  {name:<32} {o['share']:>6.1%} {o['win_prob']:>6.1%} {o['mean_score']:>6.1f}")
    if len(result["options"]) > top:
        click.echo(f"  ... {len(result['options']) - top} more (--top)")
    turn = result["recommended_turn"]
    steps = [m + (f" [{OFFICIAL_LABEL[o]}]" if o else "") for m, o in zip(turn["moves"], turn["officials"])]
    click.echo("")
    click.echo("recommended: " + ", ".join(steps) + f"; {turn['then']}")
    best = result["best"]
    click.echo(f"expected: win probability {best['win_prob']:.0%}, score {best['mean_score']:.1f} "
               "(search estimate: playouts cut short are scored by the evaluation, see docs/bots.md)")
