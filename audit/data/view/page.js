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
    // resurfacing checks (docs/robustness.md): forgotten forget edges that came back under each
    Object.keys(run).filter(function (k) { return k.indexOf("resurfaced_") === 0; }).forEach(function (k) {
      pair(summary, k.replace("resurfaced_", "resurfaced: ").replace(/_/g, " "),
           run[k] + " of " + (run.forget_edges_forgotten === undefined ? "?" : run.forget_edges_forgotten));
    });
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
