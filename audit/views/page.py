"""``audit view``'s page: one self-contained HTML file (inline CSS, JS and data; no network).

The page's HTML, CSS and JavaScript are files in ``audit/data/view`` (``page.html``, ``page.css``,
``page.js``), filled in here. The graph is drawn by cytoscape.js (MIT), vendored beside them and inlined; its
layouts place the nodes (no layout code of ours). The page's Content-Security-Policy forbids
every fetch, so nothing can leave the machine when it is opened, not even by accident.

The layout is the same on every load, whatever the window: cytoscape's layouts are given a box
of one fixed size (``LAYOUT_BOX``) and ``cose`` starts from positions drawn from each entity's
key (``start_positions``) instead of ``Math.random``; the page then frames the forget edges and
their neighbours.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
from importlib import resources
from pathlib import Path

from audit.views.graph import ViewData
from graphstore.errors import ConfigError

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")

# Layout by size. cytoscape's force-directed ``cose`` draws structure best, but its repulsion is
# all-pairs: in headless Chromium on 2 shared cores it took 1.3 s for 136 nodes, 5.2 s for 366 and
# 14.6 s for 552 (1,000 iterations; 100 iterations were no cure: 7.5 s for 656). Above
# COSE_MAX_NODES the page uses ``concentric`` with three rings: the forget edges' entities in
# the middle, their neighbours around them, every other entity outside; it placed 10,000 edges
# (3,000-6,000 entities) in about 4 s there.
COSE_MAX_NODES = 300
# The graph area's size while the layout runs (px): cose pulls nodes towards the middle of the
# area and packs components to its aspect, so a layout run in the window's own area would move
# with the window. The page lays out in this box, then gives the area back and frames the result.
LAYOUT_BOX = (1200, 800)


def layout_for(nodes: int) -> dict:
    """cytoscape layout options for a graph of ``nodes`` entities (``box``: ``LAYOUT_BOX``).

    ``cose`` starts from ``start_positions`` (``randomize`` off) and counts the labels in a node's
    size (``nodeDimensionsIncludeLabels``), so it keeps labels apart as it keeps nodes apart.
    """
    box = list(LAYOUT_BOX)
    if nodes <= COSE_MAX_NODES:
        return {"name": "cose", "animate": False, "randomize": False, "fit": False, "padding": 30,
                "nodeDimensionsIncludeLabels": True, "nodeRepulsion": 60000, "idealEdgeLength": 70,
                "nodeOverlap": 20, "componentSpacing": 80, "gravity": 2, "numIter": 1000, "box": box}
    # rings from the nodes' ``hops`` (the page sets concentric = 2 - hops, levelWidth = 1)
    return {"name": "concentric", "animate": False, "fit": False, "padding": 30, "minNodeSpacing": 6,
            "avoidOverlap": True, "rings": "hops", "box": box}


def start_positions(keys: list[str]) -> dict[str, list[float]]:
    """Where ``cose`` starts each entity: a point of ``LAYOUT_BOX`` drawn from the SHA-256 of its
    key, so the same graph starts (and so ends) the same way on every load, whatever the order
    of its entities. cytoscape would otherwise start from ``Math.random``.

    Example: ``start_positions(["g/0"])["g/0"]`` is the same two numbers in every process.
    """
    width, height = LAYOUT_BOX
    out = {}
    for key in keys:
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        x, y = int.from_bytes(digest[:4], "big") / 2 ** 32, int.from_bytes(digest[4:8], "big") / 2 ** 32
        out[key] = [round(x * width, 3), round(y * height, 3)]
    return out


def asset(name: str) -> str:
    """A file of the page (``page.html``, ``page.css``, ``page.js``), shipped in ``audit/data/view``."""
    return (resources.files("audit") / "data" / "view" / name).read_text(encoding="utf-8")


def cytoscape_js() -> str:
    """The vendored cytoscape.min.js; refused if it could end the inline script early."""
    text = asset("cytoscape.min.js")
    lowered = text.lower()
    if "</script" in lowered or "<!--" in lowered:
        raise ConfigError("audit/data/view/cytoscape.min.js contains '</script' or '<!--' and cannot be "
                          "inlined; vendor an unmodified release (see audit/data/view/README.md)")
    return text


def embed_json(value) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` appear literally, so no
    value (an entity named ``</script>``, say) can close the element or open a comment."""
    text = json.dumps(_finite(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _finite(value):
    """Floats to 6 decimals (the page shows 3; 17 digits of ROUGE means swell a large page), NaN
    and infinities (JSON has neither) as null: the page shows them as not measured."""
    if isinstance(value, float):
        return round(value, 6) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def render_page(data: ViewData, layout: dict | None = None) -> str:
    """The page as one HTML string; ``layout`` overrides ``layout_for`` (cytoscape options; the
    layout box is ``LAYOUT_BOX`` unless it names its own ``box``)."""
    payload = data.as_json()
    payload["layout"] = {"box": list(LAYOUT_BOX), **(layout or layout_for(len(data.nodes)))}
    if payload["layout"]["name"] == "cose":
        payload["start"] = start_positions([n.key for n in data.nodes])
    title = f"audit view: {data.run.get('key', '')}"
    return (asset("page.html").replace("@TITLE@", html.escape(title))
                .replace("@CSP@", html.escape(CSP))
                .replace("@CSS@", asset("page.css"))
                .replace("@DATA@", embed_json(payload))
                .replace("@CYTOSCAPE@", cytoscape_js())
                .replace("@SCRIPT@", asset("page.js")))


def write_page(data: ViewData, path: Path, layout: dict | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(data, layout), encoding="utf-8")
    return path
