"""The figures of ``audit report`` and ``audit compare``: one ``draw_*`` function per PNG, which
returns the finished matplotlib figure (tests read its artists); ``write_figure`` writes it.

Each takes a run's leakage (``audit/measure/leakage.py``: scores and statuses are never recomputed
here) and draws by a few rules, so that no figure suggests what the data do not say:

- a status is always its colour from ``audit/views/palette.py``, and a threshold line is drawn in
  the colour of the status it opens;
- one quantity per axis (forget ROUGE-1 and retained ROUGE-1 drop are two panels, never two bars
  on one scale);
- no line joins means: a mean is a black dash, drawn only where at least ``MIN_FOR_MEAN`` edges
  share it, so a single edge is never read as a trend;
- an empty group (no edge in a density tier or domain) is left out, and every group says its n;
- degree axes have integer ticks; the deviation-score axis runs from 0 to a little above the data;
- legends sit outside the axes, never over points or threshold lines.

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
from matplotlib.artist import Artist  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from audit.measure.leakage import FORGET_STATUSES, STATUSES, LeakageThresholds  # noqa: E402
from audit.views.palette import STATUS_COLOURS, STATUS_LABELS  # noqa: E402

DPI = 110
MAX_DEVIATION = 100 * math.sqrt(2)      # PISTOL's worst deviation score
MAX_LABELLED_BARS = 60     # per-edge tick labels up to this many edges
MAX_BARS = 300             # bars up to this many edges, thin lines beyond
MIN_FOR_MEAN = 2           # a mean is drawn only over at least this many edges
MAX_RINGED = 200           # borderline edges ringed up to this many forget edges (beyond: a black band)
MAX_LISTED_TICKS = 15      # up to this many degrees, every degree is a tick
# Okabe-Ito's hues the statuses leave free (palette.py): run A sky blue, run B bluish green.
A_COLOUR, B_COLOUR = "#56B4E9", "#009E73"
BEFORE_EDGE = "#333333"    # "before unlearning": an outline (bars) or a black dash (lines), never a hue
MEAN_COLOUR = "#000000"
NEUTRAL = "#666666"        # points that carry no status (a retained edge in compare)
RETAINED_STATUSES = STATUSES[3:]


@dataclass(frozen=True)
class ForgetPoint:
    """One measured forget edge, as the forget figures draw it."""
    edge: str
    edge_degree: int
    rouge1_before: float | None
    rouge1_after: float
    deviation_score: float | None
    status: str
    borderline: str | None = None       # the threshold its ROUGE-1 after lies within the margin of


@dataclass(frozen=True)
class GroupScores:
    """One group of the tier and domain figures (a density tier, a domain): its edges' scores."""
    label: str
    forget: Sequence[tuple[float, str]]     # (ROUGE-1 after, status) per forget edge of the group
    retained: Sequence[tuple[float, str]]   # (ROUGE-1 drop, status) per retained edge of the group


@dataclass(frozen=True)
class PairedScores:
    """One edge measured in two runs (``audit compare``)."""
    edge: str
    score_a: float
    score_b: float


