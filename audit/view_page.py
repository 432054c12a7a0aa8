"""``audit view``'s page: one self-contained HTML file (inline CSS, JS and data; no network).

The graph is drawn by cytoscape.js (MIT), vendored in ``audit/data/view`` and inlined here; its
layouts place the nodes (no layout code of ours). The page's Content-Security-Policy forbids
every fetch, so nothing can leave the machine when it is opened, not even by accident.
"""

from __future__ import annotations

import html
import json
import math
from importlib import resources
from pathlib import Path

from audit.view import ViewData
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


def layout_for(nodes: int) -> dict:
    """cytoscape layout options for a graph of ``nodes`` entities."""
    if nodes <= COSE_MAX_NODES:
        return {"name": "cose", "animate": False, "randomize": True, "fit": True, "padding": 30,
                "nodeRepulsion": 40000, "idealEdgeLength": 60, "nodeOverlap": 10, "componentSpacing": 60,
                "gravity": 2, "numIter": 1000}
    # rings from the nodes' ``hops`` (the page sets concentric = 2 - hops, levelWidth = 1)
    return {"name": "concentric", "animate": False, "fit": True, "padding": 30, "minNodeSpacing": 6,
            "avoidOverlap": True, "rings": "hops"}


def cytoscape_js() -> str:
    """The vendored cytoscape.min.js; refused if it could end the inline script early."""
    text = (resources.files("audit") / "data" / "view" / "cytoscape.min.js").read_text(encoding="utf-8")
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
    """The page as one HTML string; ``layout`` overrides ``layout_for`` (cytoscape options)."""
    payload = data.as_json()
    payload["layout"] = layout or layout_for(len(data.nodes))
    title = f"audit view: {data.run.get('key', '')}"
    return (PAGE.replace("@TITLE@", html.escape(title))
                .replace("@CSP@", html.escape(CSP))
                .replace("@CSS@", CSS)
                .replace("@DATA@", embed_json(payload))
                .replace("@CYTOSCAPE@", cytoscape_js())
                .replace("@SCRIPT@", SCRIPT))


