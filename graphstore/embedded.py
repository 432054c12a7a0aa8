"""The embedded default: an ArcadeDB server with its Bolt plugin, kept in a store folder.

No Neo4j server can be installed on our machines, so when no URI is given the store runs
``arcadedb-embedded`` (a bundled JRE, the engine and a Bolt plugin) in a small background
process and talks to it over Bolt with the official driver, exactly as to Neo4j.

Why a background process and not the JVM inside the CLI process: every ``audit`` command
is a new process, and a JVM plus the engine take ~2 s to start. The server outlives one
command and serves the next at once; every process that opens the same store folder shares
that one server over Bolt, so two processes never open the database files themselves.

The store folder holds::

    credentials      generated password of the administrator (root), mode 0600
    reader_credentials  generated password of the read-only user (reader), mode 0600
    server.json      pid and ports of the running server (written once it is ready)
    server.lock      held (flock) by the server process for its whole life
    start.lock       held while one process starts the server, so two never race
    last_used        touched by clients; the server exits after an idle timeout
    server.log       what the server process printed
    arcadedb/        the engine's own folder (databases, config, logs)
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from graphstore.errors import EmbeddedServerError
from graphstore.settings import DEFAULT_QUERY_TIMEOUT_S

USER = "root"  # ArcadeDB's administrator; the password is ours, generated per store
# The read-only user: every read-only query runs as this user, and the engine refuses its
# writes (docs/schema.md, "Read-only"). Its group may read records of the database, nothing else.
READER_USER, READER_GROUP = "reader", "reader"
# LOAD CSV from file: URLs is refused unless this is 1 (it reads any file the server can).
ENV_ALLOW_FILE_URLS = "AUDIT_EMBEDDED_ALLOW_FILE_URLS"
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0
DEFAULT_IDLE_TIMEOUT_S = 1800
ENV_IDLE_TIMEOUT = "AUDIT_EMBEDDED_IDLE_TIMEOUT"
ENV_HEAP = "AUDIT_EMBEDDED_HEAP"

_DAEMON_MODULE = "graphstore._embedded_daemon"
# Processes this Python process started: waited for on stop, so none is left a zombie.
_children: dict[int, subprocess.Popen] = {}


def idle_timeout_s() -> float:
    """The idle timeout servers started now get (``AUDIT_EMBEDDED_IDLE_TIMEOUT``; 0 = never)."""
    try:
        return float(os.environ.get(ENV_IDLE_TIMEOUT, str(DEFAULT_IDLE_TIMEOUT_S)))
    except ValueError:
        return float(DEFAULT_IDLE_TIMEOUT_S)


class Heartbeat:
    """Touches ``last_used`` every quarter of the idle timeout (at most every minute) from a
    daemon thread, until ``stop()``: a store open in a live process keeps its server; a
    process that dies stops beating, and the server's idle clock runs again."""

    def __init__(self, server: "EmbeddedServer"):
        timeout = idle_timeout_s()
        self.interval = min(60.0, max(0.5, timeout / 4)) if timeout > 0 else 60.0
        self._server = server
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="audit-store-heartbeat", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stopped.wait(self.interval):
            self._server.touch()

    def stop(self) -> None:
        self._stopped.set()


@dataclass(frozen=True)
class ServerInfo:
    """A running embedded server, as recorded in ``server.json``."""

    pid: int
    bolt_port: int
    http_port: int
    database: str
    engine_version: str
    store_dir: Path
    query_timeout_s: float = 0.0   # the engine's command timeout, set when the server started (0: none)

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"


