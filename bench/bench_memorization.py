"""Does the memorization measure tell known facts from unknown ones, and how fast does it score?

1. Synthetic people (``audit generate wikidata``) -> a Wikidata graph record; a scratch model
   is trained on sentences about half of them (base sentence + 2 paraphrases per fact).
2. Every fact of every person is measured (WikiMem calibrated ranking); reported: AUROC of the
   strength z* (injected facts positive) and the rank-1 / strict / lenient rates of both groups
   (the strict rate counts every template: the 2 paraphrases trained on and the others held out).
3. Scoring throughput, side by side on the same canaries: ours (length-sorted batches, one
   forward pass each, every distinct sentence once) vs the naive way (one sentence per forward
   pass, repeats scored again).

    python bench/bench_memorization.py                       # CPU: 60 people, tiny model
    python bench/bench_memorization.py --people 400 --size small --epochs 30 --counterfactuals 100
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.measure.memorization.canaries import value_pools  # noqa: E402
from audit.measure.likelihood import SentenceScorer  # noqa: E402
from audit.config import MemorizationConfig  # noqa: E402
from audit.measure.memorization.ranking import measure_facts, plan_fact  # noqa: E402
from audit.measure.memorization.check import (TrainSettings, separation, split_subjects, subjects_from_record,  # noqa: E402
                                      train_sentence_model, training_sentences)
from audit.models.load import load_model, load_tokenizer, select_hardware  # noqa: E402
from audit.questions.properties import load_registry  # noqa: E402
from extract.wikidata.read import read_wikidata  # noqa: E402
from extract.wikidata.generate import generate_people  # noqa: E402
from extract.wikidata.write import write_entities  # noqa: E402

WIKIMEM_PROPERTIES = ("P106", "P1412", "P19", "P21", "P27")


def naive_nll(model, scorer: SentenceScorer, items) -> list[float]:
    """One forward pass per sentence, no cache: what a loop over canaries would do."""
    device = next(model.parameters()).device
    out = []
    with torch.no_grad():
        for context, sentence in items:
            prefix, target = scorer.encode(context, sentence)
            ids = torch.tensor([prefix + target], device=device)
            labels = torch.tensor([[-100] * len(prefix) + target], device=device)
            out.append(model(input_ids=ids, labels=labels).loss.item() * len(target))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", default="tiny", help="scratch model size: tiny, small, base")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--train-paraphrases", type=int, default=2)
    parser.add_argument("--counterfactuals", type=int, default=20)
    parser.add_argument("--paraphrases", type=int, default=None, help="paraphrases measured (default all)")
    parser.add_argument("--contexts", type=int, default=4)
    parser.add_argument("--variants", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--properties", default="wikimem", help="wikimem (the five), all, or P-ids joined by commas")
    parser.add_argument("--throughput-sentences", type=int, default=3000)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    properties = (WIKIMEM_PROPERTIES if args.properties == "wikimem" else ()
                  if args.properties == "all" else tuple(args.properties.split(",")))
    hardware = select_hardware(args.device)
    registry = load_registry()
    torch.manual_seed(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="bench_memorization_"))
    path = folder / "people.json"
    write_entities(generate_people(args.people, seed=args.seed), path)
    record, _ = read_wikidata(path, graph="people")
    subjects = subjects_from_record(record, properties)
    injected, _ = split_subjects(subjects)
    sentences = training_sentences(registry, subjects, injected, args.train_paraphrases)
    print(f"machine: {hardware.label}, torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(f"{len(subjects)} people ({len(injected)} injected), {sum(len(s.facts) for s in subjects.values())} facts, "
          f"properties {','.join(properties) or 'all'}; training on {len(sentences)} sentences, {args.epochs} epochs, "
          f"scratch:{args.size}")
    started = time.perf_counter()
    model_dir = train_sentence_model(sentences, training_sentences(registry, subjects, sorted(subjects), 0),
                                     folder / "model", hardware,
                                     TrainSettings(size=args.size, epochs=args.epochs, seed=args.seed))
    print(f"training: {time.perf_counter() - started:.1f} s")
    model, tokenizer = load_model(str(model_dir), hardware), load_tokenizer(str(model_dir))
    config = MemorizationConfig(counterfactuals=args.counterfactuals, paraphrases=args.paraphrases,
                                contexts=args.contexts, variants=args.variants, batch_size=args.batch_size,
                                seed=args.seed)
    targets = [(q, p) for q in sorted(subjects) for p in sorted(subjects[q].facts)]
    scorer = SentenceScorer(model, tokenizer, args.batch_size)
    started = time.perf_counter()
    pools = value_pools(subjects)
    measures = measure_facts(scorer, registry, subjects, pools, targets, config)
    seconds = time.perf_counter() - started
    print(f"measure: {len(targets)} facts, {scorer.scored} sentences scored in {seconds:.1f} s "
          f"= {scorer.scored / seconds:.0f} sentences/s (counterfactuals {args.counterfactuals}, "
          f"variants {args.variants}, contexts {args.contexts})")
    result = separation([m.row() for m in measures], set(injected))
    for key, value in result.items():
        print(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}")

    # -- throughput, side by side, on one sample of the canaries the measure scores
    items = [item for q, p in targets for item in plan_fact(registry, subjects, pools, q, p, config).items()]
    sample = random.Random(0).sample(items, min(args.throughput_sentences, len(items)))
    sample += sample[: len(sample) // 10]      # a few repeats, as the generic subject's sentences repeat
    fresh = SentenceScorer(model, tokenizer, args.batch_size)
    t0 = time.perf_counter()
    ours = fresh.nll(sample)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    naive = naive_nll(model, fresh, sample)
    t_naive = time.perf_counter() - t0
    worst = max(abs(a - b) for a, b in zip(ours, naive))
    print(f"throughput on {len(sample)} canary sentences: ours {len(sample) / t_ours:.0f}/s, naive one-by-one "
          f"{len(sample) / t_naive:.0f}/s, ratio {t_naive / t_ours:.1f}x (largest NLL difference {worst:.2e})")


if __name__ == "__main__":
    main()