def draw_degree(points: Sequence[ForgetPoint], thresholds: LeakageThresholds, title: str, deviation_note: str):
    """The PISTOL view: forget ROUGE-1 after (before as faint rings) and deviation score against
    edge degree, one point per forget edge coloured by status, a black dash at the mean of each
    degree that holds at least two edges; borderline edges ringed (up to ``MAX_RINGED`` edges)."""
    fig, (left, right) = new_figure((12, 5.4), 1, 2)
    degree = np.array([p.edge_degree for p in points], dtype=float)
    after = np.array([p.rouge1_after for p in points], dtype=float)
    alpha, size = (0.4, 12) if len(points) > 200 else (0.9, 40)
    before = [(p.edge_degree, p.rouge1_before) for p in points if p.rouge1_before is not None]
    if before:
        x, y = np.array(before, dtype=float).T
        left.scatter(x, y, s=size + 6, facecolors="none", edgecolors="#555555", alpha=0.35, linewidths=1,
                     label="before unlearning", zorder=2)
    statuses = [p.status for p in points]
    _status_scatter(left, degree, after, statuses, alpha, size)
    near = np.array([p.borderline is not None for p in points], dtype=bool)
    if near.any() and len(points) <= MAX_RINGED:
        left.scatter(degree[near], after[near], s=size * 3, facecolors="none", edgecolors="black", linewidths=1.2,
                     zorder=4, label=f"within {thresholds.margin:g} of a threshold ({int(near.sum())})")
    _mean_marks(left, degree, after)
    _threshold(left, thresholds.leaked, "leaked", f"leaked at or above {thresholds.leaked:g}")
    _threshold(left, thresholds.forgotten, "forgotten", f"forgotten at or below {thresholds.forgotten:g}")
    left.set(xlabel="edge degree", ylabel="forget ROUGE-1 recall after unlearning", ylim=(-0.04, 1.08),
             title="Forget ROUGE-1 against edge degree\n(lower: forgotten)")

    measured = np.array([p.deviation_score is not None for p in points], dtype=bool)
    ds = np.array([p.deviation_score if p.deviation_score is not None else np.nan for p in points], dtype=float)
    _status_scatter(right, degree[measured], ds[measured], [s for s, m in zip(statuses, measured) if m], alpha,
                    size, label=False)
    _mean_marks(right, degree[measured], ds[measured], label=False)
    right.set(xlabel="edge degree", ylabel="deviation score (0 best, 141.4 worst)",
              ylim=deviation_limits(ds[measured]),
              title=f"Deviation score against edge degree\n({deviation_note}; lower: better)")
    for ax in (left, right):
        ax.title.set_fontsize(10)
        degree_ticks(ax, degree)
        ax.grid(alpha=0.3)
    if not len(points):
        _empty(left, "no measured forget edge")
        _empty(right, "no measured forget edge")
    else:
        _legend_below(fig, left.get_legend_handles_labels(), ncol=4)
    return finish(fig, f"{title}: {len(points)} forget edge{'s' if len(points) != 1 else ''}")



def draw_groups(groups: Sequence[GroupScores], thresholds: LeakageThresholds, title: str, xlabel: str):
    """Two panels, one quantity each: the forget edges' ROUGE-1 after unlearning and the retained
    edges' ROUGE-1 drop, per group. A hollow bar is the group's mean, the dots its edges coloured by
    status; a group without edges of that role is left out of that panel, the n of the others is
    under their name."""
    fig, (left, right) = new_figure((max(10.0, 2.2 * len(groups) + 5), 5.2), 1, 2)
    _group_panel(left, [(g.label, g.forget) for g in groups], FORGET_STATUSES)
    _threshold(left, thresholds.leaked, "leaked", f"leaked at or above {thresholds.leaked:g}")
    _threshold(left, thresholds.forgotten, "forgotten", f"forgotten at or below {thresholds.forgotten:g}")
    left.set(xlabel=xlabel, ylabel="forget ROUGE-1 recall after unlearning", ylim=(-0.04, 1.08),
             title="Forget edges (lower: forgotten)")
    drops = [v for g in groups for v, _ in g.retained]
    _group_panel(right, [(g.label, g.retained) for g in groups], RETAINED_STATUSES)
    _threshold(right, thresholds.damaged, "damaged", f"damaged at or above {thresholds.damaged:g}")
    right.axhline(0, color="black", lw=0.6)
    low, high = min([0.0] + drops), max([thresholds.damaged] + drops)
    pad = 0.06 * (high - low)
    right.set(xlabel=xlabel, ylabel="retained ROUGE-1 drop (before - after)", ylim=(low - pad, high + pad),
              title="Retained edges (higher: damaged)")
    legend: dict = {}                   # one entry per label: both panels draw "mean of the group"
    for ax in (left, right):
        ax.title.set_fontsize(10)
        ax.grid(axis="y", alpha=0.3)
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    _legend_below(fig, (list(legend.values()), list(legend)), ncol=4)
    return finish(fig, title)



