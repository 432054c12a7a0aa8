"""The figures of ``audit report`` and ``audit compare``: one function per PNG.

Each function takes a run's leakage (``audit/views/leakage.py``: scores and statuses are never
recomputed here), writes one PNG of fixed size and dpi, closes its figure and returns the path.
Points and bars go to matplotlib as whole arrays, one call per series, never one artist per
edge, so a figure over 10,000 edges costs about what one over ten does; per-edge tick labels
are drawn only while they stay readable (``MAX_LABELLED_BARS``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")   # files only, never a window: also on machines without a display

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from audit.views.leakage import STATUSES, LeakageThresholds  # noqa: E402

DPI = 110
MAX_DEVIATION = 100 * math.sqrt(2)      # PISTOL's worst deviation score
MAX_LABELLED_BARS = 60     # per-edge tick labels up to this many edges
MAX_BARS = 300             # bars up to this many edges, thin lines beyond
STATUS_COLOURS = {"leaked": "#d62728", "partly_forgotten": "#ff7f0e", "forgotten": "#2ca02c",
                  "damaged": "#9467bd", "kept": "#7f7f7f"}
BEFORE_COLOUR = "#9ecae1"
A_COLOUR, B_COLOUR = "#d62728", "#1f77b4"


@dataclass(frozen=True)
class ForgetPoint:
    """One measured forget edge, as the forget figures draw it."""
    edge: str
    edge_degree: int
    rouge1_before: float | None
    rouge1_after: float
    deviation_score: float | None
    status: str


@dataclass(frozen=True)
class GroupBars:
    """One group of the tier and domain figures: its forget scores and its retained damage."""
    label: str
    forget_after: Sequence[float]       # ROUGE-1 after, forget edges of the group
    damage: Sequence[float]             # ROUGE-1 drop, retained edges of the group


@dataclass(frozen=True)
class PairedScores:
    """One edge measured in two runs (``audit compare``)."""
    edge: str
    score_a: float
    score_b: float


def degree_figure(points: Sequence[ForgetPoint], thresholds: LeakageThresholds, path: Path, title: str,
                  deviation_note: str) -> Path:
    """The PISTOL view: forget ROUGE-1 after (before as faint rings) and deviation score against
    edge degree, one point per forget edge, a line through the mean at each degree."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), dpi=DPI)
    degree = np.array([p.edge_degree for p in points], dtype=float)
    after = np.array([p.rouge1_after for p in points], dtype=float)
    many = len(points) > 200
    alpha, size = (0.4, 12) if many else (0.9, 40)
    before = [(p.edge_degree, p.rouge1_before) for p in points if p.rouge1_before is not None]
    if before:
        x, y = np.array(before, dtype=float).T
        left.scatter(x, y, s=size + 6, facecolors="none", edgecolors="#555555", alpha=0.35, linewidths=1,
                     label="before unlearning", zorder=2)
    _status_scatter(left, points, degree, after, alpha, size)
    _mean_line(left, degree, after)
    left.axhline(thresholds.leaked, color=STATUS_COLOURS["leaked"], ls="--", lw=1,
                 label=f"leaked at or above {thresholds.leaked:g}")
    left.axhline(thresholds.forgotten, color=STATUS_COLOURS["forgotten"], ls="--", lw=1,
                 label=f"forgotten at or below {thresholds.forgotten:g}")
    left.set(xlabel="edge degree", ylabel="forget ROUGE-1 recall after unlearning", ylim=(-0.04, 1.08),
             title="Forget ROUGE-1 against edge degree\n(lower: forgotten)")

    measured = [(p.edge_degree, p.deviation_score) for p in points if p.deviation_score is not None]
    if measured:
        x, y = np.array(measured, dtype=float).T
        right.scatter(x, y, s=size, color="#333333", alpha=alpha, zorder=3, label="forget edge")
        _mean_line(right, x, y)
    right.set(xlabel="edge degree", ylabel="deviation score (0 best, 141.4 worst)", ylim=(-3, MAX_DEVIATION + 5),
              title=f"Deviation score against edge degree\n({deviation_note}; lower: better)")
    for ax in (left, right):
        ax.title.set_fontsize(10)
        _integer_ticks(ax, degree)
        ax.grid(alpha=0.3)
        if not len(points):
            _empty(ax, "no measured forget edge")
        else:
            ax.legend(loc="best", fontsize=8, framealpha=0.85)
    return save_figure(fig, path, f"{title}: {len(points)} forget edge{'s' if len(points) != 1 else ''}")


