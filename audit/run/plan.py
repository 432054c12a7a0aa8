"""The plan of one `audit run`: everything checked, loaded and settled before anything runs.

``plan(store, request)`` refuses what can be refused (an unknown graph, selector, method
option, model path, a text-trained sweep edge without training data) and settles the rest:
the learning rate, the forget and retain sets, the training data, the hardware, the judge, and
the settings whose digest identifies the run. It writes nothing; the run's phases
(``audit/run/phases.py``) and its lifecycle (``audit/run/lifecycle.py``) do.

Two settings are left out of the digest when at their defaults, so that runs made before they
existed still resume with the same digest (``training_settings``, ``resurfacing_settings``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path

import torch

from audit.config import INT64_MAX, ResurfacingConfig, TrainingDataConfig, apply_options, as_dict, parse_scratch
from audit.measure.equivalence import Judge, load_judge
from audit.models.defaults import model_width
from audit.models.encoding import PROMPT_VERSION
from audit.models.load import Hardware, check_model_path, select_hardware
from audit.results import repository as R
from audit.run import training_data as T
from audit.run.methods import default_unlearn_lr, method_class
from audit.run.methods.base import Method
from audit.run.groups import EdgeGroups, edge_groups
from audit.run.qa import load_graph_edges, load_refusals, load_utility, retain_edges
from audit.run.request import RunRequest
from audit.run.selectors import Selection, select
from audit.types import Edge, QAExample
from graphstore import GraphStore
from graphstore.errors import ConfigError


@dataclass(frozen=True)
class RunPlan:
    """One run, validated and settled: what its phases share, fixed before anything runs."""
    request: RunRequest                      # the learning rate filled in (``lr_source`` says how)
    given_lr: float | None                   # the rate as given: None when the default was taken
    lr_source: str
    key: str                                 # the Run node's key
    method: Method
    graph_info: dict
    edges: dict[str, Edge]
    selection: Selection
    train_retain: list[str]
    utility: list[QAExample]
    refusals: list[str]
    data: T.TrainingData
    sweep_data: dict[str, T.TrainingData]   # per-edge runs on text: each forget edge's own training data
    hardware: Hardware
    judge: Judge | None
    settings: dict                           # what identifies the run: its digest decides resume or refuse
    groups: EdgeGroups | None = None         # a masked injection's groups of edges (--mask-groups)

    @property
    def forget(self) -> list[str]:
        return self.selection.edges

    @property
    def training_hardware(self) -> Hardware:
        """Where unlearning trains: full-parameter unlearning keeps float32 weights (in bf16 a small
        step rounds away; in fp16 AdamW's eps underflows and an unmoved weight becomes NaN)."""
        if self.request.unlearn.adapter == "full":
            return dataclasses.replace(self.hardware, dtype=torch.float32)
        return self.hardware

    @property
    def run_dir(self) -> Path:
        return self.request.cache_dir / "runs" / self.key

    @property
    def settings_sha256(self) -> str:
        return R.settings_sha256(self.settings)

    def start_props(self) -> dict:
        """The Run node's properties beyond the settings, written when it is created or resumed."""
        request, lock_path = self.request, self.run_dir / "run.lock"
        return {
            "mode": "per-edge" if request.per_edge else "joint", "templates": self.graph_info.get("templates"),
            "retain_edges": len(self.train_retain), "seed": request.unlearn.seed,
            "pairing": f"seeded: random.Random('{request.unlearn.seed}/pair/<epoch>/<step>'); "
                       f"log {self.run_dir / 'pairing.jsonl'}",
            "hardware": self.hardware.label, "metric_definitions": "metrics.v1", "lock": str(lock_path),
            **self.data.record(),
            "training_config": self.settings.get("training_config"),
            "resurfacing_config": self.settings.get("resurfacing_config"),
        }


def plan(store: GraphStore, request: RunRequest) -> RunPlan:
    """Check and settle ``request``; reads the graph and loads files, writes nothing.

    Raises:
        ConfigError: anything that can be refused before the run starts; the message names it.
    """
    graph_info = store.graph(request.graph)   # refuses an unknown graph, naming the known ones
    edges = load_graph_edges(store, request.graph)
    selection = select(store, request.graph, list(edges), request.select, request.cypher, request.unlearn.seed)
    method = method_class(request.method)(apply_options(method_class(request.method).config_class(),
                                                        request.method_options, f"method {request.method}"))
    request.unlearn.check()
    request.resurfacing.check()
    request.injection.check(request.model)
    request.localization.check()
    groups = check_masking(request, method, edges, selection.edges)
    if not 1 <= request.eval_batch_size <= INT64_MAX:
        raise ConfigError(f"--eval-batch-size {request.eval_batch_size}: must be a positive whole number")
    given_lr, lr_source = request.unlearn.lr, "given"
    if given_lr is None:
        width = model_width(request.model)
        lr_source = f"the default for {method.name} on a model of width {width if width is not None else 'unknown'}"
        if request.unlearn.adapter == "full":   # the defaults were measured on LoRA adapters
            lr_source += ("; chosen for LoRA adapters, and full-parameter unlearning may need another: "
                          "give --lr (docs/localization.md)")
        request = dataclasses.replace(request, unlearn=dataclasses.replace(
            request.unlearn, lr=default_unlearn_lr(method.name, request.model)))
    forget = selection.edges
    train_retain = retain_edges(edges, forget, request.retain, request.unlearn.seed)
    texts = T.TrainingTexts.load(store, request.graph, graph_info["source"], edges, request.training,
                                 method.uses_refusal)
    data = texts.choose(forget, train_retain, request.retain)
    # a sweep unlearns each edge on its own: each must have training data before anything runs
    sweep_data = {edge: texts.choose([edge], [k for k in train_retain if k != edge], request.retain)
                  for edge in forget} if request.per_edge and request.training.text else {}
    utility = load_utility(request.utility) if request.utility else []
    refusal_version, refusals = load_refusals(request.idk) if method.uses_refusal else (None, [])
    hardware = select_hardware(request.device)
    if parse_scratch(request.model) is None:
        check_model_path(request.model)
    judge = load_judge(request.equivalence) if request.equivalence else None
    settings = {
        "graph": request.graph, "graph_sha256": graph_info["sha256"], "selector": selection.spec,
        "cypher": selection.cypher, "forget_edges": forget, "method": method.name,
        "method_config": as_dict(method.config), "unlearn_config": request.unlearn.identity(),
        "injection_config": request.injection.identity(), "model": request.model, "retain": request.retain,
        "utility": str(request.utility) if request.utility else None,
        "utility_sha256": _sha256(request.utility) if request.utility else None,
        "refusals": refusal_version, "per_edge": request.per_edge, "prompt_version": PROMPT_VERSION,
        "equivalence": judge.version if judge else None,
        "memorization_config": request.memorization.identity() if graph_info["source"] == "wikidata" else None,
        **training_settings(request.training), **resurfacing_settings(request.resurfacing),
        **({"localization_config": as_dict(request.localization)} if request.localization.enabled else {}),
    }
    return RunPlan(request, given_lr, lr_source, R.run_key(request.run_id, request.graph, method.name), method,
                   graph_info, edges, selection, train_retain, utility, refusals, data, sweep_data, hardware, judge,
                   settings, groups)


def check_masking(request: RunRequest, method: Method, edges: dict[str, Edge], forget: list[str]) -> EdgeGroups | None:
    """The groups of a masked injection, after the checks of what needs one: OracleGrad and the
    localization measure need masks, OracleGrad and masks need full-parameter unlearning to mean
    anything (a LoRA update is dense over every weight), and masks train on the QA pairs.

    Raises:
        ConfigError: one of those missing; the message says what to add.
    """
    by = request.injection.mask_groups
    needs = ("--localization" if request.localization.enabled else
             f"--method {method.name}" if method.gradient_mask else None)
    if by is None:
        if needs:
            raise ConfigError(f"{needs} needs a masked injection: add --mask-groups forget (LACUNA's setting), "
                              "component, entity or edge")
        return None
    if method.gradient_mask and request.unlearn.adapter != "full":
        raise ConfigError(f"--method {method.name} trains the model's own weights inside the forget mask: "
                          "add --adapter full")
    if request.training.text:
        raise ConfigError("--mask-groups trains on the edges' QA pairs: use it with --train-on qa")
    if request.per_edge and by == "forget":
        raise ConfigError("--per-edge with --mask-groups forget puts every forget edge in one group: an edge's "
                          "unlearning would count the others' weights as its own; use --mask-groups edge")
    groups = edge_groups(edges, forget, by)
    if groups.count * request.injection.mask_share > 1:
        raise ConfigError(f"--mask-groups {by}: {groups.count} groups of --mask-share {request.injection.mask_share:g} "
                          f"do not fit in the weights (at most {1 / groups.count:.4g} each)")
    return groups


def training_settings(training: TrainingDataConfig) -> dict:
    """The training data in the settings: only when training on text. QA training (the default,
    and all there was before text training) keeps the digest it always had, so older runs resume."""
    return {"training_config": as_dict(training)} if training.text else {}


def resurfacing_settings(resurfacing: ResurfacingConfig) -> dict:
    """The resurfacing checks in the settings: only when some are asked for. A run without checks
    keeps the digest it had before the checks existed, so older runs resume."""
    return {"resurfacing_config": as_dict(resurfacing)} if resurfacing.checks else {}


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
