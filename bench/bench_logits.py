"""Logits where needed: the output layer on every position vs on the labelled tail only.

On a model, one LoRA training step (r 8, all linear layers) on 16 PISTOL QA pairs and one
evaluation forward pass over 32, each computed two ways in the same process, alternating:
``model(**batch).loss`` / ``.logits`` over the whole sequence (transformers' default) and
``audit.models.logits`` (``logits_to_keep``: the positions that predict answer tokens). Prints
seconds per step, the ratio, and the largest difference between the two losses.

    .venv/bin/python bench/bench_logits.py --model gemma3-270m --repeats 3
    .venv/bin/python bench/bench_logits.py --model scratch-folder/ --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import time
from pathlib import Path

import torch

from audit.models.encoding import QAEncoder, collate_train
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.models.logits import label_logits, mean_nll

REPO = Path(__file__).resolve().parent.parent
PISTOL = REPO.parent / "shared" / "data" / "pistol" / "sample_data_1.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="gemma3-270m")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", type=Path, default=PISTOL)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    records = json.loads(args.data.read_text(encoding="utf-8"))
    tokenizer = load_tokenizer(args.model)
    model = load_model(args.model, select_hardware("cpu"))
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", task_type="CAUSAL_LM"))
    encoder = QAEncoder(tokenizer)
    encoded = [encoder.encode(r["question"], r["answer"]) for r in records]
    train = collate_train(encoded[:16], encoder.pad_id)
    evaluate = collate_train(encoded[16:48], encoder.pad_id)
    tokens = int(train["attention_mask"].sum())

    def full_step():
        loss = model(**train).loss
        loss.backward()
        model.zero_grad()
        return loss.item()

    def kept_step():
        loss = mean_nll(model, train)
        loss.backward()
        model.zero_grad()
        return loss.item()

    def full_eval():
        with torch.no_grad():
            return model(input_ids=evaluate["input_ids"], attention_mask=evaluate["attention_mask"]).logits.shape

    def kept_eval():
        with torch.no_grad():
            return label_logits(model, evaluate["input_ids"], evaluate["attention_mask"], evaluate["labels"])[0].shape

    times = {name: [] for name in ("full_step", "kept_step", "full_eval", "kept_eval")}
    losses = {"full_step": [], "kept_step": []}
    for _ in range(args.repeats):
        for name, fn in (("full_step", full_step), ("kept_step", kept_step), ("full_eval", full_eval),
                         ("kept_eval", kept_eval)):
            start = time.perf_counter()
            value = fn()
            times[name].append(time.perf_counter() - start)
            if name in losses:
                losses[name].append(value)
    print(f"model {args.model}; {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{args.threads} torch threads, load {os.getloadavg()[0]:.1f}; train batch 16 QA pairs ({tokens} tokens), "
          f"eval batch 32; median of {args.repeats}")
    for what in ("step", "eval"):
        full, kept = statistics.median(times[f"full_{what}"]), statistics.median(times[f"kept_{what}"])
        print(f"  {what:5s} full logits {full:7.2f} s   labelled tail {kept:7.2f} s   ratio {full / kept:5.2f}x")
    tail_step, tail_eval = statistics.median(times["kept_step"]), statistics.median(times["kept_eval"])
    print(f"  with the tail: {tokens / tail_step:.0f} training tokens/s (LoRA step), {32 / tail_eval:.1f} QA pairs/s "
          f"teacher-forced; peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GB")
    print(f"  loss full {losses['full_step'][0]:.6f} vs tail {losses['kept_step'][0]:.6f} "
          f"(max |diff| {max(abs(a - b) for a, b in zip(losses['full_step'], losses['kept_step'])):.2e})")


if __name__ == "__main__":
    main()
