"""docker/neo4j/leakage.grass colours the leakage relationship types with the one palette of every
leakage view (audit/views/palette.py): a partly forgotten fact is the same orange in Neo4j
Browser as on `audit view`'s page and in `audit report`'s plots.

The stylesheet is read here with a reader of its own (blocks of ``name: value;`` lines), not
with the project's code.
"""

from __future__ import annotations

import re
from pathlib import Path

from audit.views.palette import STATUS_COLOURS
from audit.results import queries as RQ

GRASS = Path(__file__).resolve().parents[2] / "docker" / "neo4j" / "leakage.grass"


def blocks(text: str) -> dict[str, dict[str, str]]:
    """``selector -> {property: value}``, quotes stripped; a block closes at a line of its own
    (a caption such as ``'{caption}'`` holds braces too)."""
    out = {}
    for selector, body in re.findall(r"^([\w.]+)\s*\{\s*$(.*?)^\}\s*$", text, flags=re.MULTILINE | re.DOTALL):
        out[selector] = {k: v.strip().strip("'") for k, v in re.findall(r"^\s*([\w-]+)\s*:\s*(.+?);\s*$", body,
                                                                         flags=re.MULTILINE)}
    return out


def test_each_leakage_type_has_its_status_colour():
    rules = blocks(GRASS.read_text(encoding="utf-8"))
    # every status written for Browser (kept edges get no relationship) has a rule of its type
    assert set(RQ.LEAKAGE_TYPES) == {"leaked", "partly_forgotten", "forgotten", "damaged"}
    drawn = {status: rules[f"relationship.{rel_type}"]["color"].upper() for status, rel_type in RQ.LEAKAGE_TYPES.items()}
    # the Okabe-Ito colours, written out again: vermillion, orange, blue, reddish purple
    assert drawn == {"leaked": "#D55E00", "partly_forgotten": "#E69F00", "forgotten": "#0072B2", "damaged": "#CC79A7"}
    assert drawn == {s: STATUS_COLOURS[s].upper() for s in RQ.LEAKAGE_TYPES}


def test_the_other_leakage_styles_are_kept():
    rules = blocks(GRASS.read_text(encoding="utf-8"))
    for rel_type in RQ.LEAKAGE_TYPES.values():
        rule = rules[f"relationship.{rel_type}"]
        assert rule["caption"] == "{caption}", rel_type            # the score, e.g. 0.42 or -0.35
        assert int(rule["shaft-width"].removesuffix("px")) >= 3, rel_type
    # a leaked fact is drawn thickest; the facts themselves stay a thin line in none of the four colours
    assert rules["relationship.LEAKED"]["shaft-width"] == "6px"
    assert rules["relationship.FACT"]["color"].upper() not in {c.upper() for c in STATUS_COLOURS.values()}
