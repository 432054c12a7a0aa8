"""One palette for every view of a run's leakage: ``audit view``'s page, ``audit report``'s plots
and Neo4j Browser's stylesheet (``docker/neo4j/leakage.grass``, checked against this module by
``tests/docker/test_leakage_style.py``).

A status is one colour, so the breaks fall exactly at the thresholds (``audit/measure/leakage.py``):
an edge at ROUGE-1 0.25 is partly forgotten and looks it, whatever its neighbours on the scale.
The hues are Okabe & Ito's colour-universal-design set ("Color Universal Design", 2008), chosen
so that no two statuses meet under protanopia, deuteranopia or tritanopia
(``tests/audit/views/test_palette.py`` simulates each with Machado et al. 2009's matrices).

- forget edges: leaked vermillion, partly forgotten orange, forgotten blue;
- retained edges: damaged reddish purple, kept grey;
- not measured: pale grey.
"""

from __future__ import annotations

STATUS_COLOURS = {
    "leaked": "#D55E00",            # vermillion
    "partly_forgotten": "#E69F00",  # orange
    "forgotten": "#0072B2",         # blue
    "damaged": "#CC79A7",           # reddish purple
    "kept": "#C4C4C4",              # light grey
}
UNMEASURED_COLOUR = "#E4E4E4"
STATUS_LABELS = {"leaked": "leaked", "partly_forgotten": "partly forgotten", "forgotten": "forgotten",
                 "damaged": "damaged", "kept": "kept"}


def status_colour(status: str | None) -> str:
    """The colour of a status as ``#RRGGBB``; ``None`` (not measured) is pale grey."""
    return STATUS_COLOURS[status] if status is not None else UNMEASURED_COLOUR
