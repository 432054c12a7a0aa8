"""The result nodes' properties, declared once: every property a run writes, by node label.

One declaration per node label: ``Run``, ``EdgeResult``, ``FactResult`` and ``Experiment``. From
them ``audit/results/generate.py`` writes the typed dataclasses of ``audit/results/schema.py`` (a
generated module, so mypy sees every property with its type) and ``docs/schema.md``'s result
tables; ``tests/audit/results/test_schema.py`` fails when either is out of date. Writers
(``audit.results.repository``) refuse a property that is not declared here or a value not of its
declared type, and readers (``ResultNode.from_props``) refuse a stored value of the wrong type.

The measures' properties come from their declarations (``audit.measure.measures``, and the per-QA
means from the metric registry, ``audit.measure.metrics.QA_MEANS``), which say their level, type,
direction and meaning once; the properties that are not measures (a run's identity, settings and
training figures, an experiment's) are declared here as ``(name, type, doc, phased)``. A measure
taken before and after unlearning is declared once with ``phased=True`` and becomes two
properties, ``<name>_before`` and ``<name>_after`` (``phase_name``). Every property is optional:
a run writes each phase as soon as it has it, so a node read half-way holds only some of them.

Reading is typed and checked: ``result.rouge1_after`` is the property, and the mapping forms
(``result["edge"]``, ``result.get("rouge1_after")``, ``"rouge1_after" in result``) refuse a name
the schema does not declare instead of quietly answering ``None``. Properties a node holds that
this version does not declare (written by another version) are kept in ``extra``.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from audit.measure.measures import (EDGE_LOCALIZATION, EDGE_MEASURES, EDGE_RESURFACING, EDGE_SWEEP, FACT_CHANGE,
                                    FACT_MEASURES, PHASES, RUN_LOCALIZATION, RUN_MEMORIZATION, RUN_RESURFACING,
                                    RUN_SUMMARY, Measure, phase_name)
from audit.measure.metrics import QA_MEANS

from graphstore.errors import ConfigError

__all__ = ["PHASES", "phase_name", "Prop", "ResultNode", "DECLARATIONS", "ANNOTATIONS"]

# What a value of each declared type may be, before it is stored (``storable`` turns a JSON
# value into text). A flag is not a number, though Python's bool is an int; an int is a float's
# value (PEP 484's numeric tower), not the other way round.
_SCALARS: dict[str, type] = {"int": numbers.Integral, "float": numbers.Real, "str": str, "bool": bool}
_JSON = (dict, list, tuple, str, numbers.Real)
# The annotations of the result classes' fields, as written in the generated module (every one
# optional: a node read half-way lacks some). A JSON value is stored as text and read back as it was
# stored (``repository.plain`` parses it).
ANNOTATIONS: dict[str, str] = {"int": "int | None", "float": "float | None", "str": "str | None",
                               "bool": "bool | None", "json": "Any", "list[str]": "list[str] | None",
                               "list[float]": "list[float] | None"}


def _is(value: Any, type_: str) -> bool:
    if type_ != "bool" and isinstance(value, bool):
        return False
    return isinstance(value, _SCALARS[type_])


@dataclass(frozen=True)
class Prop:
    """One declared property: its name, type, meaning, and the group it belongs to (with the
    measure it stores, for a measure's property)."""
    name: str
    type: str
    doc: str
    group: str
    measure: Measure | None = None

    def admits(self, value: Any) -> bool:
        """Whether ``value`` is of the declared type (None, which removes a property, always is)."""
        if value is None:
            return True
        if self.type == "json":
            return isinstance(value, _JSON)
        if self.type.startswith("list["):
            return isinstance(value, (list, tuple)) and all(_is(v, self.type[5:-1]) for v in value)
        return _is(value, self.type)


Entry = tuple[str, str, str, bool] | Measure


def _declare(label: str, level: str | None, groups: dict[str, list[Entry] | tuple[Entry, ...]]) -> tuple[Prop, ...]:
    """Expand a node's declaration, by group: a measure (``audit.measure.measures``) of the node's
    level, or ``(name, type, doc, phased)`` for a property that is not a measure."""
    props = []
    for group, entries in groups.items():
        for entry in entries:
            if isinstance(entry, Measure):
                assert entry.level == level, f"{label}: {entry.name} is a {entry.level} measure"
                props += [Prop(n, entry.type, entry.meaning, group, entry) for n in entry.names]
            else:
                name, type_, doc, phased = entry
                names = [phase_name(name, p) for p in PHASES] if phased else [name]
                props += [Prop(n, type_, doc, group) for n in names]
    seen = [p.name for p in props]
    duplicate = {n for n in seen if seen.count(n) > 1}
    assert not duplicate, f"{label}: declared twice: {duplicate}"
    return tuple(props)


class ResultNode(Mapping[str, Any]):
    """Common behaviour of the result dataclasses (``audit.results.schema``): checked mapping
    access, checked reading, conversion."""
    LABEL: ClassVar[str]
    PROPS: ClassVar[tuple[Prop, ...]]
    DECLARED: ClassVar[dict[str, Prop]]    # name -> Prop, for the checks
    extra: dict[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.DECLARED = {p.name: p for p in cls.PROPS}

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
    def check(cls, names: Iterable[str]) -> list[str]:
        """``names`` as a list; raises ``KeyError`` naming any the schema does not declare."""
        names = list(names)
        unknown = [n for n in names if n not in cls.DECLARED]
        if unknown:
            raise KeyError(f"{cls.LABEL} declares no propert{'y' if len(unknown) == 1 else 'ies'} "
                           f"{', '.join(unknown)} (audit/results/declarations.py)")
        return names

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> Any:
        """The node read from the graph (the generated class, typed: ``Run.from_props(...)`` is a
        ``Run``).

        Raises:
            ConfigError: a stored value not of its declared type (written by hand, or by a version
                that declared it otherwise); the message names the node, the property and the type.
        """
        declared = cls.DECLARED
        known = {k: v for k, v in props.items() if k in declared}
        for name, value in known.items():
            if not declared[name].admits(value):
                shown = repr(value) if len(repr(value)) <= 60 else f"{repr(value)[:57]}..."
                raise ConfigError(f"{cls.LABEL} {props.get('key')!r}: stored property {name!r} is declared "
                                  f"{declared[name].type}, holds {type(value).__name__} {shown} "
                                  "(audit/results/declarations.py)")
        node: Any = cls   # a generated subclass: its fields are the declared names
        return node(**known, extra={k: v for k, v in props.items() if k not in declared})

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


# -- (:Run) ---------------------------------------------------------------------------------------
RUN_PROPS = _declare("Run", "run", {
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
        ("localization_config", "json", "the localization measure's options (`--localization`, docs/localization.md)",
         False),
        ("leakage_thresholds", "json", "thresholds of the leakage statuses last written (docs/leakage.md)", False),
    ],
    "injection": [
        ("injection_key", "str", "cache key of the injected model", False),
        ("injection_epochs", "int", "epochs the injection trained", False),
        ("injection_reached", "bool", "whether every edge reached the injection target", False),
        ("injection_min_rouge1", "float", "lowest edge ROUGE-1 after injection", False),
        ("mask_groups", "json", "masked injection: how the groups were chosen (forget, component, entity, edge) and "
                                "each group's edges", False),
        ("injection_masks", "json", "masked injection: the masks' kind, share asked, each group's actual share of the "
                                    "attention and MLP weights, weights masked", False),
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
    "summary": RUN_SUMMARY,
    "localization": RUN_LOCALIZATION,   # docs/localization.md
    "resurfacing": RUN_RESURFACING,   # docs/robustness.md
    "memorization": RUN_MEMORIZATION,
})

# -- (:EdgeResult) --------------------------------------------------------------------------------
EDGE_RESULT_PROPS = _declare("EdgeResult", "edge", {
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
        ("mask_group", "int", "masked injection: the group whose weights the edge was trained into", False),
    ],
    "measures": [*QA_MEANS, *EDGE_MEASURES],
    "sweep": EDGE_SWEEP,
    "localization": EDGE_LOCALIZATION,   # per-edge run: this edge's unlearning
    "resurfacing": EDGE_RESURFACING,   # docs/robustness.md
})

# -- (:FactResult) --------------------------------------------------------------------------------
FACT_RESULT_PROPS = _declare("FactResult", "fact", {
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
    "measure": FACT_MEASURES,
    "phased": [dataclasses.replace(m, phased=True) for m in FACT_MEASURES],
    "change": FACT_CHANGE,
})

# -- (:Experiment) --------------------------------------------------------------------------------
EXPERIMENT_PROPS = _declare("Experiment", None, {
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

# label -> (its properties, its docstring): what audit/results/generate.py writes a class for.
DECLARATIONS: dict[str, tuple[tuple[Prop, ...], str]] = {
    "Run": (RUN_PROPS, "A ``(:Run)`` node: how a run was made, how it ended, and its summary."),
    "EdgeResult": (EDGE_RESULT_PROPS, "An ``(:EdgeResult)`` node: one edge's measures in one run."),
    "FactResult": (FACT_RESULT_PROPS,
                   "A ``(:FactResult)`` node: one (subject, property) fact's memorization measure in one run."),
    "Experiment": (EXPERIMENT_PROPS, "An ``(:Experiment)`` node: a grid of runs from one file, linked ``-[:HAS_RUN]->``."),
}
