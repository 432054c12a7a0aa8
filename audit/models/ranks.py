"""One training run over several processes (data parallel): ``torchrun`` or ``accelerate launch``.

Launched with N processes (``torchrun --nproc_per_node N -m cli.main run ...``, or
``accelerate launch --multi_gpu --num_processes N -m cli.main run ...``), rank 0 is the
*driver*: it runs the command as one process would (plan, graph reads and writes, measures, run
folder). The other ranks are *followers*: they run no command; they wait for the driver to lead
them into a training loop (``lead``), run the same loop on their share of every batch, and wait
again (``follow``). Only injection and unlearning are led; everything else runs on the driver.

Exactness. Every rank builds the whole batch (data order and pairing are pure functions of
(seed, epoch, step)), takes its rows (``take``), and computes its share of the loss against the
whole batch's denominators: a token mean divides its rows' token sum by the batch's answer
tokens, an example mean divides its rows' sum by the batch's rows. The ranks' gradients are then
summed (``sum_gradients``: an all-reduce, DDP's arithmetic, issued once per optimizer step and
not overlapped with the backward pass), so every rank steps with the one-process gradient up to
float rounding, and the optimizers stay equal. A rank whose share of a batch is empty adds zeros.
Before each loop the driver's trained weights are broadcast (``broadcast``): a reset, a resume
or a loaded adapter on the driver is what every rank starts from.

Sharded (``AUDIT_FSDP=1``, or ``accelerate launch --use_fsdp``): the loops train a copy of the
model sharded over the ranks (``audit.models.sharded``); the shares and denominators are the
same, FSDP's reduce-scatter sums the gradients, and every rank computes every step (``GHOST``).

One process (no launcher) is ``SINGLE``: every call here is then a no-op and the loops are
unchanged, bit for bit.
"""

from __future__ import annotations

import datetime
import gc
import importlib
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from audit.models.sharded import forget_meshes, requested as sharding_requested, settings as sharding_settings
from audit.models.encoding import IGNORE
from audit.models.load import launched, set_cpu_threads
from graphstore.errors import ConfigError

log = logging.getLogger(__name__)

