"""The statistics of an experiment table: a mean with its 95 % t interval over seeds, and a rank
correlation with its bootstrap interval.

- ``t_interval``: mean ± t_{0.975, n-1} · s / √n, with s the sample standard deviation (n - 1
  in the denominator). Seeds are few (3-5), so the t quantile, not the normal one: for n = 3
  it is 4.30, not 1.96. Undefined (None) for a single seed.
- ``spearman``: Spearman's ρ (Pearson's correlation of the ranks, ties averaged), and a 95 %
  percentile bootstrap interval (2,000 resamples of the edges with all their measurements,
  seeded): the PISTOL claim "more connected edges are harder to forget" as one number with its
  uncertainty.
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
        return None if self.low is None else (self.high - self.low) / 2


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
