"""Progress of long work, wherever the output goes.

- On a terminal (stderr is a TTY): a tqdm bar that disappears when the phase ends.
- Off a terminal (CI, ``nohup``, a cluster job's log): plain lines on stderr, at most one every
  ``AUDIT_PROGRESS_INTERVAL`` seconds (default 30) within a phase, with the count, the last
  values set (loss, ...), the rate and the time left, and one line when the phase ends.
- Quiet (``audit --quiet``, or ``AUDIT_QUIET=1``): neither, and no phase lines either.

Every layer reports through this module (it lives in ``graphstore``, which imports nothing of
the others, so ``extract``, ``audit`` and ``cli`` can all use it).

    with Progress("unlearn (npo)", total=20, unit="epochs") as bar:
        for epoch in ...:
            bar.update(1, loss=f"{loss:.3f}")

Work that may stop before its ``total`` (injection stops when every edge is learnt) tells the
bar where it expects to stop, ``bar.expect(50)``: the time left is then the measured rate
against that, not against the cap.
"""

from __future__ import annotations

import os
import sys
import time

_quiet = os.environ.get("AUDIT_QUIET", "").lower() in ("1", "true", "yes")


def set_quiet(quiet: bool) -> None:
    """Silence progress bars, progress lines and phase lines (errors and results still print)."""
    global _quiet
    _quiet = quiet


def is_quiet() -> bool:
    return _quiet


def say(line: str) -> None:
    """A phase line on stderr (``starting run ...``, ``injection ...``), unless quiet."""
    if not _quiet:
        print(line, file=sys.stderr, flush=True)


def interval() -> float:
    """Seconds between progress lines off a terminal."""
    try:
        return max(0.0, float(os.environ.get("AUDIT_PROGRESS_INTERVAL", "30")))
    except ValueError:
        return 30.0


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    """One phase of work of ``total`` units (None: unknown). Use as a context manager."""

    def __init__(self, desc: str | None, total: int | None = None, unit: str = "items", initial: int = 0):
        """``desc=None``: silent (a caller that reports the phase itself)."""
        self.desc, self.total, self.unit = desc, total, unit
        self.expected: int | None = None   # where the work is expected to stop, before total (expect)
        self.count = self.initial = initial
        self.values: dict[str, str] = {}
        self.started = self.last_line = time.monotonic()
        self._bar = None
        shown = desc is not None and not _quiet
        self._lines = shown and not sys.stderr.isatty()
        if shown and sys.stderr.isatty():
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, leave=False, file=sys.stderr)

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(finished=kind is None)

    def update(self, n: int = 1, **values) -> None:
        """``n`` more units done; ``values`` (e.g. ``loss="0.123"``) are shown with the count."""
        self.count += n
        if values:
            self.set(**values)
        if self._bar is not None:
            if self._bar.total != self.end():   # passed the expected stop: back to the cap
                self._bar.total = self.end()
            self._bar.update(n)
        elif self._lines and time.monotonic() - self.last_line >= interval():
            self._write(self._status())

    def expect(self, total: int | None) -> None:
        """The work is expected to stop after ``total`` units, before the cap ``self.total``
        (None: at the cap): the time left is counted against it, while it is ahead. Lines keep
        showing ``n/cap``; a terminal bar shows ``n/expected``."""
        self.expected = None if total is None or self.total is None else min(total, self.total)
        if self._bar is not None:   # tqdm's own time left comes from its total
            self._bar.total = self.end()
            self._bar.refresh()

    def end(self) -> int | None:
        """Where the work is expected to stop: the expectation while it is still ahead, else the cap."""
        if self.expected is not None and self.expected >= self.count:
            return self.expected
        return self.total

    def set(self, **values) -> None:
        self.values.update({k: str(v) for k, v in values.items()})
        if self._bar is not None:
            self._bar.set_postfix(self.values, refresh=False)

    def close(self, finished: bool = True) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._lines and finished:
            elapsed = time.monotonic() - self.started
            done = self.count - self.initial
            extra = "".join(f", {k} {v}" for k, v in self.values.items())
            self._write(f"{self.desc}: done, {self.count} {self.unit} in {duration(elapsed)}"
                        f"{f' ({done / elapsed:.3g} {self.unit}/s)' if elapsed > 0 and done else ''}{extra}")
            self._lines = False

    def _status(self) -> str:
        elapsed = time.monotonic() - self.started
        done = self.count - self.initial
        rate = done / elapsed if elapsed > 0 else 0.0
        of = f"/{self.total}" if self.total is not None else ""
        parts = [f"{self.desc}: {self.count}{of} {self.unit}"]
        parts += [f"{k} {v}" for k, v in self.values.items()]
        if rate > 0:
            parts.append(f"{rate:.3g} {self.unit}/s")
            end = self.end()
            if end is not None and end > self.count:
                parts.append(f"ETA {duration((end - self.count) / rate)}"
                             + (f" (expected to stop at {end})" if end != self.total else ""))
        return ", ".join(parts)

    def _write(self, line: str) -> None:
        print(line, file=sys.stderr, flush=True)
        self.last_line = time.monotonic()
