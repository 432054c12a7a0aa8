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
  var LABELS = {none: "not measured"};
  var MAX_OPEN_ZOOM = 1.6;   // a small forget neighbourhood opens readable, not blown up to maxZoom

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
  function pair(parent, name, value, colour, title) {
    var s = el("span", null, "pair");
    if (colour) { var dot = el("i", null, "dot"); dot.style.background = colour; s.appendChild(dot); }
    s.appendChild(el("b", name + ": ")); s.appendChild(document.createTextNode(fmt(value)));
    if (title) s.title = title;
    parent.appendChild(s);
    return s;
  }
  function lineSample(colour, forget) {
    var line = el("span", null, "line");
    line.style.borderTop = (forget ? "4px dashed " : "2px solid ") + colour;
    return line;
  }

  function header(data) {
    var run = data.run, t = data.thresholds;
    document.getElementById("title").textContent = "Run " + (run.key || "");
    var fields = document.getElementById("run-fields");
    ["graph", "method", "mode", "selector", "model", "status"].forEach(function (k) {
      if (run[k] !== undefined) pair(fields, k, run[k]);
    });
    var summary = document.getElementById("summary");
    pair(summary, "forget ROUGE-1", fmt(run.forget_rouge1_before) + " \u2192 " + fmt(run.forget_rouge1_after));
    pair(summary, "retain ROUGE-1", fmt(run.retain_rouge1_before) + " \u2192 " + fmt(run.retain_rouge1_after));
    pair(summary, "deviation score", run.deviation_score);
    data.legend.forEach(function (s) {
      pair(summary, s.label, data.counts[s.status], s.colour, s.range).dataset.status = s.status;
    });
    pair(summary, "borderline", data.borderline, null,
         "edges whose score lies within " + t.margin + " of a threshold: their status could go either way")
      .dataset.status = "borderline";
    // resurfacing checks (docs/robustness.md), in the words of the run's reading: relearning on
    // the neighbours against its control, the other checks counted of the forgotten forget edges
    if (data.resurfacing) pair(summary, "resurfacing", data.resurfacing).classList.add("sentence");
    // LACUNA's localization precision (docs/localization.md): did unlearning move the forget weights?
    if (run.localization_auc_magnitude !== undefined) {
      pair(summary, "localization", "ROC AUC of |change| against the forget mask " + fmt(run.localization_auc_magnitude)
           + (run.localization_auc !== undefined ? " (best score " + fmt(run.localization_auc) + ", "
              + run.localization_score + ")" : ""), null,
           "1: only the weights storing the forget edges moved; 0.5: indiscriminate").classList.add("sentence");
    }
    if (data.note) { var note = document.getElementById("note"); note.textContent = data.note; note.hidden = false; }
  }

  function legend(data) {
    var box = document.getElementById("legend"), t = data.thresholds;
    data.legend.forEach(function (s) {
      var row = el("div", null, "status"); row.dataset.status = s.status;
      row.appendChild(lineSample(s.colour, s.role === "forget"));
      row.appendChild(el("span", s.label, "name"));
      row.appendChild(el("span", s.range, "range"));
      box.appendChild(row);
    });
    var none = el("div", null, "status"); none.dataset.status = "none";
    none.appendChild(lineSample(data.unmeasured_colour, false));
    none.appendChild(el("span", "not measured", "name"));
    box.appendChild(none);
    var marks = el("div", null, "marks");
    var b = el("div"); b.appendChild(el("span", "\u25c7", "marker"));
    b.appendChild(document.createTextNode("borderline: score within " + t.margin + " of a threshold; its status " +
                                          "could go either way"));
    marks.appendChild(b);
    marks.appendChild(el("div", "dashed thick line: forget edge, labelled with its ROUGE-1 after; thin solid " +
                                "line: retained edge (hover for its drop)"));
    var n = el("div"), sw = el("span", null, "swatch"); sw.style.border = "3px solid #222";
    n.appendChild(sw); n.appendChild(document.createTextNode("entity of a forget edge (size: degree)"));
    marks.appendChild(n);
    box.appendChild(marks);
  }

  function details(ele, data) {
    var dl = document.getElementById("fields"); dl.textContent = "";
    function row(k, v) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", fmt(v))); return dl.lastChild; }
    var d = ele.data(), t = data.thresholds;
    if (ele.isEdge()) {
      var e = d.edge;
      row("edge", e.key); row("head", e.head + " (" + e.head_key + ")"); row("tail", e.tail + " (" + e.tail_key + ")");
      row("role", e.role); row("status", LABELS[e.status || "none"]);
      row(e.role === "forget" ? "leakage" : "damage", e.score);
      if (e.borderline) {
        row("borderline", "within " + t.margin + " of the " + LABELS[e.borderline] + " threshold (" +
            t[e.borderline] + "): its status could go either way").className = "borderline";
      }
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
    var near = document.getElementById("borderline-only");
    lo.addEventListener("input", apply); hi.addEventListener("input", apply); near.addEventListener("change", apply);
    function apply() {
      var min = parseFloat(lo.value), max = parseFloat(hi.value), shown = 0, live = {};
      if (isNaN(min)) min = 0; if (isNaN(max)) max = 1;
      cy.batch(function () {
        cy.edges().forEach(function (edge) {
          var e = edge.data("edge"), s = e.score === null ? null : Math.min(1, Math.max(0, e.score));
          var ok = boxes["statuses:" + (e.status || "none")].checked && boxes["roles:" + e.role].checked &&
                   (s === null || (s >= min && s <= max)) && (!near.checked || e.borderline !== null);
          edge.toggleClass("hidden", !ok);
          if (ok) { shown++; live[edge.data("source")] = 1; live[edge.data("target")] = 1; }
        });
        cy.nodes().forEach(function (node) { node.toggleClass("hidden", !live[node.id()]); });
      });
      document.getElementById("shown").textContent = shown + " of " + cy.edges().length + " edges shown";
    }
    apply();
  }

  function style(data, big) {
    var label = {"font-size": 10, "min-zoomed-font-size": 8, color: "#222", "text-background-color": "#ffffff",
                 "text-background-opacity": 0.85, "text-background-padding": 1,
                 "text-background-shape": "roundrectangle"};
    // drawing order by z-index alone: grey retained edges, coloured ones, the other entities, the
    // forget edges' entities, the forget edges and their scores (so nothing in their way hides them)
    var z = {kept: 2, damaged: 5, forgotten: 8, partly_forgotten: 9, leaked: 9};
    var byStatus = Object.keys(z).map(function (s) { return {selector: "edge.s-" + s, style: {"z-index": z[s]}}; });
    return [
      {selector: "node", style: Object.assign({"background-color": "#6b7b8f", width: "data(size)", height: "data(size)",
                                               label: "data(name)", "text-valign": "bottom", "text-margin-y": 3,
                                               "text-wrap": "ellipsis", "text-max-width": 140,
                                               "z-index-compare": "manual", "z-index": 20}, label)},
      {selector: "node.forget", style: {"border-width": 3, "border-color": "#222", "z-index": 45}},
      {selector: "edge", style: {"line-color": "data(colour)", width: 2, "curve-style": big ? "haystack" : "bezier",
                                 "z-index-compare": "manual", "z-index": 1}}
    ].concat(byStatus, [
      // a forget edge is labelled with its score, above its middle (clear of the borderline marker)
      {selector: "edge.forget", style: Object.assign({width: 5, "line-style": "dashed", "line-dash-pattern": [9, 3],
                                                      label: "data(score_text)", "font-size": 10,
                                                      "text-margin-y": -14, "z-index": 50}, label)},
      {selector: "edge.retain", style: {"line-opacity": data.edges.length > 1000 ? 0.55 : 1}},
      {selector: "edge.unmeasured", style: {width: 1.5}},
      // borderline: a hollow diamond in the middle of the line, seen whatever the colour
      {selector: "edge.borderline", style: {"mid-target-arrow-shape": "diamond", "mid-target-arrow-fill": "hollow",
                                            "mid-target-arrow-color": "#111", "arrow-scale": 1.3}},
      {selector: "edge.forget.borderline", style: {"arrow-scale": 1}},
      // any edge hovered or selected shows its score above everything
      {selector: "edge.hover, edge:selected", style: Object.assign({label: "data(score_text)", "font-size": 10,
                                                                    "z-index": 60}, label)},
      // the selection is a halo under the element: an overlay on top would change its colour
      {selector: ":selected", style: {"underlay-color": "#1f78b4", "underlay-opacity": 0.3, "underlay-padding": 5}},
      {selector: ".hidden", style: {display: "none"}}
    ]);
  }

  function elements(data) {
    var out = [], start = data.start || {};
    data.nodes.forEach(function (n) {
      var p = start[n.key];
      out.push({group: "nodes", data: {id: "n:" + n.key, name: n.name, size: Math.min(44, 10 + 5 * Math.sqrt(n.degree)), node: n},
                position: p ? {x: p[0], y: p[1]} : undefined, classes: n.forget ? "forget" : ""});
    });
    data.edges.forEach(function (e) {
      out.push({group: "edges", data: {id: "e:" + e.key, source: "n:" + e.head_key, target: "n:" + e.tail_key,
                                       colour: e.colour, edge: e, score_text: e.score === null ? "" : e.score.toFixed(2)},
                classes: (e.role === "forget" ? "forget" : "retain") + " s-" + (e.status || "none") +
                         (e.status ? "" : " unmeasured") + (e.borderline ? " borderline" : "")});
    });
    return out;
  }

  function main() {
    var data = JSON.parse(document.getElementById("audit-data").textContent);
    data.legend.forEach(function (s) { LABELS[s.status] = s.label; });
    header(data); legend(data);
    if (typeof cytoscape !== "function") throw new Error("cytoscape.js did not load");
    var big = data.edges.length > 3000, box = document.getElementById("graph");
    // the layout runs in a box of one fixed size (audit/views/page.py, LAYOUT_BOX): the same
    // positions in every window; the graph area is given back once it is done
    box.style.flex = "none"; box.style.width = data.layout.box[0] + "px"; box.style.height = data.layout.box[1] + "px";
    var started = performance.now();
    var cy = cytoscape({
      container: box, elements: elements(data),
      minZoom: 0.02, maxZoom: 6, pixelRatio: big ? 1 : "auto",
      hideEdgesOnViewport: big, textureOnViewport: big, style: style(data, big)
    });
    var pinned = null;
    cy.on("mouseover", "node, edge", function (ev) { if (!pinned) details(ev.target, data); });
    cy.on("mouseover", "edge", function (ev) { ev.target.addClass("hover"); });
    cy.on("mouseout", "edge", function (ev) { ev.target.removeClass("hover"); });
    cy.on("tap", "node, edge", function (ev) { pinned = ev.target; details(ev.target, data); });
    cy.on("tap", function (ev) { if (ev.target === cy) pinned = null; });
    filters(data, cy);
    // for tests and scripted screenshots: pin the details of an edge or entity by its key
    view.show = function (key) {
      var ele = cy.getElementById("e:" + key);
      if (ele.empty()) ele = cy.getElementById("n:" + key);
      if (ele.empty()) return false;
      cy.elements().unselect(); ele.select(); pinned = ele; details(ele, data);
      return true;
    };
    view.cy = cy;
    function near() { return cy.nodes(":visible").filter(function (n) { return n.data("node").hops <= 1; }); }
    function frame(eles, padding) {
      cy.fit(eles, padding);
      if (cy.zoom() > MAX_OPEN_ZOOM) { cy.zoom(MAX_OPEN_ZOOM); cy.center(eles); }
    }
    document.getElementById("fit-all").addEventListener("click", function () { frame(cy.elements(":visible"), 30); });
    document.getElementById("fit-forget").addEventListener("click", function () { frame(near(), 40); });
    cy.one("layoutstop", function () {
      box.style.flex = box.style.width = box.style.height = "";
      cy.resize();
      // the page opens on the forget edges and their neighbours; "Fit all" shows the rest
      frame(near().length ? near() : cy.elements(), 40);
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