def draw_before_after(forget: Sequence[ForgetPoint], retained: Sequence[tuple[str, float, float, str]],
                      title: str, note: str):
    """ROUGE-1 before and after unlearning per edge: before an outline, after filled in the edge's
    status colour. The forget edges sorted by edge degree (``forget`` already in that order), then
    the retained edges given (``(label, before, after, status)``), after a gap."""
    labels = [f"{_short(p.edge)} (d={p.edge_degree})" for p in forget] + [_short(r[0]) for r in retained]
    before = [p.rouge1_before if p.rouge1_before is not None else 0.0 for p in forget] + [r[1] for r in retained]
    after = [p.rouge1_after for p in forget] + [r[2] for r in retained]
    colours = [STATUS_COLOURS[p.status] for p in forget] + [STATUS_COLOURS[r[3]] for r in retained]
    x = np.concatenate([np.arange(len(forget)), np.arange(len(retained)) + len(forget) + (1 if retained else 0)])
    n = len(labels)
    fig, ax = new_figure((min(18, max(7, 0.45 * n + 3)), 5))
    if n <= MAX_BARS:
        width = 0.42
        ax.bar(x - width / 2, before, width, facecolor="white", edgecolor=BEFORE_EDGE, linewidth=0.8)
        ax.bar(x + width / 2, after, width, color=colours)
        before_handle: Artist = Patch(facecolor="white", edgecolor=BEFORE_EDGE, label="before unlearning")
    else:
        # ax.bar makes one Rectangle per bar (seconds at 10,000 edges); vlines is one collection.
        ax.vlines(x, 0, after, colors=colours, linewidth=1)
        ax.scatter(x, before, marker="_", s=16, color=BEFORE_EDGE, linewidths=1, zorder=3)
        ax.set_xlim(-1, x.max() + 1)
        before_handle = Line2D([], [], ls="none", marker="_", color=BEFORE_EDGE, label="before unlearning")
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
    handles = [before_handle] + [Patch(color=STATUS_COLOURS[s], label=f"after: {STATUS_LABELS[s]}")
                                 for s in STATUSES if s in shown]
    fig.legend(handles=handles, loc="outside right upper", fontsize=8)
    ax.set(ylabel="ROUGE-1 recall", ylim=(0, 1.14))
    ax.grid(axis="y", alpha=0.3)
    if not n:
        _empty(ax, "no measured edge")
    ax.set_title(textwrap.fill(note, 110), fontsize=8, color="#444444")
    return finish(fig, title)



