"""`audit models`: the models `--model` can name here, and converting one ahead of time."""

from __future__ import annotations

import click

from audit.config import SIZES
from audit.models import pretrained
from cli.common import emit_rows, format_option


@click.command()
@click.option("--prepare", "prepare", metavar="MODEL", default=None,
              help="Convert MODEL (a package name or a .gguf file) now, so that the first run does not wait.")
@format_option
def models(prepare, fmt):
    """List the models --model can name besides a Hugging Face folder or hub id: the scratch
    sizes, and pretrained model packages with their licence and, once converted, their cached
    Hugging Face folder ($AUDIT_MODEL_CACHE, else ~/.cache/kg-unlearning-audit/models). A
    package or .gguf file is converted on its first use; --prepare does it now.

    \b
    Examples:
      audit models
      audit models --prepare gemma3-270m
      audit run --graph demo --select top-degree:2 --model gemma3-270m --method npo
    """
    if prepare is not None:
        if not pretrained.is_pretrained_spec(prepare):
            raise click.UsageError(f"--prepare {prepare}: give a model package name ({', '.join(pretrained.PACKAGES)}) "
                                   "or a .gguf file")
        from audit.models.load import quiet_transformers

        quiet_transformers()
        click.echo(pretrained.resolve(prepare))
        return
    rows = [[f"scratch:{name}", f"untrained Llama-architecture model, width {size.hidden_size}, {size.layers} layers "
             "(built per run)", "yes", "", "", "none (built here)"] for name, size in SIZES.items()]
    for row in pretrained.listing():
        rows.append([row["model"], row["what"], row["installed"], row["converted"],
                     "" if row["size_mb"] is None else row["size_mb"], row["licence"]])
    emit_rows(["model", "what", "installed", "converted", "size_mb", "licence"], rows, fmt)
