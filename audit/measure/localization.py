"""Localization precision of an unlearning method: did it change the weights that store the knowledge?

LACUNA (Boglioni et al., §4.2 and App. E) injects knowledge into known weights (a mask per group
of facts), unlearns, and asks how well a per-weight score of the change separates the forget
mask's weights from the others: a ROC AUC, 1.0 when it ranks every forget-mask weight first.

    result = localization(pre, injected, unlearned, groups, forget={0, 2, 4}, retain={1, 3, 5})
    result.auc_magnitude, result.auc, result.best_score, result.as_props()

``groups`` maps each scored tensor (attention and MLP matrices) to its weights' mask group ids,
-1 for none. Scores are computed on the CPU in float64, one tensor at a time.

Where we depart from LACUNA's released code, on purpose:
- the reversal family uses the true pre-injection weights. The released scripts read "pre" from the
  file the injection overwrites: their Δ_inj is ~0 in the masked layers, reversal negated magnitude;
- the composite's scaler is fit on the training folds only (LACUNA fits it on every row first);
- LACUNA reports the max AUC over ~12 detectors, which is biased upwards: we report it (``auc``,
  with its ``best_score``) and always the magnitude AUC beside it, the unbiased single number.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Hashable, Iterable, Mapping

import torch
from torch import Tensor

from graphstore.errors import AuditError

NO_GROUP = -1
EPS = 1e-10                       # LACUNA (Boglioni et al.), App. E: the ε of reversal, dirreversal, eratio
CONTRASTNORM_FLOOR = 1e-12        # contrastnorm is 0 where |Δm| + |Δu| is at most this (released code)
DEFAULT_MAX_WEIGHTS = 2_000_000   # LACUNA App. E: "we subsample up to 2M parameters"
FOLDS = 5                         # LACUNA App. E: 5-fold cross_val_predict
MAGNITUDE_SCORES = ("magnitude", "qtile", "layernorm")
REVERSAL_SCORES = ("signrev", "reversal", "dirreversal")
CONTRAST_SCORES = ("contrast", "contrastnorm", "eratio", "compnorm")
COMPOSITE = "composite"

_LAYER = re.compile(r"(?:^|\.)(?:layers|layer|h|blocks)\.(\d+)\.")
_ATTENTION = {"self_attn", "attn", "attention", "self_attention"}
_MLP = {"mlp", "feed_forward", "ffn"}


class LocalizationError(AuditError, ValueError):
    """The weights, groups or masks given to ``localization`` do not fit together."""


# --- per-weight scores: LACUNA (Boglioni et al.), App. E ------------------------------------------

def magnitude(injected: Tensor, unlearned: Tensor) -> Tensor:
    """raw: |W_unl − W_inj|, how much unlearning moved each weight."""
    return (unlearned - injected).abs()                    # LACUNA App. E, "raw"


def qtile(change: Tensor) -> Tensor:
    """Quantile rank in [0, 1] of each |Δ| within its tensor, ties given their average rank."""
    n = change.numel()                                     # LACUNA App. E, "qtile" (rank / (n − 1))
    return ((average_ranks(change) - 1.0) / max(1, n - 1)).reshape(change.shape)


def layernorm(change: Tensor, std: float) -> Tensor:
    """|Δ| / std of |Δ| over its (layer, component) group (``layernorm_stds``); std 0 counts as 1."""
    return change / (std if std > 0 else 1.0)              # LACUNA App. E, "layernorm"


def signrev(pre: Tensor, injected: Tensor, unlearned: Tensor) -> Tensor:
    """−(Δ_inj · Δ_unl): positive where unlearning opposes the injection."""
    return -((injected - pre) * (unlearned - injected))    # LACUNA App. E, "signrev"


def reversal(pre: Tensor, injected: Tensor, unlearned: Tensor) -> Tensor:
    """(|Δ_inj| − |W_unl − W_pre|) / (|Δ_inj| + ε): the fraction of the way back to the pre-injection weight."""
    inj = (injected - pre).abs()
    return (inj - (unlearned - pre).abs()) / (inj + EPS)   # LACUNA App. E, "reversal"


def dirreversal(pre: Tensor, injected: Tensor, unlearned: Tensor) -> Tensor:
    """−(Δ_unl · sign(Δ_inj)) / (|Δ_inj| + ε): the move against the injection, relative to it."""
    inj = injected - pre                                   # LACUNA App. E, "dirreversal"
    return -((unlearned - injected) * inj.sign()) / (inj.abs() + EPS)


def contrast(change: Tensor, control_change: Tensor) -> Tensor:
    """|Δ_mask| − |Δ_unmask|: the change beyond the same method's change on the unmasked control."""
    return change - control_change                         # LACUNA App. E, "contrast" (both absolute)


