"""Reading the resurfacing checks' results (docs/robustness.md): which checks brought a forget
edge back, and the per-edge columns a table of a run with checks shows.

The checks' measures are declared with the others (``audit.measure.measures``: ``RUN_RESURFACING``,
``EDGE_RESURFACING``), with the names of the attacks, roundings and probes they run.
"""

from audit.measure.measures import MIA_ATTACKS, PROBE_KINDS, QUANT_SCHEMES

__all__ = ["MIA_ATTACKS", "QUANT_SCHEMES", "PROBE_KINDS", "RESURFACED_FLAGS", "EDGE_COLUMNS", "resurfaced_under"]

# the per-edge flags: a forget edge forgotten after unlearning and not under the check
RESURFACED_FLAGS = tuple(f"resurfaced_{c}" for c in (*QUANT_SCHEMES, "relearn", *PROBE_KINDS))
# the per-edge columns a table of a run with checks shows (those the run has)
EDGE_COLUMNS = (*[f"rouge1_{s}" for s in QUANT_SCHEMES], "relearn_rouge1", "relearn_control_rouge1",
                *[f"{k}_rouge1_after" for k in PROBE_KINDS], "mia_min_k_pp_auc_before", "mia_min_k_pp_auc_after")


def resurfaced_under(result) -> list[str]:
    """The checks under which a forget edge's result came back (``int8``, ``relearn``, ...)."""
    return [flag.removeprefix("resurfaced_") for flag in RESURFACED_FLAGS if result.get(flag)]
