"""Loading a causal LM and its tokenizer, wherever the hardware is.

Any Hugging Face causal LM by local path (or hub id where the hub is reachable), a GGUF file or
an installed model package (converted once: ``audit/models/pretrained.py``): bf16 on a
CUDA device that supports it, float32 on CPU. Errors a user can act on become ``ConfigError``
with what to do.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
from dataclasses import dataclass
from pathlib import Path

import torch

from audit.models import pretrained
from graphstore.errors import ConfigError

log = logging.getLogger(__name__)


def quiet_transformers() -> None:
    """Our own progress bars report loading and training; transformers' per-shard bars and
    deprecation notices about its own internals only add noise to a run's output."""
    import warnings

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"transformers\..*")


@dataclass(frozen=True)
class Hardware:
    device: torch.device
    dtype: torch.dtype

    @property
    def label(self) -> str:
        """What ran: the GPU's name, or ``cpu, <threads> thread(s), <CPU model>``, and the dtype."""
        if self.device.type == "cuda":
            name = torch.cuda.get_device_name(self.device)
        else:   # the thread count changes the order of float additions: part of what ran
            name = f"cpu, {torch.get_num_threads()} thread(s), {cpu_model()}"
        return f"{name} ({str(self.dtype).removeprefix('torch.')})"


def cpu_model() -> str:
    """The CPU's model name: /proc/cpuinfo's ``model name`` (Linux), else what ``platform``
    says (the architecture at least), else ``unknown CPU``."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            name, sep, value = line.partition(":")
            if sep and name.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass   # no /proc (macOS, Windows): platform's answer below
    return platform.processor() or platform.machine() or "unknown CPU"


def cpu_threads(cores: int | None = None, load: float | None = None) -> int:
    """Torch's intra-op threads for a process starting now: the cores the other processes leave
    free (``cores`` minus the 1-minute load average, rounded), at least 1. torch's default is one
    thread per core whatever the load; on a shared machine at load 9 that made training 15x slower
    than one thread, and on 2 cores with one busy, two threads were slower than one
    (docs/benchmarks.md, "Threads under load")."""
    if cores is None:   # the cores this process may run on; macOS has no affinity call
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):   # Windows has no load average: as if quiet
            load = 0.0
    return max(1, min(cores, round(cores - load)))


_threads_set = False


def launched() -> bool:
    """This process is one of several started by a launcher (``WORLD_SIZE`` > 1: torchrun,
    accelerate launch; ``audit.models.ranks``)."""
    try:
        return int(os.environ.get("WORLD_SIZE", "1")) > 1
    except ValueError:
        return False


def threads_given() -> int | None:
    """The thread count ``AUDIT_THREADS`` gives, or None when it is not set.

    Raises:
        ConfigError: it is set to anything but a whole number of at least 1.
    """
    given = os.environ.get("AUDIT_THREADS")
    if not given:
        return None
    if not given.isascii() or not given.isdigit() or int(given) < 1:
        raise ConfigError(f"AUDIT_THREADS={given!r}: expected a whole number of threads, 1 or more")
    return int(given)


def set_cpu_threads() -> None:
    """Once per process, before it adds load of its own: ``AUDIT_THREADS`` when given, torch's
    own choice when ``OMP_NUM_THREADS`` is set, else ``cpu_threads()``."""
    global _threads_set
    if _threads_set:
        return
    given = threads_given()
    if given is not None:
        torch.set_num_threads(given)
    elif not os.environ.get("OMP_NUM_THREADS"):
        torch.set_num_threads(cpu_threads())
    _threads_set = True
    log.info("torch uses %d CPU thread(s)", torch.get_num_threads())


def select_hardware(requested: str = "auto") -> Hardware:
    """``auto``: CUDA when present, else CPU. bf16 on CUDA when supported, float32 otherwise.
    The CPU's thread count is chosen by the load (``cpu_threads``), once per process."""
    set_cpu_threads()
    one_of_several = launched() and bool(os.environ.get("LOCAL_RANK"))
    if requested.startswith("cuda:") and one_of_several:
        raise ConfigError(f"--device {requested}: in a launched run each process takes the GPU of its LOCAL_RANK; "
                          "give --device auto or cuda")
    if requested in ("auto", "cuda") and one_of_several and torch.cuda.is_available():
        requested = f"cuda:{os.environ['LOCAL_RANK']}"   # this process's GPU of its machine
    elif requested == "auto":
        requested = "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"--device {requested}: no CUDA device is visible to torch "
                          f"(torch {torch.__version__}); use --device cpu or install a CUDA build of torch")
    try:
        device = torch.device(requested)
    except RuntimeError as e:
        raise ConfigError(f"--device {requested!r} is not a device torch knows; try auto, cpu or cuda:0") from e
    if device.type == "cuda":
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    else:
        dtype = torch.float32
    return Hardware(device, dtype)