def draw_sweep(points: Sequence[ForgetPoint], damage: Sequence[tuple[float, str]], thresholds: LeakageThresholds,
               title: str):
    """Per-edge sweeps, three histograms stacked by status: over the swept edges their own forget
    ROUGE-1 and deviation score (coloured by their forget status), and over every edge its
    retained ROUGE-1 drop from the others' unlearnings (``damage``: (drop, damaged or kept))."""
    fig, axes = new_figure((15, 5.0), 1, 3)
    after = [(p.rouge1_after, p.status) for p in points]
    ds = [(p.deviation_score, p.status) for p in points if p.deviation_score is not None]
    drops = [v for v, _ in damage]
    low, high = min([0.0] + drops), max([thresholds.damaged] + drops)
    panels = [
        (axes[0], "swept edges", after, np.linspace(0, 1, 21), "forget ROUGE-1 after its own unlearning",
         [(thresholds.leaked, "leaked"), (thresholds.forgotten, "forgotten")], FORGET_STATUSES),
        (axes[1], "swept edges", ds, np.linspace(0, deviation_limits([v for v, _ in ds])[1], 21),
         "deviation score (0 best)", [], FORGET_STATUSES),
        (axes[2], "all edges, over the other edges' unlearnings", damage,
         np.linspace(low, high + 1e-9, 21) if high > low else np.linspace(low - 0.05, high + 0.05, 21),
         "retained ROUGE-1 drop (damage)", [(thresholds.damaged, "damaged")], RETAINED_STATUSES),
    ]
    for ax, which, scored, bins, xlabel, lines, order in panels:
        present = [s for s in order if any(status == s for _, status in scored)]
        if present:
            ax.hist([[v for v, status in scored if status == s] for s in present], bins=bins, stacked=True,
                    color=[STATUS_COLOURS[s] for s in present], label=[STATUS_LABELS[s] for s in present])
        for where, status in lines:
            _threshold(ax, where, status, f"{status} threshold {where:g}", vertical=True)
        values = np.array([v for v, _ in scored], dtype=float)
        if len(values):
            ax.axvline(values.mean(), color=MEAN_COLOUR, lw=1.2, label=f"mean {values.mean():.3f}")
        else:
            _empty(ax, "no value")
        ax.set(xlabel=xlabel, ylabel="edges")
        ax.set_title(f"{which}: {len(values)}", fontsize=10)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        if len(values):
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8, frameon=False)
    return finish(fig, title)



def draw_compare(forget: Sequence[PairedScores], retained: Sequence[PairedScores], thresholds: LeakageThresholds,
                 label_a: str, label_b: str):
    """Run A against run B, one point per edge: forget ROUGE-1 after (left; the dashed lines are
    the leaked threshold, so the off-diagonal corners hold the edges that leak after one run
    only) and retained ROUGE-1 drop (right; dashed: the damaged threshold)."""
    fig, (left, right) = new_figure((12, 6.4), 1, 2)
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
        right.scatter(ra, rb, s=24, color=NEUTRAL, alpha=0.9 if len(retained) <= 200 else 0.35,
                      label=f"retained edge ({len(retained)})", zorder=3)
    low = min([0.0] + list(ra) + list(rb))
    for ax, lo, what in ((left, 0.0, "forget ROUGE-1 after"), (right, low, "retained ROUGE-1 drop")):
        ax.plot([lo - 0.04, 1.04], [lo - 0.04, 1.04], color="black", lw=0.8, label="A = B")
        ax.set(xlim=(lo - 0.04, 1.04), ylim=(lo - 0.04, 1.04), aspect="equal",
               xlabel=f"{what}, run A: {label_a}", ylabel=f"{what}, run B: {label_b}")
        ax.grid(alpha=0.3)
        # below the axes: the top-left corner is where the edges that leak after B only lie
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8, frameon=False)
    left.set_title("Forget edges (below the diagonal: B forgot more)", fontsize=10)
    right.set_title("Retained edges (below the diagonal: B damaged less)", fontsize=10)
    if not len(forget):
        _empty(left, "no forget edge in both runs")
    if not len(retained):
        _empty(right, "no retained edge in both runs")
    return finish(fig, "Run A against run B, per edge")



