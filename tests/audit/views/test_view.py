"""`audit view`: the page's data against a real run, the cut, and the page in headless Chromium.

A real run is made once for the module (a generated PISTOL graph, a scratch model, the real
embedded server). Expected values come from the edge list written here and from the results
read back with Cypher, never from the page's own data. The browser tests load the page in
Debian's Chromium over the DevTools protocol and check that nothing leaves the machine and
nothing is logged as an error; then a page of sample_data_2's real graph (30 entities, 75 edges
in three components, every status present) is looked at in windows 1024, 1400 and 1920 px wide:
what is in view, where, and in which colours.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from audit.config import InjectionConfig, UnlearnConfig
from audit.measure.leakage import EdgeLeakage, LeakageThresholds, RunLeakage, borderline, classify
from audit.run.runner import RunRequest, run_audit
from audit.views.graph import RESURFACED_COUNTS, build_view, cut_edges, default_output, load_view, status_ranges
from audit.views.page import CSP, LAYOUT_BOX, embed_json, layout_for, render_page, start_positions, write_page
from cli.main import cli
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore import GraphStore
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph

from browser import CHROMIUM, Chromium
from conftest import pistol_file
from view_screenshots import WIDTHS, open_at

REPO = Path(__file__).resolve().parents[3]
GRAPH, RUN = "viewg", "view-ga"
# Two components: a chain 2-0-1-3 (the forget edge 0_1 and two edges touching its entities) and
# a chain 4-5-6 far from it.
VIEW_EDGES = [("0", "1"), ("0", "2"), ("1", "3"), ("4", "5"), ("5", "6")]
FORGET = "0_1"
FAST = {"epochs": 6, "lr": 2e-3, "batch_size": 4}
# The page needs a run, not a perfect one: a short injection (partly learnt facts also give a
# spread of statuses) keeps the run to seconds on 2 idle cores (minutes when they are busy).
SHORT_INJECTION = InjectionConfig(max_epochs=20, target_rouge1=0.6)
T = LeakageThresholds()
# the Okabe-Ito colours of the statuses (audit/views/palette.py), written out again as RGB
RGB = {"leaked": (213, 94, 0), "partly_forgotten": (230, 159, 0), "forgotten": (0, 114, 178),
       "damaged": (204, 121, 167), "kept": (196, 196, 196), None: (228, 228, 228)}


def damage(row: dict) -> float:
    return row["before"] - row["after"]


def expected_status(row: dict) -> str:
    """The status by the definition in docs (audit/measure/leakage.py's docstring), computed here."""
    if row["role"] == "forget":
        return "leaked" if row["after"] >= 0.8 else "forgotten" if row["after"] <= 0.2 else "partly_forgotten"
    return "damaged" if damage(row) >= 0.2 else "kept"


@pytest.fixture(scope="module")
def real_run(settings, tmp_path_factory) -> dict:
    """One real run; its per-edge rows read back with plain Cypher."""
    folder = tmp_path_factory.mktemp("view_run")
    data = folder / "view.json"
    write_dataset(generate_pistol(VIEW_EDGES, seed=3), data)
    with GraphStore.open(settings) as store:
        store.write("MATCH (n) DETACH DELETE n")
        write_graph(store, load_pistol(data, graph=GRAPH))
        run_audit(store, RunRequest(graph=GRAPH, select=f"edges:{FORGET}", method="ga", run_id=RUN,
                                    cache_dir=folder / "cache", device="cpu", equivalence=None,
                                    unlearn=UnlearnConfig(**FAST), injection=SHORT_INJECTION),
                  report=lambda _: None)
        rows = store.read("MATCH (x:EdgeResult {run: $run}) RETURN x.edge AS edge, x.role AS role, "
                          "x.rouge1_before AS before, x.rouge1_after AS after, x.edge_degree AS edge_degree",
                          run=RUN)
    return {r["edge"].split("/", 1)[1]: dict(r) for r in rows}


@pytest.fixture(scope="module")
def real_view(settings, real_run):
    with GraphStore.open(settings) as store:
        return load_view(store, RUN)


def ends(label: str) -> set[str]:
    return set(label.split("_"))


def expected_cut(rows: dict, max_edges: int) -> list[str]:
    """The cut rule written out again: forget edges, then retained edges sharing an entity with
    one, most damaged first, then the rest, most damaged first, ties by key."""
    forget = [k for k in rows if rows[k]["role"] == "forget"]
    entities = set().union(*(ends(k) for k in forget))
    retained = sorted((k for k in rows if rows[k]["role"] != "forget"), key=lambda k: (-damage(rows[k]), k))
    near = [k for k in retained if ends(k) & entities]
    far = [k for k in retained if not ends(k) & entities]
    return forget + (near + far)[:max(0, max_edges - len(forget))]


# -- the page's data -----------------------------------------------------------------------------
def test_page_data_matches_the_run(real_run, real_view):
    view = real_view
    assert {e.key.split("/", 1)[1] for e in view.edges} == {f"{h}_{t}" for h, t in VIEW_EDGES}
    assert view.total_edges == 5 and view.note is None
    assert len(view.nodes) == 7 and {n.key.split("/", 1)[1] for n in view.nodes} == {str(i) for i in range(7)}
    by_label = {e.key.split("/", 1)[1]: e for e in view.edges}
    assert [e.role for e in view.edges].count("forget") == 1 and by_label[FORGET].role == "forget"
    assert view.edges[0].key.endswith(FORGET)                               # forget edges first
    for label, row in real_run.items():
        edge = by_label[label]
        assert edge.status == expected_status(row)
        assert edge.score == pytest.approx(row["after"] if row["role"] == "forget" else damage(row))
        assert edge.rouge1_before == row["before"] and edge.rouge1_after == row["after"]
        assert edge.edge_degree == row["edge_degree"]
        assert "answer_probability_before" in edge.measures and "memorized_after" in edge.measures
    counts = {s: 0 for s in ("leaked", "partly_forgotten", "forgotten", "damaged", "kept")}
    for row in real_run.values():
        counts[expected_status(row)] += 1
    assert view.counts == counts
    # degrees by hand from VIEW_EDGES: 0, 1 and 5 touch two edges, the others one
    degree = {n.key.split("/", 1)[1]: n.degree for n in view.nodes}
    assert degree == {"0": 2, "1": 2, "2": 1, "3": 1, "4": 1, "5": 2, "6": 1}
    hops = {n.key.split("/", 1)[1]: n.hops for n in view.nodes}
    assert hops == {"0": 0, "1": 0, "2": 1, "3": 1, "4": 2, "5": 2, "6": 2}
    assert view.run["key"] == RUN and view.run["graph"] == GRAPH and view.run["method"] == "ga"
    assert view.run["selector"] == f"edges:{FORGET}" and "forget_rouge1_after" in view.run


@pytest.mark.parametrize("max_edges", [1, 2, 3, 4])
def test_the_cut_keeps_forget_edges_then_their_neighbourhood(settings, real_run, max_edges):
    with GraphStore.open(settings) as store:
        view = load_view(store, RUN, max_edges=max_edges)
    shown = [e.key.split("/", 1)[1] for e in view.edges]
    assert shown == expected_cut(real_run, max_edges)
    assert FORGET in shown and len(shown) == max_edges
    assert view.note.startswith(f"showing {max_edges} of 5 edges: all 1 forget edge")
    assert {n.key.split("/", 1)[1] for n in view.nodes} == set().union(*(ends(k) for k in shown))


def synthetic(edges: list[tuple[str, str, float | None]], names: dict | None = None) -> RunLeakage:
    """A RunLeakage of (label, role, score) rows, no store needed."""
    names = names or {}
    rows = []
    for label, role, score in edges:
        h, t = label.split("_")
        status = None if score is None else ("leaked" if role == "forget" else "damaged")
        rows.append(EdgeLeakage(f"g/{label}", f"g/{h}", f"g/{t}", names.get(h, h), names.get(t, t), role, "d", 1,
                                0, 0.5, 1.0, None if score is None else 1.0 - score, score, status))
    return RunLeakage({"key": "synthetic", "graph": "g", "method": "npo"}, rows, T)


def test_cut_order_by_hand():
    run = synthetic([("a_b", "forget", 0.9), ("c_d", "forget", 0.1), ("b_x", "retain", 0.1),
                     ("x_y", "retain", 0.9), ("a_z", "retain", 0.5), ("c_w", "retain", None),
                     ("y_z", "retain", 0.5), ("p_q", "retain", 0.7)])

    def keys(edges):
        return [e.edge.split("/")[1] for e in edges]

    # near (touch a, b, c or d) by damage: a_z 0.5, b_x 0.1, c_w unmeasured; far: x_y 0.9, p_q 0.7, y_z 0.5
    assert keys(cut_edges(run.edges, 6)) == ["a_b", "c_d", "a_z", "b_x", "c_w", "x_y"]
    assert keys(cut_edges(run.edges, 1)) == ["a_b", "c_d"]       # forget edges are never dropped
    assert keys(cut_edges(run.edges, 0)) == keys(run.edges)      # 0: no cut
    with pytest.raises(ConfigError, match="max-edges -1"):
        cut_edges(run.edges, -1)


def hex_of(rgb: tuple) -> str:
    return "#" + "".join(f"{v:02X}" for v in rgb)


def test_the_colour_breaks_exactly_at_the_thresholds():
    # (role, score) -> the status by the thresholds 0.2 / 0.8 / 0.2, and the borderline flag
    # (within 0.05 of one), by hand
    cases = [("forget", 0.2, "forgotten", "forgotten"), ("forget", 0.2001, "partly_forgotten", "forgotten"),
             ("forget", 0.5, "partly_forgotten", None), ("forget", 0.7999, "partly_forgotten", "leaked"),
             ("forget", 0.8, "leaked", "leaked"), ("forget", 0.1, "forgotten", None),
             ("forget", 0.26, "partly_forgotten", None), ("retain", 0.1999, "kept", "damaged"),
             ("retain", 0.2, "damaged", "damaged"), ("retain", -0.3, "kept", None), ("retain", 0.6, "damaged", None)]
    edges = []
    for i, (role, score, _, _) in enumerate(cases):
        after = score if role == "forget" else 0.9 - score
        _, status = classify({"role": role, "rouge1_before": 0.9, "rouge1_after": after}, T)
        edges.append(EdgeLeakage(f"g/{i}_x", f"g/{i}", "g/x", str(i), "x", role, "d", 1, 0, 0.5, 0.9, after, score,
                                 status, None, borderline(role, score, T)))
    view = build_view(RunLeakage({"key": "r", "graph": "g"}, edges, T))
    assert [(e.status, e.colour, e.borderline) for e in view.edges] == \
        [(status, hex_of(RGB[status]), near) for _, _, status, near in cases]
    assert view.borderline == sum(near is not None for *_, near in cases)
    assert status_ranges(T) == {"leaked": "forget edge, ROUGE-1 after ≥ 0.8",
                                "partly_forgotten": "forget edge, 0.2 < ROUGE-1 after < 0.8",
                                "forgotten": "forget edge, ROUGE-1 after ≤ 0.2",
                                "damaged": "retained edge, ROUGE-1 drop ≥ 0.2", "kept": "retained edge, ROUGE-1 drop < 0.2"}
    legend = view.as_json()["legend"]
    assert [(r["status"], r["colour"], r["role"]) for r in legend] == [
        (s, hex_of(RGB[s]), "forget" if s in ("leaked", "partly_forgotten", "forgotten") else "retain") for s in RGB if s]


def test_layout_starts_from_the_keys():
    keys = [f"g/{i}" for i in range(50)]
    start = start_positions(keys)
    assert start == start_positions(list(reversed(keys)))            # the order of the entities does not matter
    assert all(0 <= x <= LAYOUT_BOX[0] and 0 <= y <= LAYOUT_BOX[1] for x, y in start.values())
    assert len({tuple(p) for p in start.values()}) == 50              # no two entities start on one point
    # the first 8 bytes of SHA-256("g/0"), by hashlib here, scaled to the box
    digest = hashlib.sha256(b"g/0").digest()
    assert start["g/0"] == [round(int.from_bytes(digest[:4], "big") / 2 ** 32 * LAYOUT_BOX[0], 3),
                            round(int.from_bytes(digest[4:8], "big") / 2 ** 32 * LAYOUT_BOX[1], 3)]
    assert layout_for(10)["randomize"] is False and layout_for(10)["box"] == list(LAYOUT_BOX)


def test_embedded_data_cannot_close_its_script():
    hostile = {"name": "</script><script>alert(1)</script><!-- & >"}
    text = embed_json(hostile)
    assert "<" not in text and ">" not in text and "&" not in text and json.loads(text) == hostile
    assert json.loads(embed_json({"x": [float("nan"), float("inf"), 0.5]})) == {"x": [None, None, 0.5]}


def test_page_is_one_file_with_the_vendored_library(real_view):
    page = render_page(real_view)
    assert f'<meta http-equiv="Content-Security-Policy" content="{html.escape(CSP)}">' in page
    assert "default-src 'none'" in CSP and "connect-src" not in CSP      # everything else falls to 'none'
    outside_scripts = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.DOTALL)
    assert page.count("<script") == 3 and '<script id="audit-data" type="application/json">' in page
    assert re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", outside_scripts) == ["data:,"]
    vendored = REPO / "audit" / "data" / "view"
    js = (vendored / "cytoscape.min.js").read_bytes()
    assert js.decode("utf-8") in page
    readme = (vendored / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256(js).hexdigest() in readme and "3.34.4" in readme
    assert "Permission is hereby granted, free of charge" in (vendored / "cytoscape.LICENSE").read_text(encoding="utf-8")
    assert default_output("a/b c") == Path("a_b_c.html")


# -- the page in a real headless browser ---------------------------------------------------------
@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (Debian: apt-get install chromium); the page is not "
                    "checked in a browser")
    with Chromium(tmp_path_factory.mktemp("chromium-profile")) as browser:
        page = browser.page()
        for domain in ("Network", "Runtime", "Log", "Page"):
            page.send(f"{domain}.enable")
        yield page
        page.close()


