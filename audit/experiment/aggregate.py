"""An experiment's table, from its runs on the graph: per cell (the grid without the seed), each
measure's mean and 95 % t interval over the seeds; and per forget edge, its deviation score
beside its edge degree and component density, with their rank correlations.

A grid with ``inject_seeds`` is nested: every unlearning seed runs on each of several injected
models. Its rows then take the interval over the injected models' means (the model is the unit
that was sampled) and report the variance components: between injected models, and between
unlearning seeds of one model (``components``).

Every value is read back from the graph (Run and EdgeResult nodes), so the table of a finished
experiment can be made again at any time, and a test can check it against its own Cypher.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from audit.experiment.cells import CELL
from audit.experiment.stats import Components, Correlation, Interval, components, spearman, t_interval
from audit.measure import metrics as M
from audit.results import repository as R
from audit.results.resurfaced import MIA_ATTACKS
from audit.results.schema import EdgeResult, phase_name
from graphstore import GraphStore
from graphstore.errors import ConfigError

LOCALIZATION_MEASURES = ("localization_auc_magnitude", "localization_auc", "localization_auc_unified",
                         "localization_auc_composite", "localization_auc_others")
RESURFACING_MEASURES = ("forget_rouge1_int8", "forget_rouge1_nf4", "retain_rouge1_int8", "retain_rouge1_nf4",
                        "relearn_rouge1", "relearn_control_rouge1", "relearn_gain", "forget_paraphrase_rouge1_after",
                        "forget_two_hop_rouge1_after", "resurfaced_int8", "resurfaced_nf4", "resurfaced_relearn",
                        "resurfaced_relearn_control", "resurfaced_paraphrase", "resurfaced_two_hop",
                        *(f"{a}_auc_forget_after" for a in MIA_ATTACKS))
# From the Run node: the run's own summary (docs/runs.md); forget_<measure>_after: the mean over
# the forget edges of each other per-edge measure after unlearning.
RUN_MEASURES = ("forget_rouge1_after", "retain_rouge1_after", "deviation_score", "forget_memorized_after",
                "utility_rouge1_after",
                # text graphs (HANKER): the same over the forget edges the retain corpus does not state
                "forget_rouge1_unique_after", "forget_memorized_unique_after", "forget_edges_redundant",
                "forget_semantic_rate_after", "forget_semantic_rate_unique_after",
                # HANKER's relative inflation (before: what injection left) and memorization cases by its
                # two criteria, over all forget edges and without the redundant ones (docs/runs.md)
                "forget_rouge1_inflation_after", "forget_rouge1_inflation_before",
                "forget_semantic_rate_inflation_after", "forget_semantic_rate_inflation_before",
                "forget_memorized_rouge1_after", "forget_memorized_rouge1_unique_after",
                "forget_memorized_rouge1_drop_after", "forget_memorized_rouge1_drop_before",
                "forget_memorized_semantic_after", "forget_memorized_semantic_unique_after",
                "forget_memorized_semantic_drop_after", "forget_qa_pairs_redundant_share",
                # resurfacing checks (docs/robustness.md)
                *RESURFACING_MEASURES,
                # localization precision (docs/localization.md): higher is better
                *LOCALIZATION_MEASURES)
EDGE_MEASURES = tuple(m for m in M.QA_MEASURES if m != "rouge1")
# LACUNA's premise (Sec. 4.3): precise unlearning resists resurfacing. Across the runs, the
# precision against what relearning brought back (forget ROUGE-1 after it, and its gain on the control).
# Forget ROUGE-1 after relearning also rises where unlearning forgot little: read it beside the
# count of forgotten edges that came back.
LINK = (("localization_auc_magnitude", "relearn_rouge1"), ("localization_auc_magnitude", "resurfaced_relearn"),
        ("localization_auc_magnitude", "relearn_gain"), ("localization_auc", "relearn_rouge1"))
MEASURES = RUN_MEASURES + tuple(f"forget_{m}_after" for m in EDGE_MEASURES)
# (the inflations, drops and the redundant share measure the audit set's bias: neither direction is better)
LOWER_IS_BETTER = {"forget_rouge1_after", "deviation_score", "forget_memorized_after", "forget_rouge1_unique_after",
                   "forget_memorized_unique_after", "forget_semantic_rate_after", "forget_semantic_rate_unique_after",
                   "forget_memorized_rouge1_after", "forget_memorized_rouge1_unique_after",
                   "forget_memorized_semantic_after", "forget_memorized_semantic_unique_after",
                   *(f"forget_{m}_after" for m in EDGE_MEASURES),
                   # membership AUCs: 0.5 is the goal (like never seen), neither direction
                   *(m for m in RESURFACING_MEASURES if not m.startswith("retain_") and "_auc_" not in m)}
STRUCTURE = ("edge_degree", "component_density")
# the measures whose variance components a nested grid reports
COMPONENT_MEASURES = ("forget_rouge1_after", "retain_rouge1_after", "deviation_score")


@dataclass
class CellRow:
    """One row of the table: a cell of the grid and its runs, one per seed."""
    cell: str
    graph: str
    selector: str
    method: str
    lr: float | None
    model: str
    mode: str
    options: str = ""                 # the method options of the cell ("beta=0.1"), "" for the defaults
    runs: list[str] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    values: dict[str, list[float]] = field(default_factory=dict)     # measure -> one value per run
    inject_seeds: list[int | None] = field(default_factory=list)     # the injected model of each run
    # (injected model, unlearning seed) -> that run's measures
    by_seeds: dict[tuple[int | None, int], dict[str, float]] = field(default_factory=dict)

    def nested(self) -> bool:
        """Several unlearning seeds on one injected model, and more than one model (grid.inject_seeds)."""
        models = set(self.inject_seeds)
        return 1 < len(models) < len(self.inject_seeds)

    def interval(self, measure: str) -> Interval | None:
        """Mean and 95 % t interval over the seeds; in a nested grid, over the injected models' means."""
        if self.nested():
            c = self.components(measure)
            return None if c is None else Interval(c.mean, c.low, c.high, c.models)
        return t_interval(self.values.get(measure, []))

    def components(self, measure: str) -> Components | None:
        """Between injected models and between unlearning seeds of one model (stats.components)."""
        pairs = [(seeds, v[measure]) for seeds, v in self.by_seeds.items() if v.get(measure) is not None]
        return components([v for _, v in pairs], [seeds[0] for seeds, _ in pairs])

    def paper_deviation_score(self) -> float | None:
        """PISTOL's DS of the cell, as its tables give it (Qiu, Shen et al., Sec. 4): from the mean
        forget and retained ROUGE-1 over the seeds. ``deviation_score`` is the mean of the runs'
        own scores, never smaller (the score is convex) and larger the more the runs differ. Every run
        weighs the same here; a nested row's interval weighs every injected model the same, so with
        unequal runs per model the two means differ slightly."""
        forget, retain = self.values.get("forget_rouge1_after"), self.values.get("retain_rouge1_after")
        if not forget or not retain or len(forget) != len(retain):
            return None
        return M.deviation_score(M.mean(forget), M.mean(retain))


