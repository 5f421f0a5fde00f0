"""The officials study: what each official is worth, to whom and when, and whether the first seat wins more.

Design (docs/officials.md explains the choices):

* For each player count n there is a **control** tournament (n copies of the full bot) and, for each
  official, an **ablation** tournament: one seat plays the bot with that official forbidden, the other
  n - 1 seats play the full bot. Seats rotate, so the restricted bot sits in every seat equally often.
* **Δ win rate** = the restricted bot's win rate - 1/n. In a field of identical full bots each player wins
  exactly 1/n of the games (one winner per game), so the baseline has no sampling error; the 95% CI is the
  Wilson interval of the restricted bot's win rate shifted by 1/n.
* **Δ mean score** = the restricted bot's mean score - the full bot's mean score per seat in the control
  games (Welch t interval). The control's unit is one game (the mean over its seats), because the seats of
  one game are not independent of each other.
* **Usage** is counted in the control games (the full bot as it plays): uses per player per game in each
  stage of the game (early / middle / late by houses placed, thurn_ai.game.officials.game_stage).
* **Seat advantage**: win rate per seat, over all games of a study (seats rotate, so every seat sees the
  same mix of bots), with Wilson CIs and a chi-square test of equal seats, next to the WBC record.

Everything below the runner works on a plain DataFrame with one row per player per game (the *canonical*
columns in plan.CANONICAL_COLUMNS plus `uses_<official>_<stage>`), so reports can be rebuilt from saved data.

This face holds the calls a user makes (`__all__`); the study is split by job into these modules:
    run                the runner behind `thurn-ai officials` and experiments/officials.py: the study as a
                       value (Study), each part played for it, the report built from the saved data
    one_bot            one bot's study as `thurn-ai officials` runs it: its options one Parameters value, run
    plan               the conditions, seeds and games; the bots per player count; playing or loading the
                       ablation (run_ablation)
    tables             usage, ablation, pairs, seats, the WBC comparison (analyse)
    findings           the study's numbers: the ablation's primary estimate, power, the published Numbers
    report             the markdown report in a paper's order (build_report), the players' page block
    report_text        the findings in sentences, the terminal text (format_text)
    report_tables      the detail tables: ablation, usage, seats, the value at the moment of choice
    report_validation  the validation by play: its section, which explanation holds, whose advice follows
    rulecard, rulecard_report, symmetric, symmetric_report, card_play, sided, validation_cells, agreement
                       the later parts: the rule card, the designer's symmetric ablations, the card as a
                       constraint, the validation cell by cell, agreement with the heuristic bot
    plots              the PNG figures
    files              a study's files: games, tables, plots (save_study, load_study); rated decisions
                       (save_choice)
    choice             value at the moment of choice: the search rates, at each decision where an official
                       is on offer, the best move with it and the best without (run_choice_study)
    choice_tables      the rated decisions' tables (both ratings, medians, the last round apart)
    turn_choice        the turn question: which official, if any, this turn (run_turns_study)
    rated              validation by play: the `rated` bot follows the rating at every offer (run_validation)
    advice             rules a player can use at the table, each with its evidence
    design             games fixed from the precision wanted, Holm, paired deals, robust summaries
    cost               what each part will cost before it runs
    records            the kept game records and their check; replaying a study's games
The statistics (Wilson, Newcombe, Welch, t intervals) are in thurn_ai.stats.summary.
"""
from __future__ import annotations

from .choice import run_choice_study
from .files import load_study, save_choice, save_study
from .plan import StudyError, run_ablation, study_bots
from .rated import run_validation
from .report import build_report
from .report_text import format_text
from .tables import analyse
from .turn_choice import run_turns_study

__all__ = ["StudyError", "study_bots", "run_ablation", "load_study", "analyse", "save_study", "build_report",
           "format_text", "run_choice_study", "save_choice", "run_turns_study", "run_validation"]
