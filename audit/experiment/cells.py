"""Running an experiment: its graphs, the learning-rate protocol, then every cell as an
ordinary `audit run`, linked to one ``(:Experiment)`` node.

Resumable like a run: started again, finished cells are skipped (their runs are complete with
the same settings) and an unfinished one resumes. The file's SHA-256 is the experiment's
identity: a changed file under the same name is refused unless ``replace``, which unlinks the
runs the new grid no longer has (the runs stay, for `audit runs`).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from audit.build import PistolSource, TextSource, build_graph
from audit.config import ResurfacingConfig, TrainingDataConfig
from audit.experiment.grid import Cell, chosen_rates, expand, protocol_trials, trial_run_id
from audit.experiment.run_table import (TRAINING_OPTIONS, injection_config, localization_config, resurfacing_config,
                                       unlearn_config)
from audit.experiment import workers as W
from audit.experiment.spec import ExperimentSpec
from audit.results import repository as R
from audit.run.qa import load_graph_edges
from audit.run.request import RunRequest
from audit.run.runner import run_audit
from audit.run.selectors import select
from graphstore import GraphStore
from audit.results import queries as RQ
from graphstore import queries as Q
from graphstore.errors import ConfigError
from graphstore.settings import ConnectionSettings

CELL, TRIAL = "cell", "lr-protocol"


@dataclass
class ExperimentOutcome:
    experiment: str
    cells: int
    ran: int           # cells run (or resumed) by this call
    skipped: int       # cells already complete
    lr_choices: list[dict]


def current_runs(store: GraphStore, spec: ExperimentSpec) -> set[str]:
    """The run ids of the file's grid as it is now (with the protocol's recorded rates): the
    table counts these only, never a run an earlier version of the file made."""
    node = R.get_experiment(store, spec.name)
    chosen = chosen_rates(node.lr_choices if node is not None else None)
    return {cell.run_id(spec.name, spec.run) for cell in expand(spec, chosen)}


def run_experiment(store: GraphStore, spec: ExperimentSpec, cache_dir: Path, replace: bool = False,
                   report: Callable[[str], None] = print, workers: W.Workers | None = None,
                   settings: ConnectionSettings | None = None) -> ExperimentOutcome:
    """Run (or resume) every cell of ``spec``; see the module docstring.

    Raises:
        ConfigError: the experiment exists from another version of its file (without ``replace``),
            or a graph is missing and the file says not how to build it.
    """
    existing = R.get_experiment(store, spec.name)
    if existing is not None and existing.sha256 != spec.sha256:
        if not replace:
            was = existing.sha256[:12] if existing.sha256 is not None else "not recorded"
            raise ConfigError(f"experiment {spec.name!r} was run from another version of {existing.file} "
                              f"(sha256 {was}, now {spec.sha256[:12]}); give --replace to run the "
                              "new grid (finished cells it keeps are reused), or another name")
    cluster = None
    if workers is not None:   # the cluster and what each worker needs: checked before anything is written
        if settings is None:
            raise ValueError("workers open their own connections: pass the store's settings")
        cluster = W.start(workers, settings)
    try:
        if cluster is not None:
            report(cluster.describe())
        return _run(store, spec, cache_dir, replace, report, existing, cluster, settings)
    finally:
        if cluster is not None:
            W.stop()


def _run(store, spec: ExperimentSpec, cache_dir: Path, replace: bool, report, existing, cluster,
         settings) -> ExperimentOutcome:
    _ensure_graphs(store, spec, report)
    _check_selectors(store, spec)   # a bad cell is refused before the Experiment node is written
    now = R.now()
    R.update_experiment(store, spec.name, file=str(spec.path), sha256=spec.sha256, description=spec.description,
                      grid=_grid_record(spec), status=R.RUNNING, error=None, cells_done=None, ended_at=None,
                      **({"resumed_at": now} if existing is not None else {"started_at": now}))
    try:
        choices = _lr_protocol(store, spec, cache_dir, report) if spec.lr_protocol else []
        cells = expand(spec, {(c["graph"], c["method"], c["model"]): c["lr"] for c in choices})
        ids = [cell.run_id(spec.name, spec.run) for cell in cells]
        if existing is not None and replace:
            _unlink_others(store, spec.name, set(ids) | {t["run"] for c in choices for t in c["trials"]})
        R.update_experiment(store, spec.name, cells=len(cells), lr_choices=choices)
        ran, skipped = _run_cells(store, spec, cells, ids, cache_dir, report, cluster, settings)
    except KeyboardInterrupt:
        R.update_experiment(store, spec.name, status=R.INTERRUPTED, ended_at=R.now())
        raise
    except Exception as e:
        R.update_experiment(store, spec.name, status=R.FAILED, ended_at=R.now(), error=str(e)[:500])
        raise
    R.update_experiment(store, spec.name, status=R.DONE, ended_at=R.now(), cells_done=len(cells))
    return ExperimentOutcome(spec.name, len(cells), ran, skipped, choices)


def _grid_record(spec: ExperimentSpec) -> dict:
    return {"graphs": [g.name for g in spec.graphs], "selectors": list(spec.selectors), "methods": list(spec.methods),
            "seeds": list(spec.seeds), "models": list(spec.models), "per_edge": list(spec.per_edge),
            "lrs": list(spec.lrs) if spec.lrs else None, "method_options": spec.method_options, "run": spec.run,
            **({"inject_seeds": list(spec.inject_seeds)} if spec.inject_seeds else {})}


def _ensure_graphs(store: GraphStore, spec: ExperimentSpec, report) -> None:
    """Every graph exists: missing ones without a file are refused before any is built; those
    with a file are built (or found unchanged: the same content writes nothing)."""
    known = {r["key"] for r in store.read(Q.GRAPH_LIST)}
    missing = [g.name for g in spec.graphs if not g.source_files and g.name not in known]
    if missing:
        raise ConfigError(f"experiment {spec.name!r}: no graph {missing[0]!r}; build it (audit build) or give "
                          f"its file in the experiment ([[graphs]] pistol = ..., or forget = [...])")
    for g in spec.graphs:
        if g.source_files:
            source = PistolSource((g.pistol,), g.split, g.variant) if g.pistol is not None else TextSource(g.forget, g.retain)
            summary = build_graph(store, source, g.name)[0].summary
            assert summary is not None   # written
            if summary.status != "unchanged":
                report(f"graph {g.name}: {summary.status} from "
                       f"{g.pistol or ', '.join(str(p) for p in g.forget + g.retain)}")


def _check_selectors(store: GraphStore, spec: ExperimentSpec) -> None:
    """Every selector of the grid (and the protocol's) selects edges on every graph, every seed."""
    selectors = set(spec.selectors) | ({spec.lr_protocol.selector} if spec.lr_protocol else set())
    for g in spec.graphs:
        edges = list(load_graph_edges(store, g.name))
        for selector in sorted(selectors):
            for seed in spec.seeds:
                try:
                    select(store, g.name, edges, selector, None, seed)
                except ConfigError as e:
                    raise ConfigError(f"experiment {spec.name!r}, graph {g.name}: {e}") from e


def request_for(spec: ExperimentSpec, cell: Cell, run_id: str, cache_dir: Path, checks: bool = True) -> RunRequest:
    """The `audit run` of one cell: the cell's axes and the file's [run] options."""
    o = spec.run
    injection, unlearn = injection_config(o, cell.seed, cell.inject_seed), unlearn_config(o, cell.lr, cell.seed)
    equivalence = o.get("equivalence", "embedding")
    return RunRequest(
        graph=cell.graph, select=cell.selector, method=cell.method,
        method_options={k: str(v) for k, v in cell.options}, model=cell.model, retain=o.get("retain", "all"),
        utility=Path(o["utility"]) if "utility" in o else None, idk=Path(o["idk"]) if "idk" in o else None,
        per_edge=cell.per_edge, run_id=run_id, device=o.get("device", "auto"),
        eval_batch_size=o.get("eval_batch_size", RunRequest.eval_batch_size),
        equivalence=None if equivalence == "none" else equivalence, cache_dir=cache_dir,
        injection=injection, unlearn=unlearn,
        training=TrainingDataConfig(**{k: o[k] for k in TRAINING_OPTIONS if k in o}),
        resurfacing=resurfacing_config(o, cell.seed) if checks else ResurfacingConfig(),   # not on the rate protocol's trials
        localization=localization_config(o, cell.seed))


def _run_cell(store, spec, cell: Cell, run_id: str, cache_dir: Path, role: str, report) -> dict:
    """Run one cell and link it; returns its Run summary. A complete run is not redone, but
    only `audit run` itself says so: it compares the settings digest (graph content, prompt,
    judge, rates), so a stale run is refused, never silently reused."""
    run_audit(store, request_for(spec, cell, run_id, cache_dir, checks=role == CELL),
              report=lambda line: report(f"  {line}"))
    store.write(RQ.EXPERIMENT_LINK_RUN, experiment=spec.name, run=run_id, role=role, cell=cell.group())
    return dict(R.require_run(store, run_id))


def run_cell(store: GraphStore, spec: ExperimentSpec, cell: Cell, run_id: str, cache_dir: Path) -> dict:
    """One cell of the grid, quietly: what an experiment's worker runs (``workers``)."""
    return _run_cell(store, spec, cell, run_id, cache_dir, CELL, lambda line: None)


def _run_cells(store, spec, cells: list[Cell], ids: list[str], cache_dir: Path, report,
               cluster: W.Cluster | None = None, settings: ConnectionSettings | None = None) -> tuple[int, int]:
    work = []
    for position, (cell, run_id) in enumerate(zip(cells, ids), 1):
        node = R.get_run(store, run_id)
        if node is not None and node.status == R.DONE:
            _run_cell(store, spec, cell, run_id, cache_dir, CELL, lambda line: None)   # checked, not redone
        else:
            work.append((position, cell, run_id))
    if cluster is not None:
        assert settings is not None   # the workers open their own connections
        for position, cell, run_id in work:
            report(f"cell {position}/{len(cells)}: {cell.group()} seed {cell.seed} (run {run_id}) sent to a worker")
        finished = W.run_cells(cluster, settings, spec, work, cache_dir, run_cell)
    else:
        finished = _one_by_one(store, spec, work, len(cells), cache_dir, report)
    for done, (position, cell, run_id, summary, took, where) in enumerate(finished, 1):
        R.update_experiment(store, spec.name, cells_done=len(cells) - len(work) + done)
        report(f"cell {position}/{len(cells)} done in {_duration(took)}{where}: forget ROUGE-1 "
               f"{_fmt(summary.get('forget_rouge1_after'))}, retained {_fmt(summary.get('retain_rouge1_after'))}, "
               f"deviation score {_fmt(summary.get('deviation_score'), 1)}")
    return len(work), len(cells) - len(work)


def _one_by_one(store, spec, work, total: int, cache_dir: Path, report):
    """The cells in this process, in order, each announced with the time left."""
    seconds: list[float] = []
    for n, (position, cell, run_id) in enumerate(work):
        # the median cell, not the mean: a cell that trained a new injected model is an outlier
        eta = f"; about {_duration((len(work) - n) * statistics.median(seconds))} left" if seconds else ""
        model = f", injected model {cell.inject_seed}" if cell.inject_seed is not None else ""
        report(f"cell {position}/{total}: {cell.group()} seed {cell.seed}{model} (run {run_id}){eta}")
        started = time.perf_counter()
        summary = _run_cell(store, spec, cell, run_id, cache_dir, CELL, report)
        seconds.append(time.perf_counter() - started)
        yield position, cell, run_id, summary, seconds[-1], ""


def _lr_protocol(store, spec: ExperimentSpec, cache_dir: Path, report) -> list[dict]:
    """PISTOL Sec. 5 as this tool applies it: for each (graph, method, model), one run per rate
    of the protocol's grid on its forget set and seed; the chosen rate forgets most (lowest
    forget ROUGE-1) among those that keep the retained ROUGE-1 at or above the threshold; when
    none does, the rate that keeps the most (highest retained ROUGE-1), said so in the record.
    Trials are joint runs with the method's default options: the rate is chosen once per
    method and model and held for every option set and mode of the grid."""
    p = spec.lr_protocol
    if p is None:   # no protocol: no rates to choose
        return []
    choices = []
    for graph in (g.name for g in spec.graphs):
        for method in spec.methods:
            for model in spec.models:
                trials = []
                for cell in protocol_trials(spec, graph, method, model):
                    lr, run_id = cell.lr, trial_run_id(spec, cell)
                    report(f"lr protocol: {method} on {graph} ({model}), lr {lr:g} (run {run_id})")
                    summary = _run_cell(store, spec, cell, run_id, cache_dir, TRIAL, report)
                    trials.append({"lr": lr, "run": run_id, "forget_rouge1": summary.get("forget_rouge1_after"),
                                   "retain_rouge1": summary.get("retain_rouge1_after")})
                    report(f"lr protocol: {method} lr {lr:g}: forget ROUGE-1 {_fmt(trials[-1]['forget_rouge1'])}, "
                           f"retained {_fmt(trials[-1]['retain_rouge1'])}")
                best, met = choose_rate(trials, p.retain_threshold)
                choices.append({"graph": graph, "method": method, "model": model, "lr": best["lr"],
                                "met_threshold": met, "threshold": p.retain_threshold, "trials": trials})
                report(f"lr protocol: {method} on {graph} ({model}) -> lr {best['lr']:g}"
                       + ("" if met else f" (no rate kept retained ROUGE-1 >= {p.retain_threshold}: the one "
                                         "that kept the most)"))
    return choices


def choose_rate(trials: list[dict], threshold: float) -> tuple[dict, bool]:
    """The protocol's choice among ``trials`` (``lr``, ``forget_rouge1``, ``retain_rouge1``), and
    whether it met the threshold: the lowest forget ROUGE-1 among the trials whose retained
    ROUGE-1 is at least ``threshold`` (ties: more retained, then the smaller rate); when none
    is, the highest retained ROUGE-1 (ties: the smaller rate)."""
    kept = [t for t in trials if (t["retain_rouge1"] or 0.0) >= threshold]
    if kept:
        return min(kept, key=lambda t: (t["forget_rouge1"], -t["retain_rouge1"], t["lr"])), True
    return max(trials, key=lambda t: (t["retain_rouge1"] or 0.0, -t["lr"])), False


def _unlink_others(store, name: str, keep: set[str]) -> None:
    for row in R.experiment_runs(store, name):
        if row["run"] not in keep:
            store.write(RQ.EXPERIMENT_UNLINK_RUN, experiment=name, run=row["run"])


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def _fmt(value, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"
