"""`audit`: the command line. One module per command; this file only wires them up."""

from __future__ import annotations

import logging
import os
import sys
import traceback

import click

from graphstore.errors import AuditError
from graphstore.progress import set_quiet

from cli.build import build
from cli.compare import compare
from cli.edges import edges
from cli.experiment import experiment
from cli.extract_score import extract_score
from cli.generate import generate
from cli.leakage import leakage
from cli.memorization import memorization
from cli.memorization_check import memorization_check
from cli.models import models
from cli.query import query
from cli.report import report
from cli.run import run
from cli.runs import runs
from cli.server import server
from cli.stats import coverage, stats
from cli.status import status
from cli.view import view


MAX_ERROR = 300   # characters of an error line; a longer message is cut (a 50 MB value is never echoed)


def error_line(message: str) -> str:
    """``Error: ...`` on one line of at most ``MAX_ERROR`` characters."""
    line = "Error: " + " ".join(str(message).split())
    return line if len(line) <= MAX_ERROR else line[:MAX_ERROR - 3] + "..."


class AuditGroup(click.Group):
    """Turns every error into one line and a non-zero exit (a traceback with --debug): the
    project's errors (exit 1) and click's usage errors (exit 2, without click's usage block)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except AuditError as e:
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            click.echo(error_line(str(e)), err=True)
            ctx.exit(1)
        except OSError as e:   # the file system refused a path: under a file, in /proc, a full disk, ...
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            where = f"{e.filename}: " if e.filename else ""
            click.echo(error_line(f"{where}{e.strerror or e}"), err=True)
            ctx.exit(1)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx is not None else "audit"
            click.echo(error_line(f"{e.format_message()} (see: {where} --help)"), err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(error_line(e.format_message()), err=True)
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=AuditGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--debug", is_flag=True, default=bool(os.environ.get("AUDIT_DEBUG")),
              help="Show the full traceback of an error (env AUDIT_DEBUG=1).")
@click.option("--quiet", "-q", is_flag=True, default=False,
              help="No progress bars, progress lines or phase lines on stderr; results and errors still "
                   "print (env AUDIT_QUIET=1).")
@click.version_option(package_name="kg-unlearning-audit", prog_name="audit")
@click.pass_context
def cli(ctx: click.Context, debug: bool, quiet: bool) -> None:
    """Knowledge audit for LLM unlearning, on a Neo4j property graph.

    Facts live in a graph (the embedded engine by default, Neo4j 5 with --uri); Cypher
    computes their structure; unlearning results are written back per edge.

    \b
    Example:
      audit generate pistol --topology chain --nodes 10 --output chain.json
      audit build --pistol chain.json
      audit edges
      audit query "MATCH (e:Entity) RETURN e.name, e.degree ORDER BY e.degree DESC LIMIT 5"
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    # set on every invocation, not only when asked: a process that runs several commands (a
    # test session, a notebook) must not keep the last one's --quiet
    set_quiet(quiet or os.environ.get("AUDIT_QUIET", "").lower() in ("1", "true", "yes"))


for command in (build, edges, query, status, stats, coverage, generate, server, run, experiment, runs, memorization,
                memorization_check, models, leakage, view, report, compare, extract_score):
    cli.add_command(command)


def main() -> None:
    if os.environ.get("WORLD_SIZE", "1") not in ("", "0", "1"):   # torchrun, accelerate launch: torch only then
        launched_main()
    else:
        cli(prog_name="audit")


def launched_main() -> None:
    """One of several processes a launcher started (docs/scale.md): rank 0 runs the command,
    leading the others into each training loop; the others follow (``audit.models.ranks``)."""
    from audit.models import ranks as R

    try:
        here = R.current()
    except AuditError as e:
        if os.environ.get("RANK", "0") == "0":   # one line, not one per process
            click.echo(error_line(str(e)), err=True)
        sys.exit(1)
    code: int | str | None = 0
    try:
        try:
            if here.driver:
                cli(prog_name="audit")
            else:
                set_quiet(True)
                try:
                    here.follow()
                except AuditError as e:   # e.g. the injected model not on this machine's file system
                    click.echo(error_line(f"rank {here.rank}: {e}"), err=True)
                    sys.exit(1)
        finally:
            here.release()
            R.close()
    except SystemExit as e:
        code = e.code
    except BaseException:   # noqa: BLE001 (said as Python would, then the exit below)
        traceback.print_exc()
        code = 1
    _leave(code)


def _leave(code: int | str | None) -> None:
    """End a launched process without the interpreter's finalization: gloo's worker threads can
    abort a process there ("terminate called without an active exception", pytorch#179291) after
    its work is done, and the launcher then stops the other ranks and reports the run failed."""
    if isinstance(code, str):
        click.echo(code, err=True)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


if __name__ == "__main__":
    main()
