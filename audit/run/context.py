"""What the phases of one run share (``RunContext``), and what an unlearning phase acts on (``Scope``).

A joint run unlearns every forget edge at once: one scope. A per-edge sweep (PISTOL's protocol)
unlearns each forget edge on its own from the same injected model: one scope per edge, and the
same phases (unlearn, measure after, resurfacing) run over each (``audit/run/phases.py``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


from audit.measure import evaluate as E
from audit.models.encoding import QAEncoder
from audit.run import resurfacing as C
from audit.run import summaries as S
from audit.run import training_data as T
from audit.models.masks import Masks
from audit.models.ranks import current
from audit.run.injection import Injected
from audit.run.lifecycle import RunState
from audit.run.memorization import UnlearningMemorization
from audit.run.plan import RunPlan
from audit.run.record import RunRecord
from audit.run.unlearning import MaskFilter, Peers, Unlearner
from audit.types import UTILITY_EDGE, QAExample
from graphstore import GraphStore
from graphstore.errors import ConfigError

SWEEP_ADAPTER = "sweep-adapter"   # the run folder's adapters of the sweep's current edge
_HOLDS = "edge.txt"               # ... and which edge they are of


@dataclass(frozen=True)
class Scope:
    """What the unlearning phases act on: every forget edge together (``edge`` None, a joint run),
    or one forget edge, the ``position``-th of ``total`` (a step of a per-edge sweep)."""
    forget: tuple[str, ...]
    edge: str | None = None
    position: int = 0
    total: int = 0

    @classmethod
    def joint(cls, plan: RunPlan) -> "Scope":
        return cls(tuple(plan.forget))

    @classmethod
    def sweep(cls, plan: RunPlan) -> list["Scope"]:
        return [cls((edge,), edge, i, len(plan.forget)) for i, edge in enumerate(plan.forget, 1)]

    @property
    def swept(self) -> bool:
        return self.edge is not None

    def named(self, phase: str) -> str:
        """A phase's name in this scope: ``unlearn``, or ``unlearn <edge>`` in a sweep."""
        return f"{phase} {self.edge}" if self.edge is not None else phase

    def progress(self, what: str) -> str:
        """A progress label: ``measure after``, or ``measure 2/5`` in a sweep."""
        return f"{what.split()[0]} {self.position}/{self.total}" if self.swept else what

    def adapter_dir(self, run_dir: Path) -> Path:
        """Where this scope's unlearned adapters are saved, for a phase that runs after a restart."""
        return run_dir / (SWEEP_ADAPTER if self.swept else "adapter")

    def checkpoint(self, run_dir: Path) -> Path:
        """The unlearning's mid-training checkpoint (removed once it ends)."""
        return run_dir / (f"checkpoint-{self.edge.replace('/', '_')}.pt" if self.edge is not None else "checkpoint.pt")