# -- axes shared by several figures ---------------------------------------------------------------
def degree_ticks(ax, degree: np.ndarray) -> None:
    """Whole degrees only: every degree up to ``MAX_LISTED_TICKS`` of them (one tick when all
    edges share one degree), else matplotlib's integer locator."""
    if not len(degree):
        return
    lo, hi = int(np.min(degree)), int(np.max(degree))
    ax.set_xlim(lo - 0.7, hi + 0.7)
    if hi - lo < MAX_LISTED_TICKS:
        ax.set_xticks(range(lo, hi + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def deviation_limits(values) -> tuple[float, float]:
    """A deviation-score axis from 0 to a little above the largest value (at most the worst
    score, at least 10), so that the data fill the panel."""
    values = np.asarray(values, dtype=float)
    top = float(np.nanmax(values)) if len(values) and not np.isnan(values).all() else MAX_DEVIATION
    top = min(MAX_DEVIATION, max(10.0, top)) * 1.08
    return -0.03 * top, top


# -- helpers ------------------------------------------------------------------------------------
def new_figure(size: tuple[float, float], rows: int = 1, cols: int = 1):
    """A figure whose layout keeps room for legends and labels outside the axes."""
    return plt.subplots(rows, cols, figsize=size, dpi=DPI, layout="constrained")


def _status_scatter(ax, x: np.ndarray, y: np.ndarray, statuses: Sequence[str], alpha: float, size: float,
                    label: bool = True) -> None:
    status = np.array(statuses, dtype=object)
    for name in STATUSES:
        mask = status == name
        if mask.any():
            ax.scatter(x[mask], y[mask], s=size, color=STATUS_COLOURS[name], alpha=alpha, zorder=3,
                       label=f"after: {STATUS_LABELS[name]} ({int(mask.sum())})" if label else None)


def _mean_marks(ax, x: np.ndarray, y: np.ndarray, label: bool = True) -> None:
    """A black dash at the mean of y at each x shared by at least ``MIN_FOR_MEAN`` points; no line
    joins them (a line through single edges draws a trend that is not there)."""
    if not len(x):
        return
    levels, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    means = np.bincount(inverse, weights=y) / counts
    shared = counts >= MIN_FOR_MEAN
    if shared.any():     # 0.7 of a degree wide, however many degrees the axis holds
        ax.hlines(means[shared], levels[shared] - 0.35, levels[shared] + 0.35, linewidths=2, color=MEAN_COLOUR,
                  zorder=5, label=f"mean at a degree of {MIN_FOR_MEAN} or more edges" if label else None)


def _group_panel(ax, groups: Sequence[tuple[str, Sequence[tuple[float, str]]]], order: Sequence[str]) -> None:
    kept = [(label, scored) for label, scored in groups if len(scored)]
    if not kept:
        _empty(ax, "no edge")
        ax.set_xticks([])
        return
    x = np.arange(len(kept), dtype=float)
    ax.bar(x, [float(np.mean([v for v, _ in scored])) for _, scored in kept], 0.6, facecolor="none",
           edgecolor="black", linewidth=1.2, label="mean of the group", zorder=4)
    rng = np.random.default_rng(0)      # a fixed jitter: the same figure on every run
    for name in order:
        xs, ys = [], []
        for i, (_, scored) in enumerate(kept):
            values = [v for v, status in scored if status == name]
            xs += list(x[i] + rng.uniform(-0.22, 0.22, len(values)))
            ys += values
        if ys:
            ax.scatter(xs, ys, s=16, color=STATUS_COLOURS[name], alpha=0.8 if len(ys) <= 200 else 0.3, zorder=3,
                       label=STATUS_LABELS[name])
    ax.set_xticks(x, [f"{label}\nn = {len(scored)}" for label, scored in kept])


def _threshold(ax, where: float, status: str, label: str, vertical: bool = False) -> None:
    line = ax.axvline if vertical else ax.axhline
    line(where, color=STATUS_COLOURS[status], ls="--", lw=1.2, label=label, zorder=2)


def _legend_below(fig, handles_labels: tuple[list, list], ncol: int) -> None:
    handles, labels = handles_labels
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncol=min(ncol, len(handles)), fontsize=8,
                   frameon=False)


def _short(edge: str) -> str:
    """An edge key without its graph prefix (``demo/0_1`` -> ``0_1``), for tick labels."""
    return edge.split("/", 1)[-1]


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=11, color="#666666")


def finish(fig, title: str):
    """The figure under its title, ready to write."""
    fig.suptitle(title, fontsize=12)
    return fig


def write_figure(fig, path: Path) -> Path:
    """Write a finished figure as PNG at ``DPI`` and close it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(path, dpi=DPI)
    finally:
        plt.close(fig)
    return path
