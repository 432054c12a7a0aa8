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

import json
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import torch

from audit.config import UnlearnConfig
from audit.models.encoding import QAEncoder
from audit.run.full_weights import FullWeights
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


class Unlearner:
    def __init__(self, model, encoder: QAEncoder, method: Method, config: UnlearnConfig, device,
                 gradient_filter: Callable[[torch.nn.Module], None] | None = None):
        config.check()
        if config.lr is None:
            raise ConfigError("no unlearning learning rate: set UnlearnConfig.lr "
                              "(audit.run.methods.default_unlearn_lr gives the default for a method and model)")
        self.lr: float = config.lr
        self.full = config.adapter == "full"
        self.model = FullWeights(model) if self.full else add_adapters(model, config)
        self.gradient_filter = gradient_filter   # called with the bare model after each backward pass
        self.encoder = encoder
        self.method = method
        self.config = config
        self.device = device
        # the adapters' initial values (full-parameter unlearning resets from its reference instead)
        self._initial = {} if self.full else {k: v.detach().clone() for k, v in self._adapter_state().items()}
        self.trained = False     # the adapters hold an unlearning (run, or loaded)

    @property
    def bare(self) -> torch.nn.Module:
        """The transformers model under the adapters or the wrapper (parameter names as saved)."""
        if isinstance(self.model, FullWeights):
            return self.model.model
        return self.model.get_base_model()

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
        forget_enc = [encode(self.encoder, item) for item in forget]
        retain_enc = [encode(self.encoder, item) for item in retain]
        pad, device = self.encoder.pad_id, self.device
        steps_per_epoch = -(-len(forget_enc) // cfg.batch_size)
        updates_per_epoch = -(-steps_per_epoch // cfg.grad_accum)
        # decoupled weight decay moves every weight: a gradient restricted to a mask trains without it
        optimizer, schedule = optimizer_and_schedule(
            [p for p in self.model.parameters() if p.requires_grad], self.lr,
            0.0 if self.gradient_filter is not None else cfg.weight_decay,
            warmup_steps=updates_per_epoch, total_steps=updates_per_epoch * cfg.epochs)

        start_epoch, done = 0, dict[str, Any]()
        if checkpoint is not None and checkpoint.exists():
            start_epoch, done = self._load_checkpoint(checkpoint, optimizer, schedule)
        pairing = pairing_log.open("a", encoding="utf-8") if pairing_log else None
        # A resumed run counts the work of the epochs before the kill too (kept in the checkpoint).
        tokens, steps, pairs = done.get("tokens", 0), done.get("steps", 0), done.get("pairs", 0)
        loss_value = float("nan")
        started = time.perf_counter() - done.get("seconds", 0.0)
        if loss_log is not None and "loss" in done:   # the last kept epoch's, if the kill came before its line
            loss_log(start_epoch, *done["loss"])
        self.model.train()
        try:
            with Progress(progress, total=cfg.epochs, initial=start_epoch, unit="epochs") as bar:
                for epoch in range(start_epoch + 1, cfg.epochs + 1):
                    epoch_started, epoch_loss = time.perf_counter(), []
                    seed_everything(cfg.seed * 100_003 + epoch)
                    order = epoch_order(len(forget_enc), cfg.seed, epoch)
                    forget_batches = batches(forget_enc, order, cfg.batch_size, pad, device)
                    for step, forget_batch in enumerate(forget_batches):
                        rows = order[step * cfg.batch_size:(step + 1) * cfg.batch_size]
                        batch, record = self._pair(forget_batch, rows, forget, forget_enc, retain, retain_enc,
                                                   refusals, epoch, step)
                        if pairing:
                            pairing.write(json.dumps(record) + "\n")
                        loss = method.loss(self.model, batch) / cfg.grad_accum
                        loss.backward()
                        if self.gradient_filter is not None:
                            self.gradient_filter(self.bare)
                        tokens += sum(int(part["attention_mask"].sum()) for part in
                                      (batch.forget, batch.retain, batch.refusal) if part is not None)
                        steps += 1
                        pairs += len(rows)
                        if (step + 1) % cfg.grad_accum == 0 or step + 1 == len(forget_batches):
                            optimizer.step()
                            schedule.step()
                            optimizer.zero_grad(set_to_none=True)
                        loss_value = loss.item() * cfg.grad_accum
                        epoch_loss.append(loss_value)
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
        self.model.eval()
        self.trained = True
        return UnlearnStats(cfg.epochs, steps, tokens, pairs, time.perf_counter() - started, loss_value, start_epoch)

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

    def _save_checkpoint(self, path: Path, epoch: int, optimizer, schedule, done: dict) -> None:
        tmp = path.with_name(path.name + ".tmp")
        torch.save({"epoch": epoch, "adapters": {k: v.detach().cpu() for k, v in self._adapter_state().items()},
                    "optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(), "done": done}, tmp)
        os.replace(tmp, path)

    def _load_checkpoint(self, path: Path, optimizer, schedule) -> tuple[int, dict]:
        state = torch.load(path, map_location=self.device, weights_only=True)
        with torch.no_grad():
            for name, p in self._adapter_state().items():
                p.copy_(state["adapters"][name])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        return int(state["epoch"]), dict(state.get("done", {}))
