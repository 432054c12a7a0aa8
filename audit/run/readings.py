"""A run's summary in words, and the summary read back from its Run node: light (no torch), so
that the views and the command line can use them without loading a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audit.results.schema import Run


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1%}"


def redundancy_reading(summary: dict) -> str | None:
    """HANKER's relative inflation in one line, after unlearning and before it (the gap
    injection left), or None when the graph has no redundancy flag. A forget fact the retain
    corpus also states is taught again by the retain text, so it counts against the unlearning
    unfairly; when no forget fact is such, the line says there is nothing to remove."""
    if "forget_edges_redundant" not in summary or summary.get("forget_rouge1_after") is None:
        return None
    everything, redundant = summary["forget_rouge1_after"], summary["forget_edges_redundant"]
    if not redundant:
        return (f"redundancy (HANKER): no forget fact is also stated by the retain corpus, so there is no inflation "
                f"to remove: forget ROUGE-1 after {everything:.3f} counts only facts the unlearning had to erase")
    unique, inflation = summary.get("forget_rouge1_unique_after"), summary.get("forget_rouge1_inflation_after")
    share = summary.get("forget_qa_pairs_redundant_share")
    line = (f"redundancy (HANKER): {redundant} forget fact(s)"
            + (f" ({share:.0%} of the forget QA pairs)" if share is not None else "")
            + " also stated by the retain corpus, which keeps teaching them; "
            + f"forget ROUGE-1 after {everything:.3f} over all forget facts, ")
    if unique is None:
        return line + "and every forget fact is one of them, so there is no score without them"
    if inflation is None:
        return line + (f"{unique:.3f} over the others: those are all forgotten, so the inflation relative to them "
                       "is not defined")
    effect = (f"inflates it by {_percent(inflation)}" if inflation > 0 else
              f"lowers it by {-inflation:.1%} (they are forgotten more than the others)" if inflation < 0
              else "does not change it")
    return line + (f"{unique:.3f} over the others: counting them {effect} "
                   f"(before unlearning: {_percent(summary.get('forget_rouge1_inflation_before'))}, the gap "
                   "injection already left; HANKER: +19.7% to +26.1% across methods, LLaMA2-7B on MUSE News)")


def stored_summary(run: Mapping[str, Any]) -> dict:
    """The summary a finished run wrote on its node (a ``Run``, or its properties)."""
    names = Run.names("summary") + [n for n in Run.names("resurfacing") if n != "resurfacing_config"]
    return {k: run[k] for k in names if run.get(k) is not None}


# the checks a forgotten forget edge can come back under, besides relearning, as the reading names them
_CHECKS = (("int8", "under int8 weights"), ("nf4", "under 4-bit weights"), ("paraphrase", "on paraphrased questions"),
           ("two_hop", "on 2-hop questions"))
_CONTROL = "the control relearning (as many QA pairs of unrelated retained edges, the same steps)"


def resurfacing_reading(summary: dict) -> str | None:
    """The resurfacing checks in one line (docs/robustness.md), or None when none ran.

    Relearning is read against its control: relearning on a forget edge's graph neighbours and
    on as many QA pairs of unrelated retained edges, the same steps, then the edge asked again.
    What the neighbours bring back beyond the control is what the graph's relations carry; the
    control alone measures a general loosening of the model."""
    if "forget_edges_forgotten" not in summary:
        return None
    forgotten = summary["forget_edges_forgotten"]
    relearned = summary.get("relearn_rouge1") is not None
    parts = []
    if not forgotten:
        parts.append("no forget edge was forgotten by the unlearning, so none could resurface")
        if relearned:
            parts.append(_relearn_rouge1(summary))
    else:
        back = [(summary[f"resurfaced_{name}"], label) for name, label in _CHECKS
                if summary.get(f"resurfaced_{name}") is not None]
        if back:
            parts.append(f"of {forgotten} forgotten forget edge(s), {back[0][0]} came back {back[0][1]}"
                         + "".join(f", {n} {label}" for n, label in back[1:]))
        if relearned:
            parts.append(_relearn_counts(summary, forgotten))
    before, after = summary.get("mia_min_k_pp_auc_forget_before"), summary.get("mia_min_k_pp_auc_forget_after")
    if before is not None and after is not None:
        parts.append(f"membership AUC of the forget QA pairs (Min-K%++) {before:.2f} -> {after:.2f} "
                     "(0.5: like answers never seen; below: pushed past them)")
    if not parts:
        parts.append("no check measured a forget edge (no neighbours to relearn from, no probe questions)")
    return "resurfacing: " + "; ".join(parts) + " (docs/robustness.md)"


def _relearn_counts(summary: dict, forgotten: int) -> str:
    """``relearning on their graph neighbours brought back 3 of the 5, the control relearning
    (...) 1: the neighbours brought back 2 more than the control (forget ROUGE-1 ...)``."""
    near, far = summary.get("resurfaced_relearn") or 0, summary.get("resurfaced_relearn_control") or 0
    versus = (f"{near - far} more than" if near > far else f"{far - near} fewer than" if near < far
              else "as many as")
    return (f"relearning on their graph neighbours brought back {near} of the {forgotten}, {_CONTROL} {far}: "
            f"the neighbours brought back {versus} the control (forget ROUGE-1 after relearning: "
            f"{summary['relearn_rouge1']:.2f} neighbours, {summary['relearn_control_rouge1']:.2f} control)")


def _relearn_rouge1(summary: dict) -> str:
    """``forget ROUGE-1 0.80 after relearning on the neighbours, 0.70 after the control
    relearning (...): the neighbours +0.10 over the control``."""
    near, far = summary["relearn_rouge1"], summary["relearn_control_rouge1"]
    return (f"forget ROUGE-1 {near:.2f} after relearning on the neighbours, {far:.2f} after {_CONTROL}: "
            f"the neighbours {near - far:+.2f} over the control")