@dataclass
class EdgePoint:
    """A forget edge's deviation score in one run, beside its structure."""
    run: str
    cell: str
    method: str
    edge: str
    edge_degree: int
    component_density: float
    deviation_score: float


def run_values(props: dict, results: list[EdgeResult]) -> dict[str, float]:
    """One run's measures, from its Run node's ``props`` and its ``results``: its summary, the
    forget edges' mean of every other measure, and the retained edges' ROUGE-1 per domain
    (``retain_rouge1_after_<domain>``: PISTOL's domain skew), also over the retained edges of
    the domain in another connected component than the forget edge (``..._<domain>_independent``:
    PISTOL's Table 4 measures its "independent retained" sales E*_F* and employment E*_q* edges,
    which share no entity, directly or through other edges, with the forget edge A_C or A_n)."""
    out = {m: props[m] for m in RUN_MEASURES if props.get(m) is not None}
    forget = [r for r in results if r.role == "forget"]
    for m in EDGE_MEASURES:
        values = [r.get(phase_name(m, "after")) for r in forget]
        if forget and all(v is not None for v in values):
            out[f"forget_{m}_after"] = M.mean(values)
    domain = {r.edge: r.domain for r in results}
    component = {r.edge: r.component for r in results}
    by_domain: dict[str | None, list[float]] = {}
    if props.get("mode") == "per-edge":
        # each forget edge's unlearning measured every other edge: average those of each domain
        forget_edges = {f.edge for f in forget}
        for r in forget:
            for edge, value in zip(r.retain_edges_after or [], r.retain_rouge1_by_edge or []):
                if edge not in forget_edges:
                    by_domain.setdefault(domain[edge], []).append(value)
                    if None not in (component[edge], r.component) and component[edge] != r.component:
                        by_domain.setdefault(f"{domain[edge]}_independent", []).append(value)
    else:
        forgotten = {f.component for f in forget}
        for r in results:
            if r.role == "retain" and r.rouge1_after is not None:
                by_domain.setdefault(r.domain, []).append(r.rouge1_after)
                if r.component is not None and None not in forgotten and r.component not in forgotten:
                    by_domain.setdefault(f"{r.domain}_independent", []).append(r.rouge1_after)
    for d, values in sorted(by_domain.items()):
        out[f"retain_rouge1_after_{d}"] = M.mean(values)
    return out