def load(page, path: Path) -> dict:
    """Open the page; wait for its layout; return window.auditView's counts."""
    page.navigate(path.resolve().as_uri())
    page.wait_for("window.auditView && (window.auditView.ready || window.auditView.error !== null)", timeout=120)
    return page.evaluate("({ready: auditView.ready, error: auditView.error, nodes: auditView.nodes, "
                         "edges: auditView.edges, layout: auditView.layout, layoutMs: auditView.layoutMs})")


def problems(page, url: str) -> list[str]:
    """Everything that left (or tried to leave) the page, and every error it logged."""
    out = []
    for e in page.named("Network.requestWillBeSent"):
        request = e["params"]["request"]["url"]
        if request != url and not request.startswith("data:"):
            out.append(f"request {request}")
    out += [f"exception {e['params']['exceptionDetails']}" for e in page.named("Runtime.exceptionThrown")]
    out += [f"console.{e['params']['type']} {e['params']['args']}" for e in page.named("Runtime.consoleAPICalled")
            if e["params"]["type"] in ("error", "warning", "assert")]
    out += [f"log {e['params']['entry']}" for e in page.named("Log.entryAdded")
            if e["params"]["entry"]["level"] in ("error", "warning")]
    return out


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_page_in_headless_chromium(chromium, real_run, real_view, settings, tmp_path):
    page = chromium
    path = write_page(real_view, tmp_path / "view.html")
    state = load(page, path)
    assert state["error"] is None and state["ready"], state
    assert problems(page, path.resolve().as_uri()) == []
    requests = [e["params"]["request"]["url"] for e in page.named("Network.requestWillBeSent")]
    assert path.resolve().as_uri() in requests                     # the watch did see the page itself
    assert (state["nodes"], state["edges"]) == (7, 5) and state["layout"] == "cose"

    # the details panel and the filters work
    assert page.evaluate(f"auditView.show({json.dumps(f'{GRAPH}/{FORGET}')})")
    details = page.evaluate("document.getElementById('fields').innerText")
    row = real_run[FORGET]
    assert f"{GRAPH}/{FORGET}" in details and "forget" in details and f"{row['after']:.3f}" in details
    page.evaluate("document.querySelector('#roles input[data-value=retain]').click()")
    assert page.evaluate("document.getElementById('shown').textContent") == "1 of 5 edges shown"
    page.evaluate("document.querySelector('#roles input[data-value=retain]').click()")
    assert page.evaluate("document.getElementById('shown').textContent") == "5 of 5 edges shown"
    # score filter: leakage or damage (below 0 counts as 0) of at least 0.3
    high = sum(max(0.0, row["after"] if row["role"] == "forget" else damage(row)) >= 0.3 for row in real_run.values())
    page.evaluate("(i => { i.value = '0.3'; i.dispatchEvent(new Event('input')); })(document.getElementById('score-min'))")
    assert page.evaluate("document.getElementById('shown').textContent") == f"{high} of 5 edges shown"
    page.evaluate("(i => { i.value = '0'; i.dispatchEvent(new Event('input')); })(document.getElementById('score-min'))")

    shot = page.screenshot(tmp_path / "view.png")
    width, height = png_size(shot)
    assert width >= 800 and height >= 500 and shot.stat().st_size > 5000
    assert problems(page, path.resolve().as_uri()) == []

    # the page's policy refuses a fetch even when asked for one
    blocked = page.evaluate(
        "new Promise(done => { document.addEventListener('securitypolicyviolation', "
        "e => done(e.effectiveDirective)); fetch('http://127.0.0.1:9/x').catch(() => {}); })",
        await_promise=True)
    assert blocked == "connect-src"
    assert not [e for e in page.named("Network.requestWillBeSent") if "127.0.0.1:9" in e["params"]["request"]["url"]]