def contrastnorm(change: Tensor, control_change: Tensor) -> Tensor:
    """(|Δm| − |Δu|) / (|Δm| + |Δu|) in [−1, 1], 0 where the denominator is at most 1e-12."""
    total = change + control_change                        # LACUNA App. E, "contrastnorm"
    ratio = (change - control_change) / total.clamp_min(CONTRASTNORM_FLOOR)
    return torch.where(total > CONTRASTNORM_FLOOR, ratio, torch.zeros_like(total))


def eratio(change: Tensor, control_change: Tensor) -> Tensor:
    """|Δ| / (|Δ_ctrl| + ε), per weight."""
    return change / (control_change + EPS)                 # LACUNA App. E, "eratio"


def compnorm(change: Tensor, control_change: Tensor) -> Tensor:
    """|Δ| / mean over the tensor of |Δ_ctrl| (+ ε, so that an untouched control tensor stays finite)."""
    return change / (control_change.mean() + EPS)          # LACUNA App. E, "compnorm"


def layer_component(name: str) -> tuple[int | None, str | None]:
    """(layer index, "attention" | "mlp") read from a parameter name, None for what is not there:
    ``model.layers.3.self_attn.q_proj.weight`` -> (3, "attention")."""
    found = _LAYER.search(name)
    parts = set(name.split("."))
    component = "attention" if parts & _ATTENTION else "mlp" if parts & _MLP else None
    return (int(found.group(1)) if found else None), component


def _norm_group(name: str) -> tuple[int, str] | str:
    layer, component = layer_component(name)
    # A name we cannot place is its own group rather than pooled with strangers.
    return (layer, component) if layer is not None and component is not None else name


def layernorm_stds(changes: Iterable[tuple[str, Tensor]]) -> dict[tuple[int, str] | str, float]:
    """Population std of |Δ| per (layer, component) group, merged tensor by tensor (Chan et al.)."""
    stats: dict[tuple[int, str] | str, tuple[int, float, float]] = {}
    for name, change in changes:
        x = change.reshape(-1).to(torch.float64)
        if x.numel() == 0:
            continue
        n_b, mean_b, m2_b = x.numel(), float(x.mean()), float(((x - x.mean()) ** 2).sum())
        n_a, mean_a, m2_a = stats.get(_norm_group(name), (0, 0.0, 0.0))
        n = n_a + n_b
        delta = mean_b - mean_a
        stats[_norm_group(name)] = (n, mean_a + delta * n_b / n, m2_a + m2_b + delta * delta * n_a * n_b / n)
    return {key: (m2 / n) ** 0.5 for key, (n, _, m2) in stats.items()}


# --- ROC AUC: LACUNA (Boglioni et al.), §4.2 ------------------------------------------------------

def average_ranks(values: Tensor) -> Tensor:
    """1-based ranks of a 1-D tensor, tied values sharing the mean of their ranks (float64)."""
    x = values.reshape(-1).to(torch.float64) + 0.0         # + 0.0: −0.0 and 0.0 are one value
    order = torch.argsort(x, stable=True)
    _, inverse, counts = torch.unique_consecutive(x[order], return_inverse=True, return_counts=True)
    ends = counts.cumsum(0).to(torch.float64)
    ranks = torch.empty_like(x)
    ranks[order] = (ends - (counts.to(torch.float64) - 1.0) / 2.0)[inverse]
    return ranks


def roc_auc(scores: Tensor, labels: Tensor) -> float | None:
    """Exact ROC AUC, LACUNA §4.2's "probability that a randomly chosen in-mask weight receives a
    higher score than a randomly chosen out-of-mask weight", ties counting 1/2 (Mann–Whitney U).
    None when either class is empty; ``LocalizationError`` when the sizes differ or a score is NaN."""
    s, y = scores.reshape(-1), labels.reshape(-1).to(torch.bool)
    if s.numel() != y.numel():
        raise LocalizationError(f"roc_auc: {s.numel()} scores but {y.numel()} labels")
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    if bool(torch.isnan(s).any()):
        raise LocalizationError("roc_auc: a score is NaN (are the weights finite?)")
    u = float(average_ranks(s)[y].sum()) - n_pos * (n_pos + 1) / 2.0   # Mann–Whitney U of the positives
    return u / (n_pos * n_neg)


# --- sampling and the composite: LACUNA (Boglioni et al.), App. E ------------------------------

