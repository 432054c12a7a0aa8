"""The result-schema declarations of the resurfacing checks (docs/robustness.md), kept apart
from ``audit/results/schema.py`` because there are many: one group of ``Run`` and one of
``EdgeResult``, as ``(name, type, doc, phased)`` entries.

The attack, rounding and probe names are those of their registries (``audit.measure.membership``,
``audit.models.quantize``, ``audit.questions.probes``); ``tests/audit/results/test_schema.py``
checks they agree.
"""

MIA_ATTACKS = ("mia_loss", "mia_zlib", "mia_min_k", "mia_min_k_pp")
QUANT_SCHEMES = ("int8", "nf4")
PROBE_KINDS = ("paraphrase", "two_hop")

RUN_RESURFACING = [
    ("resurfacing_config", "json", "the resurfacing checks run (`--check`) and their options", False),
    ("resurfacing_seconds", "json", "wall time of each check", False),
    ("forget_edges_forgotten", "int", "forget edges forgotten after unlearning: what a check can resurface", False),
    ("quantization", "json", "per rounding: backend, layers and parameters rounded, relative rounding error", False),
    *[entry for s in QUANT_SCHEMES for entry in (
        (f"forget_rouge1_{s}", "float", f"forget ROUGE-1 with the weights rounded to {s}", False),
        (f"retain_rouge1_{s}", "float", f"retained ROUGE-1 with the weights rounded to {s}", False),
        (f"resurfaced_{s}", "int", f"forgotten forget edges no longer forgotten under {s}", False))],
    ("relearn_rouge1", "float", "forget ROUGE-1 after relearning on each edge's neighbours (mean)", False),
    ("relearn_control_rouge1", "float", "the same after relearning on as many non-neighbour QA pairs", False),
    ("relearn_gain", "float", "mean per-edge relearn_rouge1 - relearn_control_rouge1", False),
    ("resurfaced_relearn", "int", "forgotten forget edges no longer forgotten after relearning", False),
    ("resurfaced_relearn_control", "int", "the same after the control relearning", False),
    ("probe_templates", "str", "version of the probe templates", False),
    *[entry for k in PROBE_KINDS for entry in (
        (f"forget_{k}_rouge1", "float", f"mean ROUGE-1 of the forget edges' {k} probes", True),
        (f"resurfaced_{k}", "int", f"forgotten forget edges whose {k} probes are not", False))],
    ("mia_nonmembers", "int", "matched non-member QA pairs scored", False),
    *[(f"{a}_auc_{role}", "float", f"AUC of {a} on the {role} edges' QA pairs vs their non-members", True)
      for a in MIA_ATTACKS for role in ("forget", "retain")],
]

EDGE_RESURFACING = [
    *[entry for s in QUANT_SCHEMES for entry in (
        (f"rouge1_{s}", "float", f"ROUGE-1 with the unlearned model's weights rounded to {s}", False),
        (f"resurfaced_{s}", "bool", f"forget edge: forgotten after unlearning, not under {s}", False))],
    ("relearn_rouge1", "float", "forget edge: ROUGE-1 after relearning on its 1-hop neighbours' QA pairs", False),
    ("relearn_control_rouge1", "float", "forget edge: ROUGE-1 after relearning on as many non-neighbour QA pairs", False),
    ("relearn_gain", "float", "relearn_rouge1 - relearn_control_rouge1", False),
    ("relearn_pairs", "int", "QA pairs relearned on (each relearning); 0: no neighbour to relearn from", False),
    ("resurfaced_relearn", "bool", "forget edge: forgotten after unlearning, not after relearning", False),
    *[entry for k in PROBE_KINDS for entry in (
        (f"{k}_rouge1", "float", f"mean ROUGE-1 of the edge's {k} probe questions", True),
        (f"{k}_questions", "int", f"{k} probe questions of the edge", False),
        (f"resurfaced_{k}", "bool", f"forget edge: forgotten after unlearning, its {k} probes not", False))],
    *[entry for a in MIA_ATTACKS for entry in (
        (a, "float", f"mean {a} score of the edge's QA pairs (higher: more like a training member)", True),
        (f"{a}_auc", "float", f"AUC of {a}: the edge's QA pairs vs their matched non-members", True))],
]

# the per-edge flags: a forget edge forgotten after unlearning and not under the check
RESURFACED_FLAGS = tuple(f"resurfaced_{c}" for c in (*QUANT_SCHEMES, "relearn", *PROBE_KINDS))
# the per-edge columns a table of a run with checks shows (those the run has)
EDGE_COLUMNS = (*[f"rouge1_{s}" for s in QUANT_SCHEMES], "relearn_rouge1", "relearn_control_rouge1",
                *[f"{k}_rouge1_after" for k in PROBE_KINDS], "mia_min_k_pp_auc_before", "mia_min_k_pp_auc_after")


def resurfaced_under(result) -> list[str]:
    """The checks under which a forget edge's result came back (``int8``, ``relearn``, ...)."""
    return [flag.removeprefix("resurfaced_") for flag in RESURFACED_FLAGS if result.get(flag)]