def test_cut_page_and_hostile_names_in_headless_chromium(chromium, settings, tmp_path):
    page = chromium
    with GraphStore.open(settings) as store:
        view = load_view(store, RUN, max_edges=2)
    path = write_page(view, tmp_path / "cut.html")
    state = load(page, path)
    assert problems(page, path.resolve().as_uri()) == [] and state["ready"]
    assert (state["edges"], state["nodes"]) == (2, len(set().union(*(ends(e.key.split("/")[1]) for e in view.edges))))
    assert page.evaluate("document.getElementById('note').textContent").startswith("showing 2 of 5 edges")

    names = {"a": "</script><script>window.pwned = 1</script>", "b": "<!-- <script>", "c": "Ünïcode & \u2028 \"q\""}
    hostile = build_view(synthetic([("a_b", "forget", 0.5), ("b_c", "retain", 0.2)], names))
    path = write_page(hostile, tmp_path / "hostile.html")
    state = load(page, path)
    assert problems(page, path.resolve().as_uri()) == [] and state["ready"]
    assert (state["nodes"], state["edges"]) == (3, 2)
    assert page.evaluate("window.pwned === undefined")
    shown = page.evaluate("JSON.parse(document.getElementById('audit-data').textContent).nodes.map(n => n.name)")
    assert sorted(shown) == sorted(names.values())


