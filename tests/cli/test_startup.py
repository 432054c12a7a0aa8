"""Commands that need no model start without torch or transformers (issue: a CLI that starts at
once). Each command runs in a fresh interpreter, as a user runs it, against the session's
store; the interpreter reports which heavy modules it imported by the time it exits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, small_pistol_run
from extract.pistol.generate import generate_pistol, write_dataset

HEAVY = ("torch", "transformers", "peft", "accelerate", "nltk", "rouge_score")
GRAPH, RUNS = "startup", ("startup-a", "startup-b")
EDGES = [("0", "1"), ("0", "2"), ("1", "2"), ("2", "3")]

# Run `audit ARGS...` and append the heavy modules it imported to the file in $HEAVY_OUT at exit,
# whatever the exit code.
PROBE = f"""
import atexit, json, os, sys
def _report():
    with open(os.environ["HEAVY_OUT"], "w") as f:
        json.dump(sorted(m for m in {HEAVY!r} if m in sys.modules), f)
atexit.register(_report)
from cli.main import main
sys.argv = ["audit"] + sys.argv[1:]
main()
"""


@pytest.fixture(scope="module")
def prepared(settings, tmp_path_factory, run_cache):
    """A PISTOL graph with two runs on it, and a PISTOL file to build."""
    from graphstore import GraphStore

    folder = tmp_path_factory.mktemp("startup")
    with GraphStore.open(settings) as store:
        store.write("MATCH (n) DETACH DELETE n")
        for run_id, method in zip(RUNS, ("ga", "npo")):
            small_pistol_run(store, folder, run_cache, GRAPH, run_id, EDGES, seed=4, method=method)
    build_file = folder / "build.json"
    write_dataset(generate_pistol([("a", "b"), ("b", "c")], seed=5), build_file)
    return {"folder": folder, "build": build_file}


def probe(args: list[str], store_env: dict, out: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    env = {**store_env, "PYTHONPATH": str(REPO), "HEAVY_OUT": str(out)}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=out.parent, env=env, capture_output=True,
                          text=True, timeout=120)
    return done, json.loads(out.read_text())


@pytest.mark.parametrize("args", [
    ["--help"],
    ["status"],
    ["edges", "--graph", GRAPH],
    ["edges", "--run", RUNS[0]],
    ["query", "MATCH (e:Entity) RETURN count(e) AS n"],
    ["runs"],
    ["runs", RUNS[0]],
    ["server", "status"],
    ["build", "--pistol", "{build}", "--graph", "startup-build"],
    ["view", "--run", RUNS[0], "--output", "{folder}/page.html"],
    ["report", "--run", RUNS[0], "--output", "{folder}/report"],
    ["compare", RUNS[0], RUNS[1], "--output", "{folder}/compare"],
    ["leakage", "--run", RUNS[0]],
    ["generate", "pistol", "--topology", "chain", "--nodes", "4", "--output", "{folder}/chain.json"],
    ["stats", "--graph", GRAPH],          # refused (not a text graph), quickly
    ["run", "--help"],
    ["experiment", "--help"],
], ids=lambda a: " ".join(a[:2]))
def test_commands_without_a_model_do_not_import_torch(prepared, store_env, args):
    args = [a.format(**prepared) for a in args]
    done, heavy = probe(args, store_env, prepared["folder"] / "heavy.json")
    expected_code = 1 if args[0] == "stats" else 0
    assert done.returncode == expected_code, done.stderr[-2000:]
    assert heavy == [], f"audit {' '.join(args)} imported {heavy}"


def test_the_probe_sees_a_command_that_loads_a_model(prepared, store_env):
    """The probe itself works: a command that needs torch is seen importing it."""
    done, heavy = probe(["run", "--graph", "nosuch", "--select", "top-degree:1"], store_env,
                        prepared["folder"] / "heavy.json")
    assert done.returncode == 1 and "no graph named 'nosuch'" in done.stderr
    assert "torch" in heavy
