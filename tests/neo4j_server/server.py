"""Start and stop the Neo4j 5 test server of this folder (pom.xml, TestServer.java).

Used by the test session (tests/conftest.py) and by the benchmarks that compare engines
(bench/bench_engines.py). ``make neo4j-server`` builds it once; afterwards it starts offline.

Example:
    >>> server = Neo4jTestServer(Path("/tmp/neo4j-work"))
    >>> info = server.start()            # ~10 s: a JVM, then Neo4j with APOC
    >>> info.uri, info.version
    ('bolt://127.0.0.1:40123', '5.26.18')
    >>> server.stop()                    # also happens when this process dies
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = HERE / "target"
BUILT = TARGET / ".built"          # written by `make neo4j-server` after a successful package
START_TIMEOUT_S = 180.0
USER = "neo4j"
DATABASE = "neo4j"


@dataclass(frozen=True)
class ServerInfo:
    """A running test server: its ports, version, and whether APOC loaded."""

    bolt_port: int
    http_port: int
    version: str
    apoc: bool
    password: str

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


def missing() -> str | None:
    """Why the server cannot start here (one line), or None when it can."""
    for tool in ("java", "mvn"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed: the Neo4j tests need Java 17 and Maven (tests/neo4j_server/README.md)"
    if not BUILT.exists():
        return "the Neo4j test server is not built: run `make neo4j-server` (Maven Central, once)"
    return None


class Neo4jTestServer:
    """Neo4j 5.26 Community in a child JVM, in its own work folder, on free loopback ports."""

    def __init__(self, workdir: Path, config: dict[str, str] | None = None, heap: str = "1g"):
        """``config``: settings as in neo4j.conf (``{"browser.post_connect_cmd": "..."}``);
        ``heap``: the JVM's maximum heap (transaction state lives there: Neo4j allows a
        transaction 70 % of it by default)."""
        self.workdir = Path(workdir)
        self.config = dict(config or {})
        self.heap = heap
        self._process: subprocess.Popen | None = None
        self._stderr_tail: list[str] = []

    def start(self, timeout_s: float = START_TIMEOUT_S) -> ServerInfo:
        """Start the server and wait until it prints its ports.

        Raises:
            RuntimeError: it is not built, or exited or timed out before it was ready
                (the message ends with the last lines it printed).
        """
        reason = missing()
        if reason:
            raise RuntimeError(reason)
        self.workdir.mkdir(parents=True, exist_ok=True)
        password = secrets.token_urlsafe(18)
        password_file = self.workdir / "password"
        fd = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(password + "\n")
        classpath = os.pathsep.join([str(TARGET / "classes"), str(TARGET / "lib" / "*"), str(TARGET / "plugins" / "*")])
        command = ["java", f"-Xmx{self.heap}", "-cp", classpath, "audit.neo4j.TestServer",
                   str(self.workdir / "db"), str(password_file), str(TARGET / "plugins"),
                   *(f"{name}={value}" for name, value in self.config.items())]
        # stdin stays an open pipe: the server exits when it closes, i.e. when we die
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        line = _readline(self._process, timeout_s)
        if not line:
            code = self._process.poll()
            self.stop()
            time.sleep(0.2)   # the last lines it printed
            how = f"exited with code {code}" if code is not None else f"did not start within {timeout_s:.0f} s"
            raise RuntimeError(f"the Neo4j test server {how}: " + " | ".join(self._stderr_tail[-5:]))
        ports = json.loads(line)
        return ServerInfo(ports["bolt"], ports["http"], ports["version"], ports["apoc"], password)

    @property
    def pid(self) -> int | None:
        """The server JVM's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def _drain_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        for line in self._process.stderr:
            self._stderr_tail = (self._stderr_tail + [line.rstrip()])[-40:]

    def stop(self, timeout_s: float = 60.0) -> None:
        """Close its input (it shuts the database down cleanly) and wait; kill if it hangs."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            process.stdin.close()
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _readline(process: subprocess.Popen, timeout_s: float) -> str:
    """The first line the process prints, or '' when it exits or the time runs out."""
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    return box[0].strip() if box else ""
