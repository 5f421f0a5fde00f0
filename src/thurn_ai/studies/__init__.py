"""The research wing: each study's pipeline, from its data to its report, built on the library. officials/
(what the officials are worth; run.py is its runner), learned/ (how the learned evaluation was made),
expert/ (the learned move prior), strength.py (strength cells), provenance.py (where a result came from)."""