def group_figure(groups: Sequence[GroupBars], path: Path, title: str, xlabel: str) -> Path:
    """Two bars per group: mean forget ROUGE-1 after unlearning, and mean ROUGE-1 drop of the
    group's retained edges (damage); each bar labelled with how many edges it averages."""
    fig, ax = plt.subplots(figsize=(max(6.5, 1.4 * len(groups) + 2.5), 4.6), dpi=DPI)
    x = np.arange(len(groups), dtype=float)
    width = 0.38
    forget = [_mean_or_zero(g.forget_after) for g in groups]
    damage = [_mean_or_zero(g.damage) for g in groups]
    ax.bar(x - width / 2, forget, width, color=STATUS_COLOURS["leaked"], alpha=0.8,
           label="forget edges: mean ROUGE-1 after (lower: forgotten)")
    ax.bar(x + width / 2, damage, width, color=STATUS_COLOURS["damaged"], alpha=0.8,
           label="retained edges: mean ROUGE-1 drop (higher: damaged)")
    for i, g in enumerate(groups):
        for offset, value, n in ((-width / 2, forget[i], len(g.forget_after)), (width / 2, damage[i], len(g.damage))):
            ax.text(x[i] + offset, max(value, 0) + 0.02, f"n={n}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, [g.label for g in groups])
    low = min([0.0] + forget + damage)
    ax.set(xlabel=xlabel, ylabel="mean ROUGE-1 recall (retained: its drop)", ylim=(low - 0.05 if low < 0 else 0, 1.12))
    ax.axhline(0, color="black", lw=0.6)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.85)
    return save_figure(fig, path, title)


def before_after_figure(forget: Sequence[ForgetPoint], retained: Sequence[tuple[str, float, float, str]],
                        path: Path, title: str, note: str) -> Path:
    """ROUGE-1 before and after unlearning, one pair of bars per edge: the forget edges sorted by
    edge degree (``forget`` already in that order), then the retained edges given (``(label,
    before, after, status)``), after a gap."""
    labels = [f"{_short(p.edge)} (d={p.edge_degree})" for p in forget] + [_short(r[0]) for r in retained]
    before = [p.rouge1_before if p.rouge1_before is not None else 0.0 for p in forget] + [r[1] for r in retained]
    after = [p.rouge1_after for p in forget] + [r[2] for r in retained]
    colours = [STATUS_COLOURS[p.status] for p in forget] + [STATUS_COLOURS[r[3]] for r in retained]
    x = np.concatenate([np.arange(len(forget)), np.arange(len(retained)) + len(forget) + (1 if retained else 0)])
    n = len(labels)
    fig, ax = plt.subplots(figsize=(min(18, max(7, 0.45 * n + 3)), 5), dpi=DPI)
    if n <= MAX_BARS:
        width = 0.42
        ax.bar(x - width / 2, before, width, color=BEFORE_COLOUR)
        ax.bar(x + width / 2, after, width, color=colours)
    else:
        # ax.bar makes one Rectangle per bar (seconds at 10,000 edges); vlines is one collection.
        ax.vlines(x, 0, before, colors=BEFORE_COLOUR, linewidth=1)
        ax.vlines(x, 0, after, colors=colours, linewidth=1)
        ax.set_xlim(-1, x.max() + 1)
    if n <= MAX_LABELLED_BARS:
        ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=8)
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{len(forget)} forget edges in order of edge degree, then {len(retained)} retained edges")
    if retained:
        ax.axvline(len(forget), color="black", lw=0.8, ls=":")
        ax.text(len(forget) + 0.15, 1.1, "retained edges", fontsize=8, va="top")
        if forget:
            ax.text(len(forget) - 0.15, 1.1, "forget edges", fontsize=8, va="top", ha="right")
    shown = {p.status for p in forget} | {r[3] for r in retained}
    present = [s for s in STATUSES if s in shown]
    handles = [Patch(color=BEFORE_COLOUR, label="before unlearning")] + [
        Patch(color=STATUS_COLOURS[s], label=f"after: {s.replace('_', ' ')}") for s in present]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    ax.set(ylabel="ROUGE-1 recall", ylim=(0, 1.14))
    ax.grid(axis="y", alpha=0.3)
    if not n:
        _empty(ax, "no measured edge")
    ax.set_title(textwrap.fill(note, 110), fontsize=8, color="#444444")
    return save_figure(fig, path, title)


