"""The learned evaluation's pipeline, run by experiments/learned_value.py (docs/learned.md): what the search
reads at play time stays in thurn_ai.learned; this is how it was made and measured.

Modules: `data` (a seeded, resumable generator of positions and outcomes from games of the bots; which
games are held out), `fit` (the fit, cross-validated), `calibration` (how well said chances match what
happened), `report` (the calibration report on held-out games, and the win maps' fits)."""
