"""The leakage style in the real Neo4j Browser (docs/leakage.md).

Neo4j Browser 5.24 (Maven Central's org.neo4j.client:neo4j-browser) is served by the Neo4j test
server, configured as docker/compose.yaml configures the neo4j service: on connect it loads
docker/neo4j's stylesheet and guide from the file server (docker/neo4j/serve.py). After a real
run, headless Chromium connects as a user would, runs the leakage query, and the colours Browser
drew are read from its SVG and compared with the stylesheet, type by type.
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

from test_browser_files import FOLDER, grass_rules

CHROMIUM = Path("/usr/bin/chromium")
EDGES = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "4"), ("2", "5"), ("3", "6"), ("1", "2")]
LEAKAGE = ("LEAKED", "PARTLY_FORGOTTEN", "FORGOTTEN", "DAMAGED")
QUERY = ("MATCH p = (:Entity {graph: 'browser'})-[l:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED]->() "
         "WHERE l.run = 'browser-ga' RETURN p")
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
    """The file server and a Neo4j test server that loads its files on connect, as compose does."""
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
        "browser.post_connect_cmd": f"style {base}/leakage.grass; play {base}/guides/leakage.html",
        "browser.remote_content_hostname_whitelist": "127.0.0.1,localhost",
        "client.allow_telemetry": "false"})
    try:
        yield server.start()
    finally:
        server.stop()
        files.kill()
        files.wait()


def test_neo4j_browser_draws_a_runs_leakage_in_the_stylesheets_colours(browser_setup, run_cache, tmp_path):
    from browser import Chromium

    info = browser_setup
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

    with Chromium(tmp_path / "chromium", width=1400, height=900) as chromium:
        page = chromium.page()
        page.send("Page.enable")
        page.navigate(f"{info.http_url}/browser/?dbms=neo4j://neo4j@127.0.0.1:{info.bolt_port}")
        page.wait_for("!!document.querySelector('[data-testid=password]')", timeout=60)
        page.evaluate(FILL_AND_CONNECT % info.password)
        # connected: the post-connect command has played the guide (its title is on the page)
        page.wait_for("document.body.innerText.includes('Leakage after unlearning')", timeout=60)
        page.evaluate("document.querySelector('.monaco-editor textarea').focus()")
        page.send("Input.insertText", text=QUERY)
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
