"""The report and compare figures, read back from the matplotlib objects they are made of: what a
reader sees (colours, ticks, limits, legend placement, which bars exist) against values worked
out by hand here, colours against palette.py's.
"""

from __future__ import annotations

import matplotlib.colors as mcolors
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.patches import Rectangle

from audit.views import plots as P
from audit.measure.leakage import LeakageThresholds
from audit.views.palette import STATUS_COLOURS

T = LeakageThresholds()     # leaked 0.8, forgotten 0.2, damaged 0.2, margin 0.05
# the one palette (palette.py, its own tests check the hues): the figures must use it, not colours of their own
HEX = {status: colour.lower() for status, colour in STATUS_COLOURS.items()}


def point(edge, degree, after, status, ds=None, before=1.0, borderline=None):
    return P.ForgetPoint(edge, degree, before, after, ds, status, borderline)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    P.plt.close("all")


def hexes(colours) -> list[str]:
    return [mcolors.to_hex(c) for c in colours]


def collections(ax) -> dict[str, PathCollection]:
    return {c.get_label(): c for c in ax.collections if isinstance(c, PathCollection)}


def bars(ax) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


# -- degree.png -----------------------------------------------------------------------------------
# degree 1: one edge; degree 2: one edge; degree 3: three edges (after 0.9, 0.5, 0.1; ds 90, 60, 30)
DEGREE_POINTS = [point("g/a", 1, 0.85, "leaked", 85.0), point("g/b", 2, 0.23, "partly_forgotten", 40.0,
                                                                  borderline="forgotten"),
                 point("g/c", 3, 0.9, "leaked", 90.0), point("g/d", 3, 0.5, "partly_forgotten", 60.0),
                 point("g/e", 3, 0.1, "forgotten", 30.0)]


def test_degree_draws_no_line_through_single_points():
    fig = P.draw_degree(DEGREE_POINTS, T, "t", "note")
    left, right = fig.axes
    for ax in (left, right):
        # the only lines are the horizontal thresholds: nothing joins points across degrees
        assert all(len(set(np.asarray(line.get_ydata(), dtype=float))) == 1 for line in ax.get_lines())
    # only degree 3 holds two or more edges: a dash at (0.9 + 0.5 + 0.1) / 3 = 0.5, and (90 + 60 + 30) / 3
    for ax, mean in ((left, 0.5), (right, 60.0)):
        (dash,) = [c for c in ax.collections if isinstance(c, LineCollection)]
        assert len(dash.get_segments()) == 1 and np.allclose(dash.get_segments()[0], [[2.65, mean], [3.35, mean]])


def test_degree_statuses_and_thresholds_in_palette_colours():
    fig = P.draw_degree(DEGREE_POINTS, T, "t", "note")
    left = fig.axes[0]
    found = collections(left)
    for status, label, n in (("leaked", "after: leaked (2)", 2), ("partly_forgotten", "after: partly forgotten (2)", 2),
                             ("forgotten", "after: forgotten (1)", 1)):
        assert set(hexes(found[label].get_facecolors())) == {HEX[status]}
        assert len(found[label].get_offsets()) == n
    lines = {round(float(line.get_ydata()[0]), 6): mcolors.to_hex(line.get_color()) for line in left.get_lines()}
    assert lines == {0.8: HEX["leaked"], 0.2: HEX["forgotten"]}
    ringed = found["within 0.05 of a threshold (1)"]      # g/b at 0.23, 0.03 from 0.2
    assert np.allclose(ringed.get_offsets(), [[2.0, 0.23]])


def test_degree_legend_lies_outside_every_axes():
    fig = P.draw_degree(DEGREE_POINTS, T, "t", "note")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        assert not box.overlaps(frame), (box, frame)
        assert not ax.get_legend()


def test_degree_ticks_are_whole_degrees():
    same = [point(f"g/{i}", 17, 0.1 * i, "partly_forgotten", 10.0 * i) for i in range(3, 6)]
    fig = P.draw_degree(same, T, "t", "note")
    fig.canvas.draw()
    for ax in fig.axes:
        assert list(ax.get_xticks()) == [17.0]                # one tick, not 16.4 ... 17.6
        assert [t.get_text() for t in ax.get_xticklabels()] == ["17"]
    wide = [point(f"g/{d}", d, 0.5, "partly_forgotten", 50.0) for d in (1, 9, 23, 40)]
    fig = P.draw_degree(wide, T, "t", "note")
    fig.canvas.draw()
    for ax in fig.axes:
        low, high = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if low <= t <= high]
        assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks)


@pytest.mark.parametrize("largest", [12.0, 50.0, 100 * np.sqrt(2)])
def test_deviation_axis_follows_the_data(largest):
    points = [point("g/a", 1, 0.1, "forgotten", largest / 2), point("g/b", 2, 0.1, "forgotten", largest)]
    low, high = P.draw_degree(points, T, "t", "note").axes[1].get_ylim()
    assert low <= 0 and largest <= high <= 1.1 * max(largest, 10.0)


# -- density_tiers.png, domains.png -----------------------------------------------------------------
GROUPS = [
    P.GroupScores("sparse", [(0.9, "leaked"), (0.1, "forgotten")], []),                   # no retained edge
    P.GroupScores("mid", [(0.5, "partly_forgotten")], [(0.3, "damaged"), (0.0, "kept"), (-0.15, "kept")]),
    P.GroupScores("dense", [], []),                                                        # empty
]


