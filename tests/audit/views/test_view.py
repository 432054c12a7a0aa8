"""`audit view`: the page's data against a real run, the cut, and the page in headless Chromium.

A real run is made once for the module (a generated PISTOL graph, a scratch model, the real
embedded server). Expected values come from the edge list written here and from the results
read back with Cypher, never from the page's own data. The browser test loads the page in
Debian's Chromium over the DevTools protocol and checks that nothing leaves the machine and
nothing is logged as an error.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit.config import InjectionConfig, UnlearnConfig
from audit.views.leakage import EdgeLeakage, LeakageThresholds, RunLeakage
from audit.run.runner import RunRequest, run_audit
from audit.views.graph import build_view, cut_edges, default_output, load_view, score_colour
from audit.views.page import CSP, embed_json, render_page, write_page
from cli.main import cli
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore import GraphStore
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph

from browser import CHROMIUM, Chromium

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


def damage(row: dict) -> float:
    return row["before"] - row["after"]


def expected_status(row: dict) -> str:
    """The status by the definition in docs (audit/views/leakage.py's docstring), computed here."""
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


def test_colour_scales_are_continuous():
    assert score_colour("forget", 0.0) == "#1a9850" and score_colour("forget", 1.0) == "#d73027"
    assert score_colour("forget", 0.5) == "#fee08b" and score_colour("retain", 0.0) == "#b0b0b0"
    assert score_colour("retain", 1.0) == "#e66101" and score_colour("retain", -0.3) == "#b0b0b0"
    # halfway between grey (176,176,176) and orange (230,97,1), by hand
    assert score_colour("retain", 0.5) == "#cb8959"
    assert score_colour("retain", None) == score_colour("forget", None) == "#dddddd"


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
    assert result.output == f"wrote {out}: 7 nodes, 5 edges (of 5), statuses {statuses}\n"
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