# -- sample_data_2 at three widths ----------------------------------------------------------------
# The graph of the issue: a chain (0-9), a semi-dense component (10-19) and a dense one (20-29)
# holding the forget edges. The scores are set here so that every status shows: the forget edges
# partly forgotten and borderline (0.23), forgotten (0.05) and leaked (0.85); a retained edge's drop
# ((3a + 7b) mod 11) / 20 for an edge a_b, from 0 to 0.5; the chain's last edge not measured.
S2_FORGET = {"20_21": 0.23, "20_22": 0.05, "21_22": 0.85}
S2_UNMEASURED = "8_9"


def s2_drop(label: str) -> float:
    a, b = map(int, label.split("_"))
    return ((3 * a + 7 * b) % 11) / 20


def s2_status(role: str, score: float | None) -> str | None:
    if score is None:
        return None
    if role == "forget":
        return "leaked" if score >= 0.8 else "forgotten" if score <= 0.2 else "partly_forgotten"
    return "damaged" if score >= 0.2 else "kept"


def s2_near(role: str, score: float | None) -> bool:
    thresholds = (0.2, 0.8) if role == "forget" else (0.2,)
    return score is not None and any(abs(score - t) <= 0.05 + 1e-9 for t in thresholds)


@pytest.fixture(scope="module")
def s2_view():
    graph = load_pistol(pistol_file("sample_data_2.json"))
    names = {e.key: e.name for e in graph.entities}
    degree: dict[str, int] = {}
    for f in graph.facts:
        degree[f.head] = degree.get(f.head, 0) + 1
        degree[f.tail] = degree.get(f.tail, 0) + 1
    edges = []
    for f in graph.facts:
        role = "forget" if f.label in S2_FORGET else "retain"
        score = None if f.label == S2_UNMEASURED else S2_FORGET.get(f.label, s2_drop(f.label))
        after = None if score is None else score if role == "forget" else 0.9 - score
        edges.append(EdgeLeakage(f.key, f.head, f.tail, names[f.head], names[f.tail], role, f.domain,
                                 degree[f.head] + degree[f.tail] - 2, 0, 0.5, 0.9, after, score, s2_status(role, score),
                                 None, borderline(role, score, T)))
    edges.sort(key=lambda e: (e.role != "forget", e.edge))
    # a full header: every run field and summary the page shows, resurfacing counts included
    run = {"key": "s2-dpo-2026-11-27T08-41-57", "graph": "sample_data_2", "method": "dpo", "mode": "joint",
           "selector": "top-degree:3", "model": "scratch:tiny", "status": "done", "started_at": "2026-11-27T08:41:57",
           "forget_rouge1_before": 0.95, "forget_rouge1_after": 0.38, "retain_rouge1_before": 0.93,
           "retain_rouge1_after": 0.71, "deviation_score": 61.5, "forget_edges_forgotten": 1,
           **{k: 1 for k in RESURFACED_COUNTS}, "resurfaced_relearn_control": 0,
           "relearn_rouge1": 0.8, "relearn_control_rouge1": 0.3}
    return graph, build_view(RunLeakage(run, edges, T))


