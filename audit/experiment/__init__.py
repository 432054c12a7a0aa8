"""`audit experiment`: a grid of audit runs from one file, resumable, with the PISTOL
learning-rate protocol, aggregated over seeds with confidence intervals (docs/experiments.md)."""
