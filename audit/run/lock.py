"""One process per run: an exclusive lock on a file in the run's cache folder.

Held from the start of a run until it ends; the process's death frees it with it. A second
process given the same run id is refused at once, and `audit runs` can tell a run that is
`running` on the graph but whose process is gone (the lock is free). The lock holds between
processes of one machine and one cache folder.
"""

from __future__ import annotations

import fcntl
import os
import socket
from typing import TextIO
from pathlib import Path

from graphstore.errors import ConfigError


class RunLock:
    """The lock of one run (``<cache>/runs/<id>/run.lock``)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._handle: TextIO | None = None

    def acquire(self, run: str) -> None:
        """Hold the run for this process.

        Raises:
            ConfigError: another process holds it; the message names it.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise ConfigError(f"run {run!r} is running now ({holder}); wait for it to end (a later run with "
                              "the same id resumes or finds it done), or choose another --run-id") from None
        handle.truncate(0)
        handle.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()


def held(path: str | Path | None) -> bool | None:
    """Whether some process holds the lock at ``path`` now; None when that cannot be told here
    (no path recorded, or the file is not on this machine)."""
    if not path or not Path(path).is_file():
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False
    except OSError:
        return None
