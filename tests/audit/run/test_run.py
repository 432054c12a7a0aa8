"""`audit run` end to end on CPU: a generated graph, a scratch model, the real embedded server.

Expected values are computed independently: selections from the raw edge list by hand,
forgetting from the QA-level lists read back with Cypher, resumed results against an
uninterrupted run.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from rouge_score import rouge_scorer

from audit.config import InjectionConfig, UnlearnConfig
from audit.run.methods import PRETRAINED_UNLEARN_LR, default_unlearn_lr
from audit.models.encoding import QAEncoder
from audit.run.injection import inject, load_injected_model, remove_stale_staging
from audit.models.load import select_hardware
from audit.run.qa import load_graph_edges
from audit.run.runner import RunRequest, run_audit
from audit.run.selectors import select
from cli.main import cli
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph

REPO = Path(__file__).resolve().parents[3]
# A small tree (5 contracts around one hub): injected in ~50 epochs on 2 cores.
RUN_EDGES = [("0", "1"), ("0", "2"), ("0", "3"), ("0", "4"), ("1", "5")]
# Three components, one per density tier: a 7-node star (6 edges, density 2/7), a 3-node chain
# (density 2/3) and a triangle (density 1).
TIER_EDGES = ([("h", str(i)) for i in range(1, 7)] + [("c1", "c2"), ("c2", "c3")]
              + [("t1", "t2"), ("t2", "t3"), ("t1", "t3")])
FAST = dict(epochs=6, lr=2e-3, batch_size=4)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run_data")
    run_file, tier_file = folder / "small.json", folder / "tiers.json"
    write_dataset(generate_pistol(RUN_EDGES, seed=1, employment_fraction=0.3), run_file)
    write_dataset(generate_pistol(TIER_EDGES, seed=2), tier_file)
    return {"run": run_file, "tiers": tier_file}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One cache for the module: the injected model is trained once and reused."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture()
def graph(store, files):
    write_graph(store, load_pistol(files["run"], graph="small"))
    return "small"


def request(cache_dir, **overrides) -> RunRequest:
    unlearn = UnlearnConfig(**{**FAST, **overrides.pop("unlearn", {})})
    return RunRequest(graph="small", cache_dir=cache_dir, device="cpu", unlearn=unlearn,
                      injection=InjectionConfig(), **overrides)


def qa_mean(store, run: str, role: str, phase: str) -> float:
    """Mean QA-level ROUGE-1 of a role, read back with Cypher (not the run's own summary)."""
    rows = store.read("MATCH (:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult {role: $role}) "
                      f"RETURN x.rouge1_qa_{phase} AS values", run=run, role=role)
    values = [v for r in rows for v in r["values"]]
    return sum(values) / len(values)


# -- injection ----------------------------------------------------------------------------------
def test_injection_reaches_the_target_and_is_cached(store, graph, cache_dir):
    edges = load_graph_edges(store, graph)
    sha = store.read("MATCH (g:Graph {key: $g}) RETURN g.sha256 AS s", g=graph)[0]["s"]
    hardware = select_hardware("cpu")
    injected = inject("scratch:tiny", graph, sha, edges, InjectionConfig(), hardware, cache_dir)
    assert injected.reached and injected.info["min_rouge1"] == 1.0
    assert set(injected.info["per_edge_rouge1"]) == set(edges)

    # Independently: greedy answers one question at a time, scored with rouge_score directly.
    model, tokenizer = load_injected_model(injected, hardware)
    encoder = QAEncoder(tokenizer)
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    for edge in edges.values():
        for qa in edge.qas[::7]:
            prompt = torch.tensor([encoder.prompt_ids(qa.question)])
            out = model.generate(prompt, max_new_tokens=40, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
            answer = tokenizer.decode(out[0, prompt.shape[1]:], skip_special_tokens=True).strip()
            assert scorer.score(qa.answer, answer)["rouge1"].recall == 1.0, (qa.question, answer)

    again = inject("scratch:tiny", graph, sha, edges, InjectionConfig(), hardware, cache_dir)
    assert again.cached and again.folder == injected.folder


# -- every method makes the forget answers unlikely ---------------------------------------------------
# What each loss guarantees is that the forget answers lose likelihood: GA and GD push their NLL
# up, NPO and SimNPO their (reference-relative) likelihood down, KL does GA under a retain KL,
# DPO prefers a refusal to them. Not that greedy answers flip at a given ROUGE-1 (a tiny model's
# argmax near a threshold differs between CPUs). So: a setup strong enough to be far from any
# threshold (a high learning rate), and the mean answer probability (per-token geometric mean,
# teacher-forced, read back with Cypher) of the forget edge falling below a quarter of its value.
# Ten epochs were not far enough from it: on one machine GD ended at 0.30 of 0.99 and KL at 0.240
# (the line is 0.248). With twenty, every method ends below 0.001 there, 250 times under the line.
STRONG = dict(epochs=20, lr=3e-3, batch_size=4)


@pytest.mark.parametrize("method", ["ga", "gd", "kl", "dpo", "npo", "simnpo"])
def test_every_method_makes_the_forget_answers_unlikely(store, graph, cache_dir, method):
    outcome = run_audit(store, request(cache_dir, select="top-degree:1", method=method, run_id=f"m-{method}",
                                       unlearn=STRONG), report=lambda _: None)
    row = store.read("MATCH (:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult {role: 'forget'}) "
                     "RETURN x.answer_probability_before AS before, x.answer_probability_after AS after",
                     run=outcome.run)[0]
    assert row["before"] > 0.5, f"injection left the forget answers unlikely already: {row}"
    assert row["after"] < row["before"] / 4, f"{method}: forget answer probability {row['before']:.3f} -> {row['after']:.3f}"


@pytest.mark.parametrize("method", ["ga", "gd", "kl", "dpo", "npo", "simnpo"])
def test_audit_run_with_every_check_for_each_method(store, graph, cache_dir, store_args, method):
    """`audit run --check all` end to end for each method, on each engine: the run ends done and
    the forget edge has a value from each resurfacing check (quantization, relearning, probes,
    membership inference; docs/robustness.md), read back with Cypher."""
    result = CliRunner().invoke(cli, ["run", "--graph", "small", "--select", "top-degree:1", "--method", method,
                                      "--epochs", "2", "--device", "cpu", "--run-id", f"all-{method}",
                                      "--check", "all", "--cache-dir", str(cache_dir), *store_args],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    run = store.read("MATCH (r:Run {key: $run}) RETURN r.status AS status", run=f"all-{method}")
    assert run == [{"status": "done"}]
    row = store.read("MATCH (:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult {role: 'forget'}) "
                     "RETURN x.rouge1_int8 AS int8, x.relearn_pairs AS relearn, "
                     "x.paraphrase_questions AS probes, x.mia_min_k_pp_auc_after AS mia", run=f"all-{method}")[0]
    assert None not in row.values() and row["probes"] > 0, row


def test_a_run_id_running_in_another_process_is_refused_at_once(store, graph, cache_dir, store_args):
    """Issue 29: the same run id started twice trained twice. The run's lock is held here as
    another process would hold it (an flock on its file): the second start is one line, and it
    writes no Run node."""
    import multiprocessing

    lock_path = cache_dir / "runs" / "held" / "run.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    ready, done = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.get_context("fork").Process(target=_hold_lock, args=(lock_path, ready, done))
    holder.start()
    try:
        assert ready.wait(30)
        result = CliRunner().invoke(cli, ["run", "--graph", "small", "--select", "edges:0_1", "--method", "ga",
                                          "--epochs", "1", "--device", "cpu", "--run-id", "held",
                                          "--cache-dir", str(cache_dir), *store_args])
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert result.output.startswith(f"Error: run 'held' is running now (pid {holder.pid} on "), result.output
        assert store.read("MATCH (r:Run {key: 'held'}) RETURN count(r) AS n") == [{"n": 0}]
    finally:
        done.set()
        holder.join(30)
    # once it is let go, the same id runs
    result = CliRunner().invoke(cli, ["run", "--graph", "small", "--select", "edges:0_1", "--method", "ga",
                                      "--epochs", "1", "--device", "cpu", "--run-id", "held",
                                      "--cache-dir", str(cache_dir), *store_args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _hold_lock(path, ready, done):
    import fcntl
    import os
    import socket

    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.truncate(0)
        handle.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
        handle.flush()
        ready.set()
        done.wait(60)


def test_without_lr_the_methods_default_is_used_and_recorded(store, graph, cache_dir):
    run_audit(store, request(cache_dir, select="edges:0_1", method="simnpo", run_id="default-lr",
                             unlearn={"lr": None, "epochs": 1}), report=lambda _: None)
    run = store.read("MATCH (r:Run {key: 'default-lr'}) RETURN r.unlearn_config AS c")[0]
    assert json.loads(run["c"])["lr"] == 4e-4 == default_unlearn_lr("simnpo", "scratch:tiny")
    assert default_unlearn_lr("simnpo", "./some/llama") == PRETRAINED_UNLEARN_LR


def test_a_run_that_forgot_nothing_says_so_in_its_reading(store, graph, cache_dir):
    # A learning rate of 1e-9 changes no greedy answer of the injected model: every edge keeps
    # ROUGE-1 1.0, so the reading is known in advance.
    outcome = run_audit(store, request(cache_dir, select="edges:0_1", method="ga", run_id="unmoved",
                                       unlearn={"lr": 1e-9, "epochs": 1}), report=lambda _: None)
    rows = store.read("MATCH (x:EdgeResult {run: 'unmoved'}) RETURN x.role AS role, x.rouge1_before AS b, "
                      "x.rouge1_after AS a")
    assert all(r["b"] == r["a"] == 1.0 for r in rows)
    first, unmoved = outcome.reading[:2]
    assert first.startswith("forgot 0 of 1 forget edge(s) (ROUGE-1 <= 0.2; 0 partly, 1 leaked at >= 0.8); "
                            "0 of 4 retained edge(s) damaged")
    assert "deviation score 100 -> 100 (lower is better" in first
    assert unmoved.startswith("forget ROUGE-1 did not move (1.000 -> 1.000): try a higher --lr (this run: 1e-09)")


# -- results on the graph ------------------------------------------------------------------------
def test_results_are_written_per_edge_and_never_duplicated(store, graph, cache_dir, files):
    req = request(cache_dir, select="edges:0_1", method="ga", run_id="written")
    run_audit(store, req, report=lambda _: None)
    rows = store.read("MATCH (r:Run {key: 'written'})-[:HAS_RESULT]->(x:EdgeResult) "
                      "RETURN x.edge AS edge, x.role AS role, x.key AS key, x.rouge1_before AS before, "
                      "x.rouge1_after AS after, size(x.answers_after) AS answers, x.edge_degree AS degree")
    raw = json.loads(files["run"].read_text())
    expected_edges = {f"small/{e}" for e in {r["edge"] for r in raw}}
    assert {r["edge"] for r in rows} == expected_edges
    assert {r["edge"]: r["role"] for r in rows}["small/0_1"] == "forget"
    assert Counter(r["role"] for r in rows) == {"forget": 1, "retain": 4}
    assert all(r["key"] == f"written/{r['edge']}" and r["answers"] == 20 for r in rows)
    assert all(r["before"] is not None and r["after"] is not None for r in rows)
    # edge degree by hand: 0_1 touches hub 0 (degree 4) and 1 (degree 2): 4 + 2 - 1
    assert {r["edge"]: r["degree"] for r in rows}["small/0_1"] == 5

    run = store.read("MATCH (r:Run {key: 'written'}) RETURN r AS run")[0]["run"]
    assert run["status"] == "done" and run["method"] == "ga" and run["mode"] == "joint"
    assert run["forget_edges"] == ["small/0_1"] and run["selector"] == "edges:0_1"
    assert run["prompt_version"] == "qa_prompt.v1" and run["templates"] == "pistol.v1"
    assert run["seed"] == 0 and run["code_version"] and run["started_at"] <= run["ended_at"]
    assert json.loads(run["unlearn_config"])["epochs"] == FAST["epochs"]
    forget, retain = qa_mean(store, "written", "forget", "after"), qa_mean(store, "written", "retain", "after")
    assert run["deviation_score"] == pytest.approx(100 * math.sqrt(forget ** 2 + (1 - retain) ** 2))

    # the same run id again: complete, nothing duplicated
    lines = []
    run_audit(store, req, report=lines.append)
    assert any("already complete" in line for line in lines)
    count = store.read("MATCH (x:EdgeResult {run: 'written'}) RETURN count(x) AS n")[0]["n"]
    assert count == 5
    # other settings under the same id are refused
    with pytest.raises(ConfigError, match="already exists with other settings"):
        run_audit(store, request(cache_dir, select="edges:0_2", method="ga", run_id="written"),
                  report=lambda _: None)


def test_per_edge_sweep(store, graph, cache_dir):
    outcome = run_audit(store, request(cache_dir, select="bottom-degree:2", method="ga", per_edge=True,
                                       run_id="sweep"), report=lambda _: None)
    rows = {r["edge"]: r for r in store.read(
        "MATCH (x:EdgeResult {run: 'sweep'}) RETURN x.edge AS edge, x.role AS role, x.rouge1_after AS forget, "
        "x.retain_rouge1_after AS retain, x.deviation_score AS ds, x.retain_edges_after AS others")}
    # bottom-degree by hand: 0_2, 0_3, 0_4 have degree 4 (hub 4 + leaf 1 - 1); 1_5 has 2 + 1 - 1 = 2;
    # 0_1 has 5. Lowest two, ties by key: 1_5, 0_2.
    swept = sorted(k for k, r in rows.items() if r["role"] == "forget")
    assert swept == ["small/0_2", "small/1_5"]
    for key in swept:
        r = rows[key]
        assert r["ds"] == pytest.approx(100 * math.sqrt(r["forget"] ** 2 + (1 - r["retain"]) ** 2))
        assert sorted(r["others"]) == sorted(set(rows) - {key})
    assert all(rows[k]["forget"] is None for k in rows if k not in swept)
    assert outcome.summary["swept_edges"] == 2
    losses = [json.loads(line) for line in (cache_dir / "runs" / "sweep" / "loss.jsonl").read_text().splitlines()]
    assert [(line["phase"], line["epoch"]) for line in losses if line["phase"] != "inject"] == \
        [(f"unlearn {edge}", epoch) for edge in ("small/1_5", "small/0_2") for epoch in range(1, FAST["epochs"] + 1)]
    # damage per edge: its ROUGE-1 averaged over the unlearnings of the other swept edges
    damage = {r["edge"]: r for r in store.read(
        "MATCH (x:EdgeResult {run: 'sweep'}) RETURN x.edge AS edge, x.retained_rouge1_after AS mean, "
        "x.retained_in_unlearnings AS n, x.rouge1_qa_after AS qa")}
    by_edge = {}
    for key in swept:
        values = store.read("MATCH (x:EdgeResult {key: $k}) RETURN x.retain_edges_after AS e, "
                            "x.retain_rouge1_by_edge AS v", k=f"sweep/{key}")[0]
        for e, v in zip(values["e"], values["v"]):
            by_edge.setdefault(e, []).append(v)
    for edge, values in by_edge.items():
        assert damage[edge]["n"] == len(values) and damage[edge]["mean"] == pytest.approx(sum(values) / len(values))
    assert damage["small/0_1"]["n"] == 2 and damage["small/1_5"]["n"] == 1


# -- resume after a kill --------------------------------------------------------------------------
def test_a_killed_run_resumes_where_it_stopped(store, graph, cache_dir, store_args):
    args = ["--graph", "small", "--select", "edges:0_1", "--method", "npo", "--epochs", "40", "--lr", "1e-3",
            "--device", "cpu", "--cache-dir", str(cache_dir), *store_args]
    checkpoint = cache_dir / "runs" / "killed" / "checkpoint.pt"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "cli.main", "run", *args, "--run-id", "killed"],
                               cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not checkpoint.exists():
        assert process.poll() is None, process.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, "no checkpoint within 120 s"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stderr.close()

    state = store.read("MATCH (r:Run {key: 'killed'}) RETURN r.status AS status")[0]
    assert state["status"] == "running"           # killed: nobody could mark it
    listing = CliRunner().invoke(cli, ["runs", "--format", "json", *store_args], catch_exceptions=False)
    shown = {r["key"]: r["status"] for r in json.loads(listing.output)}
    assert shown["killed"] == "running (process gone)"   # its lock is free: the process that held it died
    before = store.read("MATCH (x:EdgeResult {run: 'killed'}) RETURN count(x.rouge1_before) AS b, "
                        "count(x.rouge1_after) AS a")[0]
    assert before == {"b": 5, "a": 0}

    result = CliRunner().invoke(cli, ["run", *args, "--run-id", "killed"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "resuming run killed" in result.output
    assert "resumed unlearning after epoch" in result.output
    count = store.read("MATCH (x:EdgeResult {run: 'killed'}) RETURN count(x) AS n, count(x.rouge1_after) AS a")[0]
    assert count == {"n": 5, "a": 5}
    # the loss log has every epoch once, though the kill came anywhere between two
    lines = (cache_dir / "runs" / "killed" / "loss.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["epoch"] for line in lines if '"unlearn"' in line] == list(range(1, 41))

    # The resumed run ends where an uninterrupted one does.
    result = CliRunner().invoke(cli, ["run", *args, "--run-id", "straight"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    answers = {r["run"]: r["a"] for r in store.read(
        "MATCH (x:EdgeResult) WHERE x.run IN ['killed', 'straight'] AND x.edge = 'small/0_1' "
        "RETURN x.run AS run, x.answers_after AS a")}
    assert answers["killed"] == answers["straight"]
    # ... and counts the work of the epochs before the kill (kept in the checkpoint)
    work = {r["run"]: (r["steps"], r["tokens"]) for r in store.read(
        "MATCH (r:Run) WHERE r.key IN ['killed', 'straight'] RETURN r.key AS run, r.unlearn_steps AS steps, "
        "r.unlearn_tokens AS tokens")}
    assert work["killed"] == work["straight"] and work["straight"][1] > 0


# -- selectors ------------------------------------------------------------------------------------
@pytest.fixture()
def tiers(store, files):
    write_graph(store, load_pistol(files["tiers"], graph="tiers"))
    return list(load_graph_edges(store, "tiers"))


def _keys(pairs):
    return sorted(f"tiers/{u}_{v}" for u, v in pairs)


def test_selectors_choose_what_they_say(store, tiers, files):
    def chosen(spec=None, cypher=None, seed=0):
        return sorted(select(store, "tiers", tiers, spec, cypher, seed).edges)

    # edge degrees by hand: star edges 6 + 1 - 1 = 6; chain 2 + 1 - 1 = 2; triangle 2 + 2 - 1 = 3
    assert chosen("top-degree:6") == _keys(TIER_EDGES[:6])
    assert chosen("bottom-degree:2") == _keys(TIER_EDGES[6:8])
    assert chosen("density:dense:5") == _keys(TIER_EDGES[8:])        # triangle, density 1
    assert chosen("density:mid:5") == _keys(TIER_EDGES[6:8])         # chain, 2/3
    assert chosen("density:sparse:6") == _keys(TIER_EDGES[:6])       # star, 2/7
    assert len(chosen("density:sparse:5")) == 5
    one = chosen("density:sparse", seed=3)
    assert len(one) == 1 and one[0] in _keys(TIER_EDGES[:6]) and one == chosen("density:sparse", seed=3)
    assert chosen("entity:tiers/t2") == _keys([("t1", "t2"), ("t2", "t3")])
    assert chosen("edges:h_1,tiers/t1_t3") == _keys([("h", "1"), ("t1", "t3")])
    raw = json.loads(files["tiers"].read_text())
    assert chosen("domain:sales") == sorted({f"tiers/{r['edge']}" for r in raw})
    assert chosen(cypher="MATCH (:Entity {graph: $graph})-[f:FACT]->() WHERE f.edge_degree = 3 "
                         "RETURN f.key AS key") == _keys(TIER_EDGES[8:])


@pytest.mark.parametrize("spec, cypher, message", [
    ("edges:nope_1", None, r"1 selected edge key\(s\) are not edges of graph 'tiers': tiers/nope_1"),
    # 11 edges, all sales: star 6, chain 2, triangle 3
    ("domain:employment", None, r"^--select 'domain:employment': graph 'tiers' has no edge of domain 'employment'; "
                                r"its domains: sales 11 edge\(s\)$"),
    ("widest:3", None, r"unknown selector 'widest' .*valid: top-degree, bottom-degree, domain, density, entity, edges"),
    ("density:thick", None, r"unknown density tier 'thick'; valid: sparse, mid, dense"),
    ("top-degree:0", None, r"'0' is not a positive whole number"),
    ("entity:nobody", None, r"no entity of graph 'tiers' has key, label or name 'nobody'"),
    (None, "MATCH (n:Entity) RETURN n.key AS k", r"--cypher must return a column named key"),
    (None, None, r"give exactly one of --select SPEC or --cypher QUERY"),
])
def test_bad_selections_are_refused_and_nothing_runs(store, tiers, cache_dir, spec, cypher, message):
    with pytest.raises(ConfigError, match=message):
        run_audit(store, RunRequest(graph="tiers", select=spec, cypher=cypher, cache_dir=cache_dir, device="cpu"),
                  report=lambda _: None)
    assert store.read("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0
    assert store.read("MATCH (x:EdgeResult) RETURN count(x) AS n")[0]["n"] == 0


# -- the command line -----------------------------------------------------------------------------
def test_cli_run_edges_and_export(store, graph, cache_dir, store_args, tmp_path):
    runner = CliRunner()
    base = list(store_args)
    result = runner.invoke(cli, ["run", "--graph", "small", "--select", "entity:5", "--method", "gd",
                                 "--epochs", "4", "--lr", "2e-3", "--device", "cpu", "--run-id", "cli-run",
                                 "--cache-dir", str(cache_dir), *base], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "run cli-run: done" in result.output and "deviation score" in result.output
    assert "forgot " in result.output and "lower is better" in result.output

    table = runner.invoke(cli, ["edges", "--run", "cli-run", *base], catch_exceptions=False)
    assert table.exit_code == 0 and "rouge1_after" in table.output and "(5 rows)" in table.output

    out = tmp_path / "r.csv"
    export = runner.invoke(cli, ["edges", "--run", "cli-run", "--output", str(out), *base], catch_exceptions=False)
    assert export.exit_code == 0
    import pandas as pd

    frame = pd.read_csv(out)
    assert len(frame) == 5 and {"edge", "role", "rouge1_before", "rouge1_after", "answers_after"} <= set(frame.columns)
    assert frame.set_index("edge").loc["small/1_5", "role"] == "forget"   # entity 5's one contract
    assert len(json.loads(frame["answers_after"][0])) == 20

    listing = runner.invoke(cli, ["runs", *base], catch_exceptions=False)
    assert "cli-run" in listing.output and "done" in listing.output


@pytest.mark.parametrize("args, message", [
    (["--select", "edges:0_1", "--method-option", "gamma=1"], "method ga has no option 'gamma'; valid: (none)"),
    (["--select", "edges:0_1", "--method", "npo", "--method-option", "beta=x"],
     "method npo option beta='x': expected a float"),
    (["--select", "edges:0_1", "--retain", "some"], "--retain 'some' is not known; valid: all, neighbours, sample:N"),
    (["--select", "edges:0_1", "--model", "./no/such/model"], "model folder './no/such/model' does not exist"),
    (["--select", "edges:0_1", "--model", "scratch:huge"], "--model 'scratch:huge': unknown scratch size 'huge'; valid: tiny, small, base"),
    (["--select", "edges:0_1", "--lora-targets", "nope_proj"], "LoRA adapters do not fit this model"),
])
def test_cli_errors_are_one_line(store, graph, cache_dir, store_args, args, message):
    result = CliRunner().invoke(cli, ["run", "--graph", "small", "--method", "ga", "--epochs", "1", "--device", "cpu",
                                      "--cache-dir", str(cache_dir), *store_args, *args])
    assert result.exit_code == 1
    assert f"Error: {message}" in result.output
    if "LoRA" not in message:   # refused before anything ran: no run node
        assert "starting run" not in result.output
        assert store.read("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0


def test_edges_run_unknown_and_bad_export(store, store_args):
    runner = CliRunner()
    result = runner.invoke(cli, ["edges", "--run", "nope", *store_args])
    assert result.exit_code == 1 and "Error: no run 'nope'; runs there: (none: audit run makes one)" in result.output
    result = runner.invoke(cli, ["edges", "--output", "x.xlsx", *store_args])
    assert result.exit_code == 1 and "must end in .csv or .parquet" in result.output


# -- progress off a terminal ------------------------------------------------------------------------
def test_off_a_terminal_a_run_writes_progress_lines_and_quiet_silences_them(store, graph, cache_dir, store_args):
    base = [sys.executable, "-m", "cli.main"]
    args = ["run", "--graph", "small", "--select", "edges:0_1", "--method", "ga", "--epochs", "3", "--lr", "1e-3",
            "--device", "cpu", "--equivalence", "none", "--cache-dir", str(cache_dir), *store_args]
    # stderr is a pipe, as in CI or a cluster job; a line every 0 s shows the lines within a phase
    env = {**os.environ, "PYTHONPATH": str(REPO), "AUDIT_PROGRESS_INTERVAL": "0"}
    done = subprocess.run(base + args + ["--run-id", "logged"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert any(line.startswith("starting run logged: ga on 1 forget edge(s)") for line in lines)
    within = [line for line in lines if line.startswith("unlearn (ga): ") and "/3 epochs" in line]
    assert within and all("loss " in line and "epochs/s" in line for line in within), lines
    assert any("ETA " in line for line in within)
    assert any(line.startswith("unlearn (ga): done, 3 epochs in ") for line in lines)
    assert any(line.startswith("measure after: generate: done, 100 QA pairs") for line in lines)
    assert "run logged: done" in done.stdout and "forgot " in done.stdout

    quiet = subprocess.run(base + ["--quiet"] + args + ["--run-id", "logged-quietly"], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=300)
    assert quiet.returncode == 0, quiet.stderr[-2000:]
    assert quiet.stderr == "" and "run logged-quietly: done" in quiet.stdout


def test_run_summary_as_json(store, graph, cache_dir, store_args):
    result = CliRunner().invoke(cli, ["--quiet", "run", "--graph", "small", "--select", "edges:0_1", "--method", "ga",
                                      "--epochs", "1", "--lr", "1e-3", "--device", "cpu", "--equivalence", "none",
                                      "--cache-dir", str(cache_dir), *store_args, "--run-id", "as-json",
                                      "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["run"] == "as-json" and out["status"] == "done" and out["reading"][0].startswith("forgot ")
    measures = {m["measure"].split(" (")[0]: m for m in out["measures"]}
    forget = measures["forget ROUGE-1"]
    assert forget["better"] == "lower" and measures["retained ROUGE-1"]["better"] == "higher"
    assert forget["after"] == pytest.approx(qa_mean(store, "as-json", "forget", "after"))
    assert forget["change"] == pytest.approx(forget["after"] - forget["before"])
    assert len([m for m in out["measures"] if m["measure"].startswith("deviation score")]) == 1


def test_a_killed_injection_leaves_no_staging_folder_behind(tmp_path):
    folder = tmp_path / "injected"
    dead, alive = folder / ".abc.999999999.tmp", folder / ".abc.1.tmp"     # pid 1 is always running
    for path in (dead, alive):
        (path / "model").mkdir(parents=True)
    assert remove_stale_staging(folder) == [dead]
    assert not dead.exists() and alive.exists()
