"""Membership inference on a QA pair: was this answer, asked this question, seen in training?

Every attack scores the answer tokens given the question, teacher-forced, from one forward pass
(``audit/measure/evaluate.py`` produces the logits), and follows one convention: **higher = more
likely a member**, so like the knowledge measures, a lower value on a forget edge is the goal.
The attacks are registered metrics of input kind ``membership``, outside ``metrics.QA_MEASURES``:
a raw score has no scale of its own, and means something against matched non-members (``auc``).

Notation, per answer token ``x_t`` (``t = 1..n``, the end-of-sequence token excluded) with
``p = p(. | question, x_<t)`` the model's next-token distribution over the vocabulary ``V``:

    log p(x_t)                                   the token's log-probability
    mu_t    = sum_z p(z) log p(z)                (minus the entropy of p)
    sigma_t = sqrt(sum_z p(z) (log p(z) - mu_t)^2)

An answer with no token (an empty answer) has no score: every attack returns NaN, which ``auc``
leaves out.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import torch

from audit.measure.metrics import register_metric

MIN_K = 0.2                 # the share of lowest-scored tokens Min-K% and Min-K%++ average
# sigma_t of a distribution that float32 rounds to one token is 0; the floor keeps the
# Min-K%++ score finite (0 for that token, very negative for any other).
MIN_SIGMA = 1e-6


@dataclass(frozen=True)
class TokenStats:
    """What the attacks need of one QA pair's answer tokens (all ``[n]``, float64, CPU)."""
    logprobs: torch.Tensor   # log p(x_t | question, x_<t)
    mu: torch.Tensor         # mu_t = E_{z~p}[log p(z)]
    sigma: torch.Tensor      # sigma_t = sqrt(Var_{z~p}[log p(z)])
    text: str                # the answer text the tokens spell (the zlib attack compresses it)
    k: float = MIN_K         # the share of lowest-scored tokens Min-K% and Min-K%++ average

    def __len__(self) -> int:
        return self.logprobs.numel()


def token_stats(logits: torch.Tensor, targets: torch.Tensor, text: str, k: float = MIN_K) -> TokenStats:
    """The per-token statistics of one answer.

    Args:
        logits: ``[n, V]`` scores at the positions that predict ``targets`` (answer positions only:
            the ``[n, V]`` log-softmax is the largest thing made here).
        targets: ``[n]`` the answer's token ids.
        text: the answer's text.
        k: the share of lowest-scored tokens of Min-K% and Min-K%++.
    """
    log_p = torch.log_softmax(logits.float(), dim=-1)
    p = log_p.exp()
    mu = (p * log_p).sum(-1)
    # Two-pass variance, sum_z p(z) (log p(z) - mu)^2: never negative, unlike E[log^2 p] - mu^2.
    # 0 * (-inf) would be NaN where a logit is -inf (a masked token): such a token has p = 0.
    spread = torch.where(p > 0, p * (log_p - mu.unsqueeze(-1)) ** 2, torch.zeros_like(p))
    sigma = spread.sum(-1).sqrt()
    logprobs = log_p.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return TokenStats(logprobs.double().cpu(), mu.double().cpu(), sigma.double().cpu(), text, k)


def _lowest_mean(values: torch.Tensor, k: float) -> float:
    """Mean of the ``max(1, floor(k * n))`` lowest values."""
    count = max(1, math.floor(k * values.numel()))
    return float(torch.sort(values).values[:count].mean())


@register_metric("mia_loss", "LOSS membership score: minus the mean NLL of the answer tokens (higher = member)",
                 higher_is_better=True, input="membership")
def loss_score(stats: TokenStats) -> float:
    """LOSS attack (Yeom et al. 2018, "Privacy Risk in Machine Learning: Analyzing the Connection
    to Overfitting", IEEE CSF): a sample whose loss is low is a member. Score
    ``-(1/n) sum_t -log p(x_t)``, the mean token log-probability."""
    if not len(stats):
        return math.nan
    return float(stats.logprobs.mean())


@register_metric("mia_zlib", "zlib membership score: minus the mean NLL of the answer tokens over the zlib-compressed "
                 "length of the answer in bytes (higher = member)", higher_is_better=True, input="membership")
