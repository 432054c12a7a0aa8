"""The one palette of the leakage views (audit/views/palette.py): its five status colours stay
apart for readers with each kind of dichromacy, and they are the colours the page and Neo4j
Browser's stylesheet use.

The bound: every pair of status colours at least **15** apart in CIE76 ΔE*ab, with normal
vision and under each simulation (Machado, Oliveira & Fernandes 2009, severity 1.0: the full
dichromacies, the hardest case). A ΔE*ab of about 2.3 is a just-noticeable difference between two
large patches side by side (Sharma, "Digital Color Imaging Handbook", 2003); the page's colours
are on lines 2-5 px wide, seen apart, and the difference needed to tell colours apart grows as
marks shrink (Stone, Szafir & Setlur, "An Engineering Model for Color Difference as a Function of
Size", Color and Imaging Conference 2014). 15, about six and a half JNDs, leaves room for both.
The pale grey of unmeasured edges is no status (its line is also thinner); it keeps 10 from each.

The simulator is checked against values known outside this code: CIELAB of sRGB white and red,
and the matrices keeping greys grey.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from audit.views.graph import build_view
from audit.measure.leakage import EdgeLeakage, LeakageThresholds, RunLeakage
from audit.views.page import render_page
from audit.views.palette import STATUS_COLOURS, UNMEASURED_COLOUR, status_colour

from colour_vision import MACHADO_2009, delta_e76, hex_rgb, lab, simulate

REPO = Path(__file__).resolve().parents[3]
BOUND = 15.0
UNMEASURED_BOUND = 10.0
SIGHTS = (None, "protanopia", "deuteranopia", "tritanopia")
# the Neo4j Browser relationship type of each status (docs/leakage.md); kept edges get none
GRASS_TYPES = {"leaked": "LEAKED", "partly_forgotten": "PARTLY_FORGOTTEN", "forgotten": "FORGOTTEN",
               "damaged": "DAMAGED"}


def test_the_simulator_against_known_values():
    # CIELAB of sRGB white and pure red (D65), as published for the sRGB space
    assert lab(hex_rgb("#FFFFFF")) == pytest.approx([100.0, 0.0, 0.0], abs=0.01)
    assert lab(hex_rgb("#FF0000")) == pytest.approx([53.24, 80.09, 67.20], abs=0.02)
    # Machado's matrices keep white white (rows sum to 1), so greys stay grey
    for name, matrix in MACHADO_2009.items():
        assert np.array(matrix).sum(axis=1) == pytest.approx([1, 1, 1], abs=1e-5), name
        assert simulate(hex_rgb("#BBBBBB"), name) == pytest.approx(hex_rgb("#BBBBBB"), abs=1e-4)
    # a deuteranope sees red and green alike, a tritanope blue and green alike: the distances fall
    red, green, blue = hex_rgb("#FF0000"), hex_rgb("#00FF00"), hex_rgb("#0000FF")
    assert delta_e76(simulate(red, "deuteranopia"), simulate(green, "deuteranopia")) < 0.5 * delta_e76(red, green)
    assert delta_e76(simulate(blue, "tritanopia"), simulate(green, "tritanopia")) < 0.5 * delta_e76(blue, green)


@pytest.mark.parametrize("sight", SIGHTS, ids=lambda s: s or "normal")
def test_every_pair_of_statuses_stays_apart(sight):
    seen = {s: simulate(hex_rgb(c), sight) for s, c in STATUS_COLOURS.items()}
    close = {(a, b): round(delta_e76(seen[a], seen[b]), 1) for a, b in itertools.combinations(seen, 2)
             if delta_e76(seen[a], seen[b]) < BOUND}
    assert close == {}, f"status colours closer than ΔE {BOUND} for {sight or 'normal vision'}"
    pale = simulate(hex_rgb(UNMEASURED_COLOUR), sight)
    assert min(delta_e76(pale, c) for c in seen.values()) >= UNMEASURED_BOUND


def test_the_stylesheet_uses_the_palette():
    text = (REPO / "docker" / "neo4j" / "leakage.grass").read_text(encoding="utf-8")
    colour = dict(re.findall(r"relationship\.(\w+) \{[^}]*?\bcolor: (#[0-9A-Fa-f]{6});", text))
    assert {s: colour[t].upper() for s, t in GRASS_TYPES.items()} == {s: STATUS_COLOURS[s].upper() for s in GRASS_TYPES}


def test_the_page_uses_the_palette():
    # one edge of each status and an unmeasured one; each edge's colour and the legend's rows
    t = LeakageThresholds()
    rows = [("a_b", "forget", 0.9, "leaked"), ("b_c", "forget", 0.5, "partly_forgotten"),
            ("c_d", "forget", 0.1, "forgotten"), ("d_e", "retain", 0.6, "damaged"), ("e_f", "retain", 0.0, "kept"),
            ("f_g", "retain", None, None)]
    edges = [EdgeLeakage(f"g/{k}", f"g/{k[0]}", f"g/{k[2]}", k[0], k[2], role, "d", 1, 0, 0.5, 1.0,
                         None if score is None else 1.0 - score, score, status) for k, role, score, status in rows]
    view = build_view(RunLeakage({"key": "r", "graph": "g"}, edges, t))
    assert {e.key: e.colour for e in view.edges} == {f"g/{k}": status_colour(s) for k, _, _, s in rows}
    data = view.as_json()
    assert {row["status"]: row["colour"] for row in data["legend"]} == STATUS_COLOURS
    assert data["unmeasured_colour"] == UNMEASURED_COLOUR
    # the page's script and style name no status colour of their own: every colour comes from the data
    page = render_page(view)
    for name in ("page.js", "page.css"):
        text = (REPO / "audit" / "data" / "view" / name).read_text(encoding="utf-8").upper()
        assert not set(re.findall(r"#[0-9A-F]{6}", text)) & {c.upper() for c in STATUS_COLOURS.values()}, name
    assert all(c in page for c in STATUS_COLOURS.values())
