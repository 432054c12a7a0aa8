"""Showing results: leakage statuses, the offline page, reports, plots, run comparisons."""