def test_groups_one_quantity_per_panel_without_empty_groups():
    left, right = P.draw_groups(GROUPS, T, "t", "tier").axes
    assert "ROUGE-1 recall after" in left.get_ylabel() and "drop" in right.get_ylabel()
    assert [t.get_text() for t in left.get_xticklabels()] == ["sparse\nn = 2", "mid\nn = 1"]
    assert [t.get_text() for t in right.get_xticklabels()] == ["mid\nn = 3"]
    # one hollow bar per group shown, at its mean: (0.9 + 0.1) / 2, 0.5; (0.3 + 0 - 0.15) / 3
    assert [b.get_height() for b in bars(left)] == pytest.approx([0.5, 0.5])
    assert [b.get_height() for b in bars(right)] == pytest.approx([0.05])
    assert right.get_ylim()[0] < -0.15 and right.get_ylim()[1] > 0.3
    # each edge a dot in its status colour
    for ax, expected in ((left, {"leaked": 1, "forgotten": 1, "partly_forgotten": 1}),
                         (right, {"damaged": 1, "kept": 2})):
        dots = {hexes(c.get_facecolors())[0]: len(c.get_offsets()) for c in ax.collections
                if isinstance(c, PathCollection)}
        assert dots == {HEX[s]: n for s, n in expected.items()}


def test_groups_without_any_edge_say_so():
    left, right = P.draw_groups([P.GroupScores("dense", [], [])], T, "t", "tier").axes
    for ax in (left, right):
        assert not bars(ax) and [t.get_text() for t in ax.texts] == ["no edge"]


# -- sweep.png ------------------------------------------------------------------------------------
def test_sweep_bars_take_their_status_colour():
    points = [point("g/a", 1, 0.95, "leaked", 95.0), point("g/b", 1, 0.85, "leaked", 86.0),
              point("g/c", 2, 0.5, "partly_forgotten", 51.0), point("g/d", 2, 0.05, "forgotten", 6.0),
              point("g/e", 3, 0.15, "forgotten", 16.0), point("g/f", 3, 0.1, "forgotten", 11.0)]
    damage = [(0.4, "damaged"), (0.05, "kept"), (-0.1, "kept"), (0.0, "kept")]
    fig = P.draw_sweep(points, damage, T, "t")
    expected = [{HEX["leaked"]: 2, HEX["partly_forgotten"]: 1, HEX["forgotten"]: 3}] * 2 + [
        {HEX["damaged"]: 1, HEX["kept"]: 3}]
    for ax, counts in zip(fig.axes, expected):
        heights: dict[str, float] = {}
        for bar in bars(ax):
            if bar.get_height() > 0:
                colour = mcolors.to_hex(bar.get_facecolor())
                heights[colour] = heights.get(colour, 0) + bar.get_height()
        assert heights == counts
    # the deviation axis ends a little above the worst edge's 95, not at 141
    assert 95 <= fig.axes[1].get_xlim()[1] <= 110


# -- before_after.png -----------------------------------------------------------------------------
def test_before_after_outlines_before_and_fills_after_by_status():
    forget = [point("g/a", 1, 0.85, "leaked", before=0.9), point("g/b", 2, 0.1, "forgotten", before=0.8)]
    retained = [("g/c", 1.0, 0.6, "damaged"), ("g/d", 0.7, 0.65, "kept")]
    ax = P.draw_before_after(forget, retained, "t", "note").axes[0]
    shown = bars(ax)
    before, after = shown[:4], shown[4:]
    assert [b.get_height() for b in before] == pytest.approx([0.9, 0.8, 1.0, 0.7])
    assert all(b.get_facecolor()[3] == 0 or mcolors.to_hex(b.get_facecolor()) == "#ffffff" for b in before)
    assert [b.get_height() for b in after] == pytest.approx([0.85, 0.1, 0.6, 0.65])
    assert hexes(b.get_facecolor() for b in after) == [HEX["leaked"], HEX["forgotten"], HEX["damaged"], HEX["kept"]]


# -- compare.png ----------------------------------------------------------------------------------
def test_compare_colours_differ_from_the_statuses_and_legends_sit_below():
    forget = [P.PairedScores("g/a", 0.9, 0.1), P.PairedScores("g/b", 0.1, 0.9), P.PairedScores("g/c", 0.9, 0.9)]
    retained = [P.PairedScores("g/d", 0.3, 0.0)]
    fig = P.draw_compare(forget, retained, T, "A", "B")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left = fig.axes[0]
    points = {label.split(" (")[0]: hexes(c.get_facecolors())[0] for label, c in collections(left).items()}
    assert set(points) == {"leaks after A only", "leaks after B only", "leaks after both"}
    assert points["leaks after A only"] != points["leaks after B only"]
    assert not set(points.values()) & set(HEX.values())
    for ax in fig.axes:
        # (0.1, 0.9), top left: the edge that leaks after B only stays in view
        assert not ax.get_legend().get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))


def test_figures_without_data_say_so():
    fig = P.draw_degree([], T, "t", "note")
    assert [[t.get_text() for t in ax.texts] for ax in fig.axes] == [["no measured forget edge"]] * 2
    assert not fig.legends
    fig = P.draw_sweep([], [], T, "t")
    assert [[t.get_text() for t in ax.texts] for ax in fig.axes] == [["no value"]] * 3