GEOMETRY = """(() => {
  const cy = auditView.cy, w = cy.width(), h = cy.height(), area = document.getElementById('graph').getBoundingClientRect();
  const inside = b => b.x1 >= 0 && b.y1 >= 0 && b.x2 <= w && b.y2 <= h;
  const header = document.getElementById('header');
  return {
    innerWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth,
    header: {scrollWidth: header.scrollWidth, clientWidth: header.clientWidth, text: header.innerText,
             bottom: header.getBoundingClientRect().bottom},
    pairs: Array.from(header.querySelectorAll('.pair')).map(p => { const r = p.getBoundingClientRect();
      return {text: p.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
              scrollWidth: p.scrollWidth, clientWidth: p.clientWidth}; }),
    area: {left: area.left, top: area.top, width: w, height: h},
    forget: cy.edges('.forget').map(e => ({key: e.data('edge').key, box: e.renderedBoundingBox(), inside: inside(e.renderedBoundingBox())})),
    near: cy.nodes().filter(n => n.data('node').hops <= 1).renderedBoundingBox(),
    positions: Object.fromEntries(cy.nodes().map(n => [n.id(), [n.position('x'), n.position('y')]])),
    edges: cy.edges().map(e => ({key: e.data('edge').key, colour: e.style('line-color'), inside: inside(e.renderedBoundingBox()),
                                 marker: e.style('mid-target-arrow-shape')})),
    legend: Array.from(document.querySelectorAll('#legend .status')).map(r =>
      [r.dataset.status, getComputedStyle(r.querySelector('.line')).borderTopColor]),
  };
})()"""


