"""Research studies built on the library: the officials study (studies/officials)."""
