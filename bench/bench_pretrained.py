"""A pretrained model package: the first use (assemble + dequantize + write the cached folder)
against a later load of the cached folder, and against loading the GGUF file directly each time
(what transformers does without the cache), in one process, in a fresh temporary cache.

    .venv/bin/python bench/bench_pretrained.py                    # gemma3-270m
    .venv/bin/python bench/bench_pretrained.py --threads 1
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import tempfile
import time
from pathlib import Path

import torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="gemma3-270m")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AUDIT_MODEL_CACHE"] = tmp
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from audit.models import pretrained
        from audit.models.load import load_model, load_tokenizer, quiet_transformers, select_hardware

        quiet_transformers()
        package = pretrained.PACKAGES[args.model]
        start = time.perf_counter()
        folder = Path(pretrained.resolve(args.model, report=None))
        first = time.perf_counter() - start
        size_mb = sum(f.stat().st_size for f in folder.iterdir()) / 2**20

        start = time.perf_counter()
        load_tokenizer(args.model)
        load_model(args.model, select_hardware("cpu"))
        cached = time.perf_counter() - start

        gguf = Path(tmp) / "direct.gguf"
        importlib.import_module(package.module).assemble(gguf)
        start = time.perf_counter()
        AutoTokenizer.from_pretrained(tmp, gguf_file=gguf.name)
        AutoModelForCausalLM.from_pretrained(tmp, gguf_file=gguf.name, dtype=torch.float32)
        direct = time.perf_counter() - start
    print(f"{args.model}; {platform.machine()}, {os.cpu_count()} cores, {args.threads} torch threads, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"  first use (assemble, dequantize, write {size_mb:,.0f} MB): {first:6.1f} s")
    print(f"  GGUF loaded directly (tokenizer + model), each time:  {direct:6.1f} s")
    print(f"  cached folder loaded (tokenizer + model):             {cached:6.1f} s   "
          f"({direct / cached:.0f}x faster than the GGUF)")


if __name__ == "__main__":
    main()