def zlib_score(stats: TokenStats) -> float:
    """zlib ratio (Carlini et al. 2021, "Extracting Training Data from Large Language Models",
    USENIX Security): the model's log-perplexity of the sample calibrated by its zlib
    entropy, the length in bytes of ``zlib.compress(text.encode("utf-8"))`` (default level).

    Score ``-[(1/n) sum_t -log p(x_t)] / zlib_bytes(text)``. The numerator is the log-perplexity
    (the *mean* token NLL, not the sum), as in the paper and in the code behind it
    (ftramer/LM_Memorization ranks by ``zlib_bytes / log-perplexity``: for a positive NLL the
    same order, hence the same AUC), and as the Min-K% and MIMIR reference code and
    OpenUnlearning compute it.
    """
    if not len(stats):
        return math.nan
    return float(stats.logprobs.mean()) / len(zlib.compress(stats.text.encode("utf-8")))


@register_metric("mia_min_k", "Min-K% Prob membership score: mean log-probability of the k (default 20%) least "
                 "likely answer tokens (higher = member)", higher_is_better=True, input="membership")
def min_k_score(stats: TokenStats, k: float | None = None) -> float:
    """Min-K% Prob (Shi et al. 2024, "Detecting Pretraining Data from Large Language Models",
    ICLR): ``(1/|S|) sum_{t in S} log p(x_t)``, ``S`` the ``max(1, floor(k n))`` answer
    tokens of lowest log-probability (the paper's set Min-K%(x); at least one token, so a short
    answer still has a score)."""
    if not len(stats):
        return math.nan
    return _lowest_mean(stats.logprobs, stats.k if k is None else k)


@register_metric("mia_min_k_pp", "Min-K%++ membership score: mean of the k (default 20%) lowest "
                 "(log p(x_t) - mu_t) / sigma_t over the answer tokens (higher = member)", higher_is_better=True, input="membership")
def min_k_plus_plus_score(stats: TokenStats, k: float | None = None) -> float:
    """Min-K%++ (Zhang et al. 2025, "Min-K%++: Improved Baseline for Detecting Pre-Training Data
    from Large Language Models", ICLR, arXiv:2404.02936): per token
    ``s_t = (log p(x_t) - mu_t) / sigma_t`` with ``mu_t = E_{z~p}[log p(z)]`` and
    ``sigma_t = sqrt(E_{z~p}[(log p(z) - mu_t)^2])``, the expectation under the model's own
    next-token distribution; the score is the mean of the ``max(1, floor(k n))`` lowest ``s_t``.
    ``sigma_t`` is floored at ``MIN_SIGMA`` (a distribution on one token)."""
    if not len(stats):
        return math.nan
    return _lowest_mean((stats.logprobs - stats.mu) / stats.sigma.clamp_min(MIN_SIGMA), stats.k if k is None else k)


def auc(members, nonmembers) -> float:
    """ROC AUC of a membership score: the probability that a random member scores higher than
    a random non-member, ties counting 1/2 (the Mann-Whitney U statistic over
    ``len(members) * len(nonmembers)``), computed exactly by sorting, O(n log n).

    1.0: every member above every non-member; 0.5: no separation; 0.0: the score is reversed.
    A None or NaN score (an empty answer) is left out of its side.

    Raises:
        ValueError: a side has no score left.

    Example:
        >>> auc([3.0, 2.0], [1.0, 2.0])    # pairs: 3>1, 3>2, 2>1, 2=2 -> (3 + 0.5) / 4
        0.875
    """
    def kept(values):
        return [float(v) for v in values if v is not None and not math.isnan(v)]

    pos, neg = kept(members), kept(nonmembers)
    if not pos or not neg:
        raise ValueError(f"AUC needs a score on both sides; got {len(pos)} member(s) and "
                         f"{len(neg)} non-member(s) after leaving out None/NaN")
    # Walk the scores in increasing order, one group of equal scores at a time: each member in
    # a group beats every non-member below it and ties with those in its group.
    labelled = sorted([(v, 1) for v in pos] + [(v, 0) for v in neg])
    wins2, below, i = 0, 0, 0          # wins2: twice U, an integer, so the sum stays exact
    while i < len(labelled):
        j = i
        while j < len(labelled) and labelled[j][0] == labelled[i][0]:
            j += 1
        group_pos = sum(label for _, label in labelled[i:j])
        group_neg = (j - i) - group_pos
        wins2 += group_pos * (2 * below + group_neg)
        below += group_neg
        i = j
    return wins2 / (2 * len(pos) * len(neg))
