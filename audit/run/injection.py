"""Knowledge injection, the PISTOL protocol: before anything is unlearned, the model must know
the graph. Fine-tune on every QA pair of the graph (full training for a scratch model, LoRA for
a pretrained one), loss on answer tokens only, until every edge's mean ROUGE-1 recall reaches
the target or ``max_epochs`` pass; report per-edge recall.

The result is cached under ``<cache>/injected/<key>/`` and reused by every later run on the
same graph content, base model, prompt format and injection settings.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from audit.config import InjectionConfig, as_dict, parse_scratch
from audit.measure import evaluate as E
from audit.models.encoding import PROMPT_VERSION, QAEncoder
from audit.models.file_lock import exclusive
from audit.models.load import Hardware, fingerprint, load_model, load_tokenizer
from audit.models.logits import mean_nll
from audit.models.masks import restrict_gradients
from audit.models.ranks import Ranks, current, drop_kept, local_device, shared_folder
from audit.models.sharded import training_copy
from audit.models.scratch import build_scratch
from audit.models.training import batches, epoch_order, optimizer_and_schedule, seed_everything
from audit.run import masked
from audit.run.groups import EdgeGroups
from audit.run.training_data import TextExample, chunked, context_tokens, encode
from audit.types import Edge
from graphstore.embedded import pid_alive
from graphstore.errors import ConfigError
from graphstore.progress import Progress

log = logging.getLogger(__name__)
INFO_FILE = "injection.json"


@dataclass
class InjectionTexts:
    """Texts injection trains on besides (or instead of) the QA pairs (``--train-on``)."""
    items: list[TextExample]
    include_qa: bool = True
    chunk_tokens: int | None = None   # None: the model's context

    def identity(self) -> dict:
        digest = hashlib.sha256(json.dumps([[t.edge, t.text] for t in self.items]).encode()).hexdigest()
        return {"sha256": digest, "count": len(self.items), "qa": self.include_qa, "chunk_tokens": self.chunk_tokens}


@dataclass
class Injected:
    """Where an injected model lives and what injection reached."""
    folder: Path
    base: str                 # model folder to load (the trained scratch model, or the pretrained base)
    adapter: Path | None      # LoRA adapter to merge into ``base`` (pretrained models only)
    info: dict
    cached: bool

    @property
    def reached(self) -> bool:
        return bool(self.info["reached"])


def cache_key(model_spec: str, graph_sha256: str, config: InjectionConfig, texts: InjectionTexts | None = None,
              groups: EdgeGroups | None = None) -> str:
    model_id = model_spec if parse_scratch(model_spec) else f"{model_spec}#{fingerprint(model_spec)}"
    content = {"model": model_id, "graph": graph_sha256, "prompt": PROMPT_VERSION,
               "config": {k: v for k, v in config.identity().items() if k != "eval_every"}}
    if texts is not None and texts.items:   # QA-only injection keeps the key it always had
        content["texts"] = texts.identity()
    if groups is not None:                  # so does an unmasked one
        content["groups"] = masked.groups_identity(groups)
    payload = json.dumps(content, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:20]


def load_injected_model(injected: Injected, hardware: Hardware, gradient_checkpointing: bool = False,
                        meta: bool = False):
    """The injected model in memory (LoRA injection merged into the base weights) and its
    tokenizer; ``meta``: its modules only (a merged LoRA injection has the base model's)."""
    tokenizer = load_tokenizer(injected.base)
    model = load_model(injected.base, hardware, gradient_checkpointing, meta=meta)
    if injected.adapter is not None and not meta:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(injected.adapter)).merge_and_unload()
    return model, tokenizer


