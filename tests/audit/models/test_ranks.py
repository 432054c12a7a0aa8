"""One run over several processes (``audit.models.ranks``): each rank's rows of a batch, losses
against the whole batch's denominators, gradients summed over the ranks.

- In this process: the rows split every batch; a rank's share carries the whole batch's
  denominators; every method's loss and gradient over the shares add up to the whole batch's
  (counted independently: answer tokens in a loop over the labels).
- Under ``torchrun`` with 2 processes (gloo): the gradients summed by the all-reduce, or by a
  sharded copy's reduce-scatter (FSDP, ``audit.models.sharded``), equal the one-process gradient
  for every method, LoRA and full weights (tests/audit/models/rank_gradients.py).
- End to end, data parallel and sharded: ``audit run --per-edge`` under torchrun and under
  ``accelerate launch`` against the same runs in one process: a masked injection's losses epoch
  by epoch, and per-edge results of OracleGrad on the full weights and of NPO on LoRA from the
  same injected model, the NPO run killed at its first checkpoint and launched again.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from audit.models.encoding import IGNORE, QAEncoder, collate_train
from audit.models.load import load_tokenizer, select_hardware
from audit.models.logits import mean_nll
from audit.models.ranks import BATCH_ROWS, BATCH_TOKENS, GHOST, SINGLE, Ranks
from audit.models.scratch import build_scratch
from audit.run.methods import METHODS, UnlearnBatch, method_class

ROOT = Path(__file__).resolve().parents[3]
GRADIENTS_SCRIPT = Path(__file__).with_name("rank_gradients.py")
sys.path.insert(0, str(GRADIENTS_SCRIPT.parent))
from rank_gradients import PAIRS, batch_of, model_for  # noqa: E402  (the script's batches, so both tests see the same)

# float32 sums in another order: the gradient's largest entry sets the scale
GRADIENT_TOLERANCE = 1e-5
# per-edge ROUGE-1 of the same injected model unlearned in 1 and in 2 processes
ROUGE_TOLERANCE = 0.05


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return build_scratch("tiny", [f"{q} {a}" for q, a in PAIRS] * 10, tmp_path_factory.mktemp("ranks") / "model", 0)


def launcher_command(command: list[str], launcher: str = "torchrun", sharded: bool = False) -> list[str]:
    """``command`` (a script, or ``-m module ...``) started in 2 processes by ``launcher``;
    ``sharded``: accelerate's FSDP (torchrun's is ``AUDIT_FSDP=1`` in the environment). On a
    free port: the launchers' default (29500) is every job's on a shared machine, and two runs
    of this file at once would join each other's processes."""
    port = free_port()
    start = ([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(port)]
             if launcher == "torchrun" else
             [sys.executable, "-m", "accelerate.commands.launch", "--use_fsdp" if sharded else "--multi_gpu",
              "--num_processes", "2", "--num_machines", "1", "--main_process_port", str(port),
              "--mixed_precision", "no", "--dynamo_backend", "no"])
    return [*start, *command]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch_env(**env) -> dict[str, str]:
    """One torch thread a process, no progress lines; a process that crashes says where
    (Python's fault handler)."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "AUDIT_THREADS": "1", "OMP_NUM_THREADS": "1", "AUDIT_QUIET": "1",
            "PYTHONFAULTHANDLER": "1", **env}


def launch(command: list[str], cwd: Path, launcher: str = "torchrun", sharded: bool = False,
           **env) -> subprocess.CompletedProcess:
    """``command`` in 2 processes, one torch thread each, to its end; ``sharded``: FSDP."""
    if sharded and launcher == "torchrun":
        env["AUDIT_FSDP"] = "1"
    return subprocess.run(launcher_command(command, launcher, sharded), cwd=cwd, env=launch_env(**env),
                          capture_output=True, text=True, timeout=600)


def told(done: subprocess.CompletedProcess) -> str:
    """What a failed launch said: the start of its errors (a crashed process's stacks) and the end."""
    errors = done.stderr
    return errors if len(errors) <= 8000 else f"{errors[:5000]}\n[...]\n{errors[-3000:]}"


# -- the arithmetic, in this process -------------------------------------------------------------

@pytest.mark.parametrize("world", [1, 2, 3, 4])
def test_the_ranks_rows_cover_every_batch_once_in_near_equal_shares(world):
    for n in range(10):
        shares = [Ranks(rank, world).rows(n) for rank in range(world)]
        assert [i for share in shares for i in share] == list(range(n))
        assert max(map(len, shares)) - min(map(len, shares)) <= 1


def test_a_share_carries_the_whole_batch_denominators(folder):
    encoder = QAEncoder(load_tokenizer(str(folder)))
    part = collate_train([encoder.encode(q, a) for q, a in PAIRS[:3]], encoder.pad_id)
    labels = part["labels"].tolist()
    answer_tokens = sum(1 for row in labels for label in row[1:] if label != IGNORE)
    first, second = Ranks(0, 2).take(part), Ranks(1, 2).take(part)
    assert first is not None and second is not None
    assert first["input_ids"].shape[0] == 1 and second["input_ids"].shape[0] == 2
    assert torch.equal(torch.cat([first["labels"], second["labels"]]), part["labels"])
    for share in (first, second):
        assert share[BATCH_TOKENS] == answer_tokens and share[BATCH_ROWS] == 3
    one_row = collate_train([encoder.encode(*PAIRS[0])], encoder.pad_id)
    assert Ranks(0, 4).take(one_row) is None   # no row of it
    assert SINGLE.take(part) is part   # one process: the batch itself, no denominators
    assert Ranks(0, 2).weight(first) == 1.0 and GHOST not in first


def test_a_sharded_rank_without_a_row_computes_row_0_with_weight_zero(folder):
    """Every rank of a sharded run runs every forward and backward (they gather the weights as
    they go): the rank a batch has no row for computes its row 0, which counts for nothing."""
    encoder = QAEncoder(load_tokenizer(str(folder)))
    part = collate_train([encoder.encode(*PAIRS[0])], encoder.pad_id)
    owner, ghost = Ranks(1, 2, sharded=True).take(part), Ranks(0, 2, sharded=True).take(part)
    assert owner is not None and ghost is not None
    assert torch.equal(ghost["input_ids"], part["input_ids"]) and ghost[GHOST] is True
    assert Ranks.weight(ghost) == 0.0 and Ranks.weight(owner) == 1.0
    assert Ranks(0, 2, sharded=True).gradient_scale == 2.0 and Ranks(0, 2).gradient_scale == 1.0


@pytest.mark.parametrize("path", ["lora", "full"])
def test_every_method_loss_and_gradient_over_the_shares_add_up_to_the_whole_batch(folder, path):
    tokenizer = load_tokenizer(str(folder))
    encoder = QAEncoder(tokenizer)
    model = model_for(path, str(folder))   # off the reference: NPO's ratios, DPO's margins and KL away from 0
    trained = [p for p in model.parameters() if p.requires_grad]
    batch = batch_of(encoder, tokenizer.pad_token_id, 5)
    with torch.no_grad():
        assert abs(float(mean_nll(model, batch.forget)) - sum(
            float(mean_nll(model, Ranks(r, 3).take(batch.forget))) for r in range(3))) < 1e-5
    for name in METHODS.names():
        cls = method_class(name)
        method = cls(cls.config_class(**({"retain_weight": 0.5} if name in ("npo", "dpo", "simnpo") else {})))
        model.zero_grad(set_to_none=True)
        whole = method.loss(model, batch)
        whole.backward()
        expected = [p.grad.clone() for p in trained]
        model.zero_grad(set_to_none=True)
        summed = 0.0
        for rank in range(3):   # three ranks' shares in turn: their gradients accumulate, as the all-reduce sums them
            here = Ranks(rank, 3)
            share = UnlearnBatch(here.take(batch.forget), here.take(batch.retain), here.take(batch.refusal))
            loss = method.loss(model, share)
            loss.backward()
            summed += loss.item()
        scale = max(float(g.abs().max()) for g in expected)
        assert scale > 1e-3, f"{name}: no gradient to compare"
        assert abs(summed - whole.item()) <= 1e-5 * max(1.0, abs(whole.item())), name
        worst = max(float((p.grad - g).abs().max()) for p, g in zip(trained, expected))
        assert worst <= GRADIENT_TOLERANCE * scale, f"{name} ({path}): {worst / scale:.2e} of the gradient"


# -- two processes ------------------------------------------------------------------------------

@pytest.mark.parametrize("sharded", [False, True], ids=["data-parallel", "sharded"])
def test_two_processes_sum_to_the_one_process_gradient_of_every_method(folder, tmp_path, sharded):
    done = launch([str(GRADIENTS_SCRIPT), str(folder)], tmp_path, sharded=sharded)
    assert done.returncode == 0, told(done)
    cases = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    missing = [case for case in cases if case.get("check") == "missing"]
    assert missing == ([] if sharded else [{"check": "missing", "unused": True, "one_sided": [2.0, 3.0]}])
    cases = [case for case in cases if "check" not in case]
    assert len(cases) == len(METHODS.names()) * 2 * 3   # methods x (lora, full) x (1, 3, 5 rows)
    for case in cases:
        assert case["sharded"] is sharded, case
        assert case["scale"] > 1e-3, case
        assert case["relative"] <= GRADIENT_TOLERANCE, case
        assert abs(case["loss"] - case["summed_loss"]) <= 1e-5 * max(1.0, abs(case["loss"])), case


class Sweeps:
    """The per-edge sweeps the launched runs are compared with, run once in one process from one
    injected model: OracleGrad on the full weights and NPO on LoRA adapters, after a masked
    injection (LACUNA's, one group per edge)."""

    def __init__(self, store: Path, folder: Path):
        self.store, self.one = store, folder / "one"
        env = launch_env()
        for step in (["generate", "pistol", "--topology", "barabasi_albert", "--nodes", "4", "--m", "1",
                      "--employment-fraction", "0.3", "--seed", "1", "--output", str(folder / "g.json")],
                     ["build", "--store", str(store), "--pistol", str(folder / "g.json"), "--graph", "ranks",
                      "--replace"]):
            subprocess.run([sys.executable, "-m", "cli.main", *step], cwd=ROOT, env=env, check=True, capture_output=True)
        for run_id, method in (("ranks-full", "oraclegrad"), ("ranks-lora", "npo")):
            done = subprocess.run([sys.executable, *self.run(run_id, self.one, method)], cwd=ROOT, env=env,
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr[-3000:]

    def run(self, run_id: str, cache: Path, method: str, epochs: int = 8, inject_epochs: int = 20,
            extra: tuple[str, ...] = ()) -> list[str]:
        full = ["--adapter", "full", *extra] if method == "oraclegrad" else list(extra)
        return ["-m", "cli.main", "run", "--store", str(self.store), "--graph", "ranks", "--select", "top-degree:2",
                "--per-edge", "--mask-groups", "edge", "--method", method, *full, "--epochs", str(epochs),
                "--inject-max-epochs", str(inject_epochs), "--run-id", run_id, "--cache-dir", str(cache)]

    @staticmethod
    def injection(cache: Path) -> dict:
        """The masked injection in ``cache`` (a localization's control injection is unmasked)."""
        return next(info for path in (cache / "injected").glob("*/injection.json")
                    if (info := json.loads(path.read_text()))["kind"] == "masked")

    @staticmethod
    def record(cache: Path, run_id: str, name: str) -> dict:
        return json.loads((cache / "runs" / run_id / name).read_text())

    def swept(self, cache: Path, run_id: str) -> dict:
        return {row["edge"]: row for row in self.record(cache, run_id, "results.json")["edges"] if row["role"] == "forget"}


@pytest.fixture(scope="module")
def sweeps(store_dir, tmp_path_factory) -> Sweeps:
    return Sweeps(store_dir, tmp_path_factory.mktemp("sweeps"))


@pytest.mark.parametrize("sharded", [False, True], ids=["data-parallel", "sharded"])
def test_a_launched_run_gives_the_one_process_results(sweeps, tmp_path, sharded):
    """The one-process sweeps (``Sweeps``) launched in 2 processes, data parallel or sharded
    (FSDP): the masked injection under torchrun, compared epoch by epoch; then, from the
    one-process injected model, OracleGrad on the full weights (its mask filter on every rank)
    under torchrun and NPO on LoRA under accelerate launch, compared edge by edge; the NPO run
    killed (every process) at its first checkpoint and launched again, resuming."""
    one, same = sweeps.one, tmp_path / "same"
    how = "sharded" if sharded else "parallel"   # run ids of their own: the graph is the session's

    def launched(run_id: str, cache: Path, method: str, launcher: str, **lengths) -> None:
        done = launch(sweeps.run(run_id, cache, method, **lengths), ROOT, launcher=launcher, sharded=sharded)
        assert done.returncode == 0, told(done)

    # its injection's first 5 epochs are compared (a constant rate after the warm-up: the same 5 epochs as in 20);
    # with the localization's unmasked control, whose injection the followers are led into between two edges
    launched(f"ranks-two-{how}", tmp_path / "two", "npo", "torchrun", epochs=1, inject_epochs=5,
             extra=("--localization",))
    shutil.copytree(one / "injected", same / "injected")
    launched(f"ranks-full-{how}", same, "oraclegrad", "torchrun")
    # killed (every process) at its first checkpoint, then launched again: it resumes
    folder = same / "runs" / f"ranks-lora-{how}"
    output = tmp_path / "killed.log"
    with output.open("w") as sink:
        killed = subprocess.Popen(launcher_command(sweeps.run(f"ranks-lora-{how}", same, "npo"), "accelerate", sharded),
                                  cwd=ROOT, env=launch_env(), stdout=sink, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    deadline = time.monotonic() + 300
    while not any(folder.glob("checkpoint-*.pt")):
        assert killed.poll() is None, f"the launched run ended before its first checkpoint: {output.read_text()[-3000:]}"
        assert time.monotonic() < deadline, "no checkpoint within 300 s"
        time.sleep(0.02)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait()
    launched(f"ranks-lora-{how}", same, "npo", "accelerate")
    epochs = [json.loads(line) for line in (folder / "loss.jsonl").read_text().splitlines()]
    for edge in sweeps.swept(one, "ranks-lora"):   # every epoch of every edge once, though the kill came anywhere
        assert [e["epoch"] for e in epochs if e["phase"] == f"unlearn {edge}"] == list(range(1, 9))

    # a masked injection in 2 processes: the one-process losses, epoch by epoch, until rounding compounds
    for a, b in zip(sweeps.injection(one)["loss_log"][:5], sweeps.injection(tmp_path / "two")["loss_log"][:5]):
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-4), (a, b)
    assert sweeps.injection(tmp_path / "two")["kind"] == "masked"
    assert len(sweeps.injection(tmp_path / "two")["loss_log"]) == 5
    assert len(list((tmp_path / "two" / "injected").glob("*/injection.json"))) == 2   # and the control's
    # unlearning in 2 processes from the same injected model: the same per-edge results
    for run_id in ("ranks-full", "ranks-lora"):
        expected, got = sweeps.swept(one, run_id), sweeps.swept(same, f"{run_id}-{how}")
        assert got.keys() == expected.keys() and len(expected) == 2
        assert any(row["rouge1_after"] < row["rouge1_before"] for row in expected.values()), "nothing unlearned"
        for edge, row in expected.items():
            for measure in ("rouge1_after", "retained_rouge1_after"):
                assert abs(got[edge][measure] - row[measure]) <= ROUGE_TOLERANCE, (run_id, edge, measure)
    # and the record says how each ran
    assert sweeps.record(one, "ranks-full", "environment.json")["processes"] == 1
    for cache, run_id in ((tmp_path / "two", f"ranks-two-{how}"), (same, f"ranks-full-{how}"), (same, f"ranks-lora-{how}")):
        environment = sweeps.record(cache, run_id, "environment.json")
        assert (environment["processes"], environment["sharded"]) == (2, sharded), run_id


@pytest.mark.parametrize("variable, value, says", [
    ("ACCELERATE_USE_DEEPSPEED", "true", "ACCELERATE_USE_DEEPSPEED is set: DeepSpeed is not supported; shard with "
     "FSDP instead (accelerate launch --use_fsdp, or AUDIT_FSDP=1 under torchrun; docs/scale.md)"),
    ("FSDP_OFFLOAD_PARAMS", "true", "FSDP_OFFLOAD_PARAMS is set: sharded training here keeps the shards on the "
     "GPU; launch without CPU offload (docs/scale.md)"),
    ("FSDP_SHARDING_STRATEGY", "HYBRID_SHARD", "FSDP_SHARDING_STRATEGY=HYBRID_SHARD: this tool shards with "
     "FULL_SHARD or SHARD_GRAD_OP (docs/scale.md)"),
])
def test_a_launch_this_tool_cannot_honour_is_refused_in_one_line(variable, value, says):
    done = launch(["-m", "cli.main", "status"], ROOT, **{variable: value, "AUDIT_FSDP": "1"})
    assert done.returncode != 0
    assert [line for line in done.stderr.splitlines() if line.startswith("Error:")] == [f"Error: {says}"]


def test_a_follower_without_the_driver_folder_says_the_cache_must_be_shared(tmp_path):
    from audit.models.ranks import shared_folder
    from graphstore.errors import ConfigError

    shared_folder(tmp_path)   # here: nothing to say
    with pytest.raises(ConfigError, match=r"is not on this machine: .*--cache-dir on a file system they all mount"):
        shared_folder(tmp_path / "injected" / "elsewhere")


@pytest.mark.parametrize("value", ["0", "-5", "1h", "1.5"])
def test_a_wait_that_is_not_whole_seconds_is_refused(value, monkeypatch):
    from audit.models.ranks import wait_seconds
    from graphstore.errors import ConfigError

    monkeypatch.setenv("AUDIT_RANKS_TIMEOUT", value)
    with pytest.raises(ConfigError, match="AUDIT_RANKS_TIMEOUT"):
        wait_seconds()


def test_a_launched_process_takes_its_own_gpu_not_one_named(monkeypatch):
    from graphstore.errors import ConfigError

    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "1")
    with pytest.raises(ConfigError, match=r"--device cuda:0: in a launched run each process takes the GPU of its LOCAL_RANK"):
        select_hardware("cuda:0")
    assert select_hardware("cpu").device == torch.device("cpu")


def test_a_world_size_without_a_launcher_is_refused_in_one_line(tmp_path):
    environ = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "MASTER_PORT")}
    done = subprocess.run([sys.executable, "-m", "cli.main", "status"], cwd=ROOT, capture_output=True, text=True,
                          env={**environ, "PYTHONPATH": str(ROOT), "WORLD_SIZE": "2", "RANK": "0"}, timeout=120)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("Error: WORLD_SIZE=2 says this process is one of several, but it cannot join them")
