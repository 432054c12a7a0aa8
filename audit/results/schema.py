"""The typed schema of the result nodes: every property a run writes, declared once.

One dataclass per node label: ``Run``, ``EdgeResult``, ``FactResult`` and ``Experiment``. Writers
(``audit.results.store``) refuse a property that is not declared here, readers get instances of
these classes, and the CLI columns, the views and ``docs/schema.md``'s result tables take their
names from them (``tests/audit/results/test_schema.py`` checks the docs match).

A measure taken before and after unlearning is declared once with ``phased=True`` and becomes two
properties, ``<name>_before`` and ``<name>_after`` (``phase_name``). Every property is optional:
a run writes each phase as soon as it has it, so a node read half-way holds only some of them.

Reading is typed and checked: ``result.rouge1_after`` is the property, and the mapping forms
(``result["edge"]``, ``result.get("rouge1_after")``, ``"rouge1_after" in result``) refuse a name
the schema does not declare instead of quietly answering ``None``. Properties a node holds that
this version does not declare (written by another version) are kept in ``extra``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from audit.results.resurfacing import EDGE_RESURFACING, RUN_RESURFACING

PHASES = ("before", "after")

# The per-QA measures of a run's evaluation, stored as each edge's mean (audit.measure.metrics
# registers them; tests/audit/results/test_schema.py checks the two lists agree).
QA_MEASURES = ("rouge1", "mrr", "top100", "exact_memorization", "extraction_strength", "answer_probability")


@dataclass(frozen=True)
class Prop:
    """One declared property: its name, type, meaning, and the group it belongs to."""
    name: str
    type: str
    doc: str
    group: str


def phase_name(name: str, phase: str) -> str:
    """``rouge1``, ``after`` -> ``rouge1_after``."""
    assert phase in PHASES, phase
    return f"{name}_{phase}"


def _declare(label: str, groups: dict[str, list[tuple[str, str, str, bool]]]) -> tuple[Prop, ...]:
    """Expand a node's declaration: ``(name, type, doc, phased)`` per property, by group."""
    props = []
    for group, entries in groups.items():
        for name, type_, doc, phased in entries:
            names = [phase_name(name, p) for p in PHASES] if phased else [name]
            props += [Prop(n, type_, doc, group) for n in names]
    seen = [p.name for p in props]
    duplicate = {n for n in seen if seen.count(n) > 1}
    assert not duplicate, f"{label}: declared twice: {duplicate}"
    return tuple(props)


class ResultNode(Mapping):
    """Common behaviour of the result dataclasses: checked mapping access and conversion."""
    LABEL: ClassVar[str]
    PROPS: ClassVar[tuple[Prop, ...]]
    DECLARED: ClassVar[dict[str, Prop]]    # name -> Prop, for the checks
    extra: dict

    @classmethod
    def names(cls, group: str | None = None) -> list[str]:
        """The declared property names (of one group), in declaration order."""
        return [p.name for p in cls.PROPS if group is None or p.group == group]

    @classmethod
    def scalar_names(cls, group: str | None = None) -> list[str]:
        """The declared names whose values are single numbers, strings or flags (table columns)."""
        return [p.name for p in cls.PROPS if (group is None or p.group == group)
                and not p.type.startswith("list") and p.type != "json"]

    @classmethod
    def check(cls, names) -> list[str]:
        """``names`` as a list; raises ``KeyError`` naming any the schema does not declare."""
        names = list(names)
        unknown = [n for n in names if n not in cls.DECLARED]
        if unknown:
            raise KeyError(f"{cls.LABEL} declares no propert{'y' if len(unknown) == 1 else 'ies'} "
                           f"{', '.join(unknown)} (audit/results/schema.py)")
        return names

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> "ResultNode":
        declared = cls.DECLARED
        known = {k: v for k, v in props.items() if k in declared}
        return cls(**known, extra={k: v for k, v in props.items() if k not in declared})

    def props(self) -> dict[str, Any]:
        """The declared properties that are set (not None)."""
        return {n: v for n in self.DECLARED if (v := getattr(self, n)) is not None}

    # -- Mapping over the declared properties that are set; undeclared names refused
    def __getitem__(self, name: str) -> Any:
        self.check([name])
        value = getattr(self, name)
        if value is None:
            raise KeyError(name)
        return value

    def get(self, name: str, default: Any = None) -> Any:
        self.check([name])
        value = getattr(self, name)
        return default if value is None else value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and getattr(self, self.check([name])[0]) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.props())

    def __len__(self) -> int:
        return len(self.props())


