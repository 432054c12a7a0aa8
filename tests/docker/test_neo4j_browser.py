"""The leakage guide and style in the real Neo4j Browser (docs/leakage.md).

Neo4j Browser 5.24 (Maven Central's org.neo4j.client:neo4j-browser) is served by the Neo4j test
server, configured as docker/compose.yaml configures the neo4j service: on connect it runs
`:style URL` and `:guide URL` on docker/neo4j's files, fetched from the file server
(docker/neo4j/serve.py). After a real run, headless Chromium connects as a user would; the guide
drawer must show the guide's title and every slide of the file with its heading and runnable
queries, and its legend in the stylesheet's colours; the legacy `:play URL` must show the same
slides in a frame. Then the run is chosen with `:param`, the guide's own leakage query is clicked
into the editor and run, and the colours Browser drew are read from its SVG and compared with
the stylesheet, type by type.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit.config import UnlearnConfig
from cli.main import cli
from conftest import ENV_REQUIRE_NEO4J, cli_store_args, small_pistol_run
from graphstore import ConnectionSettings, GraphStore

from test_browser_files import FOLDER, grass_rules, read_guide

CHROMIUM = Path("/usr/bin/chromium")
EDGES = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "4"), ("2", "5"), ("3", "6"), ("1", "2")]
LEAKAGE = ("LEAKED", "PARTLY_FORGOTTEN", "FORGOTTEN", "DAMAGED")
DRAWER = "document.querySelector('[data-testid=guidesDrawer]')"
SLIDE = f"""(() => {{ const s = {DRAWER}.querySelector('.slide'); return s && {{
  heading: s.querySelector('h3').textContent.trim(),
  blocks: Array.from(s.querySelectorAll('pre.runnable')).map(p => p.textContent.trim()) }}; }})()"""
LEGEND = f"""Array.from({DRAWER}.querySelectorAll('.slide [data-type]')).map(e => [
  e.getAttribute('data-type'), getComputedStyle(e).backgroundColor])"""
EDITOR_TEXT = "document.querySelector('.monaco-editor .view-lines').innerText"
# React keeps its own copy of an input's value: set it through the prototype's setter, then say so.
FILL_AND_CONNECT = """(() => {
  const input = document.querySelector('[data-testid=password]');
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, %r);
  input.dispatchEvent(new Event('input', {bubbles: true}));
  document.querySelector('[data-testid=connect]').click();
})()"""
DRAWN = """Array.from(document.querySelectorAll('svg g.relationship')).map(g => [
  g.querySelector('path.b-outline').getAttribute('fill'), g.textContent.trim()])"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def browser_setup(tmp_path):
    """The file server and a Neo4j test server that loads its files on connect, as compose does:
    (the server's info, the file server's URL)."""
    from neo4j_server.server import Neo4jTestServer, missing

    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (Debian: apt-get install chromium); Browser is not checked")
    reason = missing()
    if reason:
        if os.environ.get(ENV_REQUIRE_NEO4J) == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    port = free_port()
    files = subprocess.Popen([sys.executable, str(FOLDER / "serve.py"), "--host", "127.0.0.1", "--port", str(port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    server = Neo4jTestServer(tmp_path / "neo4j", {
        "browser.post_connect_cmd": f"style {base}/leakage.grass; guide {base}/guides/leakage.html",
        "browser.remote_content_hostname_whitelist": "127.0.0.1,localhost",
        "client.allow_telemetry": "false"})
    try:
        yield server.start(), base
    finally:
        server.stop()
        files.kill()
        files.wait()


def test_neo4j_browser_shows_the_guide_and_a_runs_leakage_in_the_stylesheets_colours(browser_setup, run_cache,
                                                                                     tmp_path):
    from browser import Chromium

    info, files = browser_setup
    settings = ConnectionSettings.resolve(uri=info.uri, password=info.password, environ={})
    with GraphStore.open(settings) as store:
        # a short, gentle unlearning: forget edges end at different scores
        small_pistol_run(store, tmp_path, run_cache, "browser", "browser-ga", EDGES, seed=4, select="top-degree:3",
                         unlearn=UnlearnConfig(epochs=2, lr=1e-3, batch_size=4))
        # thresholds between the run's own values, so that each leakage type is drawn if the run allows
        after = sorted(r["a"] for r in store.read("MATCH (x:EdgeResult {run: 'browser-ga', role: 'forget'}) "
                                                   "RETURN x.rouge1_after AS a"))
        forgotten, leaked = (after[0] + after[1]) / 2, (after[1] + after[2]) / 2
        if after[0] < after[1] < after[2]:
            result = CliRunner().invoke(cli, ["leakage", "--run", "browser-ga", "--leaked", f"{leaked:.6f}",
                                              "--forgotten", f"{forgotten:.6f}", "--damaged", "0.01",
                                              *cli_store_args(settings)], catch_exceptions=False)
            assert result.exit_code == 0, result.output
        rows = store.read("MATCH (:Entity {graph: 'browser'})-[l]->() WHERE l.run = 'browser-ga' "
                          "RETURN type(l) AS type, l.caption AS caption")
    stored = {r["caption"]: r["type"] for r in rows}   # a caption is a score: one status (damaged: '-0.30')
    assert len(stored) == len({(r["caption"], r["type"]) for r in rows})
    assert set(stored.values()) <= set(LEAKAGE) and len(set(stored.values())) >= 2, rows
    rules = grass_rules((FOLDER / "leakage.grass").read_text(encoding="utf-8"))
    colour = {t: rules[f"relationship.{t}"]["color"].upper() for t in (*LEAKAGE, "FACT")}

    guide = read_guide()
    with Chromium(tmp_path / "chromium", width=1400, height=900) as chromium:
        page = chromium.page()
        page.send("Page.enable")
        page.navigate(f"{info.http_url}/browser/?dbms=neo4j://neo4j@127.0.0.1:{info.bolt_port}")
        page.wait_for("!!document.querySelector('[data-testid=password]')", timeout=60)
        page.evaluate(FILL_AND_CONNECT % info.password)
        # connected: the post-connect `:guide` has opened the drawer, named by the guide's <title>
        page.wait_for(f"(() => {{ const d = {DRAWER}; return !!d && d.querySelector('h4').textContent.trim() === "
                      f"{guide.title!r}; }})()", timeout=60)
        page.screenshot(tmp_path / "neo4j-browser-guide.png")
        assert page.evaluate("document.querySelectorAll('[data-testid^=pagination-]').length") == len(guide.slides)
        for number, slide in enumerate(guide.slides, 1):   # every slide of the file, as the file has it
            page.evaluate(f"document.querySelector('[data-testid=pagination-{number}]').click()")
            page.wait_for(f"(() => {{ const s = {SLIDE}; return !!s && s.heading === {slide.heading.strip()!r}; }})()",
                          timeout=10)
            shown = page.evaluate(SLIDE)
            assert shown["blocks"] == [b.strip() for b in slide.blocks], number
            if number == 1:
                legend = {t: _hex(rgb) for t, rgb in page.evaluate(LEGEND)}
                assert legend == {t: colour[t] for t in LEAKAGE}
        # the legacy `:play URL` reads the same file: a frame in the stream with the same slides
        _run_in_editor(page, f":play {files}/guides/leakage.html",
                       until=f"document.body.innerText.includes('1 / {len(guide.slides)}')")
        # choose the run as the guide says, then click the guide's leakage subgraph query and run it
        # (Browser evaluates the value on the server: the parameter is set when its frame says so)
        _run_in_editor(page, ":param run => 'browser-ga'",
                       until="document.body.innerText.includes('Successfully set your parameters')")
        subgraph = next(number for number, s in enumerate(guide.slides, 1)
                        if any(b.startswith("MATCH p = ()-[l:LEAKED") for b in s.blocks))
        page.evaluate(f"document.querySelector('[data-testid=pagination-{subgraph}]').click()")
        query = next(b.strip() for b in guide.slides[subgraph - 1].blocks if b.startswith("MATCH p = ()-[l:LEAKED"))
        page.evaluate(f"""Array.from({DRAWER}.querySelectorAll('.slide pre.runnable'))
                          .find(p => p.textContent.trim() === {query!r}).click()""")
        # the editor wraps long lines where it likes: compared without white space
        page.wait_for(f"{EDITOR_TEXT}.replace(/\\s+/g, '') === {''.join(query.split())!r}", timeout=10)
        page.evaluate("document.querySelector('[data-testid=editor-Run]').click()")
        page.wait_for(f"(() => {{ const d = {DRAWN}; return d.length >= {len(rows)} && d; }})()", timeout=60)
        time.sleep(2)   # the force layout settles before the picture
        drawn = page.evaluate(DRAWN)
        page.screenshot(tmp_path / "neo4j-browser-leakage.png")

    # every leakage relationship is drawn in its type's colour from the stylesheet; Browser also
    # draws the FACT relationships between the nodes it shows ("connect result nodes"), in grey
    leakage = [(fill, caption) for fill, caption in drawn if caption in stored]
    assert len(leakage) == len(rows) and len(drawn) > len(rows), drawn
    for fill, caption in drawn:
        assert fill.upper() == colour[stored.get(caption, "FACT")], (caption, stored.get(caption, "FACT"), fill)


def _run_in_editor(page, command: str, until: str) -> None:
    """Type a command into Browser's editor and run it, as a user would, until ``until`` holds."""
    page.evaluate("document.querySelector('.monaco-editor textarea').focus()")
    page.send("Input.insertText", text=command)
    page.evaluate("document.querySelector('[data-testid=editor-Run]').click()")
    page.wait_for(until, timeout=30)


def _hex(rgb: str) -> str:
    """``rgb(213, 94, 0)`` as ``#D55E00``."""
    return "#" + "".join(f"{int(v):02X}" for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])
