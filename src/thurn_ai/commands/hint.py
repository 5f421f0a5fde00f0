"""thurn-ai hint: search a position and print the ranked options for the player to move (a thin layer
over thurn_ai.play.analysis, which a program or notebook can use directly)."""
from __future__ import annotations

import json

import click

from ..bots.spec import BotSpec
from ..bots.default_search import DEFAULT_SEARCH
from ..play.analysis import DEFAULT_BOT, DEFAULT_ITERATIONS, analyse
from ..play.turn_options import CAVEAT, which_official
from ..play.win_chance import chance_details, chance_line, win_chance_for
from ..errors import PositionError
from ..fileio import finite_json, path_text
from ..game.officials import OFFICIAL_LABEL
from ..position import describe, load_position
from .options import ITERATIONS, SECONDS, SEED, TOP, data_board_file_option


def turn_steps(turn) -> str:
    """A recommended turn's moves, each with the official it uses: 'draw Passau, draw deck [Postmaster]'."""
    return ", ".join(m + (f" [{OFFICIAL_LABEL[o]}]" if o else "") for m, o in zip(turn.moves, turn.officials))


def hint_json(state, analysis, viewer, position_file) -> dict:
    """What `hint --json` prints: the position's one-line description, the analysis, the file."""
    a = analysis.to_dict()
    return {"position": describe(state, viewer), "player": a["player"], "bot": a["bot"],
            "iterations": a["iterations"], "options": a["options"], "recommended_turn": a["recommended_turn"],
            "best": a["best"], "win_prob_calibrated": a["win_prob_calibrated"],
            "win_prob_opponents": a["win_prob_opponents"], "win_prob_assumes": a["win_prob_assumes"],
            "win_chance": a["win_chance"], "win_chance_line": a["win_chance_line"], "file": position_file}


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
@click.option("--opponents", type=click.Choice(["equal", "heuristic"]), default="equal", show_default=True,
              help="Whom the win chance assumes: equal (every seat plays like the search the map was fitted "
                   "for; against weaker players it is too close to 1/n) or heuristic (you play like that search, "
                   "every other seat is the rule-based heuristic bot: a second map). A search the map was not "
                   "fitted for shows its own share, marked uncalibrated (heuristic: an error). Changes only the "
                   "win chance, not the search; docs/learned.md.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option("--explain", is_flag=True,
              help="Also say how sure the win chance is: whom it assumes, how well it held, what ± means.")
@click.option("--which-official", is_flag=True,
              help="Instead: rate each choice of official for this turn (none, or one of those still "
                   "possible), each searched for the whole turn and re-rated by an independent search.")
def command(position_file, iterations, seconds, seed, board_file, bot_spec, top, opponents, as_json, explain,
            which_official):
    """Search POSITION_FILE from the view of the player to move and print the ranked options for the
    next decision, the recommended turn and the expected outcome.

    Example: thurn-ai hint position.json --iterations 5000"""
    state, viewer = load_position(position_file, seed=seed, board_file=board_file)
    if state.is_terminal():
        raise PositionError(f"{path_text(position_file)}: the game is over, there is no move to hint")
    player = state.current_player
    if viewer is not None and viewer != player:
        raise PositionError(f"{path_text(position_file)} is seat {viewer}'s view, but seat {player} is to move: a hint "
                            "needs the view of the player to move (or a complete position)")
    if which_official and opponents != "equal":
        raise click.UsageError("--opponents applies to the hint's win chance, not to --which-official")
    bot = BotSpec.parse(bot_spec)        # the spec's text read here, at the edge; the library takes the value
    if which_official:
        print_official_choices(state, viewer, position_file, bot, iterations, seconds, seed, as_json, explain)
        return
    analysis = analyse(state, player, bot=bot, iterations=iterations, seconds=seconds, seed=seed,
                       opponents=opponents)
    result = hint_json(state, analysis, viewer, position_file)
    if as_json:
        result["options"] = result["options"][:top]
        click.echo(json.dumps(finite_json(result), ensure_ascii=False, allow_nan=False))   # JSON has no NaN
        return
    click.echo(result["position"])
    for line in analysis_lines(analysis, state.n_players, top, explain=explain):
        click.echo(line)