def rgb_of(css: str) -> tuple:
    """``rgb(1, 2, 3)`` or ``rgb(1,2,3)`` as (1, 2, 3)."""
    return tuple(int(v) for v in re.findall(r"\d+", css)[:3])


def test_sample_data_2_at_three_widths(chromium, s2_view, tmp_path):
    graph, view = s2_view
    page = chromium
    path = write_page(view, tmp_path / "s2.html")
    status = {e.key: e.status for e in view.edges}
    forget = {f.key for f in graph.facts if f.label in S2_FORGET}
    # by hand: the forget entities are 20, 21, 22; every entity of the dense component is one of
    # them or a neighbour, nothing else is
    near = {f"sample_data_2/{i}" for i in range(20, 30)}
    counts = {s: 0 for s in ("leaked", "partly_forgotten", "forgotten", "damaged", "kept")}
    flagged = 0
    for f in graph.facts:
        role = "forget" if f.label in S2_FORGET else "retain"
        score = None if f.label == S2_UNMEASURED else S2_FORGET.get(f.label, s2_drop(f.label))
        if score is not None:
            counts[s2_status(role, score)] += 1
        flagged += s2_near(role, score)
    labels = {"leaked": "leaked", "partly_forgotten": "partly forgotten", "forgotten": "forgotten",
              "damaged": "damaged", "kept": "kept"}
    # resurfacing in words: the one forgotten edge came back under each check; relearning on the
    # neighbours brought it back, the control did not
    expected_header = [f"{labels[s]}: {n}" for s, n in counts.items()] + [f"borderline: {flagged}"] + [
        "resurfacing: of 1 forgotten forget edge(s), 1 came back under int8 weights, 1 under 4-bit weights, "
        "1 on paraphrased questions, 1 on 2-hop questions", "relearning on their graph neighbours brought back 1 of the 1",
        "the neighbours brought back 1 more than the control"]
    try:
        first = None
        for width in WIDTHS:
            for again in (False, True):
                state = open_at(page, path, width)
                assert state["error"] is None and state["ready"] and state["layout"] == "cose", (width, state)
                assert problems(page, path.resolve().as_uri()) == []
                g = page.evaluate(GEOMETRY)
                # the same positions on every load, whatever the window's width
                first = first or g["positions"]
                assert g["positions"] == first, (width, again)
            # no horizontal scrollbar; the header wraps, every "name: value" whole and inside the window
            assert g["scrollWidth"] <= g["innerWidth"] == width
            assert g["header"]["scrollWidth"] <= g["header"]["clientWidth"]
            for pair in g["pairs"]:
                assert 0 <= pair["left"] and pair["right"] <= width and pair["scrollWidth"] <= pair["clientWidth"] + 1, pair
                assert pair["bottom"] <= g["header"]["bottom"], pair
            header_text = " ".join(g["header"]["text"].split())
            assert all(item in header_text for item in expected_header), (width, header_text)
            assert g["area"]["top"] >= g["header"]["bottom"]
            # the page opens on the forget neighbourhood: every forget edge in view, and the
            # neighbourhood fills the graph area (it is no thumbnail in a corner)
            assert {e["key"] for e in g["forget"]} == forget and all(e["inside"] for e in g["forget"]), g["forget"]
            box, area = g["near"], g["area"]
            assert box["w"] >= 0.6 * area["width"] or box["h"] >= 0.6 * area["height"], (box, area)
            # every edge drawn in its status's colour; the legend's lines too; borderline edges marked
            assert {e["key"]: rgb_of(e["colour"]) for e in g["edges"]} == {k: RGB[s] for k, s in status.items()}
            assert {s: rgb_of(c) for s, c in g["legend"]} == {s: RGB[None if s == "none" else s] for s in [*counts, "none"]}
            marked = {e["key"] for e in g["edges"] if e["marker"] == "diamond"}
            assert marked == {e.key for e in view.edges if e.borderline}
            assert len(marked) == flagged
            # and in the picture: the graph area holds pixels of each status colour in view
            shot = page.screenshot(tmp_path / f"s2-{width}.png")
            pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=int)
            top, left = round(area["top"]), round(area["left"])
            drawn = pixels[top:top + round(area["height"]), left:left + round(area["width"])]
            assert drawn.shape[1] >= 0.6 * width
            in_view = {status[e["key"]] for e in g["edges"] if e["inside"]}
            assert {"leaked", "partly_forgotten", "forgotten", "damaged", "kept"} <= in_view
            for s in in_view - {None}:
                close = (np.abs(drawn - np.array(RGB[s])).max(axis=2) <= 8).sum()
                assert close >= 30, (width, s, int(close))
        # the borderline forget edge (0.23, within 0.05 of 0.2) says so in its details; the
        # "borderline edges only" filter leaves the flagged edges
        assert page.evaluate("auditView.show('sample_data_2/20_21')")
        details = " ".join(page.evaluate("document.getElementById('fields').innerText").split())
        assert "borderline within 0.05 of the forgotten threshold (0.2)" in details, details
        page.evaluate("document.getElementById('borderline-only').click()")
        assert page.evaluate("document.getElementById('shown').textContent") == f"{flagged} of 75 edges shown"
    finally:
        page.send("Emulation.clearDeviceMetricsOverride")