def _result_class(label: str, props: tuple[Prop, ...], doc: str) -> type[ResultNode]:
    fields = [(p.name, Any, field(default=None)) for p in props]
    fields.append(("extra", dict, field(default_factory=dict, repr=False, compare=False)))
    namespace = {"LABEL": label, "PROPS": props, "DECLARED": {p.name: p for p in props}, "__doc__": doc,
                 "__hash__": None}
    cls = dataclasses.make_dataclass(label, fields, bases=(ResultNode,), frozen=True, eq=True, namespace=namespace)
    cls.__module__ = __name__
    return cls


# -- (:Run) ---------------------------------------------------------------------------------------
RUN_PROPS = _declare("Run", {
    "identity": [
        ("key", "str", "the run id (`--run-id`, or `<graph>-<method>-<UTC time>`)", False),
        ("kind", "str", "`memorization` for `audit memorization`; absent for `audit run`", False),
        ("status", "str", "`running`, `done`, `failed` or `interrupted`", False),
        ("lock", "str", "the run's lock file (audit/run/lock.py): a `running` run whose lock is free here has "
                        "ended without saying so (`audit runs` shows `running (process gone)`)", False),
        ("started_at", "str", "UTC ISO time the run was created", False),
        ("resumed_at", "str", "UTC ISO time it was last resumed", False),
        ("ended_at", "str", "UTC ISO time it ended (done, failed or interrupted)", False),
        ("error", "str", "why it failed (first 500 characters)", False),
        ("settings_sha256", "str", "SHA-256 of the settings: a run resumes only under the same digest", False),
        ("code_version", "str", "package version + git commit", False),
        ("hardware", "str", "the device (the GPU's name, or cpu with its threads and CPU model) and dtype it ran on",
         False),
        ("environment", "json", "where it ran: Python, torch (with its build), transformers, peft, tokenizers, "
         "safetensors, accelerate, Neo4j driver and arcadedb-embedded versions, the engine and its server version, "
         "platform, CPU model, CUDA version and GPUs, threads (the run folder's environment.json)", False),
    ],
    "settings": [
        ("graph", "str", "the graph audited", False),
        ("graph_sha256", "str", "SHA-256 of the graph's content at run time", False),
        ("selector", "str", "`--select` spec that chose the forget edges", False),
        ("cypher", "str", "`--cypher` query that chose them", False),
        ("forget_edges", "list[str]", "keys of the forget edges", False),
        ("method", "str", "unlearning method (`memorization` for a measuring run)", False),
        ("method_config", "json", "the method's options", False),
        ("unlearn_config", "json", "training options of the unlearning (lr, epochs, seed, ...)", False),
        ("injection_config", "json", "training options of the knowledge injection", False),
        ("memorization_config", "json", "memorization-measure options (Wikidata graphs)", False),
        ("model", "str", "model path, hub id or `scratch:SIZE`", False),
        ("retain", "str", "retain scope of training (`all`, `neighbours`, `sample:N`)", False),
        ("retain_edges", "int", "number of edges in the training retain set", False),
        ("utility", "str", "utility QA file", False),
        ("utility_sha256", "str", "its SHA-256", False),
        ("refusals", "str", "version of the refusal answers (DPO)", False),
        ("per_edge", "bool", "one unlearning per forget edge (PISTOL's protocol)", False),
        ("training_config", "json", "what injection and unlearning trained on, when not QA pairs (`--train-on`)", False),
        ("mode", "str", "`joint`, `per-edge` or `measure`", False),
        ("seed", "int", "seed of the unlearning", False),
        ("pairing", "str", "how forget and retain batches were paired, and the log of it", False),
        ("prompt_version", "str", "version of the QA prompt format", False),
        ("templates", "str", "version of the graph's question templates", False),
        ("equivalence", "str", "version of the equivalence judge (None: off)", False),
        ("metric_definitions", "str", "version of the metric definitions (docs/metrics.md)", False),
        ("subjects", "list[str]", "memorization run: the subjects' Q-ids measured", False),
        ("properties", "list[str]", "memorization run: the P-ids measured (empty: all)", False),
        ("config", "json", "memorization run: the measure's options", False),
        ("registry", "str", "memorization run: version of the property registry", False),
        ("measure", "str", "memorization run: version of the measure", False),
        ("leakage_thresholds", "json", "thresholds of the leakage statuses last written (docs/leakage.md)", False),
    ],
    "injection": [
        ("injection_key", "str", "cache key of the injected model", False),
        ("injection_epochs", "int", "epochs the injection trained", False),
        ("injection_reached", "bool", "whether every edge reached the injection target", False),
        ("injection_min_rouge1", "float", "lowest edge ROUGE-1 after injection", False),
    ],
    "training": [
        ("train_on", "str", "`qa`, `passages` or `canaries`: what injection and unlearning trained on", False),
        ("train_forget_items", "int", "forget texts (or QA pairs) unlearned, before chunking", False),
        ("train_retain_items", "int", "retain texts (or QA pairs), before chunking", False),
        ("train_forget_sources", "list[str]", "the passage keys, fact keys (canaries) or edge keys (QA) unlearned", False),
        ("train_forget_chunks", "int", "forget training texts after chunking to the context", False),
        ("train_retain_chunks", "int", "retain training texts after chunking", False),
        ("mixed_passages", "int", "passages stating a forget fact and a retained fact (`--train-on passages`)", False),
        ("mixed_passages_policy", "str", "what was done with them: `forget`, `retain` or `drop`", False),
    ],
    "unlearning": [
        ("unlearn_steps", "int", "optimizer steps of the unlearning", False),
        ("unlearn_tokens", "int", "tokens it trained on", False),
        ("unlearn_seconds", "float", "its wall time", False),
        ("unlearn_tokens_per_second", "float", "its throughput", False),
        ("unlearn_forget_pairs_per_second", "float", "forget QA pairs per second", False),
        ("final_loss", "float", "the last step's loss", False),
    ],
    "summary": [
        ("forget_rouge1", "float", "mean ROUGE-1 over the forget edges' QA pairs", True),
        ("retain_rouge1", "float", "mean ROUGE-1 over the other edges' QA pairs", True),
        ("deviation_score", "float", "PISTOL's DS of the forget and retained means (lower is better)", True),
        ("forget_memorized", "int", "forget QA answers memorized (ROUGE-1 = 1 or judged equivalent)", True),
        ("utility_rouge1", "float", "mean ROUGE-1 on the utility QA file", True),
        ("forget_facts_memorized", "int", "forget facts memorized (canary measure)", True),
        ("subject_retain_facts_memorized", "int", "the subjects' other facts memorized (canary measure)", True),
        ("deviation_score", "float", "the run's score: joint, DS after; per-edge, the mean of the edges' DS", False),
        ("forget_qa_pairs", "int", "QA pairs of the forget edges", False),
        ("forget_edges_redundant", "int", "text graphs: forget edges the retain corpus also states (HANKER)", False),
        ("forget_rouge1_unique", "float", "text graphs: forget_rouge1 over the forget edges the retain corpus does not state", True),
        ("forget_memorized_unique", "int", "text graphs: forget_memorized over those edges", True),
        ("forget_semantic_rate", "float", "forget QA answers the equivalence judge finds equivalent, as a share", True),
        ("forget_semantic_rate_unique", "float", "text graphs: the same over the forget edges the retain corpus does not state", True),
        # HANKER's relative figures (arXiv:2502.18810, Sec. 4.4; LLaMA2-7B, MUSE News), its ranges over unlearning methods
        ("forget_rouge1_inflation", "float", "text graphs: (forget_rouge1 - forget_rouge1_unique) / forget_rouge1_unique, "
                                             "HANKER's relative inflation (+19.7 % to +26.1 %)", True),
        ("forget_semantic_rate_inflation", "float", "text graphs: the same for forget_semantic_rate (HANKER's "
                                                    "entailment: +32.4 % to +35.2 %)", True),
        ("forget_memorized_rouge1", "int", "text graphs: forget QA answers with ROUGE-1 recall 1 (HANKER's ROUGE criterion)", True),
        ("forget_memorized_rouge1_unique", "int", "text graphs: the same over the forget edges the retain corpus does not state", True),
        ("forget_memorized_rouge1_drop", "float", "text graphs: (forget_memorized_rouge1 - forget_memorized_rouge1_unique) / "
                                                  "forget_memorized_rouge1 (HANKER: 71.3 % to 73.3 %)", True),
        ("forget_memorized_semantic", "int", "text graphs: forget QA answers the equivalence judge finds equivalent "
                                             "(HANKER's entailment criterion)", True),
        ("forget_memorized_semantic_unique", "int", "text graphs: the same over the forget edges the retain corpus "
                                                    "does not state", True),
        ("forget_memorized_semantic_drop", "float", "text graphs: (forget_memorized_semantic - forget_memorized_semantic_unique) "
                                                    "/ forget_memorized_semantic (HANKER: 58.3 % to 59.2 %)", True),
        ("forget_qa_pairs_redundant_share", "float", "text graphs: share of the forget QA pairs asked of the redundant edges, "
                                                     "to read beside the drops (HANKER: 44.9 %)", False),
        ("swept_edges", "int", "per-edge run: forget edges unlearned so far", False),
        ("forget_facts", "int", "forget facts measured by the canary measure", False),
        ("subject_retain_facts", "int", "the subjects' other facts measured", False),
    ],
    "resurfacing": RUN_RESURFACING,   # docs/robustness.md
    "memorization": [
        ("facts", "int", "memorization run: facts measured", False),
        ("facts_measured", "int", "facts with a counterfactual to rank against", False),
        ("facts_memorized", "int", "facts whose ground truth ranks first", False),
        ("memorization_rate", "float", "facts_memorized / facts_measured", False),
        ("mean_strength", "float", "mean strength z* of the measured facts", False),
        ("sentences_scored", "int", "canary sentences scored", False),
        ("score_seconds", "float", "seconds spent scoring them", False),
        ("sentences_per_second", "float", "scoring throughput", False),
    ],
})

