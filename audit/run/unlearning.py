"""Unlearning: LoRA adapters trained on the injected model with one method's loss, or the
model's own weights (``UnlearnConfig.adapter = "full"``, ``audit.run.full_weights``).

With adapters the injected weights stay frozen and loaded once; the reference model of the
methods that need one is those weights with the adapters disabled (a frozen copy of them for
full-parameter unlearning). ``reset()`` puts what is trained back to its initial values, which
is all a per-edge sweep does between edges. A method that restricts its gradient (OracleGrad:
to the forget mask) gets a ``gradient_filter``, run after each backward pass.

Resumable: after every epoch the adapters, optimizer and schedule are saved to a checkpoint
file (atomically); a restarted run continues from the last complete epoch and, because data
order and pairing are pure functions of (seed, epoch, step), reaches the same weights.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, cast

import torch

from audit.config import UnlearnConfig
from audit.models.encoding import QAEncoder
from audit.models.load import Hardware
from audit.models.ranks import SINGLE, Ranks, drop_kept, keep, kept, local_device, shared_folder
from audit.run.full_weights import FullWeights
from audit.run.injection import Injected, load_injected_model
from audit.run.masked import load_masks
from audit.models.masks import restrict_gradients
from audit.models.sharded import Sharded, training_copy
from audit.run.methods import Method, UnlearnBatch
from audit.run.training_data import TrainItem, encode
from audit.models.training import batches, epoch_order, optimizer_and_schedule, seed_everything
from graphstore.errors import ConfigError
from graphstore.progress import Progress

ADAPTER = "unlearn"


@dataclass
class UnlearnStats:
    epochs: int
    steps: int
    tokens: int               # every token fed to the model: forget, paired retain, refusals
    forget_pairs: int         # forget QA pairs processed (the same work for every method)
    seconds: float
    final_loss: float
    resumed_from_epoch: int

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0

    @property
    def forget_pairs_per_second(self) -> float:
        """Comparable across methods, unlike tokens/s (gd and kl feed retain tokens too)."""
        return self.forget_pairs / self.seconds if self.seconds else 0.0


def add_adapters(model, config: UnlearnConfig):
    """Wrap the injected model with fresh LoRA adapters (seeded)."""
    from peft import LoraConfig, get_peft_model

    targets = config.lora_targets if config.lora_targets == "all-linear" else \
        [t.strip() for t in config.lora_targets.split(",") if t.strip()]
    torch.manual_seed(config.seed)
    try:
        return get_peft_model(model, LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha,
                                                lora_dropout=config.lora_dropout, target_modules=targets,
                                                task_type="CAUSAL_LM"), adapter_name=ADAPTER)
    except ValueError as e:
        linear = sorted({name.rsplit(".", 1)[-1] for name, module in model.named_modules()
                         if isinstance(module, torch.nn.Linear)})
        raise ConfigError(f"LoRA adapters do not fit this model ({e}); --lora-targets must name linear "
                          f"modules of it: {', '.join(linear)} (or all-linear)") from e


@dataclass(frozen=True)
class Peers:
    """How the follower ranks of a launched run (``audit.models.ranks``) build the same
    unlearner as the driver's: from the injected model's folder, with this method and config.
    ``key`` names the driver's unlearner, so that a follower builds its own once per run."""
    ranks: Ranks
    key: str
    injected: Injected
    hardware: Hardware
    gradient_checkpointing: bool
    method: Method
    config: UnlearnConfig


