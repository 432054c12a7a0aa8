"""`audit server`: the embedded engine's background server (start, stop, status)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from graphstore.embedded import EmbeddedServer
from graphstore.settings import DEFAULT_STORE_DIR, ENV_HOME, query_timeout_from


def _server(store_dir: str | None) -> EmbeddedServer:
    return EmbeddedServer(Path(store_dir or os.environ.get(ENV_HOME) or DEFAULT_STORE_DIR),
                          query_timeout_s=query_timeout_from(os.environ))


store_option = click.option("--store", "store_dir", metavar="DIR", default=None,
                            help="Embedded store folder (default: $AUDIT_HOME, else ./.audit).")


@click.group()
def server():
    """The embedded server: any command starts it when needed and it stops by itself after
    30 idle minutes (AUDIT_EMBEDDED_IDLE_TIMEOUT seconds); these commands control it by hand.
    It stops any statement that runs past AUDIT_QUERY_TIMEOUT seconds (default 3600; 0 = no
    limit), read when it starts.

    \b
    Examples:
      audit server status
      audit server stop --store .audit
    """


@server.command()
@store_option
def start(store_dir):
    """Start the embedded server of a store (no-op when it is up).

    \b
    Example:
      audit server start --store .audit
    """
    info = _server(store_dir).ensure_running()
    click.echo(f"running: pid {info.pid}, {info.uri}, database {info.database}")


@server.command()
@store_option
def stop(store_dir):
    """Stop the embedded server of a store; no Java process is left behind.

    \b
    Example:
      audit server stop --store .audit
    """
    was_running = _server(store_dir).stop()
    click.echo("stopped" if was_running else "not running")


@server.command("status")
@store_option
def server_status(store_dir):
    """Say whether the embedded server of a store is running, and where.

    \b
    Example:
      audit server status
    """
    srv = _server(store_dir)
    info = srv.running()
    if info is None:
        click.echo(f"not running ({srv.store_dir})")
    else:
        click.echo(f"running: pid {info.pid}, {info.uri}, database {info.database}, "
                   f"arcadedb-embedded {info.engine_version} ({srv.store_dir})")