def inject(model_spec: str, graph: str, graph_sha256: str, edges: dict[str, Edge], config: InjectionConfig,
           hardware: Hardware, cache_dir: Path, texts: InjectionTexts | None = None,
           groups: EdgeGroups | None = None) -> Injected:
    """Return the cached injected model for these settings, training it first if needed
    (or the model as it is, when injection is off). ``texts``: passages or canaries to train on
    too (``--train-on``); the stopping rule stays the edges' QA recall. ``groups``: a masked
    injection's groups of edges (``config.mask_groups``), each trained into its own weights."""
    config.check(model_spec)
    if (groups is None) != (config.mask_groups is None):
        raise ValueError("a masked injection needs its groups, and groups need mask_groups")
    if groups is not None and texts is not None and texts.items:
        raise ConfigError("--mask-groups trains on the edges' QA pairs: use it with --train-on qa")
    if not config.enabled:
        return Injected(Path(model_spec), model_spec, None,
                        {"key": "none", "kind": "none", "epochs": 0, "reached": True, "min_rouge1": None,
                         "mean_rouge1": None}, cached=True)
    key = cache_key(model_spec, graph_sha256, config, texts, groups)
    folder = cache_dir / "injected" / key
    # One process trains a given injected model; another (an experiment's worker) waits, then
    # finds it in the cache.
    with exclusive(cache_dir / "injected" / f".{key}.lock"):
        if (folder / INFO_FILE).exists():
            info = json.loads((folder / INFO_FILE).read_text())
            return _injected(folder, info, cached=True)
        return _train_into_cache(model_spec, graph, edges, config, hardware, cache_dir, key, texts, groups)


def _train_into_cache(model_spec: str, graph: str, edges: dict[str, Edge], config: InjectionConfig,
                      hardware: Hardware, cache_dir: Path, key: str, texts: InjectionTexts | None,
                      groups: EdgeGroups | None) -> Injected:
    folder = cache_dir / "injected" / key
    remove_stale_staging(cache_dir / "injected", key)   # under the key's lock: only this key's, whose pids are here
    staging = cache_dir / "injected" / f".{key}.{os.getpid()}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        info = _train(model_spec, graph, edges, config, hardware, staging, key, texts, groups)
        (staging / INFO_FILE).write_text(json.dumps(info, indent=2))
        try:
            staging.rename(folder)   # atomic: a cache entry is complete or absent
        except OSError:
            if not (folder / INFO_FILE).exists():  # another process won the race: use theirs
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return _injected(folder, json.loads((folder / INFO_FILE).read_text()), cached=False)


def remove_stale_staging(folder: Path, key: str | None = None) -> list[Path]:
    """Remove the staging folders (``.<key>.<pid>.tmp``; of ``key`` only, when given) of
    injections whose process is gone (killed part-way); a live process's folder is left alone.
    Returns what was removed. A pid is only known dead on its own machine: with a cache shared
    by several machines, call it with the key whose lock is held."""
    removed = []
    for staging in folder.glob(f".{key}.*.tmp" if key else ".*.tmp") if folder.is_dir() else ():
        try:
            pid = int(staging.name.rsplit(".", 2)[-2])
        except (ValueError, IndexError):
            continue
        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(staging, ignore_errors=True)
            removed.append(staging)
    return removed


def expected_stop(history: list[tuple[int, float]], target: float, eval_every: int, max_epochs: int) -> int | None:
    """The epoch injection is expected to stop at, from its evaluations so far (``(epoch, min
    edge recall)``): the recall's trend over the last two evaluations (over all of them when the
    last two did not rise) extrapolated linearly to ``target``, rounded up to the next evaluation
    (injection stops only at one), at most ``max_epochs``. None while it cannot be told: fewer than
    two evaluations, or no rise. E.g. recall 0.2 at epoch 10 and 0.5 at 20 rises 0.03 an epoch,
    reaches 1.0 near epoch 36.7: the evaluation of epoch 40 stops it."""
    if not history:
        return None
    epoch, recall = history[-1]
    if recall >= target:
        return epoch
    # since the evaluation before, else since the first one (epochs rise from one to the next)
    slopes = [(recall - r) / (epoch - e) for e, r in (history[-2], history[0])] if len(history) >= 2 else []
    slope = next((s for s in slopes if s > 0), None)
    if slope is None:
        return None
    reach = epoch + (target - recall) / slope
    return min(max_epochs, eval_every * math.ceil(reach / eval_every - 1e-9))


def _injected(folder: Path, info: dict, cached: bool) -> Injected:
    if info["kind"] in ("scratch", "masked"):
        return Injected(folder, str(folder / "model"), None, info, cached)
    return Injected(folder, info["base"], folder / "adapter", info, cached)


