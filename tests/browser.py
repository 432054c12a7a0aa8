"""A small DevTools-protocol client for headless Chromium: enough to load a page, watch what it
requests and logs, evaluate JavaScript and take a screenshot. Used by ``tests/audit/views/test_view.py``.

Chromium runs in its own process group and is always killed with it (``Chromium.close``).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
         "--remote-debugging-port=0"]
# No proxy from the environment: the DevTools endpoint is on this machine.
_LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Chromium:
    """A headless Chromium with a fresh profile in ``user_data_dir``."""

    def __init__(self, user_data_dir: Path, width: int = 1400, height: int = 900, timeout: float = 60):
        self.user_data_dir = Path(user_data_dir)
        self.user_data_dir.mkdir(parents=True, exist_ok=True)
        (self.user_data_dir / "DevToolsActivePort").unlink(missing_ok=True)   # a stale one from a reused folder
        self.process = subprocess.Popen(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={self.user_data_dir}", f"--window-size={width},{height}",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            self.port = self._port(timeout)
        except BaseException:
            self.close()
            raise

    def _port(self, timeout: float) -> int:
        marker = self.user_data_dir / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with code {self.process.returncode} before listening")
            if marker.exists():
                lines = marker.read_text().splitlines()
                if lines and lines[0].strip().isdigit():
                    return int(lines[0])
            time.sleep(0.05)
        raise TimeoutError(f"chromium wrote no {marker} within {timeout} s")

    def page(self, timeout: float = 30) -> Page:
        """A connection to the browser's first page target."""
        deadline = time.monotonic() + timeout
        while True:
            with _LOCAL.open(f"http://127.0.0.1:{self.port}/json/list", timeout=5) as reply:
                targets = [t for t in json.load(reply) if t.get("type") == "page"]
            if targets:
                return Page(targets[0]["webSocketDebuggerUrl"])
            if time.monotonic() > deadline:
                raise TimeoutError("chromium has no page target")
            time.sleep(0.1)

    def close(self) -> None:
        """Kill Chromium and every process it started (its process group)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.process.wait(timeout=10)
        try:   # helpers left in the group after the main process ended
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Page:
    """One page target: commands answered in order, events kept in ``events``."""

    def __init__(self, url: str):
        # Chromium refuses DevTools websockets that send an Origin header it does not allow.
        self.ws = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def send(self, method: str, timeout: float = 60, **params) -> dict:
        call = next(self.ids)
        self.ws.send(json.dumps({"id": call, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            message = json.loads(self.ws.recv())
            if message.get("id") == call:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression: str, await_promise: bool = False):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60, poll: float = 0.1):
        """Evaluate ``expression`` until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression!r} still false after {timeout} s")
            time.sleep(poll)

    def navigate(self, url: str, timeout: float = 120) -> None:
        """Load ``url`` and wait for its load event (the page's inline scripts have run); the events
        kept are from then on only this page's."""
        self.events.clear()
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not any(e["method"] == "Page.loadEventFired" for e in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not finish loading within {timeout} s")
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            message = json.loads(self.ws.recv())
            if "method" in message:
                self.events.append(message)

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path

    def named(self, *methods: str) -> list[dict]:
        return [e for e in self.events if e["method"] in methods]

    def close(self) -> None:
        self.ws.close()
