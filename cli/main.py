"""`audit`: the command line. One module per command; this file only wires them up."""

from __future__ import annotations

import os
import sys
import traceback

import click

from graphstore.errors import AuditError
from graphstore.progress import set_quiet

from cli.build import build
from cli.compare import compare
from cli.edges import edges
from cli.generate import generate
from cli.leakage import leakage
from cli.memorization import memorization
from cli.memorization_check import memorization_check
from cli.query import query
from cli.report import report
from cli.run import run
from cli.runs import runs
from cli.server import server
from cli.stats import coverage, stats
from cli.status import status
from cli.view import view


class AuditGroup(click.Group):
    """Turns the project's errors into one line and a non-zero exit (a traceback with --debug)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except AuditError as e:
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            click.echo(f"Error: {e}", err=True)
            ctx.exit(1)


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
    if quiet:
        set_quiet(True)


for command in (build, edges, query, status, stats, coverage, generate, server, run, runs, memorization, memorization_check, leakage, view,
                report, compare):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="audit")


if __name__ == "__main__":
    sys.exit(main())
