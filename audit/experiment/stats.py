"""The statistics of an experiment table: a mean with its 95 % t interval over seeds, and a rank
correlation with its bootstrap interval.

- ``t_interval``: mean ± t_{0.975, n-1} · s / √n, with s the sample standard deviation (n - 1
  in the denominator). Seeds are few (3-5), so the t quantile, not the normal one: for n = 3
  it is 4.30, not 1.96. Undefined (None) for a single seed.
- ``spearman``: Spearman's ρ (Pearson's correlation of the ranks, ties averaged), and a 95 %
  percentile bootstrap interval (2,000 resamples of the edges with all their measurements,
  seeded): the PISTOL claim "more connected edges are harder to forget" as one number with its
  uncertainty.
- ``components``: with several injected models and several unlearning seeds on each (a nested
  design), how much of the spread is between injected models and how much between unlearning
  seeds of one model: one-way random-effects analysis of variance, and the mean's interval over
  the models' means (the injected model is the unit that was sampled).
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass

from scipy import stats as scipy_stats

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float | None       # None: one value, no interval
    high: float | None
    n: int

    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2


def t_interval(values: list[float], confidence: float = CONFIDENCE) -> Interval | None:
    """Mean and two-sided t interval of ``values`` (None values dropped); None when empty."""
    values = [float(v) for v in values if v is not None]
    if not values:
        return None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Interval(mean, None, None, len(values))
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, len(values) - 1)) * statistics.stdev(values) / math.sqrt(len(values))
    return Interval(mean, mean - half, mean + half, len(values))


@dataclass(frozen=True)
class Correlation:
    rho: float | None
    low: float | None
    high: float | None
    n: int                  # pairs
    clusters: int | None = None   # units resampled by the bootstrap (edges)


def spearman(x: list[float], y: list[float], clusters: list[str] | None = None, seed: int = 0,
             resamples: int = BOOTSTRAP_RESAMPLES) -> Correlation:
    """Spearman's ρ of the pairs and its 95 % percentile bootstrap interval.

    ``clusters``: the unit that was sampled, one label per pair (an edge, measured once per seed
    and method): the bootstrap then resamples clusters with all their pairs, not single pairs,
    which would count one edge's repeated measurements as independent evidence and make the
    interval too narrow. ρ is None with fewer than three pairs or a constant side; the interval
    is None with fewer than three clusters or when fewer than half the resamples give a ρ.
    """
    pairs = [(float(a), float(b), c) for a, b, c in zip(x, y, clusters or range(len(x)))
             if a is not None and b is not None]
    if len(pairs) < 3 or len({a for a, _, _ in pairs}) < 2 or len({b for _, b, _ in pairs}) < 2:
        return Correlation(None, None, None, len(pairs))
    rho = _rho(pairs)
    groups: dict = {}
    for pair in pairs:
        groups.setdefault(pair[2], []).append(pair)
    units = list(groups.values())
    if len(units) < 3:
        return Correlation(rho, None, None, len(pairs))
    rng = random.Random(seed)
    draws = []
    for _ in range(resamples):
        sample = [pair for _ in units for pair in units[rng.randrange(len(units))]]
        if len({a for a, _, _ in sample}) > 1 and len({b for _, b, _ in sample}) > 1:
            draws.append(_rho(sample))
    if len(draws) < resamples / 2:
        return Correlation(rho, None, None, len(pairs))
    draws.sort()
    low = draws[int(len(draws) * (1 - CONFIDENCE) / 2)]
    high = draws[min(len(draws) - 1, int(len(draws) * (1 + CONFIDENCE) / 2))]
    return Correlation(rho, low, high, len(pairs), len(units))


def _rho(pairs: list[tuple]) -> float:
    return float(scipy_stats.spearmanr([p[0] for p in pairs], [p[1] for p in pairs]).statistic)


@dataclass(frozen=True)
class Components:
    """Variance components of a nested design: injected models, unlearning seeds within each."""
    mean: float             # of the models' means (each model weighs the same)
    low: float | None       # 95 % t interval over the models' means (k - 1 degrees of freedom)
    high: float | None
    models: int             # k
    runs: int               # N
    between_models: float | None    # sigma^2 of the model effect (0 when the estimate is negative)
    within_models: float | None     # sigma^2 of the unlearning seeds within one model

    def share_between(self) -> float | None:
        """The intraclass correlation: the share of the total variance between injected models."""
        if self.between_models is None or self.within_models is None:
            return None
        total = self.between_models + self.within_models
        return self.between_models / total if total > 0 else None


def components(values: list[float], groups: list) -> Components | None:
    """One-way random-effects ANOVA of ``values`` grouped by ``groups`` (the injected model of each
    run). With k groups, N values, n_i per group (Searle, Casella & McCulloch, Variance
    Components, 1992, Sec. 3.5; ANOVA estimators, unbalanced groups allowed):

        MSB = sum_i n_i (mean_i - mean)^2 / (k - 1)        MSW = sum_ij (y_ij - mean_i)^2 / (N - k)
        n0  = (N - sum_i n_i^2 / N) / (k - 1)
        sigma^2_within = MSW                              sigma^2_between = max(0, (MSB - MSW) / n0)

    The interval is the t interval over the k group means: seeds of one model are not
    independent draws of the model, so an interval over all N runs would be too narrow whenever
    the models differ. None without values; the components are None with one group or no
    group of two values.
    """
    by_group: dict = {}
    for v, g in zip(values, groups):
        if v is not None:
            by_group.setdefault(g, []).append(float(v))
    if not by_group:
        return None
    k, n = len(by_group), sum(len(v) for v in by_group.values())
    means = [statistics.fmean(v) for v in by_group.values()]
    over_models = t_interval(means)
    assert over_models is not None   # a mean per group, and there is a group
    between = within = None
    if k > 1 and n > k:
        grand = statistics.fmean(v for vs in by_group.values() for v in vs)
        msb = sum(len(vs) * (m - grand) ** 2 for vs, m in zip(by_group.values(), means)) / (k - 1)
        msw = sum((v - m) ** 2 for vs, m in zip(by_group.values(), means) for v in vs) / (n - k)
        n0 = (n - sum(len(vs) ** 2 for vs in by_group.values()) / n) / (k - 1)
        within, between = msw, max(0.0, (msb - msw) / n0)
    return Components(over_models.mean, over_models.low, over_models.high, k, n, between, within)