# Keys ``take`` adds to a batch part: the whole batch's denominators (see the module docstring).
BATCH_TOKENS = "batch_answer_tokens"
BATCH_ROWS = "batch_rows"
GHOST = "ghost"   # a sharded run's rank without a row of a batch computes row 0 with weight zero
_STOP = "stop"
BUCKET_ELEMENTS = 2 ** 24   # gradients summed per all-reduce: 64 MB in float32 (DDP's buckets are 25 MB)
_in_loop = False   # the driver is inside a loop it led (set by ``lead``, cleared by ``loop_done``)


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world: int = 1
    sharded: bool = False   # the loops train a sharded copy of the model (audit.models.sharded)

    @property
    def driver(self) -> bool:
        return self.rank == 0

    @property
    def parallel(self) -> bool:
        return self.world > 1

    # -- a batch's share ----------------------------------------------------------------------
    def rows(self, n: int) -> range:
        """This rank's rows of a batch of ``n``: contiguous, sizes differing by at most one
        (rank r of W takes rows [r*n//W, (r+1)*n//W)); empty when n < W for some ranks."""
        return range(self.rank * n // self.world, (self.rank + 1) * n // self.world)

    def take(self, part: dict | None) -> dict | None:
        """This rank's rows of one batch part (``{input_ids, attention_mask, labels}``), with
        the whole part's answer tokens and rows (``BATCH_TOKENS``, ``BATCH_ROWS``) for the
        losses to divide by; None when the rank has no row of it, except in a sharded run, where
        every rank computes every step: row 0, marked ``GHOST`` (its loss is weighted zero,
        ``weight``). One process: the part as it is."""
        if part is None or not self.parallel:
            return part
        labels = part["labels"]
        rows = self.rows(labels.shape[0])
        ghost = not len(rows) and self.sharded
        if ghost:
            rows = range(0, 1)
        if not len(rows):
            return None
        share: dict[str, Any] = {k: v[rows.start:rows.stop] for k, v in part.items()}
        if ghost:
            share[GHOST] = True
        # the positions a loss scores: position t predicts token t + 1, so column 0 is never scored
        share[BATCH_TOKENS] = int((labels[:, 1:] != IGNORE).sum())
        share[BATCH_ROWS] = labels.shape[0]
        return share

    @staticmethod
    def weight(share: dict) -> float:
        """What a share's loss counts for: 0 for a ``GHOST`` row, else 1."""
        return 0.0 if share.get(GHOST) else 1.0

    @property
    def gradient_scale(self) -> float:
        """What a loss is multiplied by before its backward pass: FSDP's reduce-scatter divides
        the gradients' sum by the ranks, and the losses are already shares of the batch's mean."""
        return float(self.world) if self.sharded else 1.0

    # -- collectives (no-ops in one process) --------------------------------------------------
    def sum_gradients(self, params: Iterable[torch.Tensor]) -> None:
        """Sum the trained parameters' gradients over the ranks (a missing one counts as zeros).
        A sharded run's backward pass has summed them already."""
        if not self.parallel or self.sharded:
            return
        params = list(params)
        if not params:
            return
        # which parameters had a gradient on some rank: one that had none anywhere stays without
        # one, as in one process (AdamW skips it: no step, no decay)
        had = torch.tensor([p.grad is not None for p in params], dtype=torch.float32, device=params[0].device)
        dist.all_reduce(had, op=dist.ReduceOp.SUM)
        bucket: list[torch.Tensor] = []
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            if bucket and (p.grad.dtype != bucket[0].dtype or sum(g.numel() for g in bucket) >= BUCKET_ELEMENTS):
                _sum_bucket(bucket)
                bucket = []
            bucket.append(p.grad)
        if bucket:
            _sum_bucket(bucket)
        for p, anywhere in zip(params, had.tolist()):
            if not anywhere:
                p.grad = None

    def broadcast(self, params: Iterable[torch.Tensor]) -> None:
        """Every rank's tensors set to the driver's."""
        if not self.parallel:
            return
        with torch.no_grad():
            for p in params:
                dist.broadcast(p.data, src=0)

    def sum_floats(self, values: list[float], device) -> list[float]:
        """Each value summed over the ranks (the ranks' shares of a loss make the loss)."""
        if not self.parallel or not values:
            return values
        t = torch.tensor(values, dtype=torch.float64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return t.tolist()

    def share(self, value: Any = None) -> Any:
        """The driver's ``value`` on every rank (a picklable object)."""
        if not self.parallel:
            return value
        box = [value if self.driver else None]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    # -- the driver leads, the followers follow -----------------------------------------------
    def lead(self, handler: str, payload: Any) -> None:
        """Driver: take the followers into a loop, ``handler`` (``module:function``) called on
        each of them with ``payload``; the driver then runs the same loop itself, and says
        ``loop_done`` at its end."""
        global _in_loop
        if self.parallel and self.driver:
            self.share((handler, payload))
            _in_loop = True

    def loop_done(self) -> None:
        """The led loop ended on this rank: the followers wait for the next one."""
        global _in_loop
        _in_loop = False

    def follow(self) -> None:
        """Follower: run each loop the driver leads into, until it releases the followers."""
        while True:
            job = self.share()
            if job == _STOP:
                dist.barrier()   # with the driver's: neither leaves the group while a message is in flight
                return
            handler, payload = job
            module, _, function = handler.partition(":")
            getattr(importlib.import_module(module), function)(self, payload)

    def release(self) -> None:
        """Driver: the command is over; the followers return from ``follow``. Not from inside a
        loop that failed on the driver: the followers are in its collectives, and the launcher
        stops them when the driver exits with its error."""
        if self.parallel and self.driver and not _in_loop:
            self.share(_STOP)
            dist.barrier()


def _sum_bucket(grads: list[torch.Tensor]) -> None:
    """One all-reduce for several gradients (one per tensor costs a round trip each: a LoRA
    model has hundreds), through a flat copy of them."""
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    start = 0
    for g in grads:
        g.copy_(flat[start:start + g.numel()].view_as(g))
        start += g.numel()


SINGLE = Ranks()
_current: Ranks | None = None
_kept: dict[str, Any] = {}   # a follower's objects between the loops it is led into (its unlearner)


def kept(key: str) -> Any:
    """What this follower kept under ``key`` (None when nothing)."""
    return _kept.get(key)


def keep(key: str, value: Any) -> None:
    _kept[key] = value


def drop_kept() -> None:
    """Drop what this follower kept (a model, and a full-weights reference copy) before another
    model is loaded: the driver has moved on to another run."""
    if _kept:
        _kept.clear()
        gc.collect()   # peft and FullWeights hold reference cycles
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


def current() -> Ranks:
    """This process's place among the launched ones (``SINGLE`` without a launcher); the first
    call joins the process group: NCCL with CUDA devices, else gloo."""
    global _current
    if _current is not None:
        return _current
    if not launched():
        _current = SINGLE
        return _current
    if os.environ.get("ACCELERATE_USE_DEEPSPEED", "").lower() in ("1", "true", "yes"):
        raise ConfigError("ACCELERATE_USE_DEEPSPEED is set: DeepSpeed is not supported; shard with FSDP instead "
                          "(accelerate launch --use_fsdp, or AUDIT_FSDP=1 under torchrun; docs/scale.md)")
    shard = sharding_requested()
    if shard:
        sharding_settings()   # a setting this tool does not honour: refused before anything starts
    set_cpu_threads()   # a follower too: AUDIT_THREADS, else what the load leaves
    if not dist.is_initialized():
        cuda = torch.cuda.is_available() and os.environ.get("ACCELERATE_USE_CPU", "").lower() not in ("1", "true")
        if cuda:
            if local_rank() >= torch.cuda.device_count():
                raise ConfigError(f"process {local_rank()} of this machine has no GPU of its own: torch sees "
                                  f"{torch.cuda.device_count()}; launch at most that many processes per machine")
            torch.cuda.set_device(local_rank())
        # the followers wait in a collective while the driver measures (minutes to hours on a large
        # model): the launcher, not a timeout, ends a run whose process died
        # gloo for CPU tensors too (--device cpu on a GPU machine), NCCL for CUDA ones
        try:
            dist.init_process_group("cpu:gloo,cuda:nccl" if cuda else "gloo",
                                    timeout=datetime.timedelta(seconds=wait_seconds()))
        except (ValueError, RuntimeError) as e:   # WORLD_SIZE without the rest of a launcher's variables
            raise ConfigError(f"WORLD_SIZE={os.environ.get('WORLD_SIZE')} says this process is one of several, but it "
                              f"cannot join them ({' '.join(str(e).split())[:160]}); start it with torchrun or "
                              "accelerate launch, or unset WORLD_SIZE") from e
    _current = Ranks(dist.get_rank(), dist.get_world_size(), shard)
    log.info("rank %d of %d (%s%s)", _current.rank, _current.world, dist.get_backend(), ", sharded" if shard else "")
    return _current


def local_rank() -> int:
    """This process's index on its machine (the GPU it takes)."""
    return int(os.environ.get("LOCAL_RANK", "0"))


def local_device(device: torch.device) -> torch.device:
    """The driver's ``device`` on this rank's machine: its own GPU for a CUDA device."""
    return torch.device("cuda", local_rank()) if device.type == "cuda" else device


def shared_folder(folder: Path) -> None:
    """Check that a folder the driver wrote is here too (a follower on another machine).

    Raises:
        ConfigError: it is not: the cache is not on a file system the machines share.
    """
    if not folder.is_dir():
        raise ConfigError(f"{folder}, which the driver wrote, is not on this machine: a run launched over several "
                          "machines needs its --cache-dir on a file system they all mount (docs/scale.md)")


def wait_seconds() -> int:
    """How long a rank waits in a collective (``AUDIT_RANKS_TIMEOUT``, seconds; default a day).

    Raises:
        ConfigError: the variable is not a whole number of seconds.
    """
    given = os.environ.get("AUDIT_RANKS_TIMEOUT", "86400")
    if not given.isdigit() or int(given) < 1:
        raise ConfigError(f"AUDIT_RANKS_TIMEOUT={given!r}: expected a whole number of seconds, 1 or more")
    return int(given)


def close() -> None:
    """Leave the process group (at the end of a launched command)."""
    global _current
    forget_meshes()
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
    _current = None
