"""REBEL's speed: passage chunks per second by batch size, on a GPU or the CPU.

    .venv/bin/python bench/bench_rebel.py --dump-passages /tmp/news-passages.jsonl
    python3 bench/bench_rebel.py --scratch /tmp/rebel-shape --passages /tmp/news-passages.jsonl \
        --device cuda --batch-sizes 1,8,32,64
    .venv/bin/python bench/bench_rebel.py --model Babelscape/rebel-large --device cuda

The passages are the news corpus (``tests/extract/text/data/news``), segmented the way
``audit build`` segments it (spaCy, at most 4 sentences / 128 tokens a passage).
``--dump-passages`` writes them to a file, for a machine without spaCy (``--passages``).

``--model`` takes REBEL-large by hub id or folder. Where its weights cannot be had (no
network: this project's machines and the lent GPU machine), ``--scratch FOLDER`` builds a model
of REBEL-large's shape, ``facebook/bart-large``'s (12 + 12 layers, d_model 1024, 16 heads, FFN
4096, a 50,265-token vocabulary: 406 M parameters), with random weights, and a byte-level BPE
tokenizer trained on the passages, padded to that vocabulary and holding REBEL's markers.
Random weights never write the end token, so every chunk generates ``--max-output-tokens``
tokens: the figures are the cost of that many tokens a chunk, an upper bound on REBEL-large's
(whose outputs are shorter), and say nothing of what it finds.

Each row runs ``RebelExtractor.extract`` over the first ``--chunks`` passages (whole articles):
once over all of them (``pooled``, as ``audit build`` now calls it, several documents at once),
and, for the largest batch size, once per document (``per document``, as the build called it before: a news
article's 3-6 passages are then a batch, whatever ``--rebel-batch-size`` says). ``x first`` is
chunks/s over the smallest batch size's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import time
from pathlib import Path

NEWS = Path(__file__).resolve().parents[1] / "tests/extract/text/data/news"
# The sets timed: fixed, so that a figure does not change as new held-out sets are added (and a
# new set's text is never copied out before it is measured). 174 articles, 645 passages.
TIMED_SETS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8")
BART_LARGE = dict(d_model=1024, encoder_layers=12, decoder_layers=12, encoder_attention_heads=16,
                  decoder_attention_heads=16, encoder_ffn_dim=4096, decoder_ffn_dim=4096,
                  max_position_embeddings=1024, vocab_size=50265)
MARKERS = ["<triplet>", "<subj>", "<obj>"]


def news_passages() -> list[dict]:
    """Every news article, segmented as ``audit build`` segments it."""
    from extract.text.corpus import read_corpus
    from extract.text.graph import segment
    from extract.text.options import TextBuildOptions
    from extract.text.nlp import load_pipeline

    options = TextBuildOptions()
    nlp = load_pipeline(None)
    out = []
    for path in (NEWS / f"{name}.jsonl" for name in TIMED_SETS):
        docs, _ = read_corpus(path, "forget")
        for document, doc in zip(docs, nlp.pipe(d.text for d in docs)):
            parts = segment(doc, document, f"news/forget/{path.stem}/{document.index}",
                            options.passage_tokens, options.passage_sentences)
            out.extend(dataclasses.asdict(p) for p, _ in parts)
    return out


def load_passages(path: Path):
    from extract.text.units import Passage
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [Passage(**{**r, "sentences": tuple(map(tuple, r["sentences"]))}) for r in rows]


def build_scratch(folder: Path, texts: list[str]) -> None:
    """A random-weight model of REBEL-large's shape and a tokenizer of its vocabulary size."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

    special = ["<s>", "<pad>", "</s>", "<unk>", *MARKERS]
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=BART_LARGE["vocab_size"], special_tokens=special,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                       show_progress=False))
    bpe.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>",
                                        pad_token="<pad>", unk_token="<unk>", additional_special_tokens=MARKERS)
    filler = BART_LARGE["vocab_size"] - len(tokenizer)   # a small corpus learns fewer merges
    tokenizer.add_tokens([f"<unused{i}>" for i in range(filler)])
    torch.manual_seed(0)
    config = BartConfig(**BART_LARGE, pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                        forced_bos_token_id=0, forced_eos_token_id=2)
    BartForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def timed(extractor, groups) -> tuple[float, int]:
    """Seconds to extract every group (one ``extract`` call each), and chunks read."""
    import torch
    chunks = extractor.stats.chunks
    if extractor.device.startswith("cuda"):
        torch.cuda.synchronize()
    start = time.perf_counter()
    for group in groups:
        extractor.extract(group)
    if extractor.device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - start, extractor.stats.chunks - chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump-passages", type=Path, help="write the news passages to FILE and stop")
    parser.add_argument("--passages", type=Path, help="passages written by --dump-passages (default: segment here)")
    parser.add_argument("--model", help="REBEL model folder or hub id")
    parser.add_argument("--scratch", type=Path, help="build a random model of REBEL-large's shape in FOLDER and use it")
    parser.add_argument("--device", default=None, help="cpu, cuda, cuda:1 (default: CUDA when present)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--batch-sizes", default="1,8,32,64")
    parser.add_argument("--chunks", type=int, default=128,
                        help="passages timed per row, whole articles (a news passage is one chunk)")
    parser.add_argument("--batch-one-chunks", type=int, default=16, help="the same, at batch size 1")
    parser.add_argument("--num-beams", type=int, default=3)
    parser.add_argument("--max-output-tokens", type=int, default=256)
    args = parser.parse_args()

    if args.dump_passages:
        rows = news_passages()
        args.dump_passages.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
        print(f"{len(rows)} passages -> {args.dump_passages}")
        return
    import torch
    from extract.text.normalize import rebel_relation_ids
    from extract.text.rebel import RebelExtractor

    if args.passages:
        passages = load_passages(args.passages)
    else:
        from extract.text.units import Passage
        passages = [Passage(**{**r, "sentences": tuple(r["sentences"])}) for r in news_passages()]
    model = args.model
    if args.scratch:
        start = time.perf_counter()
        build_scratch(args.scratch, [p.text for p in passages])
        print(f"scratch model of REBEL-large's shape built in {time.perf_counter() - start:.0f} s")
        model = str(args.scratch)
    if not model:
        parser.error("give --model or --scratch")
    extractor = RebelExtractor(model, rebel_relation_ids(), device=args.device, num_beams=args.num_beams,
                               max_output_tokens=args.max_output_tokens)
    extractor.model.to(getattr(torch, args.dtype))
    documents: dict[tuple[str, int], list] = {}
    for p in passages:
        documents.setdefault((p.path, p.document), []).append(p)
    groups = list(documents.values())

    def first_documents(chunks: int) -> list[list]:
        taken, n = [], 0
        for group in groups:
            if n >= chunks:
                break
            taken.append(group)
            n += len(group)
        return taken

    device = extractor.device
    name = torch.cuda.get_device_name(device) if device.startswith("cuda") else platform.processor() or "cpu"
    print(f"device {device} ({name}), torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"{args.dtype}, beams {args.num_beams}, at most {extractor.max_output_tokens} output tokens; "
          f"{len(passages)} passages in {len(groups)} articles")
    extractor.batch_size = 8
    timed(extractor, [first_documents(1)[0]])   # warm-up: kernels, allocator
    sizes = sorted(int(b) for b in args.batch_sizes.split(","))
    rows = []
    for size in sizes:
        extractor.batch_size = size
        chosen = first_documents(args.batch_one_chunks if size == 1 else args.chunks)
        seconds, chunks = timed(extractor, [[p for g in chosen for p in g]])
        rows.append((f"pooled, batch {size}", chunks, seconds))
    seconds, chunks = timed(extractor, first_documents(args.chunks))
    rows.append((f"per document, batch {sizes[-1]}", chunks, seconds))
    base = rows[0][1] / rows[0][2]
    print(f"{'run':<26} {'chunks':>6} {'seconds':>8} {'chunks/s':>9} {'x first':>9}")
    for label, chunks, seconds in rows:
        print(f"{label:<26} {chunks:>6} {seconds:>8.2f} {chunks / seconds:>9.2f} {chunks / seconds / base:>9.1f}")
    if device.startswith("cuda"):
        print(f"peak GPU memory {torch.cuda.max_memory_allocated(device) / 2**30:.1f} GiB")


if __name__ == "__main__":
    main()
