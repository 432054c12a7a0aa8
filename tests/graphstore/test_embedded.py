"""The embedded default: a real ArcadeDB server with Bolt, one per store folder."""

from __future__ import annotations

import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphstore.embedded import EmbeddedServer, pid_alive


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a socket listening on ``port``, read from /proc/net/tcp."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, port_hex = local.rsplit(":", 1)
            if state == "0A" and int(port_hex, 16) == port:  # 0A = LISTEN
                found.add(address)
    return found


def test_running_server_is_reused_fast_and_listens_on_loopback_only(store_dir):
    server = EmbeddedServer(store_dir)
    first = server.ensure_running()
    again = server.ensure_running()
    assert again.pid == first.pid      # reused, not restarted
    # 127.0.0.1 as /proc writes it, plain or IPv4-mapped in IPv6 (Java binds the latter);
    # never 0.0.0.0, :: or another address
    loopback = {"0100007F", "0000000000000000FFFF00000100007F"}
    for port in (first.bolt_port, first.http_port):
        addresses = _listening_addresses(port)
        assert addresses and addresses <= loopback


def test_password_file_is_owner_only(store_dir):
    mode = stat.S_IMODE((store_dir / "credentials").stat().st_mode)
    assert mode == 0o600


def test_second_server_on_the_same_store_refuses(store_dir):
    done = subprocess.run(
        [sys.executable, "-m", "graphstore._embedded_daemon", "--store", str(store_dir)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 3
    assert "another embedded server already holds" in done.stderr
    assert EmbeddedServer(store_dir).running() is not None  # the first one is untouched


def test_concurrent_starts_share_one_server_and_stop_leaves_no_process(tmp_path):
    code = (
        "import sys; from pathlib import Path; from graphstore.embedded import EmbeddedServer;"
        "print(EmbeddedServer(Path(sys.argv[1])).ensure_running().pid)"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    pids = {int(p.communicate(timeout=180)[0].strip()) for p in procs}
    assert len(pids) == 1
    pid = pids.pop()
    server = EmbeddedServer(tmp_path)
    assert server.running().pid == pid
    assert server.stop() is True
    assert not pid_alive(pid)
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert leftovers == []
    assert server.running() is None
    assert server.stop() is False


def test_unreadable_password_file_is_refused(tmp_path):
    from graphstore.errors import EmbeddedServerError

    (tmp_path / "credentials").write_text("secret\n")
    (tmp_path / "credentials").chmod(0o644)
    with pytest.raises(EmbeddedServerError, match="readable by others"):
        EmbeddedServer(tmp_path).password()


def test_an_open_store_keeps_its_server_past_the_idle_timeout(tmp_path, monkeypatch):
    """A client busy for longer than the idle timeout (training between two queries) keeps its
    server; once it closes, the server stops by itself. Seen: an experiment whose injection
    took over 30 minutes lost its server before this."""
    from graphstore import ConnectionSettings, GraphStore
    from graphstore.embedded import ENV_IDLE_TIMEOUT

    monkeypatch.setenv(ENV_IDLE_TIMEOUT, "3")
    folder = tmp_path / "idle"
    server = EmbeddedServer(folder)
    try:
        with GraphStore.open(ConnectionSettings.resolve(store_dir=folder, environ={})) as store:
            pid = server.running().pid
            time.sleep(8)                       # idle well past the timeout, the store still open
            assert store.read("RETURN 1 AS x") == [{"x": 1}]
            assert server.running() is not None and server.running().pid == pid
        deadline = time.monotonic() + 30        # closed: the idle clock runs again
        # the server's state file goes first and its JVM exits after: wait for both (a fresh clone
        # once saw the file gone and the process still alive)
        while (server.running() is not None or pid_alive(pid)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert server.running() is None and not pid_alive(pid)
    finally:
        server.stop()


# -- issue 29: the store's own files ------------------------------------------------------------------
def _cli(*args):
    from click.testing import CliRunner

    from cli.main import cli

    return CliRunner().invoke(cli, list(args))


def test_a_lost_credentials_file_is_recovered_by_a_restart(tmp_path):
    """The engine kept the old root password while a new one was written: the store was locked
    for good. Now the message says what to do, and a restart takes the new password."""
    from conftest import pistol_file

    store = tmp_path / "store"
    try:
        assert _cli("build", "--pistol", str(pistol_file("sample_data_1.json")), "--store", str(store)).exit_code == 0
        (store / "credentials").unlink()
        refused = _cli("status", "--store", str(store))
        assert refused.exit_code == 1 and refused.output.count("\n") == 1, refused.output
        assert "credentials file replaced or lost?" in refused.output and f"audit server stop --store {store}" in refused.output
        assert _cli("server", "stop", "--store", str(store)).exit_code == 0
        again = _cli("status", "--store", str(store))
        assert again.exit_code == 0 and "sample_data_1" in again.output, again.output   # nothing lost
    finally:
        EmbeddedServer(store).stop()


@pytest.mark.parametrize("name, content", [("credentials", b"\xff\xfe\x00"), ("credentials", None),
                                           ("reader_credentials", b"\xc3\x28password"), ("credentials", b"\n")])
def test_a_password_file_that_is_not_text_is_one_line(tmp_path, name, content):
    store = tmp_path / "store"
    store.mkdir(mode=0o700)
    if content is None:
        (store / name).mkdir()
        (store / name).chmod(0o700)
    else:
        (store / name).write_bytes(content)
        (store / name).chmod(0o600)
    result = _cli("status", "--store", str(store))
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert result.output.startswith("Error: ") and "Remove it" in result.output and "Traceback" not in result.output
    assert not (store / "server.json").exists()   # no server was started


def test_a_store_folder_made_beforehand_is_made_private(tmp_path):
    store = tmp_path / "store"
    store.mkdir(mode=0o755)
    store.chmod(0o755)
    server = EmbeddedServer(store)
    try:
        server.ensure_running()
        assert stat.S_IMODE(store.stat().st_mode) == 0o700
    finally:
        server.stop()


def test_a_database_the_running_server_does_not_serve_is_one_line(store_dir):
    """The embedded server serves the one database it was started for; another name is one line
    saying which it serves (it was "the query would change the graph")."""
    result = _cli("query", "RETURN 1 AS x", "--database", "otherdb", "--store", str(store_dir))
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert result.output.startswith("Error: ") and "serves database 'audit', not 'otherdb'" in result.output


def test_a_full_disk_is_one_line_that_says_so_and_writes_nothing(tmp_path):
    """A build on a store whose disk fills: one line naming the disk (the engine says only
    "Transaction error on commit"), and the graph as it was. Needs a small tmpfs (root)."""
    import os

    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", str(disk)],
                                           capture_output=True).returncode != 0:
        pytest.skip("a small disk needs a tmpfs mount, which needs root")
    store = disk / "store"
    try:
        dataset = tmp_path / "ba.json"
        made = _cli("generate", "pistol", "--topology", "barabasi_albert", "--nodes", "1500", "--m", "2",
                    "--output", str(dataset))
        assert made.exit_code == 0, made.output
        result = _cli("build", "--pistol", str(dataset), "--store", str(store))
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert result.output.startswith("Error: the embedded engine failed with its disk full"), result.output
        assert "nothing was written" in result.output
        counted = _cli("query", "MATCH (n) RETURN count(n) AS n", "--format", "json", "--store", str(store))
        assert counted.exit_code == 0 and '"n": 0' in counted.output, counted.output
    finally:
        EmbeddedServer(store).stop()
        _unmount(disk)


def _unmount(disk) -> None:
    """The stopped server's engine may hold files on the disk a moment after ``stop`` returns
    ("target is busy", seen once under load): try for 10 s, then detach it lazily."""
    for _ in range(20):
        if subprocess.run(["umount", str(disk)], capture_output=True).returncode == 0:
            return
        time.sleep(0.5)
    subprocess.run(["umount", "--lazy", str(disk)], check=True)



def test_a_password_file_is_never_seen_half_made(tmp_path, monkeypatch):
    """Two first uses of a new store at once (two commands starting the server): the one that
    makes the password is slow to write it, and the other reads the file meanwhile. It must find
    no file (and make its own) or a whole one, never an empty one; both end with the same."""
    import secrets
    import threading

    slow, started = threading.Event(), threading.Event()
    made = secrets.token_urlsafe

    def slow_token(n: int) -> str:
        if threading.current_thread().name == "slow":
            started.set()
            slow.wait(10)   # holds the maker between creating the file and writing it (before the fix)
        return made(n)

    monkeypatch.setattr(secrets, "token_urlsafe", slow_token)
    results: dict[str, str] = {}
    maker = threading.Thread(target=lambda: results.update(slow=EmbeddedServer(tmp_path).reader_password()),
                             name="slow")
    maker.start()
    assert started.wait(10)
    try:
        results["fast"] = EmbeddedServer(tmp_path).reader_password()
    finally:
        slow.set()
        maker.join(10)
    assert results["slow"] == results["fast"] == (tmp_path / "reader_credentials").read_text().strip()
    assert list(tmp_path.glob(".*.tmp")) == []   # no staging file left behind
