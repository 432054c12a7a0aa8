"""One model, one property registry, one graph's subjects: the memorization measure on demand."""

from __future__ import annotations

import time

from audit.config import MemorizationConfig
from audit.measure.equivalence import load_judge
from audit.measure.likelihood import SentenceScorer
from audit.measure.memorization.canaries import Subject, value_pools
from audit.measure.memorization.ranking import FactMeasure, measure_facts
from audit.questions.properties import PropertyRegistry


class Measurer:
    """One model, one registry, one graph's subjects: measures facts on demand. ``audit run``
    keeps one and calls it before and after unlearning."""

    def __init__(self, model, tokenizer, registry: PropertyRegistry, subjects: dict[str, Subject],
                 config: MemorizationConfig):
        config.check()
        self.registry = registry
        self.subjects = subjects
        self.pools = value_pools(subjects)
        self.config = config
        self.scorer = SentenceScorer(model, tokenizer, config.batch_size)
        self.judge = load_judge(config.equivalence) if config.equivalence else None

    def use_model(self, model) -> None:
        """Measure with another model from now on (the unlearned one): its own scorer, so no
        cached likelihood of the old model is reused; the pools and the judge stay."""
        self.scorer = SentenceScorer(model, self.scorer.tokenizer, self.config.batch_size)

    def measure(self, targets: list[tuple[str, str]], progress: str | None = None) -> tuple[list[FactMeasure], dict]:
        """The measures, and throughput figures (sentences scored, seconds, sentences per second)."""
        before = self.scorer.scored
        started = time.perf_counter()
        measures = measure_facts(self.scorer, self.registry, self.subjects, self.pools, targets, self.config,
                                 self.judge, progress)
        seconds = time.perf_counter() - started
        scored = self.scorer.scored - before
        return measures, {"sentences_scored": scored, "score_seconds": round(seconds, 2),
                          "sentences_per_second": round(scored / seconds, 1) if seconds > 0 else None}
