"""Leakage per edge of a run: what survived unlearning, and where the damage fell.

One definition serves every view (Neo4j Browser, ``audit view``, ``audit report``, ``audit compare``)
and the run's own reading; reading a run's results from the store is ``audit/results/leakage.py``:

- a **forget** edge's leakage score is its ROUGE-1 recall after unlearning (``rouge1_after``;
  1 = the answers still state the fact). It is ``leaked`` at or above ``leaked`` (default 0.8),
  ``forgotten`` at or below ``forgotten`` (default 0.2), ``partly_forgotten`` in between;
- a **retained** edge's damage is its ROUGE-1 drop, ``rouge1_before - rouge1_after`` (for a
  per-edge sweep, ``rouge1_before - retained_rouge1_after``: its recall averaged over the
  unlearnings of other edges). It is ``damaged`` when the drop reaches ``damaged`` (default
  0.2), else ``kept``.

ROUGE-1 recall is the PISTOL/TOFU measure of whether an answer still carries the fact
(``docs/metrics.md``). The thresholds are settings, recorded wherever statuses are written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from graphstore.errors import ConfigError

STATUSES = ("leaked", "partly_forgotten", "forgotten", "damaged", "kept")
FORGET_STATUSES = STATUSES[:3]


@dataclass(frozen=True)
class LeakageThresholds:
    """Where a score changes status."""
    leaked: float = field(default=0.8, metadata={"help": "forget ROUGE-1 after at or above this: leaked"})
    forgotten: float = field(default=0.2, metadata={"help": "forget ROUGE-1 after at or below this: forgotten"})
    damaged: float = field(default=0.2, metadata={"help": "retained ROUGE-1 drop at or above this: damaged"})
    margin: float = field(default=0.05, metadata={
        "help": "a score this close to a threshold (or closer) is flagged borderline: one token more or less "
                "in a 20-token answer moves ROUGE-1 recall by 0.05, so its status could go either way"})

    def __post_init__(self):
        if not 0.0 <= self.forgotten < self.leaked <= 1.0:
            raise ConfigError(f"leakage thresholds: need 0 <= forgotten ({self.forgotten}) < leaked "
                              f"({self.leaked}) <= 1")
        if not 0.0 < self.damaged <= 1.0:
            raise ConfigError(f"leakage threshold damaged = {self.damaged}: must be in (0, 1]")
        if not 0.0 <= self.margin < 0.5:
            raise ConfigError(f"leakage margin = {self.margin}: must be in [0, 0.5)")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class EdgeLeakage:
    """One edge of a run, as every view shows it."""
    edge: str
    head_key: str
    tail_key: str
    head: str                 # entity names
    tail: str
    role: str                 # forget / retain
    domain: str
    edge_degree: int
    component: int
    component_density: float
    rouge1_before: float | None
    rouge1_after: float | None
    score: float | None       # forget: leakage (ROUGE-1 after); retain: damage (drop); None: not measured
    status: str | None        # one of STATUSES; None when not measured
    deviation_score: float | None = None   # per-edge sweeps: the edge's own unlearning
    borderline: str | None = None          # the threshold the score lies within the margin of (see borderline())

    @property
    def measured(self) -> bool:
        return self.status is not None


@dataclass
class RunLeakage:
    run: Mapping[str, Any]    # the Run node's properties
    edges: list               # [EdgeLeakage], forget edges first, then by key
    thresholds: LeakageThresholds
    results: list = field(default_factory=list)   # the EdgeResult nodes (audit.results.schema), every stored measure

    def counts(self) -> dict:
        return {s: sum(e.status == s for e in self.edges) for s in STATUSES}


def classify(result: Mapping[str, Any], thresholds: LeakageThresholds) -> tuple[float | None, str | None]:
    """(score, status) of one EdgeResult (see the module docstring)."""
    before = result.get("rouge1_before")
    if result.get("role") == "forget":
        after = result.get("rouge1_after")
        if after is None:
            return None, None
        status = ("leaked" if after >= thresholds.leaked else "forgotten" if after <= thresholds.forgotten
                  else "partly_forgotten")
        return float(after), status
    after = result.get("rouge1_after", result.get("retained_rouge1_after"))
    if before is None or after is None:
        return None, None
    drop = float(before) - float(after)
    return drop, "damaged" if drop >= thresholds.damaged else "kept"


def borderline(role: str, score: float | None, thresholds: LeakageThresholds) -> str | None:
    """The threshold a score lies within ``thresholds.margin`` of, or None: ``"forgotten"`` for a
    forget edge at ROUGE-1 0.23 (threshold 0.2), ``"damaged"`` for a retained edge that dropped
    0.17. Such an edge's status could go either way with one token or one seed; views flag it.

    Example: ``borderline("forget", 0.23, LeakageThresholds())`` is ``"forgotten"``;
    ``borderline("forget", 0.5, LeakageThresholds())`` is None.
    """
    if score is None:
        return None
    near = ((("forgotten", thresholds.forgotten), ("leaked", thresholds.leaked)) if role == "forget"
            else (("damaged", thresholds.damaged),))
    # a tiny tolerance so that a score exactly one margin away (0.25 vs 0.2) counts, whatever the rounding
    hits = [(abs(score - at), name) for name, at in near if abs(score - at) <= thresholds.margin + 1e-9]
    return min(hits)[1] if hits else None


UNMOVED = 0.05   # a forget ROUGE-1 change smaller than this is "did not move"


def reading(leakage: RunLeakage, summary: dict) -> list[str]:
    """A run in words: the first line always, e.g. ``forgot 2 of 2 forget edges (0 partly, 0
    leaked); 3 of 10 retained edges damaged; deviation score 141 -> 48 (lower is better)``;
    then one line for each thing a reader must not miss (forgetting that did not move,
    memorization the canary measure still finds)."""
    counts, t = leakage.counts(), leakage.thresholds
    forget = sum(counts[s] for s in FORGET_STATUSES)
    retained = counts["damaged"] + counts["kept"]
    sweep = leakage.run.get("mode") == "per-edge"
    ds_before, ds_after = summary.get("deviation_score_before"), summary.get("deviation_score_after",
                                                                              summary.get("deviation_score"))
    score = (f"deviation score {ds_before:.0f} -> {ds_after:.0f}" if ds_before is not None and ds_after is not None
             else f"deviation score {ds_after:.0f}{' per swept edge, on average' if sweep else ''}"
             if ds_after is not None else "no deviation score")
    lines = [f"forgot {counts['forgotten']} of {forget} {'swept' if sweep else 'forget'} edge(s) "
             f"(ROUGE-1 <= {t.forgotten:g}; {counts['partly_forgotten']} partly, {counts['leaked']} leaked at >= {t.leaked:g}); "
             f"{counts['damaged']} of {retained} retained edge(s) damaged (ROUGE-1 down >= {t.damaged:g}); "
             f"{score} (lower is better, 0 = perfect)"]
    near = [e for e in leakage.edges if e.borderline]
    if near:
        lines.append(f"{len(near)} edge(s) within {t.margin:g} of a threshold, so their status could go either way "
                     f"(borderline: {', '.join(e.edge for e in near[:5])}{', ...' if len(near) > 5 else ''}); "
                     "another seed tells more (audit experiment)")
    if retained and counts["damaged"] == retained and retained > 1:
        lines.append("every retained edge was damaged: the unlearning reached far beyond the forget set. Try a "
                     "lower --lr or fewer --epochs, or a method with a retain term (gd, kl, idk)")
    before, after = summary.get("forget_rouge1_before"), summary.get("forget_rouge1_after")
    if before is not None and after is not None and before - after < UNMOVED:
        config = json.loads(leakage.run.get("unlearn_config") or "{}")
        lines.append(f"forget ROUGE-1 did not move ({before:.3f} -> {after:.3f}): try a higher --lr (this run: "
                     f"{config.get('lr', '?')}), more --epochs (this run: {config.get('epochs', '?')}), "
                     "or another --method")
    facts_before, facts_after = summary.get("forget_facts_memorized_before"), summary.get("forget_facts_memorized_after")
    if facts_before is not None and facts_after is not None:
        total = summary.get("forget_facts", "?")
        if facts_after < facts_before:
            lines.append(f"memorization (canary measure): {facts_before} of {total} forget facts memorized before, "
                         f"{facts_after} after")
        elif facts_before:
            lines.append(f"memorization (canary measure) did not fall: {facts_before} of {total} forget facts "
                         f"memorized before, {facts_after} after. The measure reads sentences about the facts, "
                         "which unlearning their questions barely reaches: --train-on canaries unlearns the "
                         "sentences themselves (docs/wikidata.md)")
    return lines
