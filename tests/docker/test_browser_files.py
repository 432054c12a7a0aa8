"""The Neo4j Browser files in docker/neo4j/: the stylesheet styles every leakage type, every
saved query of the guide runs against a real run on the embedded engine, and the file server
sends what Browser needs."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import small_pistol_run
from audit.results import queries as RQ

FOLDER = Path(__file__).resolve().parents[2] / "docker" / "neo4j"


def grass_rules(text: str) -> dict[str, dict[str, str]]:
    """``selector -> {property: value}`` of a GraSS file (CSS-like blocks)."""
    rules, selector = {}, None
    for line in map(str.strip, text.splitlines()):
        if line.endswith("{"):              # "relationship.LEAKED {"
            selector = line[:-1].strip()
            rules[selector] = {}
        elif line == "}":
            selector = None
        elif line and selector:             # "caption: '{caption}';"
            name, _, value = line.rstrip(";").partition(":")
            rules[selector][name.strip()] = value.strip().strip("'")
    return rules


def test_the_stylesheet_colours_every_leakage_type_apart():
    rules = grass_rules((FOLDER / "leakage.grass").read_text(encoding="utf-8"))
    colours = {}
    for rel_type in RQ.LEAKAGE_TYPES.values():
        rule = rules[f"relationship.{rel_type}"]
        assert rule["caption"] == "{caption}"
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", rule["color"])
        colours[rel_type] = rule["color"].upper()
    assert len(set(colours.values())) == len(colours)                      # four distinct colours
    assert rules["relationship.FACT"]["color"].upper() not in colours.values()
    assert rules["node.Entity"]["caption"] == "{name}"


@dataclass
class Slide:
    heading: str = ""
    blocks: list[str] = field(default_factory=list)   # runnable blocks: a click puts one in the editor


class Guide(HTMLParser):
    """A Browser guide as Neo4j Browser 5 reads it for `:guide URL`: the <title> names it, each
    <slide> is a page of the guide drawer. Also the legend's colours (``data-type`` spans)."""

    def __init__(self, text: str):
        super().__init__()
        self.title, self.slides, self.legend = "", [], {}
        self._in = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "slide":
            self.slides.append(Slide())
        elif tag == "title" or (tag == "h3" and self.slides):
            self._in = tag
        elif tag == "pre" and "runnable" in (attrs.get("class") or ""):
            self.slides[-1].blocks.append("")
            self._in = tag
        elif tag == "span" and "data-type" in attrs:
            self.legend[attrs["data-type"]] = re.search(r"background:\s*(#[0-9A-Fa-f]{6})", attrs["style"]).group(1)

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "h3":
            self.slides[-1].heading += data
        elif self._in == "pre":
            self.slides[-1].blocks[-1] += data


def read_guide() -> Guide:
    return Guide((FOLDER / "guides" / "leakage.html").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def guide() -> list[str]:
    return [b.strip() for slide in read_guide().slides for b in slide.blocks]


def test_the_guide_is_titled_slides_and_its_legend_is_the_stylesheets():
    guide = read_guide()
    assert guide.title == "Leakage after unlearning"
    assert len(guide.slides) >= 5 and all(s.heading.strip() for s in guide.slides)
    assert all(s.blocks for s in guide.slides), "a slide without a query to run"
    rules = grass_rules((FOLDER / "leakage.grass").read_text(encoding="utf-8"))
    assert {t: c.upper() for t, c in guide.legend.items()} == {
        t: rules[f"relationship.{t}"]["color"].upper() for t in RQ.LEAKAGE_TYPES.values()}


def test_every_saved_query_of_the_guide_runs_on_a_real_run(guide, store, run_cache, tmp_path):
    small_pistol_run(store, tmp_path, run_cache, "guide", "guide-ga", [("0", "1"), ("0", "2"), ("1", "3"), ("2", "4")],
                     seed=6)
    params = [b for b in guide if b.startswith(":param")]
    assert {p.split()[1] for p in params} == {"run", "graph"}
    queries = [b for b in guide if not b.startswith(":")]
    assert len(queries) >= 8
    answered = {}
    for query in queries:
        answered[query] = store.run_query(query, {"run": "guide-ga", "graph": "guide"}).rows
    # The leakage subgraph shows every forget edge of the run (2), whatever its status.
    subgraph = next(q for q in queries if q.startswith("MATCH p = ()-[l:LEAKED"))
    assert len(answered[subgraph]) >= 2
    table = next(q for q in queries if "RETURN type(l) AS status" in q)
    forget_rows = [r for r in answered[table] if r[0] != "DAMAGED"]
    assert len(forget_rows) == 2


def test_the_file_server_sends_the_files_with_cors():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(FOLDER / "serve.py"), "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                response = urllib.request.urlopen(f"http://127.0.0.1:{port}/leakage.grass", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert response.headers["Access-Control-Allow-Origin"] == "*"
        assert response.read() == (FOLDER / "leakage.grass").read_bytes()
        guide = urllib.request.urlopen(f"http://127.0.0.1:{port}/guides/leakage.html", timeout=2)
        assert guide.headers["Content-Type"].startswith("text/html")
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_compose_loads_the_style_and_guide_on_connect():
    import yaml

    compose = yaml.safe_load((FOLDER.parent / "compose.yaml").read_text(encoding="utf-8"))
    env = compose["services"]["neo4j"]["environment"]
    command = env["NEO4J_browser_post__connect__cmd"]
    assert "style http://127.0.0.1:" in command and "/leakage.grass" in command
    assert "guide http://127.0.0.1:" in command and "/guides/leakage.html" in command
    assert "127.0.0.1" in env["NEO4J_browser_remote__content__hostname__whitelist"]
    files = compose["services"]["browser-files"]
    assert files["volumes"] == ["./neo4j:/srv:ro"] and files["ports"][0].startswith("127.0.0.1:")