def read_experiment(store: GraphStore, experiment: str,
                    runs: set[str] | None = None) -> tuple[list[CellRow], list[EdgePoint]]:
    """The table's rows and the per-edge points of the experiment's finished cell runs (the
    lr-protocol trials left out), each run's EdgeResults read once.

    ``runs``: count only these (``runner.current_runs``: the grid of the file as it is now).
    Rows are sorted by graph, selector, method, options, model, mode and rate.
    """
    if R.get_experiment(store, experiment) is None:
        raise ConfigError(f"no experiment {experiment!r}; audit experiment FILE runs one")
    rows: dict[str, CellRow] = {}
    points: list[EdgePoint] = []
    for link in R.experiment_runs(store, experiment):
        props = link["props"]
        if link["role"] != CELL or props.get("status") != R.DONE or (runs is not None and link["run"] not in runs):
            continue
        results = R.read_results(store, link["run"])
        unlearn = json.loads(props.get("unlearn_config") or "{}")
        row = rows.setdefault(link["cell"], CellRow(link["cell"], props["graph"], props.get("selector"),
                                                    props["method"], unlearn.get("lr"), props["model"],
                                                    props.get("mode", "joint"), _options_of(link["cell"])))
        injected = json.loads(props.get("injection_config") or "{}").get("seed")
        row.runs.append(link["run"])
        row.seeds.append(unlearn.get("seed"))
        row.inject_seeds.append(injected)
        measured = run_values(props, results)
        row.by_seeds[(injected, unlearn.get("seed"))] = measured
        for name, value in measured.items():
            row.values.setdefault(name, []).append(value)
        points += _edge_points(link, results)
    return (sorted(rows.values(), key=lambda r: (r.graph, r.selector, r.method, r.options, r.model, r.mode,
                                                 r.lr or 0.0)), points)


def _options_of(cell: str) -> str:
    """The method options of a cell's group (``npo[beta=0.1]`` -> ``beta=0.1``; none -> ``""``)."""
    method = cell.split(" ")[2]
    return method[method.index("[") + 1:-1] if "[" in method else ""


def _edge_points(link: dict, results: list[EdgeResult]) -> list[EdgePoint]:
    """Per forget edge of one run, its deviation score: the edge's own in a per-edge run, the
    run's in a joint run of a single forget edge (a joint run of several has no per-edge score)."""
    props = link["props"]
    forget = [r for r in results if r.role == "forget"]
    per_edge = props.get("mode") == "per-edge"
    points = []
    for r in forget:
        score = r.deviation_score if per_edge else (props.get("deviation_score") if len(forget) == 1 else None)
        if r.edge is None or r.edge_degree is None or r.component_density is None:
            continue   # not an edge's result as a run writes it (edge_props gives every one its structure)
        if score is not None:
            points.append(EdgePoint(link["run"], link["cell"], props["method"], r.edge, r.edge_degree,
                                    r.component_density, score))
    return points


def correlations(points: list[EdgePoint]) -> dict[str, dict[str, Correlation]]:
    """Spearman's ρ of the deviation score with each structure measure: over all points
    (``all``) and per method; the bootstrap resamples edges (each measured once per seed)."""
    groups = {"all": points}
    for p in points:
        groups.setdefault(p.method, []).append(p)
    return {name: {s: spearman([getattr(p, s) for p in group], [p.deviation_score for p in group],
                               clusters=[p.edge for p in group])
                   for s in STRUCTURE} for name, group in groups.items()}


