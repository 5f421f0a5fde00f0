"""Statistics of game results: intervals and tests, the tournament summary (summary), and its plots (plots).
`thurn_ai.stats.summarize` and the other names below keep their place here."""
from .summary import (CONFIDENCE, StatsError, binomial_p, check_results, clustered_proportion_interval,
                      equal_counts_p, excludes_zero, format_summary, mean_ci, mean_interval, newcombe,
                      openskill_ratings, summarize, summary_to_json, versus_baseline, welch, wilson_interval)

__all__ = ["CONFIDENCE", "StatsError", "binomial_p", "check_results", "clustered_proportion_interval",
           "equal_counts_p", "excludes_zero", "format_summary", "mean_ci", "mean_interval", "newcombe",
           "openskill_ratings", "summarize", "summary_to_json", "versus_baseline", "welch", "wilson_interval"]