# -- the command ---------------------------------------------------------------------------------
def test_cli_writes_the_page(real_run, store_args, tmp_path):
    out = tmp_path / "x.html"
    result = CliRunner().invoke(cli, ["view", "--run", RUN, "--output", str(out), *store_args],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    counts = {s: 0 for s in ("leaked", "partly_forgotten", "forgotten", "damaged", "kept")}
    for row in real_run.values():
        counts[expected_status(row)] += 1
    statuses = ", ".join(f"{s} {n}" for s, n in counts.items())
    # borderline: within 0.05 of a threshold (0.2 or 0.8 for ROUGE-1 after, 0.2 for a drop)
    near = sum(any(abs(v - t) <= 0.05 + 1e-9 for t in ((0.2, 0.8) if row["role"] == "forget" else (0.2,)))
               for row in real_run.values() for v in [row["after"] if row["role"] == "forget" else damage(row)])
    assert result.output == (f"wrote {out}: 7 nodes, 5 edges (of 5), statuses {statuses}; {near} borderline "
                             "(within 0.05 of a threshold)\n")
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    cut = CliRunner().invoke(cli, ["view", "--run", RUN, "--output", str(out), "--max-edges", "3",
                                   *store_args], catch_exceptions=False)
    assert cut.exit_code == 0 and "3 edges (of 5)" in cut.output and "showing 3 of 5 edges" in cut.output


def test_cli_refuses_an_unknown_run(real_run, store_args, tmp_path):
    result = CliRunner().invoke(cli, ["view", "--run", "nope", "--output", str(tmp_path / "n.html"),
                                      *store_args])
    assert result.exit_code == 1
    assert result.output.startswith("Error: no run 'nope'; runs there: ") and len(result.output.splitlines()) == 1
    assert not (tmp_path / "n.html").exists()
    bad = CliRunner().invoke(cli, ["view", "--run", RUN, "--leaked", "0.1", "--forgotten", "0.5",
                                   *store_args])
    assert bad.exit_code == 1 and bad.output.startswith("Error: leakage thresholds: need 0 <= forgotten")
