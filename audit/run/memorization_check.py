"""`audit memorization-check`: prove the memorization measure on facts we control.

Generates synthetic people, builds them into a graph, trains a scratch model on sentences about
every other person (the first, third, ... by Q-id), measures every person's facts with the
memorization run, and returns how well the measure separates the two groups. The graph, the
model folder and the run stay, so an unlearning run can forget a "person" the model knows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from audit.build import wikidata_graph
from audit.config import MemorizationConfig
from audit.measure.memorization.check import (TrainSettings, separation, split_subjects, train_sentence_model,
                                              training_sentences)
from audit.measure.memorization.subjects import load_subjects
from audit.models.load import select_hardware
from audit.questions.properties import load_registry
from audit.results.repository import read_fact_results
from audit.run.memorization import MemorizationRequest, run_memorization
from extract.wikidata.generate import generate_people
from extract.wikidata.write import write_entities
from graphstore import GraphStore
from graphstore.ingest import write_graph

WIKIMEM_PROPERTIES = ("P106", "P1412", "P19", "P21", "P27")

# The figures of a check, by the keys `--format csv|json` keeps, with the labels a table shows
# (``separation`` in audit/measure/memorization/check.py computes them; docs/wikidata.md).
FIGURE_LABELS = {
    "facts_injected": "facts measured, injected people (trained on)",
    "facts_other": "facts measured, other people (never seen)",
    "auroc_strength": "AUROC of the strength z*, injected vs other",
    "rank1_injected": "rank 1, injected people",
    "rank1_other": "rank 1, other people",
    "strict_injected": "strict, injected people",
    "strict_other": "strict, other people",
    "lenient_injected": "lenient, injected people",
    "lenient_other": "lenient, other people",
    "sentences_per_second": "sentences scored per second",
}
# What the labels mean, one line each, printed under the table.
FIGURE_NOTES = (
    "AUROC: the chance that a fact of an injected person has a higher strength z* than one of another person "
    "(1: always, 0.5: chance)",
    "rank 1: share of facts whose true value outscores every counterfactual, scores averaged over the templates "
    "(by chance 1/(counterfactuals + 1))",
    "strict: share of the templates, per fact, that rank the true value first, averaged over the facts",
    "lenient: share of facts where at least one template ranks the true value first",
)


@dataclass
class CheckRequest:
    """Everything `audit memorization-check` needs; the CLI fills it from its options."""
    out_dir: Path                       # the people file (<graph>.json) and the trained model (model/)
    people: int = 24
    seed: int = 0
    graph: str = "synthetic-people"     # replaced if it exists
    properties: list[str] = field(default_factory=list)   # empty: WIKIMEM_PROPERTIES
    size: str = "tiny"
    epochs: int = 30
    train_paraphrases: int = 2          # paraphrases per fact trained on besides the base sentence
    config: MemorizationConfig = field(default_factory=MemorizationConfig)
    run_id: str | None = None
    device: str = "auto"


@dataclass
class CheckOutcome:
    run: str
    model_dir: Path
    injected: list[str]                 # Q-ids of the people the model was trained on
    figures: dict                       # AUROC of the strength, rank-1 rates of both groups
    summary: dict                       # the memorization run's summary


def check_memorization(store: GraphStore, request: CheckRequest, report: Callable[[str], None]) -> CheckOutcome:
    """Generate, build, train, measure; see the module docstring."""
    request.out_dir.mkdir(parents=True, exist_ok=True)
    path = request.out_dir / f"{request.graph}.json"
    write_entities(generate_people(request.people, seed=request.seed), path)
    registry = load_registry()
    record, _ = wikidata_graph(path, request.graph, registry)
    hardware = select_hardware(request.device)
    write_graph(store, record, replace=True)
    subjects = load_subjects(store, request.graph)
    injected, _ = split_subjects(subjects)
    sentences = training_sentences(registry, subjects, injected, request.train_paraphrases)
    report(f"{request.graph}: {len(subjects)} people, {len(injected)} injected (first {injected[0]}); training "
           f"scratch:{request.size} on {len(sentences)} sentences for {request.epochs} epochs ({hardware.label})")
    model_dir = train_sentence_model(sentences, training_sentences(registry, subjects, sorted(subjects), 0),
                                     request.out_dir / "model", hardware,
                                     TrainSettings(size=request.size, epochs=request.epochs, seed=request.seed))
    properties = request.properties or list(WIKIMEM_PROPERTIES)
    run, summary = run_memorization(store, MemorizationRequest(
        graph=request.graph, model=str(model_dir), properties=properties, run_id=request.run_id,
        device=request.device, config=request.config), report=report)
    figures = separation(read_fact_results(store, run), set(injected))
    return CheckOutcome(run, model_dir, injected, figures, summary)


def figure_rows(outcome: CheckOutcome) -> list[tuple[str, str, object]]:
    """``(key, label, value)`` for every figure of the check, in ``FIGURE_LABELS`` order; a
    figure the separation lacks is left out; floats at full precision (the table rounds them)."""
    values = {**outcome.figures, "sentences_per_second": outcome.summary.get("sentences_per_second")}
    return [(key, label, values[key])
            for key, label in FIGURE_LABELS.items() if key in values]