# -- (:EdgeResult) --------------------------------------------------------------------------------
EDGE_RESULT_PROPS = _declare("EdgeResult", {
    "identity": [
        ("key", "str", "`<run>/<edge key>`", False),
        ("run", "str", "the run's key", False),
        ("edge", "str", "the edge's key", False),
        ("graph", "str", "the edge's graph", False),
        ("head_key", "str", "head entity key (joins the edge through the entity index)", False),
        ("tail_key", "str", "tail entity key", False),
        ("role", "str", "`forget` or `retain` in this run", False),
        ("domain", "str", "the edge's domain (`sales`, `employment`, a Wikidata property label)", False),
        ("edge_degree", "int", "the edge's degree at run time", False),
        ("component", "int", "its connected component's index", False),
        ("component_density", "float", "that component's density", False),
        ("redundant", "bool", "text graphs: the retain corpus states the same fact (HANKER's E_conf)", False),
    ],
    "measures": [
        *[(name, "float", f"mean {name} over the edge's QA pairs (docs/metrics.md)", True) for name in QA_MEASURES],
        ("answers", "list[str]", "the greedy answers, in QA order", True),
        ("rouge1_qa", "list[float]", "ROUGE-1 recall per QA pair, in QA order", True),
        ("memorized_rouge1", "int", "memorization cases: answers with ROUGE-1 recall 1", True),
        ("memorized_semantic", "int", "memorization cases: answers the equivalence judge finds equivalent", True),
        ("memorized", "int", "memorization cases: either of the two (HANKER)", True),
    ],
    "sweep": [
        ("retain_rouge1_after", "float", "per-edge run: mean ROUGE-1 of every other edge after this edge's unlearning", False),
        ("neighbour_rouge1_after", "float", "per-edge run: the same over the edges sharing an entity with it", False),
        ("deviation_score", "float", "per-edge run: DS of this edge's unlearning", False),
        ("retain_edges_after", "list[str]", "per-edge run: the other edges, aligned with retain_rouge1_by_edge", False),
        ("retain_rouge1_by_edge", "list[float]", "per-edge run: each other edge's ROUGE-1 after this unlearning", False),
        ("utility_rouge1_after", "float", "per-edge run: utility ROUGE-1 after this unlearning", False),
        ("unlearn_seconds", "float", "per-edge run: wall time of this unlearning", False),
        ("unlearn_tokens", "int", "per-edge run: tokens it trained on", False),
        ("retained_rouge1_after", "float", "per-edge run: this edge's ROUGE-1 averaged over the unlearnings of the other edges", False),
        ("retained_in_unlearnings", "int", "per-edge run: how many unlearnings that average is over", False),
    ],
    "resurfacing": EDGE_RESURFACING,   # docs/robustness.md
})

