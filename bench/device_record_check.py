"""Device check of a run's record on a real GPU (issue 32): the environment a run records (hardware
label, CUDA version, GPU names, package versions) and the unlearning loop's per-epoch loss log on
CUDA (select_hardware picks CUDA in bfloat16, the path a 7B model takes). The GPU machine has no
graph engine, so the two fields environment() reads from a store come from a stand-in here; on a
real run they are the engine's. Run with the GPU image's python3 (docs/runs.md, section 8):

    python3 bench/device_record_check.py
"""
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, ".")
sys.path.insert(0, "bench")
from audit.config import UnlearnConfig
from audit.models.encoding import QAEncoder
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.models.scratch import build_scratch
from audit.run.methods import method_class
from audit.run.qa import load_refusals
from audit.run.record import RunRecord, environment
from audit.run.unlearning import Unlearner
from bench_eval import pistol_examples, train


class NoStore:   # no graph engine on this machine: the two fields environment() reads from a store
    engine, server_agent = "none (device check)", None


hardware = select_hardware("auto")
env = environment(NoStore(), hardware)
print(json.dumps({k: env[k] for k in ("hardware", "device", "dtype", "cuda", "gpus", "cpu", "python", "packages")}, indent=1))
work = Path(tempfile.mkdtemp())
examples = pistol_examples(10, 1)
keys = sorted({e.edge for e in examples})
forget = [e for e in examples if e.edge == keys[0]]
retain = [e for e in examples if e.edge != keys[0]]
folder = build_scratch("small", [f"{e.question} {e.answer}" for e in examples], work / "model", 1)
encoder = QAEncoder(load_tokenizer(str(folder)))
model = load_model(str(folder), hardware)
t = time.perf_counter()
print("inject loss", train(model, encoder, examples, 30, 3e-3, 1, hardware.device), round(time.perf_counter() - t, 1), "s")
model.save_pretrained(folder)
(work / "run").mkdir()
record = RunRecord(work / "run")
for name in ("npo", "gd"):
    unlearner = Unlearner(load_model(str(folder), hardware), encoder, method_class(name)(),
                          UnlearnConfig(epochs=5, lr=1e-4), hardware.device)
    stats = unlearner.run(forget, retain, load_refusals()[1], progress=f"unlearn ({name})",
                          loss_log=lambda epoch, loss, seconds, n=name: record.log_loss(f"unlearn {n}", epoch, loss, seconds))
    print(name, "epochs", stats.epochs, "seconds", round(stats.seconds, 2), "final loss", stats.final_loss)
print((work / "run" / "loss.jsonl").read_text())
print("peak GPU memory MiB", round(torch.cuda.max_memory_allocated() / 2**20, 1) if torch.cuda.is_available() else None)