def sweep_figure(forget_after: Sequence[float], deviation: Sequence[float], damage: Sequence[float],
                 thresholds: LeakageThresholds, path: Path, title: str) -> Path:
    """Per-edge sweeps: histograms over the swept edges of their own forget ROUGE-1 and deviation
    score, and over every edge of its retained ROUGE-1 drop (damage from the others' unlearnings)."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4), dpi=DPI)
    panels = [
        (axes[0], "swept edges", forget_after, np.linspace(0, 1, 21), "forget ROUGE-1 after its own unlearning",
         [(thresholds.leaked, "leaked", "leaked"), (thresholds.forgotten, "forgotten", "forgotten")], "#d62728"),
        (axes[1], "swept edges", deviation, np.linspace(0, MAX_DEVIATION, 21), "deviation score (0 best)", [],
         "#333333"),
        (axes[2], "all edges, over the other edges' unlearnings", damage,
         np.linspace(min([0.0] + list(damage)), max([1.0] + list(damage)), 21),
         "retained ROUGE-1 drop (damage)",
         [(thresholds.damaged, "damaged", "damaged")], "#9467bd"),
    ]
    for ax, which, values, bins, xlabel, lines, colour in panels:
        values = np.asarray(values, dtype=float)
        ax.hist(values, bins=bins, color=colour, alpha=0.75)
        for where, name, status in lines:
            ax.axvline(where, color=STATUS_COLOURS[status], ls="--", lw=1, label=f"{name} threshold {where:g}")
        if len(values):
            ax.axvline(values.mean(), color="black", lw=1.2, label=f"mean {values.mean():.3f}")
            ax.legend(loc="best", fontsize=8)
        else:
            _empty(ax, "no value")
        ax.set(xlabel=xlabel, ylabel="edges")
        ax.set_title(f"{which}: {len(values)}", fontsize=10)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.grid(alpha=0.3)
    return save_figure(fig, path, title)


def compare_figure(forget: Sequence[PairedScores], retained: Sequence[PairedScores],
                   thresholds: LeakageThresholds, path: Path, label_a: str, label_b: str) -> Path:
    """Run A against run B, one point per edge: forget ROUGE-1 after (left; the dashed lines are
    the leaked threshold, so the off-diagonal corners hold the edges that leak after one run
    only) and retained ROUGE-1 drop (right; dashed: the damaged threshold)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5.6), dpi=DPI)
    a = np.array([p.score_a for p in forget], dtype=float)
    b = np.array([p.score_b for p in forget], dtype=float)
    leak_a, leak_b = a >= thresholds.leaked, b >= thresholds.leaked
    groups = [(leak_a & ~leak_b, A_COLOUR, "leaks after A only"), (~leak_a & leak_b, B_COLOUR, "leaks after B only"),
              (leak_a & leak_b, "#000000", "leaks after both"), (~leak_a & ~leak_b, "#999999", "leaks after neither")]
    for mask, colour, name in groups:
        if mask.any():
            left.scatter(a[mask], b[mask], s=36, color=colour, alpha=0.8, label=f"{name} ({int(mask.sum())})", zorder=3)
    for ax, where, status in ((left, thresholds.leaked, "leaked"), (right, thresholds.damaged, "damaged")):
        ax.axvline(where, color=STATUS_COLOURS[status], ls="--", lw=1)
        ax.axhline(where, color=STATUS_COLOURS[status], ls="--", lw=1, label=f"{status} threshold {where:g}")
    ra = np.array([p.score_a for p in retained], dtype=float)
    rb = np.array([p.score_b for p in retained], dtype=float)
    if len(retained):
        right.scatter(ra, rb, s=24, color=STATUS_COLOURS["damaged"], alpha=0.9 if len(retained) <= 200 else 0.35,
                      label=f"retained edge ({len(retained)})", zorder=3)
    low = min([0.0] + list(ra) + list(rb))
    for ax, lo, what in ((left, 0.0, "forget ROUGE-1 after"), (right, low, "retained ROUGE-1 drop")):
        ax.plot([lo - 0.04, 1.04], [lo - 0.04, 1.04], color="black", lw=0.8, label="A = B")
        ax.set(xlim=(lo - 0.04, 1.04), ylim=(lo - 0.04, 1.04), aspect="equal",
               xlabel=f"{what}, run A: {label_a}", ylabel=f"{what}, run B: {label_b}")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=8, framealpha=0.85)
    left.set_title("Forget edges (below the diagonal: B forgot more)", fontsize=10)
    right.set_title("Retained edges (below the diagonal: B damaged less)", fontsize=10)
    if not len(forget):
        _empty(left, "no forget edge in both runs")
    if not len(retained):
        _empty(right, "no retained edge in both runs")
    return save_figure(fig, path, "Run A against run B, per edge")


# -- helpers ------------------------------------------------------------------------------------
def _status_scatter(ax, points: Sequence[ForgetPoint], degree: np.ndarray, after: np.ndarray, alpha: float,
                    size: float) -> None:
    status = np.array([p.status for p in points])
    for name in STATUSES:
        mask = status == name
        if mask.any():
            ax.scatter(degree[mask], after[mask], s=size, color=STATUS_COLOURS[name], alpha=alpha, zorder=3,
                       label=f"after: {name.replace('_', ' ')} ({int(mask.sum())})")


def _mean_line(ax, x: np.ndarray, y: np.ndarray) -> None:
    """The mean of y at each distinct x, joined: the trend when many points share a degree."""
    if len(x) < 2:
        return
    levels, inverse = np.unique(x, return_inverse=True)
    if len(levels) < 2:
        return
    means = np.bincount(inverse, weights=y) / np.bincount(inverse)
    ax.plot(levels, means, color="black", lw=1.5, alpha=0.8, label="mean per degree", zorder=4)


def _integer_ticks(ax, degree: np.ndarray) -> None:
    if len(degree):
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlim(degree.min() - 0.7, degree.max() + 0.7)


def _mean_or_zero(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else 0.0


def _short(edge: str) -> str:
    """An edge key without its graph prefix (``demo/0_1`` -> ``0_1``), for tick labels."""
    return edge.split("/", 1)[-1]


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=11, color="#666666")


def save_figure(fig, path: Path, title: str) -> Path:
    fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(path, dpi=DPI)
    finally:
        plt.close(fig)
    return path