# -- (:FactResult) --------------------------------------------------------------------------------
FACT_MEASURES = ("counterfactuals", "templates", "measured", "memorized", "rank", "strength", "margin",
                 "strict_rate", "lenient_rate", "top_value", "equal_values")
_FACT_DOCS = {
    "counterfactuals": ("int", "counterfactual values ranked against the ground truths"),
    "templates": ("int", "canary templates scored"),
    "measured": ("bool", "False when no counterfactual exists: nothing to rank against"),
    "memorized": ("bool", "a ground truth (or a value counted equal to one) ranks first"),
    "rank": ("int", "rank of the best ground truth by mean score (1 = first)"),
    "strength": ("float", "z*: the best ground truth's margin, standardised"),
    "margin": ("float", "Delta*: the best ground truth's margin over the best counterfactual"),
    "strict_rate": ("float", "share of templates where a ground truth ranks first"),
    "lenient_rate": ("float", "1.0 when any template ranks one first, else 0.0"),
    "top_value": ("str", "the value ranked first"),
    "equal_values": ("list[str]", "counterfactuals counted equal to a ground truth"),
}
FACT_RESULT_PROPS = _declare("FactResult", {
    "identity": [
        ("key", "str", "`<run>/<Q-id>/<P-id>`", False),
        ("run", "str", "the run's key", False),
        ("graph", "str", "the subject's graph", False),
        ("subject", "str", "the subject's Q-id", False),
        ("subject_key", "str", "its entity key", False),
        ("subject_name", "str", "its name", False),
        ("property", "str", "the P-id", False),
        ("property_label", "str", "its label", False),
        ("edges", "list[str]", "FACT keys of the ground-truth values", False),
        ("values", "list[str]", "the ground-truth texts", False),
        ("role", "str", "unlearning run: `forget` or `retain`", False),
    ],
    # `audit memorization` writes the measures as they are; `audit run` with a phase suffix
    "measure": [(name, type_, doc, False) for name, (type_, doc) in _FACT_DOCS.items()],
    "phased": [(name, type_, doc, True) for name, (type_, doc) in _FACT_DOCS.items()],
    "change": [
        ("strength_change", "float", "strength after - before", False),
        ("forgotten", "bool", "memorized before, not after", False),
    ],
})

