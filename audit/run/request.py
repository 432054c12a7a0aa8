"""What `audit run` is asked to do, and what it answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from audit.config import (EVAL_BATCH_SIZE, InjectionConfig, LocalizationConfig, MemorizationConfig, ResurfacingConfig,
                          TrainingDataConfig, UnlearnConfig)


@dataclass
class RunRequest:
    """Everything `audit run` needs; the CLI fills it from its options."""
    graph: str
    select: str | None = None
    cypher: str | None = None
    method: str = "npo"
    method_options: dict[str, str] = field(default_factory=dict)
    model: str = "scratch:tiny"
    retain: str = "all"
    utility: Path | None = None
    idk: Path | None = None
    per_edge: bool = False
    run_id: str | None = None
    device: str = "auto"
    eval_batch_size: int = EVAL_BATCH_SIZE
    equivalence: str | None = "embedding"   # judge of semantically equivalent answers; None: off
    memorization: MemorizationConfig = field(default_factory=MemorizationConfig)  # Wikidata graphs only
    cache_dir: Path = Path(".audit/cache")
    injection: InjectionConfig = field(default_factory=InjectionConfig)
    unlearn: UnlearnConfig = field(default_factory=UnlearnConfig)
    training: TrainingDataConfig = field(default_factory=TrainingDataConfig)   # what is trained on
    resurfacing: ResurfacingConfig = field(default_factory=ResurfacingConfig)   # checks after unlearning
    localization: LocalizationConfig = field(default_factory=LocalizationConfig)   # LACUNA's precision


@dataclass
class RunOutcome:
    run: str
    status: str
    resumed: bool
    summary: dict
    reading: list[str] = field(default_factory=list)   # the run in words (audit.measure.leakage.reading)