# Files of which a saved tokenizer has at least one (fast, SentencePiece, or BPE vocabulary).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt", "spiece.model")
# What --model takes, said where a model is refused.
MODEL_CHOICES = ("a folder written by save_pretrained, a hub id, a .gguf file, a model package (audit models) "
                 "or scratch[:SIZE]")


def load_tokenizer(path: str):
    """The tokenizer of a model folder or hub id, padding on the left.

    Raises:
        ConfigError: none can be loaded; a local folder without tokenizer files is named as such
            (transformers would blame a missing sentencepiece package).
    """
    from transformers import AutoTokenizer

    quiet_transformers()
    path = pretrained.resolve(path)
    folder = Path(path)
    if folder.is_dir() and not any((folder / name).exists() for name in TOKENIZER_FILES):
        raise ConfigError(f"cannot load a tokenizer from {path}: the folder has none of "
                          f"{', '.join(TOKENIZER_FILES)}; save the tokenizer beside the model "
                          "(tokenizer.save_pretrained(folder))")
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
    except (OSError, ValueError, ImportError) as e:
        # transformers' messages run to paragraphs: the first sentence is the cause
        cause = " ".join(str(e).split()).split(". ")[0].rstrip(".")
        raise ConfigError(f"cannot load a tokenizer from {path}: {cause[:160]}. Give a Hugging Face model folder "
                          "(with tokenizer.json or tokenizer.model) or a hub id") from e
    if tokenizer.eos_token_id is None:
        raise ConfigError(f"the tokenizer of {path!r} has no end-of-sequence token; answers cannot be "
                          "terminated. Set eos_token in its tokenizer_config.json")
    if tokenizer.pad_token_id is None:
        # Padding positions are masked everywhere (attention mask and -100 labels), so the
        # end-of-sequence token is a safe pad, as is usual for Llama-family tokenizers.
        log.info("tokenizer of %s has no pad token; using its end-of-sequence token %r as pad",
                 path, tokenizer.eos_token)
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return tokenizer


def check_model_path(path: str) -> None:
    """Refuse a local model path that does not exist (a bare name may still be a hub id), a
    folder or file that is not a Hugging Face model folder, and a model package that is not
    installed: before a run starts, so that none is left ``failed`` by it."""
    if pretrained.is_pretrained_spec(path):
        quiet_transformers()
        pretrained.resolve(path)
        return
    local = Path(path)
    if (local.is_absolute() or path.startswith(".")) and not local.exists():
        raise ConfigError(f"model folder {path!r} does not exist; give a Hugging Face model folder "
                          "(config.json + weights), a hub id, or scratch[:SIZE]")
    if local.is_dir() and not (local / "config.json").is_file():
        raise ConfigError(f"--model {path}: no config.json there, so not a Hugging Face model folder; give "
                          f"{MODEL_CHOICES}")
    if local.is_file():
        raise ConfigError(f"--model {path}: a file, not a model folder; give {MODEL_CHOICES}")


def load_model(path: str, hardware: Hardware, gradient_checkpointing: bool = False, meta: bool = False):
    """The causal LM in ``path`` on the hardware's device and in its dtype; ``meta``: its modules
    only, every weight on the meta device (a sharded run's follower, audit.models.sharded)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    check_model_path(path)
    path = pretrained.resolve(path)   # converted by check_model_path, quietly
    try:
        if meta:
            with torch.device("meta"):
                model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(path), dtype=hardware.dtype)
        else:
            model = AutoModelForCausalLM.from_pretrained(path, dtype=hardware.dtype)
    except (OSError, ValueError) as e:
        raise ConfigError(f"cannot load a causal LM from {path!r}: {e}") from e
    if not meta:
        model.to(hardware.device)
    if gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.config.use_cache = False
    return model


def fingerprint(path: str) -> str:
    """A short content fingerprint of a model folder (config + weight file names and sizes),
    so a cached injected model is reused only for the same base model."""
    quiet_transformers()
    path = pretrained.resolve(path)
    folder = Path(path)
    h = hashlib.sha256(str(path).encode())
    if folder.is_dir():
        config = folder / "config.json"
        if config.exists():
            h.update(config.read_bytes())
        for f in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin")):
            h.update(f"{f.name}:{f.stat().st_size}".encode())
    return h.hexdigest()[:16]