def stratified_sample(sizes: Mapping[str, int], max_weights: int, seed: int = 0) -> dict[str, Tensor] | None:
    """Sorted indices of a uniform sample per tensor, floor(n · max_weights / total) from a tensor
    of n weights (LACUNA App. E's stratified 2M sample); None when every weight fits."""
    total = sum(sizes.values())
    if total <= max_weights:
        return None
    generator = torch.Generator().manual_seed(seed)
    return {name: torch.randperm(sizes[name], generator=generator)[:sizes[name] * max_weights // total].sort().values
            for name in sorted(sizes)}


def stratified_folds(labels: Tensor, folds: int = FOLDS, seed: int = 0) -> Tensor:
    """Fold id per row: each class shuffled (seeded), then dealt round the folds."""
    generator = torch.Generator().manual_seed(seed)
    fold = torch.empty(labels.numel(), dtype=torch.long)
    for cls in (False, True):
        rows = torch.nonzero(labels == cls).reshape(-1)
        fold[rows[torch.randperm(rows.numel(), generator=generator)]] = torch.arange(rows.numel()) % folds
    return fold


def fit_logistic(x: Tensor, y: Tensor, c: float = 1.0, max_iter: int = 100) -> Tensor:
    """L2 logistic regression, sklearn's objective (C · Σ log-loss + ½‖w‖², intercept unpenalised),
    by Newton's method with backtracking. Returns the weights, the intercept last."""
    x1 = torch.cat([x.to(torch.float64), torch.ones(x.shape[0], 1, dtype=torch.float64)], dim=1)
    target = y.to(torch.float64)
    sign = 1.0 - 2.0 * target                                 # log-loss = softplus(−z) if y else softplus(z)
    penalty = torch.cat([torch.ones(x.shape[1]), torch.zeros(1)]).to(torch.float64)

    def objective(w: Tensor) -> tuple[float, Tensor]:
        z = x1 @ w
        return float(c * torch.nn.functional.softplus(sign * z).sum() + 0.5 * (penalty * w * w).sum()), z

    w = torch.zeros(x1.shape[1], dtype=torch.float64)
    value, z = objective(w)
    for _ in range(max_iter):
        p = torch.sigmoid(z)
        grad = c * (x1.T @ (p - target)) + penalty * w
        hessian = c * (x1.T @ (x1 * (p * (1 - p))[:, None])) + torch.diag(penalty + 1e-10)
        step = torch.linalg.solve(hessian, grad)
        decrement = float(grad @ step)
        if decrement <= 1e-12 * max(1.0, abs(value)):
            break
        t = 1.0
        while True:    # backtracking (Armijo): Newton's full step is taken when it lowers the loss enough
            new_value, new_z = objective(w - t * step)
            if new_value <= value - 0.25 * t * decrement or t < 1e-10:
                break
            t /= 2
        w, value, z = w - t * step, new_value, new_z
    return w


def composite_scores(features: Tensor, labels: Tensor, folds: int = FOLDS, seed: int = 0, c: float = 1.0) -> Tensor:
    """Out-of-fold probabilities of a logistic regression on standardised features (LACUNA App. E:
    cross_val_predict, "no parameter is scored by a classifier it helped train"). Unlike LACUNA's
    code, the scaler too is fit on the training folds only: fit on every row, it saw the held-out fold."""
    x, y = features.to(torch.float64), labels.to(torch.bool)
    fold = stratified_folds(y, folds, seed)
    out = torch.empty(x.shape[0], dtype=torch.float64)
    for f in range(folds):
        test, train = fold == f, fold != f
        if bool(y[train].all()) or not bool(y[train].any()):
            out[test] = float(y[train].all())    # one class to learn from: predict it
            continue
        fit = x[train]
        mean, std = fit.mean(0), fit.std(0, unbiased=False)
        std = torch.where(std > 1e-10 * mean.abs(), std, torch.ones_like(std))   # constant up to rounding: 1
        w = fit_logistic((fit - mean) / std, y[train], c)
        out[test] = torch.sigmoid(((x[test] - mean) / std) @ w[:-1] + w[-1])
    return out


def _composite_auc(features: Tensor, labels: Tensor, seed: int, wanted: bool) -> float | None:
    one_class = bool(labels.all()) or not bool(labels.any())
    return None if one_class or not wanted else roc_auc(composite_scores(features, labels, seed=seed), labels)


# --- the measure --------------------------------------------------------------------------------

@dataclass
class Localization:
    """Localization precision of one unlearning (LACUNA §4.2): ROC AUCs of per-weight scores."""
    auc_by_score: dict[str, float | None]           # positives: forget-mask weights; negatives: all others
    auc_unified_by_score: dict[str, float | None]   # positives: forget ∪ retain; negatives: weights in no group
    auc_composite: float | None
    auc_composite_unified: float | None
    auc_neighbours: dict[Hashable, float | None]    # magnitude; a neighbour's weights vs weights in no group
    auc_others: float | None                        # magnitude; the other groups' weights vs weights in no group
    weights: int                                    # weights that entered the AUCs (the sample, when sampled)
    total_weights: int                              # every weight of the scored tensors
    sampled: bool
    forget_share: float                             # forget-mask share of all scored weights
    seconds: float

    auc: float | None = field(init=False)            # max over the scores and the composite (LACUNA; biased up)
    best_score: str | None = field(init=False)       # the score that gives ``auc``
    auc_magnitude: float | None = field(init=False)  # AUC of |Δ_unl|, one detector fixed in advance: unbiased
    auc_unified: float | None = field(init=False)    # max of the unified AUCs (LACUNA's "AUC (F|R)")

    def __post_init__(self) -> None:
        self.best_score, self.auc = _best({**self.auc_by_score, COMPOSITE: self.auc_composite})
        self.auc_magnitude = self.auc_by_score["magnitude"]
        self.auc_unified = _best({**self.auc_unified_by_score, COMPOSITE: self.auc_composite_unified})[1]

    def as_props(self) -> dict[str, object]:
        """Flat, JSON-able properties for a graph node; floats rounded to 4 decimals."""
        return {"localization_auc": _round(self.auc), "localization_score": self.best_score,
                "localization_auc_magnitude": _round(self.auc_magnitude),
                "localization_auc_unified": _round(self.auc_unified),
                "localization_auc_unified_magnitude": _round(self.auc_unified_by_score["magnitude"]),
                "localization_auc_composite": _round(self.auc_composite),
                "localization_auc_composite_unified": _round(self.auc_composite_unified),
                "localization_auc_by_score": {k: _round(v) for k, v in self.auc_by_score.items()},
                "localization_auc_neighbours": {str(k): _round(v) for k, v in self.auc_neighbours.items()},
                "localization_auc_others": _round(self.auc_others), "localization_weights": self.weights,
                "localization_total_weights": self.total_weights, "localization_sampled": self.sampled,
                "localization_forget_share": _round(self.forget_share), "localization_seconds": _round(self.seconds)}


def _best(aucs: Mapping[str, float | None]) -> tuple[str | None, float | None]:
    defined = [(name, auc) for name, auc in aucs.items() if auc is not None]
    return max(defined, key=lambda item: item[1]) if defined else (None, None)   # first of equals wins


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _check(weights: list[tuple[str, Mapping[str, Tensor]]], groups: Mapping[str, Tensor],
           forget: set[int], retain: set[int]) -> None:
    if not groups:
        raise LocalizationError("localization: no tensor to score (groups is empty)")
    if forget & retain or any(g < 0 for g in forget | retain):
        raise LocalizationError(f"localization: forget {sorted(forget)} and retain {sorted(retain)} must be "
                                "disjoint sets of group ids >= 0")
    for name, ids in groups.items():
        if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool or (
                ids.numel() and int(ids.min()) < NO_GROUP):
            raise LocalizationError(f"localization: groups[{name!r}] ({ids.dtype}) must hold integer ids >= -1")
        for label, tensors in weights:
            if name not in tensors or tensors[name].shape != ids.shape:
                found = f"shape {tuple(tensors[name].shape)}" if name in tensors else "nothing"
                raise LocalizationError(f"localization: {label} weights have {found} for {name!r}, "
                                        f"its groups shape {tuple(ids.shape)}")


def _cpu64(t: Tensor) -> Tensor:
    return t.detach().to("cpu", torch.float64)


def _member(ids: Tensor, id_set: set[int]) -> Tensor:
    return torch.isin(ids, torch.tensor(sorted(id_set), dtype=torch.long))


def tensor_scores(pre: Tensor, injected: Tensor, unlearned: Tensor, std: float,
                  control: tuple[Tensor, Tensor] | None = None) -> dict[str, Tensor]:
    """Every per-weight score of one tensor (float64), contrast scores only with a control pair."""
    p, i, u = _cpu64(pre), _cpu64(injected), _cpu64(unlearned)
    change = magnitude(i, u)
    out = {"magnitude": change, "qtile": qtile(change), "layernorm": layernorm(change, std),
           "signrev": signrev(p, i, u), "reversal": reversal(p, i, u), "dirreversal": dirreversal(p, i, u)}
    if control is not None:
        ctrl = magnitude(_cpu64(control[0]), _cpu64(control[1]))
        out |= {"contrast": contrast(change, ctrl), "contrastnorm": contrastnorm(change, ctrl),
                "eratio": eratio(change, ctrl), "compnorm": compnorm(change, ctrl)}
    return out


def localization(pre: Mapping[str, Tensor], injected: Mapping[str, Tensor], unlearned: Mapping[str, Tensor],
                 groups: Mapping[str, Tensor], forget: Iterable[int], retain: Iterable[int] = (),
                 control: tuple[Mapping[str, Tensor], Mapping[str, Tensor]] | None = None,
                 neighbours: Mapping[str, Iterable[int]] | None = None,
                 max_weights: int = DEFAULT_MAX_WEIGHTS, seed: int = 0, composite: bool = True) -> Localization:
    """Localization precision of an unlearning (LACUNA §4.2, App. E) on the tensors named in ``groups``.

    Args:
        pre, injected, unlearned: weights before injection, after it, after unlearning, by name.
        groups: name -> integer tensor of the weight's shape, each weight's group id (-1: none).
        forget, retain: group ids of the forget mask and of the retain mask.
        control: (injected, unlearned) of the same method run on an unmasked injection (contrast scores).
        neighbours: label -> group ids, e.g. the facts next to the forgotten one in the graph.
        max_weights: above this many scored weights, a sample stratified by tensor is scored.
        seed: seed of the sample and of the cross-validation folds.
        composite: off: no composite (its AUCs None); it is 75-80% of the time (bench_localization).
    Raises:
        LocalizationError: a tensor missing or of another shape, ids not integers, forget ∩ retain.
    """
    start = time.perf_counter()
    forget_ids, retain_ids = set(forget), set(retain)
    weights = [("pre", pre), ("injected", injected), ("unlearned", unlearned)]
    weights += [] if control is None else [("control injected", control[0]), ("control unlearned", control[1])]
    _check(weights, groups, forget_ids, retain_ids)
    names = sorted(groups)
    sizes = {name: groups[name].numel() for name in names}
    sample = stratified_sample(sizes, max_weights, seed)
    stds = layernorm_stds((name, magnitude(_cpu64(injected[name]), _cpu64(unlearned[name]))) for name in names)
    columns: dict[str, list[Tensor]] = {}
    ids: list[Tensor] = []
    n_forget = 0
    for name in names:
        pair = None if control is None else (control[0][name], control[1][name])
        scores = tensor_scores(pre[name], injected[name], unlearned[name], stds.get(_norm_group(name), 0.0), pair)
        keep: Tensor | slice = slice(None) if sample is None else sample[name]
        for score, values in scores.items():
            columns.setdefault(score, []).append(values.reshape(-1)[keep])
        group = groups[name].detach().to("cpu", torch.long).reshape(-1)
        n_forget += int(_member(group, forget_ids).sum())
        ids.append(group[keep])
    gid = torch.cat(ids)
    score_of = {score: torch.cat(parts) for score, parts in columns.items()}
    is_forget, masked, unmasked = _member(gid, forget_ids), _member(gid, forget_ids | retain_ids), gid == NO_GROUP
    unified = masked | unmasked
    features = torch.stack(list(score_of.values()), dim=1)
    neighbour_ids = {label: set(g) for label, g in (neighbours or {}).items()}
    near: set[int] = set().union(*neighbour_ids.values())
    change = score_of["magnitude"]

    def against_unmasked(positive: Tensor) -> float | None:   # magnitude; the negatives are weights in no group
        return roc_auc(change[positive | unmasked], positive[positive | unmasked])

    return Localization(
        auc_by_score={score: roc_auc(values, is_forget) for score, values in score_of.items()},
        auc_unified_by_score={score: roc_auc(v[unified], masked[unified]) for score, v in score_of.items()},
        auc_composite=_composite_auc(features, is_forget, seed, composite),
        auc_composite_unified=_composite_auc(features[unified], masked[unified], seed, composite),
        auc_neighbours={label: against_unmasked(_member(gid, g)) for label, g in neighbour_ids.items()},
        auc_others=against_unmasked(~unmasked & ~_member(gid, forget_ids | near)),
        weights=gid.numel(), total_weights=sum(sizes.values()), sampled=sample is not None,
        forget_share=n_forget / max(1, sum(sizes.values())), seconds=time.perf_counter() - start,
    )
