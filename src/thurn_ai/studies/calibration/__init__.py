"""The win maps refitted for the search they map (experiments/calibrate.py): data.py plays the games (the
search in self-play and against `heuristic`, resumable), fit.py chooses each map's form out of fold and
measures how it held, report.py writes the maps and the report."""
