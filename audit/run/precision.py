"""The localization phase (LACUNA, Boglioni et al., §4.2 and App. E): after a scope's unlearning,
does it change the weights that store the forgotten facts? A masked injection
(``audit.run.masked``) knows where each group's facts live; every attention and MLP weight's
change is scored (magnitude, reversal of the injection, contrast with the same method on an
unmasked injection) and each score's ROC AUC against the forget groups' mask is the precision
(1.0: only the forget weights moved; 0.5: indiscriminate; below: mostly elsewhere). The scores
and the AUC are ``audit.measure.localization``'s; this phase gathers the weights.

Graph-native: the AUC against the weights of each group holding a forget edge's graph neighbours
(does forgetting A–B move what stores its neighbours?) and against the other groups.
"""

from __future__ import annotations

import dataclasses
import time

import torch

from audit.config import parse_scratch
from audit.measure.localization import localization
from audit.models.encoding import QAEncoder
from audit.run.context import RunContext, Scope
from audit.run.full_weights import FullWeights
from audit.run.injection import inject, load_injected_model
from audit.run.lifecycle import RunState, Writes
from audit.run.masked import load_pre
from audit.run.plan import RunPlan
from audit.run.unlearning import ADAPTER, Unlearner

Weights = dict[str, torch.Tensor]


def weights_of(unlearner: Unlearner, names: set[str]) -> tuple[Weights, Weights]:
    """The ``names`` weights (float32, on the CPU) as injected and as unlearned: a full-parameter
    unlearning's own weights, or a LoRA one's merged weights (base + s·B·A: dense over the matrix)."""
    model = unlearner.model
    if isinstance(model, FullWeights):
        now, before = dict(model.model.named_parameters()), dict(model.reference.named_parameters())
        return ({n: before[n].detach().float().cpu() for n in names},
                {n: now[n].detach().float().cpu() for n in names})
    from peft.tuners.lora import LoraLayer

    injected, unlearned = {}, {}
    with torch.no_grad():
        for path, module in unlearner.bare.named_modules():
            name = f"{path}.weight"
            if isinstance(module, LoraLayer) and name in names:
                base = module.weight.detach().float()   # the base layer's weight (peft's BaseTunerLayer)
                # peft declares get_delta_weight on each concrete LoRA layer, not on LoraLayer
                delta = module.get_delta_weight(ADAPTER).float()  # type: ignore[attr-defined]
                injected[name], unlearned[name] = base.cpu(), (base + delta).cpu()
    missing = [n for n in names if n not in injected]
    if missing:   # a weight the adapters do not reach is unchanged by the unlearning
        plain = dict(unlearner.bare.named_parameters())
        for n in missing:
            injected[n] = unlearned[n] = plain[n].detach().float().cpu()
    return injected, unlearned


class Localize:
    """A scope's localization precision: on the Run for a joint run, on the edge's EdgeResult for
    a swept edge. Done when they hold its seconds."""

    def __init__(self, plan: RunPlan, scope: Scope, training_set):
        self.plan, self.scope, self.name = plan, scope, scope.named("localization")
        self.training_set = training_set   # the scope's forget and retain sets (Unlearn.training_set)

    def done(self, state: RunState) -> bool:
        if self.scope.swept:
            return state.measured(self.scope.forget, "localization_seconds")
        return state.run.localization_seconds is not None

    def run(self, c: RunContext) -> Writes:
        started = time.perf_counter()
        p, scope = self.plan, self.scope
        assert c.masks is not None and c.injected is not None and p.groups is not None, "a masked injection"
        names = set(c.masks.group_of)
        injected, unlearned = weights_of(c.unlearned(scope), names)
        forget = p.groups.of(list(scope.forget))
        retain = set(range(p.groups.count)) - forget
        control = self.control(c, names) if p.request.localization.control and not p.method.gradient_mask else None
        groups = {name: ids.cpu() for name, ids in c.masks.group_of.items()}
        found = localization(load_pre(c.injected.folder), injected, unlearned, groups, forget, retain,
                             control=control, neighbours=p.groups.neighbours(p.edges, list(scope.forget)),
                             max_weights=p.request.localization.max_weights, seed=p.request.localization.seed)
        props = {**found.as_props(), "localization_seconds": round(time.perf_counter() - started, 2)}
        c.report(f"localization{' of ' + scope.edge if scope.edge else ''}: ROC AUC against the forget mask "
                 f"{props['localization_auc_magnitude']} by |change| (best {props['localization_auc']}, "
                 f"{props['localization_score']}); 0.5 is indiscriminate")
        if scope.edge is not None:
            return Writes([{"edge": scope.edge, **props}])
        return Writes(run=props)

    def control(self, c: RunContext, names: set[str]) -> tuple[Weights, Weights]:
        """The same unlearning of an unmasked injection (LACUNA's UnMask control): its weights as
        injected and as unlearned. The injection is cached like any other."""
        p, request = self.plan, self.plan.request
        # the masked model's own weights were trained, so are the control's (a scratch model's always are)
        config = dataclasses.replace(request.injection, mask_groups=None,
                                     full_weights=request.injection.full_weights or not parse_scratch(request.model))
        injected = inject(request.model, request.graph, p.graph_info["sha256"], p.edges, config, p.hardware,
                          request.cache_dir)
        model, tokenizer = load_injected_model(injected, p.training_hardware)
        control = Unlearner(model, QAEncoder(tokenizer), p.method, request.unlearn, p.hardware.device)
        forget_items, retain_items = self.training_set(c)
        control.run(forget_items, retain_items, p.refusals, progress=f"{self.scope.progress('unlearn')} "
                    f"({p.method.name}, unmasked control)")
        weights = weights_of(control, names)
        del control, model   # not kept beside the run's own model (a sweep loads it again per edge)
        return weights
