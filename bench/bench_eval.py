"""Evaluation speed: the batched evaluator against answering one question at a time.

Prints, in one run on one scratch model and one PISTOL-style dataset:
- batched: ``audit.measure.evaluate.evaluate(..., batch_size=N)`` on every QA pair (left-padded greedy
  generation, then right-padded teacher-forced scoring), in QA pairs/s;
- naive: a hand-written loop on a sample of the same pairs, one question at a time, no padding:
  ``model.generate`` on the prompt alone, then one forward pass over prompt + answer for the
  teacher-forced measures; QA pairs/s extrapolated from the sample;
- ``evaluate(..., batch_size=1)`` on the same sample (the evaluator's own one-at-a-time path);
- how many generated answers differ between the batched and the one-at-a-time ways, and the
  largest difference of each teacher-forced measure, so a speed-up is not bought with
  different outputs.

All three use the same model, the same pairs and the same ``max_new_tokens``. The scratch
model is first trained briefly on the pairs (full training, as injection does), so that it
answers and stops instead of rambling to ``max_new_tokens``; ``--train-epochs 0`` measures
the untrained model.

    .venv/bin/python bench/bench_eval.py                       # tiny model, 800 QA pairs
    .venv/bin/python bench/bench_eval.py --size small --edges 20 --naive-sample 100
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import torch

from audit.measure import evaluate as E
from audit.measure import metrics as M
from audit.models.encoding import QAEncoder
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.types import QAExample
from audit.config import SIZES
from audit.models.scratch import build_scratch
from audit.models.training import batches, epoch_order, optimizer_and_schedule, seed_everything
from extract.pistol.generate import generate_pistol
from extract.pistol.topology import build_topology


def pistol_examples(edges: int, seed: int) -> list[QAExample]:
    """QA pairs of a Barabási–Albert graph (m = 1: ``edges + 1`` nodes give ``edges`` edges)."""
    records = generate_pistol(build_topology("barabasi_albert", edges + 1, seed=seed, m=1), seed=seed,
                              employment_fraction=0.3)
    position: dict[str, int] = {}
    out = []
    for r in records:
        index = position.get(r["edge"], 0)
        position[r["edge"]] = index + 1
        out.append(QAExample(r["edge"], index, r["question"], r["answer"]))
    return out


def train(model, encoder: QAEncoder, examples: list[QAExample], epochs: int, lr: float, seed: int, device) -> float:
    """Full training on every pair, as knowledge injection trains a scratch model; last loss."""
    seed_everything(seed)
    encoded = [encoder.encode(e.question, e.answer) for e in examples]
    batch_size = 16
    optimizer, schedule = optimizer_and_schedule(model.parameters(), lr, 0.0,
                                                 warmup_steps=-(-len(encoded) // batch_size), total_steps=None)
    model.train()
    loss = torch.tensor(float("nan"))
    for epoch in range(1, epochs + 1):
        for batch in batches(encoded, epoch_order(len(encoded), seed, epoch), batch_size, encoder.pad_id, device):
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
    model.eval()
    return loss.item()


@torch.no_grad()
def answer_one_at_a_time(model, encoder: QAEncoder, examples: list[QAExample], max_new_tokens: int):
    """The naive way: per QA pair, greedy generation on the unpadded prompt alone, then one
    forward pass over prompt + answer. Returns (answers, measures, new tokens, stopped at EOS)."""
    device = next(model.parameters()).device
    answers, measures, lengths, stopped = [], [], [], 0
    for example in examples:
        encoded = encoder.encode(example.question, example.answer)
        prompt = torch.tensor([encoded.prompt_ids], device=device)
        out = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=max_new_tokens,
                             do_sample=False, pad_token_id=encoder.pad_id, eos_token_id=encoder.eos_id)
        tokens = out[0, prompt.shape[1]:].tolist()
        if encoder.eos_id in tokens:
            tokens = tokens[:tokens.index(encoder.eos_id)]
            stopped += 1
        lengths.append(len(tokens))
        answers.append(encoder.tokenizer.decode(tokens, skip_special_tokens=True).strip())

        ids = encoded.prompt_ids + encoded.answer_ids
        logits = model(input_ids=torch.tensor([ids], device=device)).logits[0].float()
        # Position t predicts token t+1; the answer's tokens without the end-of-sequence token.
        start, end = len(encoded.prompt_ids), len(ids) - 1
        row_logits = logits[start - 1:end - 1]
        targets = torch.tensor(encoded.answer_ids[:-1], device=device)
        ranks = M.token_ranks(row_logits, targets)
        logprobs = torch.log_softmax(row_logits, -1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        measures.append({
            "rouge1": M.rouge1_recall(answers[-1], example.answer),
            "mrr": M.mean_reciprocal_rank(ranks),
            "top100": M.top_k_hit(ranks, M.TOP_K),
            "exact_memorization": M.exact_memorization(ranks),
            "extraction_strength": M.extraction_strength(ranks),
            "answer_probability": M.answer_probability(logprobs),
        })
    return answers, measures, lengths, stopped


class OtherLoad:
    """The share of the machine's CPU time that other processes took while this one was
    measured: on a shared machine a busy spell of someone else's work shows here, not as a
    mysterious slowdown. Linux only (``/proc/stat``); None elsewhere."""

    def __init__(self):
        self.start = self._sample()

    @staticmethod
    def _sample():
        try:
            fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        except OSError:
            return None
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
        busy = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
        return busy, time.process_time(), time.perf_counter()

    def share(self) -> float | None:
        end = self._sample()
        if self.start is None or end is None:
            return None
        busy, own, wall = (b - a for a, b in zip(self.start, end))
        return max(0.0, busy - own) / (wall * (os.cpu_count() or 1))


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def spread_sample(items: list, k: int) -> list:
    """``k`` items spread evenly over the list (every edge's kinds of question, not the first edges only)."""
    if k >= len(items):
        return list(items)
    return [items[i * len(items) // k] for i in range(k)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="tiny", choices=["tiny", "small"], help="scratch model size (audit/models/scratch.py)")
    parser.add_argument("--edges", type=int, default=40, help="PISTOL edges (20 QA pairs each)")
    parser.add_argument("--batch-size", type=int, default=E.DEFAULT_BATCH_SIZE, help="QA pairs per batch of the evaluator")
    parser.add_argument("--naive-sample", type=int, default=200, help="QA pairs answered one at a time (QA/s extrapolated)")
    parser.add_argument("--train-epochs", type=int, default=30, help="brief full training first, so the model answers (0: untrained)")
    parser.add_argument("--lr", type=float, default=3e-3, help="learning rate of that training (injection's scratch default)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each way, taking turns; the fastest counts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: torch's default, one per core); 1 is faster on a busy machine")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    hardware = select_hardware("auto")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {hardware.label}, torch {torch.__version__} "
          f"({torch.get_num_threads()} threads), Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    examples = pistol_examples(args.edges, args.seed)
    work = Path(tempfile.mkdtemp(prefix="audit-bench-eval-"))
    folder = build_scratch(args.size, [f"{e.question} {e.answer}" for e in examples], work / "model", args.seed)
    tokenizer = load_tokenizer(str(folder))
    model = load_model(str(folder), hardware)
    encoder = QAEncoder(tokenizer)
    spec = SIZES[args.size]
    print(f"model: scratch:{args.size} ({sum(p.numel() for p in model.parameters()):,} parameters, "
          f"{spec.layers} layers, hidden {spec.hidden_size}); {len(examples)} QA pairs on {args.edges} edges")

    if args.train_epochs:
        loss, seconds = timed(train, model, encoder, examples, args.train_epochs, args.lr, args.seed, hardware.device)
        print(f"trained {args.train_epochs} epochs at lr {args.lr:g} in {seconds:.1f} s, last loss {loss:.3f}")
    else:
        print("untrained model (random weights): answers run to max_new_tokens")
    model.eval()

    max_new = E.max_new_tokens_for([encoder.encode(e.question, e.answer) for e in examples])
    sample = spread_sample(examples, args.naive_sample)
    # Warm-up, untimed: the first calls pay for allocations and lazy set-up.
    E.evaluate(model, encoder, examples[:args.batch_size], batch_size=args.batch_size, max_new_tokens=max_new)
    answer_one_at_a_time(model, encoder, examples[:4], max_new)

    others = OtherLoad()
    # The three ways take turns, ``--repeats`` times, so a busy spell of the machine hits all
    # of them; each way's fastest time is kept (outputs are the same every time: greedy).
    times: dict[str, list[float]] = {"batched": [], "naive": [], "single": []}
    for _ in range(args.repeats):
        batched, seconds = timed(E.evaluate, model, encoder, examples, batch_size=args.batch_size,
                                 max_new_tokens=max_new)
        times["batched"].append(seconds)
        (naive_answers, naive_measures, lengths, stopped), seconds = timed(answer_one_at_a_time, model, encoder,
                                                                           sample, max_new)
        times["naive"].append(seconds)
        single, seconds = timed(E.evaluate, model, encoder, sample, batch_size=1, max_new_tokens=max_new)
        times["single"].append(seconds)
    batched_s, naive_s, single_s = (min(times[k]) for k in ("batched", "naive", "single"))

    by_key = {(s.edge, s.index): s for s in batched}
    sample_batched = [by_key[(e.edge, e.index)] for e in sample]
    mismatches = sum(a != b.generated for a, b in zip(naive_answers, sample_batched))
    single_mismatches = sum(a.generated != b for a, b in zip(single, naive_answers))
    largest = {name: max(abs(m[name] - b.values[name]) for m, b in zip(naive_measures, sample_batched))
               for name in M.QA_MEASURES}

    batched_rate = len(examples) / batched_s
    naive_rate = len(sample) / naive_s
    single_rate = len(sample) / single_s
    rouge1 = M.mean(s.values["rouge1"] for s in batched)
    print(f"max_new_tokens {max_new}; one-at-a-time answers: mean {sum(lengths) / len(lengths):.1f} new tokens, "
          f"{stopped} of {len(sample)} stopped at end of sequence; mean ROUGE-1 recall (all pairs) {rouge1:.3f}")
    print()
    print(f"{'way':<42} {'QA pairs':>8} {'seconds (all runs)':>22} {'QA/s':>8} {'batched / way':>14}")
    rows = [(f"batched evaluate(batch_size={args.batch_size})", len(examples), "batched", batched_rate),
            ("naive loop: generate + forward per pair", len(sample), "naive", naive_rate),
            ("evaluate(batch_size=1)", len(sample), "single", single_rate)]
    for label, n, key, rate in rows:
        runs = " ".join(f"{t:.2f}" for t in times[key])
        print(f"{label:<42} {n:>8} {runs:>22} {rate:>8.1f} {batched_rate / rate:>13.1f}x")
    others_share = others.share()
    print(f"QA/s from each way's fastest of {args.repeats} runs; other processes took "
          f"{'n/a' if others_share is None else f'{others_share:.0%}'} of the machine's CPU meanwhile")
    print()
    print(f"generated answers, batched vs naive loop: {mismatches} of {len(sample)} differ; "
          f"evaluate(batch_size=1) vs naive loop: {single_mismatches} differ")
    print("largest |batched - naive| per measure: " + ", ".join(f"{k} {v:.2g}" for k, v in largest.items()))
    print()
    print(f"SUMMARY size={args.size} qa={len(examples)} batch_size={args.batch_size} max_new_tokens={max_new} "
          f"trained_epochs={args.train_epochs} batched_qa_per_s={batched_rate:.1f} naive_qa_per_s={naive_rate:.1f} "
          f"ratio={batched_rate / naive_rate:.1f}x single_qa_per_s={single_rate:.1f} "
          f"mismatches={mismatches}/{len(sample)} rouge1={rouge1:.3f} others_cpu={others_share if others_share is not None else float('nan'):.2f}")


if __name__ == "__main__":
    main()
