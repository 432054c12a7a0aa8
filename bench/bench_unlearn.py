"""Unlearning speed of every method, side by side, on one scratch model and one forget set.

For each method (ga, gd, kl, dpo, npo, simnpo) a fresh copy of the same model is loaded from
disk (``Unlearner`` wraps the model it is given with LoRA adapters, in place) and unlearned
with ``audit.run.unlearning.Unlearner(...).run(forget, retain, refusals)``, same settings, same
forget set. Prints one table: steps, tokens, seconds, tokens/s as ``UnlearnStats`` reports it,
and the ratio to GA.

``UnlearnStats.tokens`` counts every token the step feeds the model: the forget batch, and
the retain batch (gd, kl) or the refusal batch (dpo) paired with it. So the table also gives
forget items/s (`forget/s`: QA pairs, or text chunks with `--texts`), the same work for every method, and the forward passes each step makes,
counted with a hook on the model (with gradient / without: the reference model of kl, dpo and
npo is the same weights with the adapters switched off, run without gradient).

    .venv/bin/python bench/bench_unlearn.py                    # tiny model, 40 forget pairs, 20 epochs
    .venv/bin/python bench/bench_unlearn.py --size small --epochs 5
    .venv/bin/python bench/bench_unlearn.py --texts tests/extract/text/data/news/*.jsonl --size base --epochs 2

``--texts FILE.jsonl ...`` trains on texts instead of QA pairs, as ``audit run --train-on
passages`` does (``TextExample``, loss on every token, cut into chunks of ``--chunk-tokens``):
the first ``--forget-texts`` documents are the forget set, the rest the retain set. On a GPU
``select_hardware`` takes CUDA (bfloat16), the path a 7B model takes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import torch
# The script's own folder is on sys.path when it is run as a script: the same dataset and
# the same brief training as the evaluation benchmark.
from bench_eval import OtherLoad, pistol_examples, train

from audit.config import UnlearnConfig
from audit.models.encoding import QAEncoder
from audit.run.methods import METHODS, method_class
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.run.qa import load_refusals
from audit.run.training_data import TextExample, chunked
from audit.models.scratch import build_scratch
from audit.run.unlearning import Unlearner
from graphstore.errors import ConfigError

ORDER = ("ga", "gd", "kl", "dpo", "npo", "simnpo")


class ForwardCounter:
    """Counts forward passes of the transformer body, split by whether autograd records them."""

    def __init__(self, module: torch.nn.Module):
        self.with_grad = self.without_grad = 0
        module.register_forward_hook(self._count)

    def _count(self, module, inputs, output) -> None:
        if torch.is_grad_enabled():
            self.with_grad += 1
        else:
            self.without_grad += 1


def unlearn_once(folder: str, hardware, encoder: QAEncoder, name: str, config: UnlearnConfig,
                 forget, retain, refusals):
    model = load_model(folder, hardware)
    counter = ForwardCounter(model.model)
    unlearner = Unlearner(model, encoder, method_class(name)(), config, hardware.device)
    stats = unlearner.run(forget, retain, refusals, progress=f"unlearn ({name})")
    return stats, counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="tiny", choices=["tiny", "small", "base"], help="scratch model size (audit/models/scratch.py)")
    parser.add_argument("--texts", type=Path, nargs="+", help="train on these JSONL texts ({\"text\": ...}) instead of PISTOL QA pairs")
    parser.add_argument("--forget-texts", type=int, default=20, help="with --texts: documents unlearned; the others are retained")
    parser.add_argument("--chunk-tokens", type=int, default=256, help="with --texts: longest chunk trained on")
    parser.add_argument("--edges", type=int, default=10, help="PISTOL edges (20 QA pairs each)")
    parser.add_argument("--forget-edges", type=int, default=2, help="edges unlearned; the others are the retain set")
    parser.add_argument("--epochs", type=int, default=UnlearnConfig.epochs, help="unlearning epochs (default: the papers' 20)")
    parser.add_argument("--batch-size", type=int, default=UnlearnConfig.batch_size, help="forget items (QA pairs or text chunks) per step")
    parser.add_argument("--inject-epochs", type=int, default=0,
                        help="train the model on every pair first, as injection does (0: random weights; speed is the same)")
    parser.add_argument("--methods", default=",".join(ORDER), help=f"comma-separated, of: {', '.join(sorted(METHODS))}")
    parser.add_argument("--repeats", type=int, default=3, help="rounds over the methods; each method's fastest run counts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: torch's default, one per core); 1 is faster on a busy machine")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    names = [n.strip() for n in args.methods.split(",") if n.strip()]
    if args.inject_epochs and args.texts:
        parser.error("--inject-epochs trains on QA pairs; with --texts the model keeps random weights")
    if args.texts:  # as audit run refuses it: dpo pairs a refusal with a question, and texts have none
        if "dpo" in names and args.methods != parser.get_default("methods"):
            parser.error("--texts: dpo pairs a refusal with a question, and texts have none")
        names = [n for n in names if n != "dpo"]
    for name in names:
        try:
            method_class(name)
        except ConfigError as e:
            parser.error(str(e))

    hardware = select_hardware("auto")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {hardware.label}, torch {torch.__version__} "
          f"({torch.get_num_threads()} threads), Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    _, refusals = load_refusals()
    work = Path(tempfile.mkdtemp(prefix="audit-bench-unlearn-"))
    if args.texts:
        documents = [json.loads(line)["text"] for path in args.texts for line in path.read_text("utf-8").splitlines()
                     if line.strip()]
        if not 0 < args.forget_texts < len(documents):
            parser.error(f"--forget-texts must leave documents to retain: {len(documents)} documents read")
        folder = build_scratch(args.size, documents, work / "model", args.seed)
        encoder = QAEncoder(load_tokenizer(str(folder)))
        texts = chunked([TextExample(f"doc{i}", 0, t) for i, t in enumerate(documents)], encoder, args.chunk_tokens)
        forget = [t for t in texts if int(t.edge[3:]) < args.forget_texts]
        retain = [t for t in texts if int(t.edge[3:]) >= args.forget_texts]
        examples, what = texts, f"{args.forget_texts} documents ({len(forget)} chunks of at most {args.chunk_tokens} tokens)"
    else:
        examples = pistol_examples(args.edges, args.seed)
        edge_keys = sorted({e.edge for e in examples})
        forget_keys = set(edge_keys[:args.forget_edges])
        forget = [e for e in examples if e.edge in forget_keys]
        retain = [e for e in examples if e.edge not in forget_keys]
        folder = build_scratch(args.size, [f"{e.question} {e.answer}" for e in examples], work / "model", args.seed)
        encoder = QAEncoder(load_tokenizer(str(folder)))
        what = f"{len(forget)} QA pairs ({args.forget_edges} edges)"
    if args.inject_epochs:
        model = load_model(str(folder), hardware)
        start = time.perf_counter()
        loss = train(model, encoder, examples, args.inject_epochs, 3e-3, args.seed, hardware.device)
        model.save_pretrained(folder)
        print(f"injected: {args.inject_epochs} epochs of full training in {time.perf_counter() - start:.1f} s, "
              f"last loss {loss:.3f}")
        del model
    else:
        print("model: random weights (no injection); the work per step does not depend on the weights")
    config = UnlearnConfig(epochs=args.epochs, lr=1e-4, batch_size=args.batch_size, seed=args.seed)
    print(f"scratch:{args.size}; forget {what}, retain {len(retain)}; "
          f"{args.epochs} epochs, batch {config.batch_size}, LoRA r={config.lora_r} on {config.lora_targets}")

    # Warm-up, untimed: the first run pays for imports and lazy set-up inside peft and torch.
    unlearn_once(str(folder), hardware, encoder, "ga", UnlearnConfig(epochs=1, lr=1e-4, batch_size=args.batch_size),
                 forget, retain, refusals)

    # Methods take turns, ``--repeats`` rounds, so a busy spell of the machine hits all of them;
    # each method's fastest run counts.
    runs: dict[str, list] = {name: [] for name in names}
    others = OtherLoad()
    for _ in range(args.repeats):
        for name in names:
            stats, counter = unlearn_once(str(folder), hardware, encoder, name, config, forget, retain, refusals)
            runs[name].append((stats, counter))
            print(f"  {name}: {stats.seconds:.2f} s", flush=True)
    others_share = others.share()
    rows = [(name, *min(runs[name], key=lambda run: run[0].seconds)) for name in names]

    base = next((s for n, s, _ in rows if n == "ga"), rows[0][1])
    base_name = "ga" if any(n == "ga" for n, _, _ in rows) else rows[0][0]
    print()
    print(f"{'method':<7} {'fwd/step':>9} {'steps':>6} {'tokens':>8} {'seconds':>8} {'tokens/s':>9} "
          f"{'vs ' + base_name:>7} {'forget/s':>12} {'vs ' + base_name:>7}")
    base_qa_rate = len(forget) * base.epochs / base.seconds
    for name, stats, counter in rows:
        qa_rate = len(forget) * stats.epochs / stats.seconds
        passes = f"{counter.with_grad / stats.steps:g}+{counter.without_grad / stats.steps:g}"
        print(f"{name:<7} {passes:>9} {stats.steps:>6} {stats.tokens:>8} {stats.seconds:>8.2f} "
              f"{stats.tokens_per_second:>9.0f} {stats.tokens_per_second / base.tokens_per_second:>6.2f}x "
              f"{qa_rate:>12.1f} {qa_rate / base_qa_rate:>6.2f}x")
    print("fwd/step: forward passes per step with gradient + without (reference model, adapters off); "
          f"fastest of {args.repeats} runs per method")
    print(f"other processes took {'n/a' if others_share is None else f'{others_share:.0%}'} of the machine's CPU "
          "during the timed runs")
    print()
    print("SUMMARY " + " ".join(f"{n}_tokens_per_s={s.tokens_per_second:.0f}" for n, s, _ in rows)
          + f" others_cpu={others_share if others_share is not None else float('nan'):.2f}")


if __name__ == "__main__":
    main()