# -- (:Experiment) --------------------------------------------------------------------------------
EXPERIMENT_PROPS = _declare("Experiment", {
    "identity": [
        ("key", "str", "the experiment's name (`name` in its file, or the file name)", False),
        ("file", "str", "the experiment file's absolute path", False),
        ("sha256", "str", "SHA-256 of the file: a changed file is refused unless `--replace`", False),
        ("description", "str", "the file's description", False),
        ("grid", "json", "the grid as read: graphs, selectors, methods, seeds, models, modes, rates, options", False),
    ],
    "progress": [
        ("status", "str", "`running`, `done`, `failed` or `interrupted`", False),
        ("started_at", "str", "UTC ISO time of the first start", False),
        ("resumed_at", "str", "UTC ISO time of the last resumption", False),
        ("ended_at", "str", "UTC ISO time it ended", False),
        ("error", "str", "why it failed", False),
        ("cells", "int", "cells in the grid (one run each)", False),
        ("cells_done", "int", "cells finished", False),
        ("lr_choices", "json", "the learning-rate protocol's choice per (graph, method, model), with its trials", False),
    ],
})

Run = _result_class("Run", RUN_PROPS,
                    "A ``(:Run)`` node: how a run was made, how it ended, and its summary.")
EdgeResult = _result_class("EdgeResult", EDGE_RESULT_PROPS,
                           "An ``(:EdgeResult)`` node: one edge's measures in one run.")
FactResult = _result_class("FactResult", FACT_RESULT_PROPS,
                           "A ``(:FactResult)`` node: one (subject, property) fact's memorization measure in one run.")
Experiment = _result_class("Experiment", EXPERIMENT_PROPS,
                           "An ``(:Experiment)`` node: a grid of runs from one file, linked ``-[:HAS_RUN]->``.")
NODES: tuple[type[ResultNode], ...] = (Run, EdgeResult, FactResult, Experiment)


def markdown_table(node: type[ResultNode]) -> str:
    """The node's properties as a Markdown table, grouped as declared."""
    lines = ["| property | type | group | meaning |", "| --- | --- | --- | --- |"]
    for p in node.PROPS:
        lines.append(f"| `{p.name}` | {p.type} | {p.group} | {p.doc} |")
    return "\n".join(lines)


def markdown() -> str:
    """docs/schema.md's result tables (between its ``result-schema`` markers):
    ``python -m audit.results.schema`` prints them."""
    parts = []
    for node in NODES:
        parts += [f"### `{node.LABEL}`", "", node.__doc__.strip(), "", markdown_table(node), ""]
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
