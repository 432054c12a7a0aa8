"""Writing a file whole or not at all: into a temporary file beside it, renamed over it at the end."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from graphstore.errors import ConfigError


@contextlib.contextmanager
def atomic_output(path: Path, what: str) -> Iterator[BinaryIO]:
    """A binary file that replaces ``path`` when the block ends without error; on any error the
    temporary file is removed and ``path`` is untouched, so a reader never sees half a file.

    Raises:
        ConfigError: the file cannot be written; the message names it and ``what`` it holds.
    """
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise ConfigError(f"{path}: cannot write the {what} there: {e.strerror or e}") from e
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        mask = os.umask(0)  # the only portable way to read the umask is to set it and put it back
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise ConfigError(f"{path}: cannot write the {what}: {e.strerror or e}") from e
        raise