class Unlearner:
    def __init__(self, model, encoder: QAEncoder, method: Method, config: UnlearnConfig, device,
                 gradient_filter: Callable[[torch.nn.Module], None] | None = None, peers: Peers | None = None):
        config.check()
        if config.lr is None:
            raise ConfigError("no unlearning learning rate: set UnlearnConfig.lr "
                              "(audit.run.methods.default_unlearn_lr gives the default for a method and model)")
        self.lr: float = config.lr
        self.full = config.adapter == "full"
        self.model = FullWeights(model) if self.full else add_adapters(model, config)
        self.gradient_filter = gradient_filter   # called with the bare model after each backward pass
        # a launched run's ranks (the driver leads its followers into each training), else one process
        self.peers = peers
        self.ranks = peers.ranks if peers is not None else SINGLE
        self.encoder = encoder
        self.method = method
        self.config = config
        self.device = device
        # the adapters' initial values (full-parameter unlearning resets from its reference instead)
        self._initial = {} if self.full else {k: v.detach().clone() for k, v in self._adapter_state().items()}
        self._sharded: Sharded | None = None   # a sharded run's training copy (``_trainee``)
        self.trained = False     # the adapters hold an unlearning (run, or loaded)

    @property
    def bare(self) -> torch.nn.Module:
        """The transformers model under the adapters or the wrapper (parameter names as saved)."""
        return bare(self.model)

    def _adapter_state(self) -> dict[str, torch.Tensor]:
        return {name: p for name, p in self.model.named_parameters() if p.requires_grad}

    def reset(self) -> None:
        """Adapters (or weights) back to their initial values: the model is the injected model again."""
        if isinstance(self.model, FullWeights):
            self.model.reset()
            return
        with torch.no_grad():
            for name, p in self._adapter_state().items():
                p.copy_(self._initial[name])

    def load(self, folder: Path) -> None:
        """The adapters (or weights) as ``save_pretrained(folder)`` wrote them after an unlearning
        (a run resumed after its after-measure)."""
        if isinstance(self.model, FullWeights):
            self.model.load(folder)
            self.model.eval()
            self.trained = True
            return
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        path = folder / ADAPTER / "adapter_model.safetensors"
        path = path if path.exists() else folder / "adapter_model.safetensors"
        if not path.exists():
            raise ConfigError(f"no saved adapters in {folder}: the run's cache folder was removed; "
                              "delete the run (audit runs ID --delete) and run it again")
        state = load_file(str(path))
        result = set_peft_model_state_dict(self.model, state, adapter_name=ADAPTER)
        # peft loads leniently: a saved state that does not fit would leave the fresh adapters
        # (the injected model) in place without a word
        expected = {n for n in self.model.state_dict() if "lora_" in n and f".{ADAPTER}." in n}
        if getattr(result, "unexpected_keys", None) or len(state) != len(expected):
            raise ConfigError(f"the adapters saved in {path} do not fit this model ({len(state)} tensors saved, "
                              f"{len(expected)} expected); delete the run and run it again")
        self.model.eval()
        self.trained = True

    def run(self, forget: list[TrainItem], retain: list[TrainItem], refusals: list[str],
            checkpoint: Path | None = None, pairing_log: Path | None = None, progress: str = "unlearn",
            loss_log: Callable[[int, float, float], None] | None = None) -> UnlearnStats:
        """Train the adapters for ``config.epochs`` epochs (from the checkpoint's, when there is one).

        Args:
            loss_log: called after each epoch is kept (its checkpoint written) with the epoch, the
                mean loss over its steps and its seconds (the run's loss log, audit/run/record.py,
                which keeps the first line of an epoch); on resume, first with the last kept epoch's.
        """
        cfg, method = self.config, self.method
        if method.uses_retain and not retain:
            raise ConfigError(f"method {method.name} needs a retain set, and the selection leaves no other edge; "
                              "select fewer edges or choose ga, npo, simnpo or dpo")
        if self.peers is not None and self.gradient_filter is not None and not isinstance(self.gradient_filter, MaskFilter):
            raise ValueError("a launched run's followers filter their gradients as the driver does only with a MaskFilter")
        if self.peers is not None and self.ranks.driver:
            self.ranks.lead(f"{__name__}:follow", (self.peers, {
                "forget": forget, "retain": retain, "refusals": refusals, "checkpoint": checkpoint,
                "progress": progress, "filter_groups": getattr(self.gradient_filter, "groups", None)}))
        ranks = self.ranks
        trainee = self._trainee()   # the model itself, or every rank's sharded copy of it
        forget_enc = [encode(self.encoder, item) for item in forget]
        retain_enc = [encode(self.encoder, item) for item in retain]
        pad, device = self.encoder.pad_id, self.device
        steps_per_epoch = -(-len(forget_enc) // cfg.batch_size)
        updates_per_epoch = -(-steps_per_epoch // cfg.grad_accum)
        # decoupled weight decay moves every weight: a gradient restricted to a mask trains without it
        optimizer, schedule = optimizer_and_schedule(
            [p for p in trainee.parameters() if p.requires_grad], self.lr,
            0.0 if self.gradient_filter is not None else cfg.weight_decay,
            warmup_steps=updates_per_epoch, total_steps=updates_per_epoch * cfg.epochs)

        start_epoch, done = 0, dict[str, Any]()
        # the driver's view: a follower on another machine may see the file late (and must not
        # start a fresh optimizer while the driver resumes, or skip a sharded load's collectives)
        if ranks.share(checkpoint is not None and checkpoint.exists()):
            assert checkpoint is not None
            start_epoch, done = self._load_checkpoint(checkpoint, optimizer, schedule)
        if self._sharded is not None:   # every rank starts from the driver's weights
            self._sharded.load_trained(self.model if ranks.driver else None)
        else:
            ranks.broadcast(self._adapter_state().values())
        pairing = pairing_log.open("a", encoding="utf-8") if pairing_log else None
        # A resumed run counts the work of the epochs before the kill too (kept in the checkpoint).
        tokens, steps, pairs = done.get("tokens", 0), done.get("steps", 0), done.get("pairs", 0)
        loss_value = float("nan")
        started = time.perf_counter() - done.get("seconds", 0.0)
        if loss_log is not None and "loss" in done:   # the last kept epoch's, if the kill came before its line
            loss_log(start_epoch, *done["loss"])
        trainee.train()
        try:
            with Progress(progress, total=cfg.epochs, initial=start_epoch, unit="epochs") as bar:
                for epoch in range(start_epoch + 1, cfg.epochs + 1):
                    epoch_started, epoch_loss = time.perf_counter(), []
                    # LoRA dropout, when on: each rank its own masks (rank 0's are one process's)
                    seed_everything(cfg.seed * 100_003 + epoch + 7_919 * ranks.rank)
                    order = epoch_order(len(forget_enc), cfg.seed, epoch)
                    forget_batches = batches(forget_enc, order, cfg.batch_size, pad, device)
                    for step, forget_batch in enumerate(forget_batches):
                        rows = order[step * cfg.batch_size:(step + 1) * cfg.batch_size]
                        batch, record = self._pair(forget_batch, rows, forget, forget_enc, retain, retain_enc,
                                                   refusals, epoch, step)
                        if pairing:
                            pairing.write(json.dumps(record) + "\n")
                        share = self._share(batch)   # the batch itself in one process
                        step_loss = 0.0
                        if share is not None:
                            loss = method.loss(trainee, share) * ranks.weight(share.forget) / cfg.grad_accum
                            (loss * ranks.gradient_scale).backward()
                            if self.gradient_filter is not None:
                                self.gradient_filter(bare(trainee))
                            step_loss = loss.item() * cfg.grad_accum
                        tokens += sum(int(part["attention_mask"].sum()) for part in
                                      (batch.forget, batch.retain, batch.refusal) if part is not None)
                        steps += 1
                        pairs += len(rows)
                        if (step + 1) % cfg.grad_accum == 0 or step + 1 == len(forget_batches):
                            ranks.sum_gradients(p for p in trainee.parameters() if p.requires_grad)
                            optimizer.step()
                            schedule.step()
                            optimizer.zero_grad(set_to_none=True)
                        epoch_loss.append(step_loss)
                    epoch_loss = ranks.sum_floats(epoch_loss, device)   # each step's loss: the ranks' shares summed
                    loss_value = epoch_loss[-1] if epoch_loss else loss_value
                    mean_loss = sum(epoch_loss) / len(epoch_loss) if epoch_loss else float("nan")
                    epoch_seconds = time.perf_counter() - epoch_started
                    if checkpoint is not None:   # the epoch's loss too: a run killed before logging it logs it on resume
                        self._save_checkpoint(checkpoint, epoch, optimizer, schedule, {
                            "tokens": tokens, "steps": steps, "pairs": pairs,
                            "seconds": time.perf_counter() - started, "loss": [mean_loss, epoch_seconds]})
                    if loss_log is not None:
                        loss_log(epoch, mean_loss, epoch_seconds)
                    bar.update(1, loss=f"{mean_loss:.3f}")
        finally:
            if pairing:
                pairing.close()
        if self._sharded is not None and checkpoint is None:   # with a checkpoint, its last epoch gathered them
            self._sharded.gather_trained(self.model if ranks.driver else None)
        ranks.loop_done()
        self.model.eval()
        self.trained = True
        return UnlearnStats(cfg.epochs, steps, tokens, pairs, time.perf_counter() - started, loss_value, start_epoch)

    def _share(self, batch: UnlearnBatch) -> UnlearnBatch | None:
        """This rank's rows of every part of ``batch`` (the same rows: a retain sample and a
        refusal are paired per forget row); None when it has none. One process: ``batch``."""
        if not self.ranks.parallel:
            return batch
        forget = self.ranks.take(batch.forget)
        if forget is None:
            return None
        return UnlearnBatch(forget, self.ranks.take(batch.retain), self.ranks.take(batch.refusal))

    def _pair(self, forget_batch, rows, forget, forget_enc, retain, retain_enc, refusals, epoch, step):
        """The retain sample and refusals paired with one forget batch: a pure function of
        (seed, epoch, step), recorded so a run can say exactly what was paired with what."""
        cfg, method = self.config, self.method
        rng = random.Random(f"{cfg.seed}/pair/{epoch}/{step}")
        record = {"epoch": epoch, "step": step, "forget": [f"{forget[i].edge}#{forget[i].index}" for i in rows]}
        retain_batch = refusal_batch = None
        if method.uses_retain:
            picks = [rng.randrange(len(retain_enc)) for _ in rows]
            retain_batch = batches(retain_enc, picks, len(picks), self.encoder.pad_id, self.device)[0]
            record["retain"] = [f"{retain[i].edge}#{retain[i].index}" for i in picks]
        if method.uses_refusal:
            chosen = [rng.randrange(len(refusals)) for _ in rows]
            items = [self.encoder.encode(forget[i].question, refusals[c]) for i, c in zip(rows, chosen)]
            refusal_batch = batches(items, list(range(len(items))), len(items), self.encoder.pad_id, self.device)[0]
            record["refusal"] = chosen
        return UnlearnBatch(forget_batch, retain_batch, refusal_batch), record

    def _trainee(self) -> torch.nn.Module:
        """What the loop trains: ``self.model``, or in a sharded run (audit.models.sharded) every
        rank's sharded copy of it, built at the first loop and kept for the run's next ones."""
        if self.ranks.sharded:
            # every rank builds it again when one has none: a follower led into an injection
            # between two of this unlearner's loops (the localization control's) dropped its own
            if self.ranks.sum_floats([float(self._sharded is None)], self.device)[0] > 0:
                self._sharded = None
                self._sharded = training_copy(self.ranks, self.model, self.device)
        return self._sharded.module if self._sharded is not None else self.model

    def _save_checkpoint(self, path: Path, epoch: int, optimizer, schedule, done: dict) -> None:
        """The driver saves; in a sharded run every rank first gathers its shards of the trained
        weights (into the driver's model) and of the optimizer state."""
        if self._sharded is not None:
            self._sharded.gather_trained(self.model if self.ranks.driver else None)
            optimizer_state = self._sharded.optimizer_state(optimizer)
        elif self.ranks.driver:
            optimizer_state = optimizer.state_dict()
        if not self.ranks.driver:
            return
        tmp = path.with_name(path.name + ".tmp")
        torch.save({"epoch": epoch, "adapters": {k: v.detach().cpu() for k, v in self._adapter_state().items()},
                    "optimizer": optimizer_state, "schedule": schedule.state_dict(), "done": done,
                    "sharded": self._sharded is not None}, tmp)
        os.replace(tmp, path)

    def _load_checkpoint(self, path: Path, optimizer, schedule) -> tuple[int, dict]:
        # sharded: read on the CPU, mapped (every weight and moment of the model: it may not fit a
        # GPU), and each rank's shards are taken from it
        state = (torch.load(path, map_location="cpu", mmap=True, weights_only=True) if self._sharded is not None
                 else torch.load(path, map_location=self.device, weights_only=True))
        if bool(state.get("sharded")) != (self._sharded is not None):
            raise ConfigError(f"{path} was written by a {'sharded (FSDP)' if state.get('sharded') else 'unsharded'} "
                              "training: resume it launched the same way (docs/scale.md), or delete the run")
        if self._sharded is None or self.ranks.driver:   # a follower's sharded copy is filled from the driver's
            with torch.no_grad():
                for name, p in self._adapter_state().items():
                    p.copy_(state["adapters"][name])
        if self._sharded is not None:
            self._sharded.load_optimizer_state(optimizer, state["optimizer"])
        else:
            optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        return int(state["epoch"]), dict(state.get("done", {}))


def bare(model: torch.nn.Module) -> torch.nn.Module:
    """The transformers model under LoRA adapters or the full-weights wrapper."""
    if isinstance(model, FullWeights):
        return model.model
    return cast(Any, model).get_base_model()


def follow(ranks: Ranks, job: tuple[Peers, dict]) -> None:
    """A follower rank's part of one unlearning the driver leads (``Unlearner.run``): its
    unlearner built once per driver's unlearner, from the injected model; the driver's weights
    broadcast at the start of the loop; nothing written (the driver keeps the checkpoint, the
    pairing and loss logs, the adapters)."""
    peers, args = job
    peers = dataclasses.replace(peers, ranks=ranks,
                                hardware=dataclasses.replace(peers.hardware, device=local_device(peers.hardware.device)))
    unlearner = kept(peers.key)
    if unlearner is None:
        if peers.injected.info["kind"] != "none":
            shared_folder(peers.injected.folder)
        drop_kept()   # one run's unlearner at a time
        # sharded: the modules only, which become this rank's shards of the training copy
        model, tokenizer = load_injected_model(peers.injected, peers.hardware, peers.gradient_checkpointing,
                                               meta=ranks.sharded)
        unlearner = Unlearner(model, QAEncoder(tokenizer), peers.method, peers.config, peers.hardware.device,
                              peers=peers)
        keep(peers.key, unlearner)
    groups = args["filter_groups"]
    unlearner.gradient_filter = None
    if groups is not None:
        masks = kept(f"{peers.key}/masks")   # read once per run, as the driver's are, not once per edge
        if masks is None:
            masks = load_masks(peers.injected.folder)
            if masks is None:
                raise RuntimeError(f"no masks in {peers.injected.folder}, where the driver found them")
            masks = masks.to(peers.hardware.device)
            keep(f"{peers.key}/masks", masks)
        unlearner.gradient_filter = MaskFilter(masks, groups)
    unlearner.run(args["forget"], args["retain"], args["refusals"], checkpoint=args["checkpoint"],
                    progress=args["progress"])


class MaskFilter:
    """OracleGrad's gradient filter: every gradient outside the weights of ``groups`` zeroed
    (LACUNA App. D); ``groups`` travel to the follower ranks of a launched run."""

    def __init__(self, masks, groups):
        self.masks, self.groups = masks, groups

    def __call__(self, model: torch.nn.Module) -> None:
        restrict_gradients(model, self.masks, self.groups, others="zero")
