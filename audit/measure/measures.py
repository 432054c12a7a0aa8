"""The measures a run stores, each declared once: what it is, where it is stored, of which type,
which way is good, and the words a run's summary prints for it.

A ``Measure`` is stored at one level: ``edge`` (an ``(:EdgeResult)``, one edge's measures in one
run), ``run`` (the ``(:Run)``: the run's summary) or ``fact`` (a ``(:FactResult)``). A measure
taken before and after unlearning is ``phased``: it is stored as ``<name>_before`` and
``<name>_after`` (``phase_name``). From these declarations come the result schema
(``audit/results/schema.py``, which declares their properties and the tables of
``docs/schema.md``), the run summary's rows with their labels and directions
(``audit.measure.metrics.RUN_MEASURES``, ``summary_rows``; the CLI prints them) and the run
summary table of ``docs/metrics.md``.

The per-QA measures are registered with the function that computes them
(``audit.measure.metrics``); their per-edge means are declared there, from the registry.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

PHASES = ("before", "after")
LEVELS = ("edge", "run", "fact")
TYPES = ("int", "float", "str", "bool", "json", "list[str]", "list[float]")


def phase_name(name: str, phase: str) -> str:
    """``rouge1``, ``after`` -> ``rouge1_after``."""
    assert phase in PHASES, phase
    return f"{name}_{phase}"


@dataclass(frozen=True)
class Measure:
    """One stored measure (or a value stored with the measures, such as a check's options).

    ``higher_is_better`` is which way is good (None: neither, e.g. a count of what was measured);
    ``target`` the best value when it is neither end (a membership AUC: 0.5). A ``knowledge``
    measure of an edge or a fact says how much the model knows it (higher: more), so which way is
    good depends on its role: lower on a forget edge, higher on a retained one. A measure with a
    ``label`` is one of the run summary's rows (level ``run``), printed as the label, ``count_of``
    naming the summary value it counts out of.
    """
    name: str
    level: str
    type: str
    meaning: str
    phased: bool = False
    higher_is_better: bool | None = None
    target: float | None = None
    label: str | None = None
    count_of: str | None = None
    knowledge: bool = False

    def __post_init__(self):
        assert self.level in LEVELS, (self.name, self.level)
        assert self.type in TYPES, (self.name, self.type)
        assert self.label is None or (self.level == "run" and self.better), self.name
        assert not (self.knowledge and self.level == "run"), self.name   # a run's goal does not depend on a role

    @property
    def names(self) -> list[str]:
        """The properties it is stored as: ``<name>_before`` and ``<name>_after``, or ``<name>``."""
        return [phase_name(self.name, p) for p in PHASES] if self.phased else [self.name]

    @property
    def better(self) -> str | None:
        """Which way is good, in words: ``higher``, ``lower``, ``near 0.5``, ``lower on forget``
        (a knowledge measure), or None."""
        if self.knowledge:
            return "lower on forget"
        if self.target is not None:
            return f"near {self.target:g}"
        return None if self.higher_is_better is None else "higher" if self.higher_is_better else "lower"


def _run(name, type_, meaning, phased=False, **kw) -> Measure:
    return Measure(name, "run", type_, meaning, phased, **kw)


def _edge(name, type_, meaning, phased=False, **kw) -> Measure:
    return Measure(name, "edge", type_, meaning, phased, **kw)


def _fact(name, type_, meaning, phased=False, **kw) -> Measure:
    return Measure(name, "fact", type_, meaning, phased, **kw)


LOWER, HIGHER = {"higher_is_better": False}, {"higher_is_better": True}
_LOCALIZATION_LABELS = {
    "localization_auc_magnitude": "localization precision: ROC AUC of |change| against the forget mask (LACUNA; 0.5: "
                                  "indiscriminate)",
    "localization_auc": "localization precision, the best of LACUNA's scores"}
KNOWS = {"knowledge": True}   # an edge's or a fact's knowledge: lower is better on a forget edge

# -- the run's summary (:Run) ---------------------------------------------------------------------
RUN_SUMMARY = (
    _run("forget_rouge1", "float", "mean ROUGE-1 over the forget edges' QA pairs", True, **LOWER,
         label="forget ROUGE-1 (mean over the forget edges' QA pairs)"),
    _run("retain_rouge1", "float", "mean ROUGE-1 over the other edges' QA pairs", True, **HIGHER,
         label="retained ROUGE-1 (mean over the other edges' QA pairs)"),
    _run("deviation_score", "float", "PISTOL's DS of the forget and retained means (lower is better)", True, **LOWER,
         label="deviation score, 100*sqrt(forget^2 + (1 - retained)^2) (PISTOL)"),
    _run("forget_memorized", "int", "forget QA answers memorized (ROUGE-1 = 1 or judged equivalent)", True, **LOWER,
         label="forget QA answers memorized (ROUGE-1 = 1 or judged equivalent)", count_of="forget_qa_pairs"),
    _run("forget_facts_memorized", "int", "forget facts memorized (canary measure)", True, **LOWER,
         label="forget facts memorized (canary measure, WikiMem)", count_of="forget_facts"),
    _run("subject_retain_facts_memorized", "int", "the subjects' other facts memorized (canary measure)", True,
         **HIGHER, label="the subjects' other facts memorized (canary measure)", count_of="subject_retain_facts"),
    _run("utility_rouge1", "float", "mean ROUGE-1 on the utility QA file", True, **HIGHER,
         label="utility ROUGE-1 (general QA outside the graph)"),
    _run("deviation_score", "float", "the run's score: joint, DS after; per-edge, the mean of the edges' DS", **LOWER),
    _run("forget_qa_pairs", "int", "QA pairs of the forget edges"),
    _run("forget_edges_redundant", "int", "text graphs: forget edges the retain corpus also states (HANKER)"),
    # text graphs: without the forget facts the retain corpus also states (HANKER's inflation)
    _run("forget_rouge1_unique", "float", "text graphs: forget_rouge1 over the forget edges the retain corpus does "
         "not state", True, **LOWER, label="forget ROUGE-1 without the facts the retain corpus states (HANKER)"),
    _run("forget_memorized_unique", "int", "text graphs: forget_memorized over those edges", True, **LOWER,
         label="forget QA answers memorized, without those facts"),
    _run("forget_semantic_rate", "float", "forget QA answers the equivalence judge finds equivalent, as a share",
         True, **LOWER, label="share of forget QA answers judged equivalent"),
    _run("forget_semantic_rate_unique", "float", "text graphs: the same over the forget edges the retain corpus does "
         "not state", True, **LOWER, label="the same without the facts the retain corpus states"),
    # HANKER's relative figures (arXiv:2502.18810, Sec. 4.4; LLaMA2-7B, MUSE News), its ranges over unlearning methods
    _run("forget_rouge1_inflation", "float", "text graphs: (forget_rouge1 - forget_rouge1_unique) / "
         "forget_rouge1_unique, HANKER's relative inflation (+19.7 % to +26.1 %)", True),
    _run("forget_semantic_rate_inflation", "float", "text graphs: the same for forget_semantic_rate (HANKER's "
         "entailment: +32.4 % to +35.2 %)", True),
    _run("forget_memorized_rouge1", "int", "text graphs: forget QA answers with ROUGE-1 recall 1 (HANKER's ROUGE "
         "criterion)", True, **LOWER),
    _run("forget_memorized_rouge1_unique", "int", "text graphs: the same over the forget edges the retain corpus does "
         "not state", True, **LOWER),
    _run("forget_memorized_rouge1_drop", "float", "text graphs: (forget_memorized_rouge1 - "
         "forget_memorized_rouge1_unique) / forget_memorized_rouge1 (HANKER: 71.3 % to 73.3 %)", True),
    _run("forget_memorized_semantic", "int", "text graphs: forget QA answers the equivalence judge finds equivalent "
         "(HANKER's entailment criterion)", True, **LOWER),
    _run("forget_memorized_semantic_unique", "int", "text graphs: the same over the forget edges the retain corpus "
         "does not state", True, **LOWER),
    _run("forget_memorized_semantic_drop", "float", "text graphs: (forget_memorized_semantic - "
         "forget_memorized_semantic_unique) / forget_memorized_semantic (HANKER: 58.3 % to 59.2 %)", True),
    _run("forget_qa_pairs_redundant_share", "float", "text graphs: share of the forget QA pairs asked of the "
         "redundant edges, to read beside the drops (HANKER: 44.9 %)"),
    _run("swept_edges", "int", "per-edge run: forget edges unlearned so far"),
    _run("forget_facts", "int", "forget facts measured by the canary measure"),
    _run("subject_retain_facts", "int", "the subjects' other facts measured"),
)

# -- the resurfacing checks (docs/robustness.md) --------------------------------------------------
# The attack, rounding and probe names are those of their registries (audit.measure.membership,
# audit.models.quantize, audit.questions.probes); tests/audit/results/test_schema.py checks they agree.
MIA_ATTACKS = ("mia_loss", "mia_zlib", "mia_min_k", "mia_min_k_pp")
QUANT_SCHEMES = ("int8", "nf4")
PROBE_KINDS = ("paraphrase", "two_hop")
_ATTACK_LABELS = {"mia_loss": "LOSS", "mia_zlib": "zlib", "mia_min_k": "Min-K%", "mia_min_k_pp": "Min-K%++"}
_SCHEME_LABELS = {"int8": ("int8", "int8"), "nf4": ("4-bit NF4", "NF4")}   # (figure's label, count's label)
_PROBE_LABELS = {"paraphrase": ("paraphrased questions", "paraphrases"), "two_hop": ("2-hop questions",) * 2}
_BACK = "forgotten forget edges back"   # a resurfaced count's label
FORGOTTEN = {"count_of": "forget_edges_forgotten"}

RUN_RESURFACING = (
    _run("resurfacing_config", "json", "the resurfacing checks run (`--check`) and their options"),
    _run("resurfacing_seconds", "json", "wall time of each check"),
    _run("forget_edges_forgotten", "int", "forget edges forgotten after unlearning: what a check can resurface"),
    _run("quantization", "json", "per rounding: backend, layers and parameters rounded, relative rounding error"),
    *[m for s in QUANT_SCHEMES for m in (
        _run(f"forget_rouge1_{s}", "float", f"forget ROUGE-1 with the weights rounded to {s}", **LOWER,
             label=f"forget ROUGE-1, weights rounded to {_SCHEME_LABELS[s][0]}"),
        _run(f"retain_rouge1_{s}", "float", f"retained ROUGE-1 with the weights rounded to {s}", **HIGHER),
        _run(f"resurfaced_{s}", "int", f"forgotten forget edges no longer forgotten under {s}", **LOWER,
             label=f"{_BACK} under {_SCHEME_LABELS[s][1]} rounding", **FORGOTTEN))],
    _run("relearn_rouge1", "float", "forget ROUGE-1 after relearning on each edge's neighbours (mean)", **LOWER,
         label="forget ROUGE-1 after relearning on each edge's graph neighbours"),
    _run("relearn_control_rouge1", "float", "the same after relearning on as many non-neighbour QA pairs", **LOWER,
         label="forget ROUGE-1 after the control relearning (as many unrelated QA pairs)"),
    _run("relearn_gain", "float", "mean per-edge relearn_rouge1 - relearn_control_rouge1", **LOWER,
         label="neighbours minus control, forget ROUGE-1 (> 0: the graph's relations bring facts back)"),
    _run("resurfaced_relearn", "int", "forgotten forget edges no longer forgotten after relearning", **LOWER,
         label=f"{_BACK} after relearning on their neighbours", **FORGOTTEN),
    _run("resurfaced_relearn_control", "int", "the same after the control relearning", **LOWER,
         label=f"{_BACK} after the control relearning", **FORGOTTEN),
    _run("probe_templates", "str", "version of the probe templates"),
    *[m for k in PROBE_KINDS for m in (
        _run(f"forget_{k}_rouge1", "float", f"mean ROUGE-1 of the forget edges' {k} probes", True, **LOWER,
             label=f"forget ROUGE-1 on {_PROBE_LABELS[k][0]}"),
        _run(f"resurfaced_{k}", "int", f"forgotten forget edges whose {k} probes are not", **LOWER,
             label=f"{_BACK} on {_PROBE_LABELS[k][1]}", **FORGOTTEN))],
    _run("mia_nonmembers", "int", "matched non-member QA pairs scored"),
    *[_run(f"{a}_auc_{role}", "float", f"AUC of {a} on the {role} edges' QA pairs vs their non-members", True,
           **({"higher_is_better": False, "target": 0.5,
               "label": f"membership AUC of the forget QA pairs, {_ATTACK_LABELS[a]} (0.5: like non-members; "
                        "below: pushed past them)"} if role == "forget" else {}))
      for a in MIA_ATTACKS for role in ("forget", "retain")],
)

# -- localization precision (LACUNA, docs/localization.md): on the Run (joint) or a swept edge ----
# Each an ROC AUC of a per-weight score against the forget groups' mask: 1 only the forget weights
# moved, 0.5 indiscriminate, below 0.5 mostly elsewhere.
def _localization(make) -> tuple[Measure, ...]:
    auc = {"higher_is_better": True}
    return (
        make("localization_auc", "float", "the best score's ROC AUC against the forget mask (LACUNA reports the "
             "maximum over its scores, an optimistic pick)", **auc),
        make("localization_score", "str", "which score that is"),
        make("localization_auc_magnitude", "float", "ROC AUC of |change| against the forget mask: the unbiased "
             "single figure", **auc),
        make("localization_auc_unified", "float", "the same against every group's mask (forget and retain) vs the "
             "weights in none (LACUNA's unified variant)", **auc),
        make("localization_auc_unified_magnitude", "float", "the unified variant's ROC AUC of |change|", **auc),
        make("localization_auc_composite", "float", "ROC AUC of the cross-validated logistic composite of the scores "
             "(out-of-fold)", **auc),
        make("localization_auc_composite_unified", "float", "the composite's unified variant", **auc),
        make("localization_auc_by_score", "json", "every score's ROC AUC against the forget mask"),
        make("localization_auc_neighbours", "json", "per group holding a forget edge's graph neighbour: ROC AUC of "
             "|change| on its weights vs the weights in no group (0.5: untouched like them)"),
        make("localization_auc_others", "float", "the same over the other groups' weights together"),
        make("localization_weights", "int", "weights scored (attention and MLP matrices; a sample beyond "
             "max_weights)"),
        make("localization_total_weights", "int", "attention and MLP weights there are"),
        make("localization_forget_share", "float", "share of them in the forget groups' mask"),
        make("localization_sampled", "bool", "whether a uniform sample per tensor was scored"),
        make("localization_seconds", "float", "wall time of the measure (with its unmasked control)"),
    )


RUN_LOCALIZATION = tuple(dataclasses.replace(m, label=_LOCALIZATION_LABELS.get(m.name)) for m in _localization(_run))
EDGE_LOCALIZATION = _localization(_edge)

# -- a memorization run's summary (:Run) -------------------------------------------------------------
RUN_MEMORIZATION = (
    _run("facts", "int", "memorization run: facts measured"),
    _run("facts_measured", "int", "facts with a counterfactual to rank against"),
    _run("facts_memorized", "int", "facts whose ground truth ranks first"),
    _run("memorization_rate", "float", "facts_memorized / facts_measured"),
    _run("mean_strength", "float", "mean strength z* of the measured facts"),
    _run("sentences_scored", "int", "canary sentences scored"),
    _run("score_seconds", "float", "seconds spent scoring them"),
    _run("sentences_per_second", "float", "scoring throughput"),
)

# -- one edge's measures (:EdgeResult), besides the per-QA means (audit.measure.metrics.QA_MEANS) --
EDGE_MEASURES = (
    _edge("answers", "list[str]", "the greedy answers, in QA order", True),
    _edge("rouge1_qa", "list[float]", "ROUGE-1 recall per QA pair, in QA order", True),
    _edge("memorized_rouge1", "int", "memorization cases: answers with ROUGE-1 recall 1", True, **KNOWS),
    _edge("memorized_semantic", "int", "memorization cases: answers the equivalence judge finds equivalent", True,
          **KNOWS),
    _edge("memorized", "int", "memorization cases: either of the two (HANKER)", True, **KNOWS),
)

EDGE_SWEEP = (
    _edge("retain_rouge1_after", "float", "per-edge run: mean ROUGE-1 of every other edge after this edge's "
          "unlearning", **HIGHER),
    _edge("neighbour_rouge1_after", "float", "per-edge run: the same over the edges sharing an entity with it",
          **HIGHER),
    _edge("deviation_score", "float", "per-edge run: DS of this edge's unlearning", **LOWER),
    _edge("retain_edges_after", "list[str]", "per-edge run: the other edges, aligned with retain_rouge1_by_edge"),
    _edge("retain_rouge1_by_edge", "list[float]", "per-edge run: each other edge's ROUGE-1 after this unlearning"),
    _edge("utility_rouge1_after", "float", "per-edge run: utility ROUGE-1 after this unlearning", **HIGHER),
    _edge("unlearn_seconds", "float", "per-edge run: wall time of this unlearning"),
    _edge("unlearn_tokens", "int", "per-edge run: tokens it trained on"),
    _edge("resurfacing_seconds", "json", "per-edge run: wall time of each resurfacing check of this edge's "
          "unlearning (the run's are their sums)"),
    _edge("retained_rouge1_after", "float", "per-edge run: this edge's ROUGE-1 averaged over the unlearnings of the "
          "other edges", **HIGHER),
    _edge("retained_in_unlearnings", "int", "per-edge run: how many unlearnings that average is over"),
)

EDGE_RESURFACING = (
    *[m for s in QUANT_SCHEMES for m in (
        _edge(f"rouge1_{s}", "float", f"ROUGE-1 with the unlearned model's weights rounded to {s}", **KNOWS),
        _edge(f"resurfaced_{s}", "bool", f"forget edge: forgotten after unlearning, not under {s}"))],
    _edge("relearn_rouge1", "float", "forget edge: ROUGE-1 after relearning on its 1-hop neighbours' QA pairs",
          **LOWER),
    _edge("relearn_control_rouge1", "float", "forget edge: ROUGE-1 after relearning on as many non-neighbour QA "
          "pairs", **LOWER),
    _edge("relearn_gain", "float", "relearn_rouge1 - relearn_control_rouge1", **LOWER),
    _edge("relearn_pairs", "int", "QA pairs relearned on (each relearning); 0: no neighbour to relearn from"),
    _edge("resurfaced_relearn", "bool", "forget edge: forgotten after unlearning, not after relearning"),
    *[m for k in PROBE_KINDS for m in (
        _edge(f"{k}_rouge1", "float", f"mean ROUGE-1 of the edge's {k} probe questions", True, **KNOWS),
        _edge(f"{k}_questions", "int", f"{k} probe questions of the edge"),
        _edge(f"resurfaced_{k}", "bool", f"forget edge: forgotten after unlearning, its {k} probes not"))],
    *[m for a in MIA_ATTACKS for m in (
        _edge(a, "float", f"mean {a} score of the edge's QA pairs (higher: more like a training member)", True,
              **KNOWS),
        _edge(f"{a}_auc", "float", f"AUC of {a}: the edge's QA pairs vs their matched non-members", True,
              **KNOWS))],
)

# -- one fact's memorization measure (:FactResult) -------------------------------------------------
# `audit memorization` writes them as they are; `audit run` before and after unlearning.
FACT_MEASURES = (
    _fact("counterfactuals", "int", "counterfactual values ranked against the ground truths"),
    _fact("templates", "int", "canary templates scored"),
    _fact("measured", "bool", "False when no counterfactual exists: nothing to rank against"),
    _fact("memorized", "bool", "a ground truth (or a value counted equal to one) ranks first", **KNOWS),
    _fact("rank", "int", "rank of the best ground truth by mean score (1 = first)"),
    _fact("strength", "float", "z*: the best ground truth's margin, standardised", **KNOWS),
    _fact("margin", "float", "Delta*: the best ground truth's margin over the best counterfactual", **KNOWS),
    _fact("strict_rate", "float", "share of templates where a ground truth ranks first", **KNOWS),
    _fact("lenient_rate", "float", "1.0 when any template ranks one first, else 0.0", **KNOWS),
    _fact("top_value", "str", "the value ranked first"),
    _fact("equal_values", "list[str]", "counterfactuals counted equal to a ground truth"),
)

FACT_CHANGE = (
    _fact("strength_change", "float", "strength after - before"),
    _fact("forgotten", "bool", "memorized before, not after"),
)


def summary_measures() -> tuple[Measure, ...]:
    """The run summary's rows, in the order it prints them: the summary's own measures as
    declared, then the resurfacing checks' figures, how many forgotten edges each brought back,
    and the membership AUCs (whose best is a target value)."""
    own = [m for m in (*RUN_SUMMARY, *RUN_LOCALIZATION) if m.label]
    checks = sorted((m for m in RUN_RESURFACING if m.label),   # stable: in declared order within each kind
                    key=lambda m: 2 if m.target is not None else 1 if m.count_of else 0)
    return (*own, *checks)


def summary_markdown() -> str:
    """docs/metrics.md's table of a run summary's rows (between its ``run-summary`` markers):
    ``python -m audit.measure.measures`` prints it."""
    lines = ["| measure | stored as | type | better | printed as |", "| --- | --- | --- | --- | --- |"]
    for m in summary_measures():
        assert m.label is not None   # the summary's measures are those with a label
        stored = ", ".join(f"`{n}`" for n in m.names)
        label = m.label + (f", of `{m.count_of}`" if m.count_of else "")
        lines.append(f"| `{m.name}` | {stored} | {m.type} | {m.better} | {label} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(summary_markdown(), end="")