def table(rows: list[CellRow]) -> tuple[list[str], list[list]]:
    """Columns and rows: per cell, the seeds, PISTOL's deviation score (of the means), and
    ``<measure>`` (mean), ``<measure>_low``, ``<measure>_high`` for every measure some run has
    (``MEASURES``, then the per-domain ones)."""
    extra = sorted({m for r in rows for m in r.values} - set(MEASURES))
    present = [m for m in (*MEASURES, *extra) if any(r.values.get(m) for r in rows)]
    columns = ["graph", "selector", "method", "options", "lr", "model", "mode", "seeds", "injected_models",
               "deviation_score_paper"]
    for m in present:
        columns += [m, f"{m}_low", f"{m}_high"]
    out = []
    for r in rows:
        line = [r.graph, r.selector, r.method, r.options, r.lr, r.model, r.mode, len(r.runs),
                len(set(r.inject_seeds)), r.paper_deviation_score()]
        for m in present:
            i = r.interval(m)
            line += [i.mean, i.low, i.high] if i else [None, None, None]
        out.append(line)
    return columns, out


def components_table(rows: list[CellRow]) -> tuple[list[str], list[list]]:
    """Per nested row and main measure: the mean over injected models with its interval, and the
    standard deviations between models and between unlearning seeds of one model, with the share
    of the variance between models. Empty when no row is nested."""
    columns = ["graph", "selector", "method", "options", "lr", "model", "measure", "injected_models", "runs",
               "mean", "low", "high", "sd_between_models", "sd_between_seeds", "share_between_models"]
    out = []
    for r in rows:
        if not r.nested():
            continue
        for m in COMPONENT_MEASURES:
            c = r.components(m)
            if c is None:
                continue
            sd = [None if v is None else v ** 0.5 for v in (c.between_models, c.within_models)]
            out.append([r.graph, r.selector, r.method, r.options, r.lr, r.model, m, c.models, c.runs, c.mean,
                        c.low, c.high, *sd, c.share_between()])
    return columns, out


@dataclass
class PairedRow:
    """``measure`` of selector ``a`` minus selector ``b``, run by run with the same seed (the same
    injected model), in one cell of the other axes: a paired comparison, tighter than two
    intervals side by side."""
    method: str
    options: str
    lr_a: float | None
    lr_b: float | None
    model: str
    mode: str
    measure: str
    differences: list[float]       # one per seed both selectors ran
    models: list[int | None] = field(default_factory=list)   # the injected model of each difference

    def interval(self) -> Interval | None:
        """A paired t interval over seeds; over the injected models' mean differences in a nested grid."""
        if 1 < len(set(self.models)) < len(self.models):
            c = components(self.differences, self.models)
            return None if c is None else Interval(c.mean, c.low, c.high, c.models)
        return t_interval(self.differences)


def paired(rows: list[CellRow], a: str, b: str, measure: str) -> list[PairedRow]:
    """Per method (options, model, mode), ``measure`` of selector ``a`` minus ``b``, matched by seed
    (and injected model)."""
    out = []
    by_key: dict[tuple, dict[str, CellRow]] = {}
    for r in rows:
        by_key.setdefault((r.graph, r.method, r.options, r.model, r.mode), {})[r.selector] = r
    for (graph, method, options, model, mode), selectors in sorted(by_key.items()):
        if a not in selectors or b not in selectors:
            continue
        ra, rb = selectors[a], selectors[b]
        units = sorted((u for u in set(ra.by_seeds) & set(rb.by_seeds)
                        if measure in ra.by_seeds[u] and measure in rb.by_seeds[u]),
                       key=lambda u: (-1 if u[0] is None else u[0], u[1]))
        differences = [ra.by_seeds[u][measure] - rb.by_seeds[u][measure] for u in units]
        out.append(PairedRow(method, options, ra.lr, rb.lr, model, mode, measure, differences,
                             [u[0] for u in units]))
    return out


def localization_link(rows: list[CellRow]) -> list[list]:
    """LACUNA's link between precision and resurfacing, over every run of the experiment: per pair
    of ``LINK``, Spearman's ρ with its 95 % bootstrap interval, and the number of runs. Methods,
    rates and models are pooled, and runs are resampled as if independent: with one injected
    model (``inject_seed``) the interval covers the unlearning seeds' spread only, and ρ mostly
    tells the methods apart. Empty when the runs have no localization or no relearning."""
    out = []
    for precision, resurfaced in LINK:
        pairs = [(v[precision], v[resurfaced]) for r in rows for v in r.by_seeds.values()
                 if v.get(precision) is not None and v.get(resurfaced) is not None]
        x, y = [a for a, _ in pairs], [b for _, b in pairs]
        if x:
            c = spearman(x, y)
            out.append([precision, resurfaced, c.rho, c.low, c.high, c.n])
    return out
