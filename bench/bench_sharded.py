"""What sharding (FSDP, ``audit.models.sharded``) saves per process, against data parallel.

Full-parameter training with AdamW, as a launched ``audit run --adapter full`` trains: a model of
a chosen size (a Llama of random weights), whole on the driver as the tool keeps it, trained
for some steps over 2 processes (``torchrun``, gloo on CPU) two ways:

- data parallel: every rank holds the whole model, its gradient and AdamW's two moments;
- sharded: every rank holds its half of them; the driver holds its whole model besides (the
  tool's measures run on it), a follower nothing whole.

Each rank prints the training state it holds after the last step (the bytes of its weights,
gradients and AdamW moments: of its shards when sharded; the driver's whole model besides),
its peak resident memory (``ru_maxrss``: the whole process, with the Python and torch
libraries and what the allocator kept of transient buffers) and the mean seconds per step after
the first. The launcher of this script runs each way and prints them side by side.

    PYTHONPATH=. .venv/bin/python bench/bench_sharded.py                     # 2 x 2 runs, ~2 minutes
    PYTHONPATH=. .venv/bin/python bench/bench_sharded.py --hidden 1024 --layers 8 --steps 6
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rank_main(args) -> None:
    """One rank's part: build, train ``args.steps`` steps, print a JSON line."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from audit.models import ranks as R
    from audit.models.sharded import training_copy

    here = R.current()
    config = LlamaConfig(vocab_size=8000, hidden_size=args.hidden, intermediate_size=4 * args.hidden,
                         num_hidden_layers=args.layers, num_attention_heads=args.hidden // 64,
                         num_key_value_heads=args.hidden // 64, max_position_embeddings=256)
    torch.manual_seed(0)
    whole = here.driver or not here.sharded   # a sharded run's follower holds no whole model
    with torch.device("cpu" if whole else "meta"):
        model = LlamaForCausalLM(config)
    sharded = training_copy(here, model, torch.device("cpu"))
    trainee = sharded.module if sharded is not None else model
    if sharded is None:
        here.broadcast(model.parameters())
    params = [p for p in trainee.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-4)
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, config.vocab_size, (args.batch, args.tokens), generator=generator)
    mine = ids[here.rows(args.batch).start:here.rows(args.batch).stop]
    seconds = []
    for _ in range(args.steps):
        started = time.perf_counter()
        loss = trainee(input_ids=mine, labels=mine).loss * len(mine) / args.batch
        (loss * here.gradient_scale).backward()
        here.sum_gradients(params)
        optimizer.step()
        seconds.append(time.perf_counter() - started)
        if len(seconds) < args.steps:
            optimizer.zero_grad(set_to_none=True)
    held = _bytes(trainee.parameters()) + _bytes(p.grad for p in params if p.grad is not None) + _bytes(
        t for state in optimizer.state.values() for t in state.values() if torch.is_tensor(t) and t.dim())
    if sharded is not None and here.driver:
        held += _bytes(model.parameters())   # the driver's whole model, which the measures use
    if sharded is not None:
        sharded.gather_trained(model if here.driver else None)   # what the tool does before it measures
    print(json.dumps({"rank": here.rank, "sharded": here.sharded,
                      "parameters": sum(p.numel() for p in model.parameters()),
                      "state_mb": held / 2**20, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "step_seconds": sum(seconds[1:]) / max(1, len(seconds) - 1)}), flush=True)
    R.close()


def _bytes(tensors) -> int:
    """The bytes ``tensors`` hold here: a DTensor's local shard only."""
    total = 0
    for t in tensors:
        local = t.to_local() if hasattr(t, "to_local") else t
        total += local.numel() * local.element_size()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--rank", action="store_true", help=argparse.SUPPRESS)   # one launched rank
    args = parser.parse_args()
    if args.rank:
        rank_main(args)
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; torchrun --nproc_per_node 2, gloo, one thread a process")
    rows = {}
    for way, sharded in (("data parallel", False), ("sharded (FSDP)", True)):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "AUDIT_THREADS": "1",
               "AUDIT_FSDP": "1" if sharded else "0"}
        done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", __file__,
                               "--rank", *[f"--{k}={v}" for k, v in vars(args).items() if k != "rank"]],
                              env=env, capture_output=True, text=True, timeout=1800)
        if done.returncode:
            sys.exit(f"{way} failed:\n{done.stderr[-3000:]}")
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        rows[way] = {line["rank"]: line for line in lines}
    parameters = next(iter(rows.values()))[0]["parameters"]
    print(f"model: {parameters / 1e6:.0f} M parameters, full-parameter AdamW in float32 "
          f"({parameters * 16 / 2**20:.0f} MB of weights, gradients and moments when whole)")
    print(f"{'way':<16} {'state MB r0':>12} {'state MB r1':>12} {'peak RSS MB r0':>15} {'peak RSS MB r1':>15} "
          f"{'s/step':>8}")
    for way, by_rank in rows.items():
        print(f"{way:<16} {by_rank[0]['state_mb']:>12.0f} {by_rank[1]['state_mb']:>12.0f} "
              f"{by_rank[0]['peak_rss_mb']:>15.0f} {by_rank[1]['peak_rss_mb']:>15.0f} {by_rank[0]['step_seconds']:>8.2f}")
    dp, fsdp = rows["data parallel"], rows["sharded (FSDP)"]
    print("sharded / data parallel: " + ", ".join(
        f"rank {r} state {fsdp[r]['state_mb'] / dp[r]['state_mb']:.2f}x, peak RSS "
        f"{fsdp[r]['peak_rss_mb'] / dp[r]['peak_rss_mb']:.2f}x" for r in (0, 1))
        + f"; step time {fsdp[0]['step_seconds'] / dp[0]['step_seconds']:.2f}x")


if __name__ == "__main__":
    main()