def analysis_lines(analysis, players: int, top: int = 10, in_game: bool = False, explain: bool = False) -> list[str]:
    """The analysis as `thurn-ai hint` prints it below the position: the search, the ranked options, the
    recommended turn and the expected outcome (the win chance in one line; explain: with its details).
    in_game: the hint typed in `thurn-ai play`, whose lines name no option of `thurn-ai hint`."""
    default = analysis.bot.without("iterations", "time") == DEFAULT_SEARCH.without("iterations")
    out = [f"search: {analysis.bot}, {analysis.iterations} visits at the root, from seat {analysis.player}'s view"
           + (" (the default search)" if default else ""), ""]
    win_label = "win chance" if analysis.chance is not None and analysis.chance.win_map else "win (eval)"
    out.append(f"  {'#':>2}  {'move':<32} {'share of search':>15} {win_label:>10} {'final score':>11}")
    for i, o in enumerate(analysis.options[:top], 1):
        name = o.notation + (f" [{OFFICIAL_LABEL[o.official]}]" if o.official else "")
        out.append(f"  {i:>2}  {name:<32} {o.share:>15.1%} {o.win_prob:>10.1%} {o.mean_score:>11.1f}")
    if len(analysis.options) > top:
        out.append(f"  ... {len(analysis.options) - top} more" + ("" if in_game else " (--top)"))
    out.append(f"  share of search: the root visits the move got; {win_label}: of the player to move after it; "
               "final score: expected")
    out += ["", f"recommended: {turn_steps(analysis.recommended_turn)}; {analysis.recommended_turn.then}",
            f"{analysis.chance_line()}; expected final score {analysis.best.mean_score:.1f}"
            + ("" if explain or in_game else " (--explain: how sure is this?)")]
    if explain:
        out += explain_lines(analysis.chance or win_chance_for(analysis.bot, players), str(analysis.bot))
    return out


def explain_lines(chance, search: str) -> list[str]:
    """--explain: what lies behind the one-line win chance (chance_details), the search named, the docs."""
    return ["", "how sure is this?", *(f"  {d}" for d in chance_details(chance)),
            f"  The search: {search}.", "  More: docs/learned.md."]


def print_official_choices(state, viewer, position_file, bot: BotSpec, iterations, seconds, seed, as_json,
                           explain: bool = False) -> None:
    """hint --which-official: thurn_ai.play.turn_options.which_official, as a table or JSON."""
    choices = which_official(state, bot=bot, iterations=iterations, seconds=seconds, seed=seed)
    calibrated = all(c.calibrated for c in choices)
    chance = win_chance_for(choices[0].bot, state.n_players)
    if as_json:
        click.echo(json.dumps(finite_json({"position": describe(state, viewer), "player": state.current_player,
                                           "bot": choices[0].bot, "choices": [c.to_dict() for c in choices],
                                           "win_prob_calibrated": calibrated,
                                           "win_chance": chance.to_dict(), "caveat": CAVEAT,
                                           "file": position_file}),
                              ensure_ascii=False, allow_nan=False))     # a value never reached: null, not NaN
        return
    click.echo(describe(state, viewer))
    click.echo(f"which official this turn, for seat {state.current_player}: each choice searched for the whole "
               f"turn ({choices[0].bot}), its first move re-rated by an independent search")
    click.echo("")
    win_label = "win chance" if chance.win_map else "win (eval)"
    click.echo(f"  {'choice':<15} {win_label:>10} {'final score':>11}  the turn")
    for c in choices:
        name = OFFICIAL_LABEL.get(c.option, "no official")
        if not c.uses_it:
            click.echo(f"  {name:<15} {'':>10} {'':>11}  (no line of this turn found uses it)")
            continue
        turn = c.recommended_turn
        click.echo(f"  {name:<15} {c.win_prob:>10.1%} {c.mean_score:>11.1f}  {turn_steps(turn)}; {turn.then}")
    click.echo("")
    click.echo(chance_line(chance) + "; each official is compared with no official this turn, both played as well "
               "as the search can" + ("" if explain else " (--explain: how sure is this?)"))
    click.echo("")
    click.echo("caution: " + CAVEAT)
    if explain:
        for line in explain_lines(chance, choices[0].bot):
            click.echo(line)