def write_page(data: ViewData, path: Path, layout: dict | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(data, layout), encoding="utf-8")
    return path


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="@CSP@">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>@TITLE@</title>
<style>@CSS@</style>
</head>
<body>
<header id="header"><h1 id="title"></h1><div id="run-fields"></div><div id="summary"></div>
<div id="note" hidden></div></header>
<div id="error" role="alert" hidden></div>
<main>
<div id="graph" aria-label="graph of the run"></div>
<aside id="side">
<section id="filters"><h2>Filter</h2>
<div class="row"><label>score from <input id="score-min" type="number" min="0" max="1" step="0.05" value="0"></label>
<label>to <input id="score-max" type="number" min="0" max="1" step="0.05" value="1"></label></div>
<div id="statuses" class="checks"></div><div id="roles" class="checks"></div>
<div id="shown"></div>
<div class="row"><button id="fit-all" type="button">Fit all</button>
<button id="fit-forget" type="button">Fit forget neighbourhood</button></div></section>
<section id="legend"><h2>Legend</h2></section>
<section id="details"><h2>Details</h2><p class="hint">Hover over an edge or entity; click to pin it.</p>
<dl id="fields"></dl></section>
</aside>
</main>
<noscript>This page needs JavaScript to draw the graph.</noscript>
<script id="audit-data" type="application/json">@DATA@</script>
<script>@CYTOSCAPE@</script>
<script>@SCRIPT@</script>
</body>
</html>
"""

CSS = """
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       display: flex; flex-direction: column; height: 100vh; }
header { padding: 8px 14px; border-bottom: 1px solid #ddd; background: #fafafa; }
h1 { font-size: 17px; margin: 0 0 4px; }
h2 { font-size: 13px; margin: 10px 0 4px; text-transform: uppercase; letter-spacing: .04em; color: #555; }
#run-fields span, #summary span { margin-right: 14px; white-space: nowrap; }
#run-fields b, #summary b { font-weight: 600; }
#note[hidden], #error[hidden] { display: none; }
#note { margin-top: 4px; padding: 3px 8px; background: #fff4d6; border: 1px solid #f0c36d; display: inline-block; }
#error { padding: 8px 14px; background: #fde2e1; color: #8a1111; border-bottom: 1px solid #e99; white-space: pre-wrap; }
main { flex: 1; display: flex; min-height: 0; }
#graph { flex: 1; min-width: 0; }
#side { width: 340px; border-left: 1px solid #ddd; padding: 0 12px 12px; overflow-y: auto; background: #fff; }
.row label { margin-right: 8px; }
input[type=number] { width: 62px; }
.checks label { display: inline-block; margin: 2px 10px 2px 0; white-space: nowrap; }
#shown { margin: 4px 0; color: #555; }
button { font: inherit; padding: 2px 8px; margin: 2px 4px 2px 0; }
.scale { height: 12px; border: 1px solid #bbb; margin: 2px 0; }
.ticks { display: flex; justify-content: space-between; color: #555; font-size: 11px; }
.line { display: inline-block; width: 34px; height: 0; vertical-align: middle; margin-right: 6px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 50%; vertical-align: middle;
          margin-right: 6px; background: #6b7b8f; }
dl { display: grid; grid-template-columns: minmax(6em, 10em) 1fr; gap: 1px 10px; margin: 0; }
dt { color: #555; } dd { margin: 0; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
.hint { color: #777; margin: 0 0 6px; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var view = window.auditView = {ready: false, nodes: 0, edges: 0, error: null};
  function fail(message) {
    view.error = String(message);
    var box = document.getElementById("error");
    box.textContent = "Could not draw the graph: " + message;
    box.hidden = false;
  }
  window.addEventListener("error", function (ev) { fail(ev.message || String(ev)); });
  var LABELS = {leaked: "leaked", partly_forgotten: "partly forgotten", forgotten: "forgotten",
                damaged: "damaged", kept: "kept", none: "not measured"};

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return "\u2013";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
    return String(v);
  }
  function pair(parent, name, value) {
    var s = el("span"); s.appendChild(el("b", name + ": ")); s.appendChild(document.createTextNode(fmt(value)));
    parent.appendChild(s);
  }
  function gradient(stops) {
    return "linear-gradient(to right, " + stops.map(function (s) { return s[1] + " " + (100 * s[0]) + "%"; }).join(", ") + ")";
  }

  function header(data) {
    var run = data.run;
    document.getElementById("title").textContent = "Run " + (run.key || "");
    var fields = document.getElementById("run-fields");
    ["graph", "method", "mode", "selector", "model", "status"].forEach(function (k) {
      if (run[k] !== undefined) pair(fields, k, run[k]);
    });
    var summary = document.getElementById("summary");
    pair(summary, "forget ROUGE-1", fmt(run.forget_rouge1_before) + " \u2192 " + fmt(run.forget_rouge1_after));
    pair(summary, "retain ROUGE-1", fmt(run.retain_rouge1_before) + " \u2192 " + fmt(run.retain_rouge1_after));
    pair(summary, "deviation score", run.deviation_score);
    data.statuses.forEach(function (s) { pair(summary, LABELS[s], data.counts[s]); });
    if (data.note) { var note = document.getElementById("note"); note.textContent = data.note; note.hidden = false; }
  }

  function legend(data) {
    var box = document.getElementById("legend"), t = data.thresholds;
    function scale(title, stops, left, right) {
      box.appendChild(el("div", title));
      var bar = el("div", null, "scale"); bar.style.background = gradient(stops); box.appendChild(bar);
      var ticks = el("div", null, "ticks"); ticks.appendChild(el("span", left)); ticks.appendChild(el("span", right));
      box.appendChild(ticks);
    }
    scale("forget edge: leakage (ROUGE-1 after)", data.scales.forget, "0 forgotten", "1 leaked");
    scale("retained edge: damage (ROUGE-1 drop)", data.scales.retain, "0 kept", "1 lost");
    var marks = [["dashed thick line", "forget edge", "border-top: 4px dashed #555"],
                 ["thin line", "retained edge", "border-top: 2px solid #999"],
                 ["pale line", "not measured", "border-top: 2px solid #ddd"]];
    marks.forEach(function (m) {
      var d = el("div"), line = el("span", null, "line"); line.style.cssText = m[2];
      d.appendChild(line); d.appendChild(document.createTextNode(m[1])); box.appendChild(d);
    });
    var n = el("div"), sw = el("span", null, "swatch"); sw.style.border = "3px solid #222";
    n.appendChild(sw); n.appendChild(document.createTextNode("entity of a forget edge (size: degree)"));
    box.appendChild(n);
    box.appendChild(el("p", "statuses: leaked \u2265 " + t.leaked + ", forgotten \u2264 " + t.forgotten +
                            ", damaged: drop \u2265 " + t.damaged, "hint"));
  }

  function details(ele) {
    var dl = document.getElementById("fields"); dl.textContent = "";
    function row(k, v) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", fmt(v))); }
    var d = ele.data();
    if (ele.isEdge()) {
      var e = d.edge;
      row("edge", e.key); row("head", e.head + " (" + e.head_key + ")"); row("tail", e.tail + " (" + e.tail_key + ")");
      row("role", e.role); row("status", LABELS[e.status || "none"]);
      row(e.role === "forget" ? "leakage" : "damage", e.score);
      row("domain", e.domain); row("edge degree", e.edge_degree); row("component", e.component);
      row("component density", e.component_density);
      row("ROUGE-1 before", e.rouge1_before); row("ROUGE-1 after", e.rouge1_after);
      if (e.deviation_score !== null) row("deviation score", e.deviation_score);
      Object.keys(e.measures).forEach(function (k) { row(k.replace(/_/g, " "), e.measures[k]); });
    } else {
      var n = d.node;
      row("entity", n.name); row("key", n.key); row("degree", n.degree); row("edges shown", n.shown);
      row("in a forget edge", n.forget ? "yes" : "no");
      row("hops to a forget entity", n.hops > 1 ? "2 or more" : n.hops);
    }
  }

  function filters(data, cy) {
    var statuses = data.statuses.concat(["none"]), boxes = {};
    function checks(id, names, label) {
      var box = document.getElementById(id);
      names.forEach(function (s) {
        var l = el("label"), c = el("input"); c.type = "checkbox"; c.checked = true; c.dataset.value = s;
        c.addEventListener("change", apply); boxes[id + ":" + s] = c;
        l.appendChild(c); l.appendChild(document.createTextNode(" " + label(s))); box.appendChild(l);
      });
    }
    checks("statuses", statuses, function (s) { return LABELS[s]; });
    checks("roles", ["forget", "retain"], function (s) { return s === "forget" ? "forget edges" : "retained edges"; });
    var lo = document.getElementById("score-min"), hi = document.getElementById("score-max");
    lo.addEventListener("input", apply); hi.addEventListener("input", apply);
    function apply() {
      var min = parseFloat(lo.value), max = parseFloat(hi.value), shown = 0, live = {};
      if (isNaN(min)) min = 0; if (isNaN(max)) max = 1;
      cy.batch(function () {
        cy.edges().forEach(function (edge) {
          var e = edge.data("edge"), s = e.score === null ? null : Math.min(1, Math.max(0, e.score));
          var ok = boxes["statuses:" + (e.status || "none")].checked && boxes["roles:" + e.role].checked &&
                   (s === null || (s >= min && s <= max));
          edge.toggleClass("hidden", !ok);
          if (ok) { shown++; live[edge.data("source")] = 1; live[edge.data("target")] = 1; }
        });
        cy.nodes().forEach(function (node) { node.toggleClass("hidden", !live[node.id()]); });
      });
      document.getElementById("shown").textContent = shown + " of " + cy.edges().length + " edges shown";
    }
    apply();
  }

  function main() {
    var data = JSON.parse(document.getElementById("audit-data").textContent);
    header(data); legend(data);
    if (typeof cytoscape !== "function") throw new Error("cytoscape.js did not load");
    var big = data.edges.length > 3000, elements = [];
    data.nodes.forEach(function (n) {
      elements.push({group: "nodes", data: {id: "n:" + n.key, name: n.name, size: Math.min(44, 10 + 5 * Math.sqrt(n.degree)), node: n},
                     classes: n.forget ? "forget" : ""});
    });
    data.edges.forEach(function (e) {
      elements.push({group: "edges", data: {id: "e:" + e.key, source: "n:" + e.head_key, target: "n:" + e.tail_key,
                                            colour: e.colour, edge: e},
                     classes: (e.role === "forget" ? "forget" : "retain") + (e.status ? "" : " unmeasured")});
    });
    var started = performance.now();
    var cy = cytoscape({
      container: document.getElementById("graph"), elements: elements,
      minZoom: 0.02, maxZoom: 6, pixelRatio: big ? 1 : "auto",
      hideEdgesOnViewport: big, textureOnViewport: big,
      style: [
        {selector: "node", style: {"background-color": "#6b7b8f", width: "data(size)", height: "data(size)",
                                   label: "data(name)", "font-size": 10, "min-zoomed-font-size": 7, color: "#333",
                                   "text-valign": "bottom", "text-margin-y": 2}},
        {selector: "node.forget", style: {"border-width": 3, "border-color": "#222", "z-index": 20}},
        {selector: "edge", style: {"line-color": "data(colour)", width: 2, "curve-style": big ? "haystack" : "bezier"}},
        {selector: "edge.forget", style: {width: 5, "line-style": "dashed", "line-dash-pattern": [9, 3], "z-index": 10}},
        {selector: "edge.retain", style: {"line-opacity": data.edges.length > 1000 ? 0.55 : 1}},
        {selector: "edge.unmeasured", style: {width: 1.5}},
        {selector: ":selected", style: {"overlay-color": "#1f78b4", "overlay-opacity": 0.3, "overlay-padding": 4}},
        {selector: ".hidden", style: {display: "none"}}
      ]
    });
    var pinned = null;
    cy.on("mouseover", "node, edge", function (ev) { if (!pinned) details(ev.target); });
    cy.on("tap", "node, edge", function (ev) { pinned = ev.target; details(ev.target); });
    cy.on("tap", function (ev) { if (ev.target === cy) pinned = null; });
    filters(data, cy);
    // for tests and scripted screenshots: pin the details of an edge or entity by its key
    view.show = function (key) {
      var ele = cy.getElementById("e:" + key);
      if (ele.empty()) ele = cy.getElementById("n:" + key);
      if (ele.empty()) return false;
      cy.elements().unselect(); ele.select(); pinned = ele; details(ele);
      return true;
    };
    function near() { return cy.nodes().filter(function (n) { return n.data("node").hops <= 1; }); }
    document.getElementById("fit-all").addEventListener("click", function () { cy.fit(cy.elements(":visible"), 30); });
    document.getElementById("fit-forget").addEventListener("click", function () { cy.fit(near(), 40); });
    cy.one("layoutstop", function () {
      // a large graph opens on the forget edges and their neighbours; "Fit all" shows the rest
      if (data.layout.rings === "hops" && near().length) cy.fit(near(), 40);
      view.layout = data.layout.name;
      view.layoutMs = Math.round(performance.now() - started);
      view.nodes = cy.nodes().length; view.edges = cy.edges().length;
      view.ready = view.error === null;
    });
    var layout = Object.assign({}, data.layout);
    if (layout.rings === "hops") {
      layout.concentric = function (node) { return 2 - node.data("node").hops; };
      layout.levelWidth = function () { return 1; };
    }
    cy.layout(layout).run();

  }

  try { main(); } catch (e) { fail(e && e.stack ? e.stack : e); }
})();
"""