@dataclass
class RunContext:
    """What the phases of one run share: the plan, and the models once the injection loads them."""
    store: GraphStore
    plan: RunPlan
    report: Callable[[str], None]
    record: RunRecord                        # the run folder's config, environment, loss log, results
    state: Callable[[], RunState]            # what the run has written so far (RunLifecycle.state)
    memorization: UnlearningMemorization | None = None   # Wikidata joint runs: the facts' measures
    model: Any = None                        # the injected model (adapters added on it by the unlearner)
    tokenizer: Any = None
    encoder: QAEncoder | None = None
    max_tokens: int = 0
    probe_rows: list[dict] | None = None     # the graph's facts for probe questions, read once
    holds: Scope | None = None               # the scope whose unlearning the adapters hold now
    injected: Injected | None = None         # where the injected model lives (its masks, its weights before)
    masks: Masks | None = None               # a masked injection's masks (--mask-groups)
    _unlearner: Unlearner | None = field(default=None, repr=False)

    @property
    def all_qas(self) -> list[QAExample]:
        return [qa for edge in self.plan.edges.values() for qa in edge.qas]

    @property
    def qa_encoder(self) -> QAEncoder:
        if self.encoder is None:
            raise RuntimeError("no model loaded: the inject phase runs first")
        return self.encoder

    @property
    def unlearner(self) -> Unlearner:
        """The adapters on the injected model, added when first asked (after the measures before)."""
        if self._unlearner is None:
            p = self.plan
            ranks, peers = current(), None
            if ranks.parallel:   # a launched run: the follower ranks build the same unlearner (audit.models.ranks)
                if self.injected is None:
                    raise RuntimeError("no injected model: the inject phase runs first")
                peers = Peers(ranks, f"{p.key}/{uuid.uuid4().hex}", self.injected, p.training_hardware,
                              p.request.unlearn.gradient_checkpointing, p.method, p.request.unlearn)
            self._unlearner = Unlearner(self.model, self.qa_encoder, p.method, p.request.unlearn, p.hardware.device,
                                        peers=peers)
        return self._unlearner

    def gradient_filter(self, scope: Scope) -> MaskFilter | None:
        """OracleGrad's, for ``scope``: every gradient but its forget edges' groups' weights'
        zeroed (LACUNA App. D)."""
        p = self.plan
        if p.method.gradient_mask is None:
            return None
        masks, groups = self.masks, p.groups
        if masks is None or groups is None:
            raise ConfigError(f"--method {p.method.name} needs a masked injection (--mask-groups)")
        masks = masks.to(p.hardware.device)   # once per scope, beside the model
        forget = groups.of(list(scope.forget))
        return MaskFilter(masks, forget)

    def unlearned(self, scope: Scope) -> Unlearner:
        """The adapters unlearned in ``scope``: trained by this process, or loaded from the run
        folder where an earlier process saved them."""
        if self.holds != scope:
            folder = scope.adapter_dir(self.plan.run_dir)
            if scope.swept and (folder / _HOLDS).is_file() and (folder / _HOLDS).read_text() != scope.edge:
                raise ConfigError(f"the adapters saved in {folder} are not those of edge {scope.edge!r}; "
                                  "delete the run (audit runs ID --delete) and run it again")
            self.unlearner.load(folder)
            self.holds = scope
        return self.unlearner

    def save_unlearned(self, scope: Scope) -> None:
        """Save the adapters just trained in ``scope`` (for the phases after it, should the run stop)."""
        folder = scope.adapter_dir(self.plan.run_dir)
        self.unlearner.model.save_pretrained(folder)
        if scope.swept:
            (folder / _HOLDS).write_text(scope.edge or "")
        self.holds = scope

    def training_set(self, data: T.TrainingData) -> tuple[list[T.TrainItem], list[T.TrainItem]]:
        """The forget and retain sets of ``data``, texts cut to the context."""
        return (T.chunked(data.forget, self.qa_encoder, self.max_tokens),
                T.chunked(data.retain, self.qa_encoder, self.max_tokens))

    def evaluate(self, examples: list[QAExample], label: str) -> list[E.QAScore]:
        # utility questions are outside the graph: no memorization cases, so no judge
        graph_questions = bool(examples) and examples[0].edge != UTILITY_EDGE
        return E.evaluate(self.model, self.qa_encoder, examples, self.plan.request.eval_batch_size, progress=label,
                          judge=self.plan.judge if graph_questions else None)

    def utility_rouge1(self, label: str) -> float | None:
        return S.mean_rouge1(self.evaluate(self.plan.utility, label)) if self.plan.utility else None

    def check_context(self, forget: list[str], rouge1_after: dict[str, float], rows: list[dict],
                      scope: list[str] | None = None) -> C.CheckContext:
        """What the resurfacing checks need of the run, on the unlearned model."""
        p = self.plan
        lr = p.request.unlearn.lr
        assert lr is not None, "the plan settles the unlearning rate"
        return C.CheckContext(self.unlearner.model, self.qa_encoder, p.edges, forget, rouge1_after,
                              p.request.resurfacing, lr, p.request.eval_batch_size, rows, self.report, scope=scope)
