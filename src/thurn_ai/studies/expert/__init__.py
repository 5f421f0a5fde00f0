"""Expert iteration: teacher data from deep searches, a learned move prior fitted to it (docs/expert.md)."""