def _train(model_spec: str, graph: str, edges: dict[str, Edge], config: InjectionConfig, hardware: Hardware,
           out: Path, key: str, texts: InjectionTexts | None = None, groups: EdgeGroups | None = None,
           ranks: Ranks | None = None, scratch_base: str | None = None) -> dict:
    """Train the injected model into ``out``. In a launched run (``audit.models.ranks``) the
    driver leads the follower ranks into the same loop (each trains on its rows of every batch;
    ``scratch_base``: the scratch model the driver built, for them) and alone evaluates and saves."""
    ranks = ranks if ranks is not None else current()
    seed_everything(config.seed)
    examples = [qa for edge in edges.values() for qa in edge.qas]
    texts = texts if texts is not None and texts.items else None
    scratch_size = parse_scratch(model_spec)
    if scratch_size and scratch_base is None:
        corpus = [f"{q.question} {q.answer}" for q in examples] + [t.text for t in (texts.items if texts else ())]
        scratch_base = str(build_scratch(scratch_size, corpus, out / "model", config.seed))
    model_path = scratch_base if scratch_base is not None else model_spec
    if ranks.driver:
        ranks.lead(f"{__name__}:follow", dict(model_spec=model_spec, graph=graph, edges=edges, config=config,
                                              hardware=hardware, key=key, texts=texts, groups=groups,
                                              scratch_base=scratch_base))
    full_training = scratch_size is not None or groups is not None or config.full_weights
    if full_training and not scratch_size:   # float32 master weights: in bf16 a small step rounds away, in fp16
        hardware = dataclasses.replace(hardware, dtype=torch.float32)   # Adam's eps underflows (NaN)
    tokenizer = load_tokenizer(model_path)
    # a sharded run's follower holds no whole model: its modules only, which become its shards
    modules_only = ranks.sharded and not ranks.driver
    model = load_model(model_path, hardware, meta=modules_only)
    masks = None
    if groups is not None and not modules_only:
        masks = masked.prepare(model, groups, config.mask_share, config.mask_kind, config.seed,
                               out if ranks.driver else None)
    if groups is not None and ranks.sharded:   # the driver's masks (a follower's weights are not there to draw on)
        shared = ranks.share(masks.to("cpu") if masks is not None else None)
        masks = masks if ranks.driver else shared.to(local_device(hardware.device))
    if not full_training:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha,
                                                 target_modules="all-linear", task_type="CAUSAL_LM"))
    encoder = QAEncoder(tokenizer)
    encoded = [encoder.encode(q.question, q.answer) for q in examples] if texts is None or texts.include_qa else []
    chunks = 0
    if texts is not None:
        pieces = chunked(list(texts.items), encoder, context_tokens(model, texts.chunk_tokens))
        encoded += [encode(encoder, t) for t in pieces]
        chunks = len(pieces)
    steps_per_epoch = -(-len(encoded) // config.batch_size)
    edge_of = [q.edge for q in examples]   # masked injection: each example's group
    sharded = training_copy(ranks, model, hardware.device)   # None unless sharded (FSDP)
    trainee = sharded.module if sharded is not None else model   # what the loop trains
    trained = [p for p in trainee.parameters() if p.requires_grad]
    if sharded is None:
        ranks.broadcast(trained)   # every rank starts from the driver's weights (a sharded copy was filled with them)
    optimizer, schedule = optimizer_and_schedule(   # no weight decay: it would move weights outside the masks
        trained, config.learning_rate(full_training, bool(scratch_size)), 0.0,
        warmup_steps=steps_per_epoch, total_steps=None)
    started = time.perf_counter()
    recall: dict[str, float] = {}
    history: list[tuple[int, float]] = []   # (epoch, min edge recall) at each evaluation
    loss_log: list[dict] = []                # per epoch: mean loss over its steps, seconds
    epoch = 0
    with Progress(f"inject {graph}", total=config.max_epochs, unit="epochs") as bar:
        for epoch in range(1, config.max_epochs + 1):
            epoch_started = time.perf_counter()
            trainee.train()
            total: float | torch.Tensor = 0.0   # becomes a tensor on the device at the first step
            steps = 0
            grouped: Sequence[tuple[int | None, dict]]
            if masks is not None and groups is not None:
                grouped = masked.group_batches(encoded, edge_of, groups, config.seed, epoch, config.batch_size,
                                               encoder.pad_id, hardware.device)
            else:
                grouped = [(None, b) for b in batches(encoded, epoch_order(len(encoded), config.seed, epoch),
                                                      config.batch_size, encoder.pad_id, hardware.device)]
            for group, batch in grouped:
                share = ranks.take(batch)   # the batch itself in one process
                if share is not None:
                    loss = mean_nll(trainee, share) * ranks.weight(share)
                    (loss * ranks.gradient_scale).backward()
                    if masks is not None and group is not None:   # only this group's weights keep a gradient
                        restrict_gradients(trainee, masks, group)
                    total = total + loss.detach()   # summed on the device: no sync per step
                ranks.sum_gradients(trained)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad(set_to_none=True)
                steps += 1
            summed = ranks.sum_floats([float(total)], hardware.device)[0]   # float(total) in one process
            mean_loss = summed / steps if steps else float("nan")
            loss_log.append({"epoch": epoch, "loss": mean_loss, "seconds": time.perf_counter() - epoch_started})
            values = {"loss": f"{mean_loss:.3f}"}
            evaluated = epoch % config.eval_every == 0 or epoch == config.max_epochs
            if evaluated and sharded is not None:   # the driver evaluates its own model, whole
                sharded.gather_trained(model if ranks.driver else None)
            if evaluated:   # before the epoch's progress line, so that the line shows this recall
                recall = ranks.share({k: v["rouge1"] for k, v in E.per_edge(E.evaluate(model, encoder, examples)).items()}
                                     if ranks.driver else None)   # the driver's: every rank stops at its epoch
                history.append((epoch, min(recall.values())))
                values["min_recall"] = f"{min(recall.values()):.3f}"
                bar.expect(expected_stop(history, config.target_rouge1, config.eval_every, config.max_epochs))
            bar.update(1, **values)
            if evaluated and min(recall.values()) >= config.target_rouge1:
                break
    ranks.loop_done()   # the last epoch was evaluated: a sharded copy's weights are the driver's already
    reached = min(recall.values()) >= config.target_rouge1
    if not reached and ranks.driver:
        log.warning("injection stopped at %d epochs with min edge ROUGE-1 recall %.3f < target %.3f; "
                    "raise --inject-max-epochs or --inject-lr", epoch, min(recall.values()), config.target_rouge1)
    if not ranks.driver:
        return {}
    if full_training:
        model.save_pretrained(out / "model")
        tokenizer.save_pretrained(out / "model")
    else:
        model.save_pretrained(out / "adapter")
    kind = "masked" if masks is not None else "scratch" if full_training else "lora"
    return {
        "key": key, "graph": graph, "model": model_spec, "kind": kind,
        "masks": {"by": groups.by, "groups": groups.count, "kind": config.mask_kind, "share": config.mask_share,
                  "shares": [round(x, 5) for x in masks.shares()], "weights": sum(int(m.numel()) for m in
                                                                             masks.group_of.values())}
        if masks is not None and groups is not None else None,
        "base": model_path if not full_training else None, "prompt_version": PROMPT_VERSION,
        "config": as_dict(config), "epochs": epoch, "reached": reached,
        "mean_rouge1": sum(recall.values()) / len(recall), "min_rouge1": min(recall.values()),
        "per_edge_rouge1": recall, "seconds": round(time.perf_counter() - started, 2),
        "hardware": hardware.label, "loss_log": loss_log,
        "texts": {**texts.identity(), "chunks": chunks} if texts is not None else None,
    }


def follow(ranks: Ranks, args: dict) -> None:
    """A follower rank's part of an injection the driver leads (``_train``): the same loop on its
    rows of every batch, in a folder of its own that is thrown away (the driver saves the model)."""
    drop_kept()   # the last run's unlearner, if any: this is another model
    if args["scratch_base"] is not None:
        shared_folder(Path(args["scratch_base"]))
    driver = args["hardware"]
    args = {**args, "hardware": dataclasses.replace(driver, device=local_device(driver.device))}
    with tempfile.TemporaryDirectory(prefix="audit-inject-rank") as out:
        _train(out=Path(out), ranks=ranks, **args)
