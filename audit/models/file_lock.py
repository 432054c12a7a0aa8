"""An exclusive lock on a file, waited for: one process at a time does a piece of cached work.

    with exclusive(cache / "injected" / f".{key}.lock"):
        if not done(): do_it()     # a second process waits here, then finds it done

It holds between the processes of one machine (and of machines sharing a file system with
working ``flock``: NFS v4 does); the lock goes with the process that holds it, so a killed
process never leaves it held.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def exclusive(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
