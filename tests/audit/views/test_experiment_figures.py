"""`audit experiment`'s figures, read back from their matplotlib objects: the deviation-score axis
follows the data (not a fixed 0 to 141), degrees are whole numbers."""

from __future__ import annotations

import math

import pytest

from audit.experiment.aggregate import CellRow, EdgePoint
from audit.experiment.stats import Correlation
from audit.views import experiment as V
from audit.views.plots import plt

T_975_2 = 4.302653      # Student's t, 97.5 % quantile, 2 degrees of freedom (from a printed table)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_cell_axis_reaches_just_above_the_highest_interval():
    rows = [CellRow("a", "g", "top-degree:2", "ga", None, "m", "joint", values={"deviation_score": [40.0, 44.0, 42.0]}),
            CellRow("b", "g", "top-degree:2", "npo", 1e-3, "m", "joint", values={"deviation_score": [20.0]})]
    ax = V.draw_cells(rows, "t").axes[0]
    # cell a: mean 42, sample sd 2, half width t * 2 / sqrt(3)
    top = 42.0 + T_975_2 * 2 / math.sqrt(3)
    low, high = ax.get_ylim()
    assert low <= 0 and top <= high <= 1.1 * top
    assert [b.get_height() for b in ax.patches] == pytest.approx([42.0, 20.0])


def test_structure_by_degree_has_whole_degree_ticks_and_a_data_axis():
    points = [EdgePoint(f"r{i}", "c", "ga", f"g/{i}", 17, 0.5, 20.0 + i) for i in range(4)]
    fig = V.draw_structure(points, {"edge_degree": Correlation(None, None, None, 4)}, "edge_degree", "t")
    fig.canvas.draw()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["17"]
    low, high = ax.get_ylim()
    assert low <= 0 and 23.0 <= high <= 1.1 * 23.0
    assert fig.legends and not ax.get_legend()            # the method legend sits outside the points
