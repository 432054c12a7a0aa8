"""The cells of an experiment: every combination of the grid's axes, each one `audit run`."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from audit.experiment.run_table import PATH_OPTIONS
from audit.experiment.spec import ExperimentSpec

RESULT_NEUTRAL = ("device", "eval_batch_size")   # change no result: not part of a run's identity
PROTOCOL_SUFFIX = "-lr"   # the protocol's trials are runs of the experiment "<name>-lr"


@dataclass(frozen=True)
class Cell:
    """One run of the grid. ``lr`` None: the method's default rate for the model."""
    graph: str
    selector: str
    method: str
    options: tuple[tuple[str, object], ...]
    lr: float | None
    model: str
    per_edge: bool
    seed: int
    inject_seed: int | None = None   # grid.inject_seeds: the injected model this seed unlearns from

    def group(self) -> str:
        """The cell without its seeds (unlearning and injection): the row of the aggregate table
        its runs are averaged into."""
        options = self.options_text()
        parts = [self.graph, self.selector, self.method + (f"[{options}]" if options else ""),
                 f"lr={self.lr:g}" if self.lr is not None else "lr=default", self.model,
                 "per-edge" if self.per_edge else "joint"]
        return " ".join(parts)

    def options_text(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.options)

    def run_id(self, experiment: str, run_options: dict) -> str:
        """A stable run id: the same cell of the same experiment is the same run (so it resumes),
        and any change to the cell or to what the runs share is another run. Files count by their
        content, not their path (a moved checkout keeps its ids); the device and the evaluation
        batch size change no result and are left out."""
        cell = asdict(self)
        if cell["inject_seed"] is None:
            del cell["inject_seed"]   # the ids of grids without inject_seeds stay what they were
        text = json.dumps({"experiment": experiment, "cell": cell, "run": run_identity(run_options)},
                          sort_keys=True, default=str)
        return f"{experiment}-{self.method}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def chosen_rates(lr_choices: str | None) -> dict[tuple[str, str, str], float]:
    """The protocol's rate per (graph, method, model) from an Experiment node's ``lr_choices``
    (JSON; None before the protocol has run): ``expand``'s ``chosen_lrs``."""
    choices = json.loads(lr_choices) if lr_choices else []
    return {(c["graph"], c["method"], c["model"]): c["lr"] for c in choices}


def protocol_trials(spec: ExperimentSpec, graph: str, method: str, model: str) -> list[Cell]:
    """The learning-rate protocol's trials for one (graph, method, model): a joint run per rate
    of the method's grid, with its default options, on the protocol's selector and seed (on the
    first injected model of a nested grid, as PISTOL chose rates on one model). Their run ids:
    ``trial_run_id``."""
    p = spec.lr_protocol
    if p is None:
        return []
    inject_seed = spec.inject_seeds[0] if spec.inject_seeds else None
    return [Cell(graph, p.selector, method, (), lr, model, False, p.seed, inject_seed) for lr in p.grid_for(method)]


def trial_run_id(spec: ExperimentSpec, cell: Cell) -> str:
    return cell.run_id(spec.name + PROTOCOL_SUFFIX, spec.run)


def run_identity(run_options: dict) -> dict:
    """The shared [run] options as they identify a run: files by their SHA-256."""
    out = {}
    for key, value in run_options.items():
        if key in RESULT_NEUTRAL:
            continue
        out[key] = hashlib.sha256(Path(value).read_bytes()).hexdigest() if key in PATH_OPTIONS else value
    return out


def expand(spec: ExperimentSpec, chosen_lrs: dict[tuple[str, str, str], float] | None = None) -> list[Cell]:
    """Every cell of the grid, in a fixed order (graphs, selectors, methods, options, models,
    rates, modes, injected models, then seeds innermost, so a group's seeds run one after another
    and each injected model is trained once and then reused from the cache).

    ``chosen_lrs``: the learning-rate protocol's rate per (graph, method, model), used where the
    grid gives no rates.
    """
    chosen_lrs = chosen_lrs or {}
    cells = []
    for graph, selector, method in itertools.product((g.name for g in spec.graphs), spec.selectors, spec.methods):
        for options in spec.method_options.get(method, ({},)):
            for model in spec.models:
                lrs = spec.lrs or (chosen_lrs.get((graph, method, model)),)
                for lr, per_edge, inject_seed, seed in itertools.product(lrs, spec.per_edge,
                                                                         spec.inject_seeds or (None,), spec.seeds):
                    cells.append(Cell(graph, selector, method, tuple(sorted(options.items())), lr, model, per_edge,
                                      seed, inject_seed))
    return cells
