"""The data of ``audit view``'s page: a run's graph with each edge's leakage, cut to a readable size.

Entities are the nodes, the run's edges the edges; every edge carries the score and status of
``audit.measure.leakage`` (the one definition every view shares) and a few more measures for the
details panel, and its colour: the colour of its status in ``audit.views.palette`` (the one
palette of every view), so the colour changes exactly at the thresholds. An edge whose score
lies within the thresholds' ``margin`` of one is flagged borderline. The page itself is
written by ``audit.views.page``.

The cut (``max_edges``, 0 = none): a run with more edges than the limit keeps every forget edge,
then the retained edges touching an entity of a forget edge, most damaged first, then the other
retained edges, most damaged first, up to the limit. Forget edges are never dropped, so a run
with more forget edges than the limit shows all of them and no retained edge.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from audit.results.resurfaced import RESURFACED_FLAGS
from audit.results.schema import PHASES, EdgeResult, Run, phase_name
from audit.run.readings import resurfacing_reading, stored_summary
from audit.measure.leakage import FORGET_STATUSES, STATUSES, EdgeLeakage, LeakageThresholds, RunLeakage
from audit.results.leakage import run_leakage
from audit.views.palette import STATUS_LABELS, UNMEASURED_COLOUR, status_colour
from graphstore import GraphStore
from graphstore.errors import ConfigError

DEFAULT_MAX_EDGES = 2000

RESURFACED_COUNTS = RESURFACED_FLAGS + ("resurfaced_relearn_control",)   # on the Run: counts of forget edges
# Run properties shown in the page's header, in order (those the run has).
RUN_FIELDS = tuple(Run.check(["key", "graph", "method", "mode", "selector", "model", "status", "started_at",
                               "ended_at"]))
SUMMARY_FIELDS = tuple(Run.check(["forget_rouge1_before", "forget_rouge1_after", "retain_rouge1_before",
                                  "retain_rouge1_after", "deviation_score", "utility_rouge1_before",
                                  "utility_rouge1_after", "swept_edges", "forget_edges_forgotten",
                                  *RESURFACED_COUNTS, "localization_auc_magnitude", "localization_auc",
                                  "localization_score"]))
# Extra measures of an EdgeResult shown in the details panel (those the result has).
EXTRA_MEASURES = tuple(EdgeResult.check(
    [phase_name(m, phase) for m in ("answer_probability", "mrr", "top100", "exact_memorization", "extraction_strength",
                                    "memorized", "memorized_rouge1", "memorized_semantic") for phase in PHASES]
    + ["retain_rouge1_after", "neighbour_rouge1_after", "retained_rouge1_after", "retained_in_unlearnings"]
    + EdgeResult.scalar_names("resurfacing")
    + ["mask_group", "localization_auc_magnitude", "localization_auc", "localization_score"]))


@dataclass
class ViewNode:
    key: str
    name: str
    degree: int               # edges of the run touching the entity (before the cut)
    shown: int                # of those, the edges on the page
    forget: bool              # touches a forget edge
    hops: int                 # shown edges to the nearest forget entity: 0, 1, or 2 for further or none


@dataclass
class ViewEdge:
    key: str
    head_key: str
    tail_key: str
    head: str
    tail: str
    role: str                 # forget / retain
    domain: str
    status: str | None        # one of audit.measure.leakage.STATUSES; None: not measured
    score: float | None       # forget: leakage (ROUGE-1 after); retain: damage (ROUGE-1 drop)
    edge_degree: int
    component: int
    component_density: float
    rouge1_before: float | None
    rouge1_after: float | None
    deviation_score: float | None
    colour: str               # its status's colour (audit.views.palette.status_colour)
    borderline: str | None    # the threshold its score lies within the margin of, or None
    measures: dict = field(default_factory=dict)   # EXTRA_MEASURES the result has


@dataclass
class ViewData:
    """Everything the page shows."""
    run: dict                 # RUN_FIELDS and SUMMARY_FIELDS of the Run node
    nodes: list               # [ViewNode]
    edges: list               # [ViewEdge], forget edges first
    total_edges: int          # edges of the run before the cut
    max_edges: int            # the cut's limit (0 = none)
    counts: dict              # status -> edges of the whole run
    thresholds: LeakageThresholds
    borderline: int           # edges of the whole run within the margin of a threshold
    note: str | None = None   # the cut, in words; None when nothing was cut
    resurfacing: str | None = None   # the resurfacing checks in words (audit.run.summaries); None without checks

    def as_json(self) -> dict:
        return {"run": self.run, "nodes": [asdict(n) for n in self.nodes], "edges": [asdict(e) for e in self.edges],
                "total_edges": self.total_edges, "max_edges": self.max_edges, "counts": self.counts,
                "borderline": self.borderline, "thresholds": self.thresholds.as_dict(), "note": self.note,
                "resurfacing": self.resurfacing,
                "statuses": list(STATUSES), "legend": legend(self.thresholds), "unmeasured_colour": UNMEASURED_COLOUR}


# -- the legend: each status, its colour and the range of scores it stands for -------------------
def status_ranges(thresholds: LeakageThresholds) -> dict[str, str]:
    """Each status's range of scores in words, from the thresholds in use (``docs/leakage.md``).

    Example: with the defaults, ``status_ranges(t)["partly_forgotten"]`` is
    ``"forget edge, 0.2 < ROUGE-1 after < 0.8"``.
    """
    t = thresholds
    return {"leaked": f"forget edge, ROUGE-1 after ≥ {t.leaked:g}",
            "partly_forgotten": f"forget edge, {t.forgotten:g} < ROUGE-1 after < {t.leaked:g}",
            "forgotten": f"forget edge, ROUGE-1 after ≤ {t.forgotten:g}",
            "damaged": f"retained edge, ROUGE-1 drop ≥ {t.damaged:g}",
            "kept": f"retained edge, ROUGE-1 drop < {t.damaged:g}"}


def legend(thresholds: LeakageThresholds) -> list[dict]:
    """The legend's rows, one per status in ``STATUSES`` order: status, label, colour, the role
    of the edges it applies to (forget / retain) and its range."""
    ranges = status_ranges(thresholds)
    return [{"status": s, "label": STATUS_LABELS[s], "colour": status_colour(s),
             "role": "forget" if s in FORGET_STATUSES else "retain", "range": ranges[s]} for s in STATUSES]


# -- the cut -------------------------------------------------------------------------------------
def cut_edges(edges: list[EdgeLeakage], max_edges: int) -> list[EdgeLeakage]:
    """The edges the page shows (see the module docstring); ``max_edges`` 0 keeps all.

    Example: 3 forget edges, 5,000 retained and ``max_edges=2000``: the 3 forget edges, then
    the retained edges sharing an entity with them by damage, then the rest by damage, 2,000 in all.
    """
    if max_edges < 0:
        raise ConfigError(f"--max-edges {max_edges}: must be 0 (no cut) or a positive number of edges")
    if not max_edges or len(edges) <= max_edges:
        return list(edges)
    forget = [e for e in edges if e.role == "forget"]
    entities = {k for e in forget for k in (e.head_key, e.tail_key)}
    retained = sorted((e for e in edges if e.role != "forget"), key=_by_damage)
    near = [e for e in retained if e.head_key in entities or e.tail_key in entities]
    far = [e for e in retained if not (e.head_key in entities or e.tail_key in entities)]
    room = max(0, max_edges - len(forget))
    return forget + (near + far)[:room]


def _by_damage(edge: EdgeLeakage) -> tuple:
    # most damaged first; unmeasured last; ties by key so the cut is the same every time
    return (edge.score is None, -(edge.score or 0.0), edge.edge)


# -- building the page's data --------------------------------------------------------------------
def build_view(leakage: RunLeakage, results: list[EdgeResult] | None = None,
               max_edges: int = DEFAULT_MAX_EDGES) -> ViewData:
    """The page's data from a run's leakage (and, for the details panel, its raw EdgeResults).

    Args:
        leakage: ``audit.results.leakage.run_leakage`` of the run.
        results: ``audit.results.repository.read_results`` of the run; only ``EXTRA_MEASURES`` are taken.
        max_edges: the cut's limit; 0 shows every edge.
    """
    shown = cut_edges(leakage.edges, max_edges)
    extra = {r["edge"]: {k: r[k] for k in EXTRA_MEASURES if r.get(k) is not None} for r in results or []}
    degree: dict[str, int] = {}
    names: dict[str, str] = {}
    for e in leakage.edges:
        for key, name in ((e.head_key, e.head), (e.tail_key, e.tail)):
            degree[key] = degree.get(key, 0) + 1
            names[key] = name
    on_page: dict[str, int] = {}
    forget_entities = set()
    for e in shown:
        for key in (e.head_key, e.tail_key):
            on_page[key] = on_page.get(key, 0) + 1
            if e.role == "forget":
                forget_entities.add(key)
    hops = _hops(shown, forget_entities)
    nodes = [ViewNode(k, names[k], degree[k], on_page[k], k in forget_entities, hops[k]) for k in sorted(on_page)]
    edges = [ViewEdge(e.edge, e.head_key, e.tail_key, e.head, e.tail, e.role, e.domain, e.status, e.score,
                      e.edge_degree, e.component, e.component_density, e.rouge1_before, e.rouge1_after,
                      e.deviation_score, status_colour(e.status), e.borderline, extra.get(e.edge, {}))
             for e in shown]
    run = {k: leakage.run[k] for k in RUN_FIELDS + SUMMARY_FIELDS if leakage.run.get(k) is not None}
    total = len(leakage.edges)
    reading = resurfacing_reading(stored_summary(leakage.run))
    return ViewData(run, nodes, edges, total, max_edges, leakage.counts(), leakage.thresholds,
                    sum(e.borderline is not None for e in leakage.edges), _note(edges, total, max_edges),
                    reading.removeprefix("resurfacing: ") if reading else None)


def _hops(edges: list[EdgeLeakage], forget_entities: set[str]) -> dict[str, int]:
    hops = {k: 2 for e in edges for k in (e.head_key, e.tail_key)}
    hops.update({k: 0 for k in forget_entities})
    for e in edges:
        for a, b in ((e.head_key, e.tail_key), (e.tail_key, e.head_key)):
            if a in forget_entities and b not in forget_entities:
                hops[b] = 1
    return hops


def _note(shown: list[ViewEdge], total: int, max_edges: int) -> str | None:
    if len(shown) == total:
        return None
    forget = sum(e.role == "forget" for e in shown)
    return (f"showing {len(shown)} of {total} edges: all {forget} forget edge{'s' if forget != 1 else ''}, "
            f"then the retained edges touching their entities, then the other retained edges, most damaged "
            f"first (--max-edges {max_edges}; 0 shows all)")


def load_view(store: GraphStore, run: str, thresholds: LeakageThresholds | None = None,
              max_edges: int = DEFAULT_MAX_EDGES) -> ViewData:
    """The page's data of ``run`` from the store.

    Raises:
        ConfigError: no such run, a run without per-edge results, or a negative ``max_edges``.
    """
    if max_edges < 0:
        raise ConfigError(f"--max-edges {max_edges}: must be 0 (no cut) or a positive number of edges")
    leakage = run_leakage(store, run, thresholds)
    return build_view(leakage, leakage.results, max_edges)


def default_output(run: str) -> Path:
    """``<run>.html`` in the current folder, with characters unsafe in a file name replaced by ``_``."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", run).lstrip(".") or "run"
    return Path(f"{name}.html")