class EmbeddedServer:
    """Start, find and stop the embedded server of one store folder.

    Example:
        >>> server = EmbeddedServer(Path(".audit"))
        >>> info = server.ensure_running()          # fast when it is already up
        >>> info.uri, server.password()
        ('bolt://127.0.0.1:40123', '...')
        >>> server.stop()                           # no Java process is left behind
    """

    def __init__(self, store_dir: Path, database: str = "audit", query_timeout_s: float = DEFAULT_QUERY_TIMEOUT_S):
        self.store_dir = Path(store_dir).resolve()
        self.database = database
        # Every statement the server runs stops after this many seconds (0: no limit). The
        # engine's setting is the server's, taken when it starts: a running server keeps its own.
        self.query_timeout_s = query_timeout_s

    # -- files -----------------------------------------------------------------------
    @property
    def _state_file(self) -> Path:
        return self.store_dir / "server.json"

    @property
    def _credentials_file(self) -> Path:
        return self.store_dir / "credentials"

    @property
    def log_file(self) -> Path:
        return self.store_dir / "server.log"

    def password(self) -> str:
        """The administrator's generated password, created on first use (owner-only file)."""
        return self._secret(self._credentials_file)

    def reader_password(self) -> str:
        """The read-only user's generated password, created on first use (owner-only file)."""
        return self._secret(self.store_dir / "reader_credentials")

    def _secret(self, path: Path) -> str:
        self._make_store_dir()
        if not path.exists():
            _make_secret(path)
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            raise EmbeddedServerError(f"{path} is readable by others (mode {mode:o}); run: chmod 600 {path}")
        try:
            secret = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:   # a folder, unreadable, not text
            raise EmbeddedServerError(
                f"cannot read the password file {path} ({type(e).__name__}: {e}). Remove it: a new password "
                f"is made, and the server takes it when it next starts (`audit server stop --store "
                f"{self.store_dir}` first)") from None
        if not secret or not secret.isprintable():
            raise EmbeddedServerError(f"the password file {path} is empty or not one line of text. Remove it: a "
                                      "new password is made, and the server takes it when it next starts "
                                      f"(`audit server stop --store {self.store_dir}` first)")
        return secret

    def _make_store_dir(self) -> None:
        """The store folder, private to its owner: a folder made beforehand with wider modes
        (755) is narrowed to 700, or the database files inside would be readable by others."""
        try:
            self.store_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            if self.store_dir.stat().st_mode & 0o077 and self.store_dir.stat().st_uid == os.getuid():
                self.store_dir.chmod(0o700)
        except OSError as e:
            raise EmbeddedServerError(f"cannot create store folder {self.store_dir}: {e}") from e

    def touch(self) -> None:
        """Mark the store as in use now (the server's idle clock restarts)."""
        with contextlib.suppress(OSError):
            (self.store_dir / "last_used").touch()

    def heartbeat(self) -> "Heartbeat":
        """Keep the server's idle clock from running out while a client holds the store open
        but sends nothing (an hour of training between two queries). Stop it on close."""
        return Heartbeat(self)

    # -- state ---------------------------------------------------------------------------
    def running(self) -> ServerInfo | None:
        """The server of this store if it is up and answering, else None."""
        try:
            raw = json.loads(self._state_file.read_text(encoding="utf-8"))
            info = ServerInfo(
                pid=int(raw["pid"]),
                bolt_port=int(raw["bolt_port"]),
                http_port=int(raw["http_port"]),
                database=str(raw["database"]),
                engine_version=str(raw.get("engine_version", "")),
                store_dir=self.store_dir,
                query_timeout_s=float(raw.get("query_timeout_s", 0.0)),
            )
        except (OSError, ValueError, KeyError):
            return None
        if not _is_our_daemon(info.pid) or not _port_open(info.bolt_port):
            return None
        return info

    def ensure_running(self, timeout_s: float = START_TIMEOUT_S) -> ServerInfo:
        """Return the running server, starting it first if needed.

        Raises:
            EmbeddedServerError: the server did not come up; the message carries the end
                of its log.
        """
        info = self.running()
        if info is not None:
            self.touch()
            return info
        self.password()  # both created before the server reads them
        self.reader_password()
        with self._start_lock(timeout_s):
            info = self.running()  # another process may have started it meanwhile
            if info is None:
                info = self._spawn_and_wait(timeout_s)
        self.touch()
        return info

    @contextlib.contextmanager
    def _start_lock(self, timeout_s: float):
        self._make_store_dir()
        with open(self.store_dir / "start.lock", "w") as lock:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise EmbeddedServerError(
                            f"another process has been starting the server of {self.store_dir} "
                            f"for over {timeout_s:.0f} s; see {self.log_file}"
                        ) from None
                    time.sleep(0.1)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _spawn_and_wait(self, timeout_s: float) -> ServerInfo:
        with contextlib.suppress(FileNotFoundError):
            self._state_file.unlink()
        with contextlib.suppress(FileNotFoundError):
            (self.store_dir / "stop.request").unlink()
        idle = os.environ.get(ENV_IDLE_TIMEOUT, str(DEFAULT_IDLE_TIMEOUT_S))  # the daemon checks it
        cmd = [
            sys.executable, "-m", _DAEMON_MODULE,
            "--store", str(self.store_dir),
            "--database", self.database,
            "--idle-timeout", idle,
            "--query-timeout", repr(float(self.query_timeout_s)),
        ]
        heap = os.environ.get(ENV_HEAP)
        if heap:
            cmd += ["--heap", heap]
        log = open(self.log_file, "ab")
        try:
            # A new session: the server survives the command that started it and is not
            # hit by that terminal's Ctrl-C.
            proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, cwd=self.store_dir,
            )
        finally:
            log.close()
        _children[proc.pid] = proc
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                _children.pop(proc.pid, None)
                raise EmbeddedServerError(
                    f"the embedded server of {self.store_dir} exited with code {proc.returncode} "
                    f"while starting:\n{self._log_tail()}"
                )
            info = self.running()
            if info is not None and info.pid == proc.pid:
                return info
            time.sleep(0.1)
        self._kill(proc.pid)
        raise EmbeddedServerError(
            f"the embedded server of {self.store_dir} did not answer within {timeout_s:.0f} s:\n"
            f"{self._log_tail()}"
        )

    def _log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.rstrip().splitlines()[-lines:])

    # -- stop ------------------------------------------------------------------------------
    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> bool:
        """Stop the server of this store; return whether one was running.

        Asks politely first (a stop file the server polls: it closes the database and exits),
        then SIGTERM (the JVM's shutdown hooks close the database), then SIGKILL.
        """
        pid = self._recorded_pid()
        if pid is None or not _is_our_daemon(pid):
            self._clear_state()
            return False
        (self.store_dir / "stop.request").touch()
        if not self._wait_gone(pid, timeout_s):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            if not self._wait_gone(pid, 10.0):
                self._kill(pid)
        self._clear_state()
        return True

    def _recorded_pid(self) -> int | None:
        try:
            return int(json.loads(self._state_file.read_text(encoding="utf-8"))["pid"])
        except (OSError, ValueError, KeyError):
            return None

    def _clear_state(self) -> None:
        for name in ("server.json", "stop.request"):
            with contextlib.suppress(FileNotFoundError):
                (self.store_dir / name).unlink()

    def _wait_gone(self, pid: int, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            child = _children.get(pid)
            if child is not None and child.poll() is not None:
                _children.pop(pid, None)
            if not pid_alive(pid):
                return True
            time.sleep(0.1)
        return False

    def _kill(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        self._wait_gone(pid, 10.0)


def pid_alive(pid: int) -> bool:
    """True for a live process; a zombie (exited, not yet reaped) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _is_our_daemon(pid: int) -> bool:
    """The pid is alive and is our server, not another process that reused the pid."""
    if not pid_alive(pid):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc (macOS): trust the pid
    return _DAEMON_MODULE.encode() in cmdline


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _make_secret(path: Path) -> None:
    """A new password at ``path`` (owner-only), whole or not at all: staged, then linked into place
    (another process's, made meanwhile, is kept). Made in place, it would be empty for a moment."""
    staging = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    staging.unlink(missing_ok=True)
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(secrets.token_urlsafe(24) + "\n")
        try:
            os.link(staging, path)
        except FileExistsError:
            pass
    finally:
        staging.unlink(missing_ok=True)
