"""`audit run`: choose a forget set, inject, unlearn, measure per edge, write back."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click

from audit.config import (EVAL_BATCH_SIZE, INJECT_QA, MIXED_PASSAGES, PRETRAINED_UNLEARN_LR, RESURFACING_CHECKS,
                          SCRATCH_UNLEARN_LR, SMALL_MODEL_WIDTH, TRAIN_ON, UNLEARNING_METHODS, InjectionConfig,
                          ResurfacingConfig, TrainingDataConfig, UnlearnConfig, apply_options, check_names,
                          memorization_config_from_options)
from audit.run.selectors import SELECTORS
from audit.measure.metrics import summary_rows
from cli.common import connection_options, emit_rows, format_option
from graphstore import GraphStore
from graphstore.progress import say

_unlearn, _inject = UnlearnConfig(), InjectionConfig()
SUMMARY_COLUMNS = ["measure", "before", "after", "change", "better"]


def _options(text: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in text:
        name, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} is not name=value (e.g. --method-option beta=0.2)")
        out[name] = value
    return out


@click.command()
@click.option("--graph", "graph_name", required=True, metavar="NAME", help="The graph to audit (audit status lists them).")
@click.option("--select", "selector", metavar="SPEC",
              help=f"Named selector: {', '.join(SELECTORS)}; e.g. top-degree:3, bottom-degree:1, domain:sales, "
                   "density:dense:2, entity:'Jzrcws SA', edges:A_B,A_C. See docs/runs.md.")
@click.option("--cypher", metavar="QUERY", help="Any read-only Cypher returning a column `key` of edge keys; $graph is set.")
@click.option("--method", default="npo", show_default=True, type=click.Choice(UNLEARNING_METHODS, case_sensitive=False),
              help="Unlearning method (docs/runs.md): idk is PISTOL's \"DPO\" (Eq. 6: refusal NLL + "
                   "retain NLL); dpo is Rafailov et al.'s contrastive loss.")
@click.option("--method-option", "method_options", multiple=True, metavar="NAME=VALUE",
              help="A setting of the method's config, e.g. beta=0.2 or retain_weight=1. Repeatable.")
@click.option("--model", default="scratch:tiny", show_default=True, metavar="PATH|ID|scratch[:SIZE]",
              help="A Hugging Face causal LM folder or hub id, a .gguf file, a model package such as "
                   "gemma3-270m (audit models), or scratch[:tiny|small|base] for a model built here with a "
                   "tokenizer trained on the graph's QA text.")
@click.option("--per-edge", is_flag=True, help="Unlearn each selected edge on its own (PISTOL protocol), "
                                               "from the same injected model.")
@click.option("--retain", "retain_scope", default="all", show_default=True, metavar="all|neighbours|sample:N",
              help="Which other edges form the training retain set. Every other edge is measured regardless.")
@click.option("--utility", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="General {question, answer} pairs outside the graph, measured before and after "
                   "(e.g. ../shared/data/pistol/factual_data.json).")
@click.option("--idk", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Refusal sentences for dpo and idk, one per line (default: the shipped refusals.v1).")
@click.option("--run-id", default=None, metavar="ID",
              help="Name of the run (default <graph>-<method>-<UTC time>). The same id again resumes it.")
@click.option("--epochs", type=int, default=_unlearn.epochs, show_default=True, help="Unlearning epochs.")
@click.option("--lr", type=float, default=None,
              help="Unlearning learning rate (AdamW, LoRA adapters). Default: per method for models of width "
                   f"<= {SMALL_MODEL_WIDTH} such as the scratch ones "
                   f"({', '.join(f'{m} {v:g}' for m, v in SCRATCH_UNLEARN_LR.items())}), "
                   f"{PRETRAINED_UNLEARN_LR:g} for wider ones and for model packages (docs/runs.md).")
@click.option("--batch-size", type=int, default=_unlearn.batch_size, show_default=True, help="Forget QA pairs per step.")
@click.option("--grad-accum", type=int, default=_unlearn.grad_accum, show_default=True,
              help="Steps per update; effective batch = batch size x this.")
@click.option("--lora-r", type=int, default=_unlearn.lora_r, show_default=True, help="LoRA rank of the unlearning adapters.")
@click.option("--lora-alpha", type=int, default=_unlearn.lora_alpha, show_default=True, help="LoRA alpha.")
@click.option("--lora-targets", default=_unlearn.lora_targets, show_default=True,
              help="Modules the adapters attach to: all-linear or names such as q_proj,v_proj.")
@click.option("--seed", type=int, default=_unlearn.seed, show_default=True,
              help="Seed of adapters, data order, pairing and random selectors.")
@click.option("--gradient-checkpointing", is_flag=True, help="Save GPU memory at some speed.")
@click.option("--inject-target", type=float, default=_inject.target_rouge1, show_default=True,
              help="Injection stops when every edge's ROUGE-1 recall reaches this.")
@click.option("--inject-max-epochs", type=int, default=_inject.max_epochs, show_default=True,
              help="Injection gives up after this many epochs.")
@click.option("--inject-lr", type=float, default=None,
              help="Injection learning rate (default 3e-3 scratch, 2e-4 LoRA).")
@click.option("--no-inject", is_flag=True,
              help="Audit the model as it is, without knowledge injection: it already knows the facts "
                   "(a pretrained model and Wikidata people, or a model you trained).")
@click.option("--memorization-option", "memorization_options", multiple=True, metavar="NAME=VALUE",
              help="Wikidata graphs: a setting of the memorization measure run before and after unlearning, "
                   "e.g. counterfactuals=20, or preset=wikimem (WikiMem's protocol; the other settings given "
                   "override it; see audit memorization --help). Repeatable.")
@click.option("--inject-batch-size", type=int, default=_inject.batch_size, show_default=True, help="Injection batch size.")
@click.option("--eval-batch-size", type=int, default=EVAL_BATCH_SIZE, show_default=True,
              help="QA pairs per generation/scoring batch.")
@click.option("--equivalence", default="embedding", show_default=True, metavar="SPEC",
              help="Judge of semantically equivalent answers, counted as memorization cases beside "
                   "ROUGE-1 = 1: embedding[:THRESHOLD] (all-MiniLM-L6-v2), nli:PATH[@THRESHOLD], or none.")
@click.option("--train-on", type=click.Choice(TRAIN_ON), default="qa", show_default=True,
              help="What injection and unlearning train on: the edges' QA pairs; the source passages of a text "
                   "graph (forget = passages stating a forget fact); or the canary sentences of a Wikidata graph. "
                   "Measurement stays on the facts' questions. See docs/runs.md, \"Training data\".")
@click.option("--mixed-passages", type=click.Choice(MIXED_PASSAGES), default="forget", show_default=True,
              help="--train-on passages: a passage stating a forget fact and a retained one is unlearned, kept "
                   "as retain text, or left out of unlearning. The run counts them.")
@click.option("--chunk-tokens", type=int, default=None,
              help="Longest training text in tokens; longer passages are cut into chunks (default: the model's context).")
@click.option("--inject-qa", type=click.Choice(INJECT_QA), default="auto", show_default=True,
              help="With --train-on passages|canaries, whether injection also trains on the QA pairs; auto: "
                   "yes for scratch models (they cannot answer questions about text they only read).")
@click.option("--check", "checks", multiple=True, type=click.Choice((*RESURFACING_CHECKS, "all"), case_sensitive=False),
              help="After unlearning, check whether the forgotten facts come back, per edge (repeatable): quantize "
                   "(weights rounded to int8 and 4-bit), relearn (a few steps on the neighbours' QA pairs, and a "
                   "control), probes (paraphrased and 2-hop questions), mia (membership inference); all: every "
                   "one. In a --per-edge sweep, after each edge's own unlearning, on that edge. See docs/robustness.md.")
@click.option("--check-option", "check_options", multiple=True, metavar="NAME=VALUE",
              help="An option of the checks, e.g. quantize=nf4, relearn_steps=20, mia_k=0.1 (docs/robustness.md).")
@click.option("--device", default="auto", show_default=True, help="auto (CUDA when present), cpu, cuda, cuda:1 ...")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Injected models, checkpoints and logs (default <store>/cache).")
@format_option
@connection_options
def run(graph_name, selector, cypher, method, method_options, model, per_edge, retain_scope, utility, idk, run_id,
        epochs, lr, batch_size, grad_accum, lora_r, lora_alpha, lora_targets, seed, gradient_checkpointing,
        inject_target, inject_max_epochs, inject_lr, no_inject, memorization_options, inject_batch_size,
        eval_batch_size, equivalence, train_on, mixed_passages, chunk_tokens, inject_qa, checks, check_options, device,
        cache_dir, fmt, settings):
    """Unlearn a forget set chosen on the graph and write per-edge results back.

    Selects edges (--select or --cypher), makes the model know every QA pair of the graph
    (knowledge injection, cached; --no-inject for a model that already knows them), measures
    every edge, unlearns with LoRA adapters, measures again, and writes a Run node and one
    EdgeResult per edge. On a Wikidata graph, the memorization of every fact of the subjects
    concerned is also measured before and after (one FactResult per fact). A run killed
    part-way resumes when started again with the same --run-id.

    \b
    Examples:
      audit run --graph demo --select top-degree:2 --method npo --run-id demo-npo
      audit run --graph demo --select density:dense:3 --per-edge --method ga --epochs 10
      audit run --graph sample_data_1 --select entity:'Jzrcws SA' --method dpo \\
          --idk ../shared/data/pistol/idontknow.jsonl --utility ../shared/data/pistol/factual_data.json
      audit run --graph demo --cypher "MATCH (:Entity {graph: \\$graph})-[f:FACT]->() WHERE f.edge_degree > 5 RETURN f.key AS key"
      audit run --graph demo --select edges:0_1 --model ./my-llama --method simnpo --method-option beta=3
      audit run --graph people --select memorized:Q42 --model ./my-llama --no-inject
      audit run --graph marwick --select split:forget --train-on passages --method ga
      audit run --graph demo --select top-degree:2 --check all --check-option relearn_steps=20
    """
    if check_options and not checks:
        raise click.BadParameter("--check-option without --check: name the checks to run (--check all for every one)",
                                 param_hint="--check-option")
    # Injection and unlearning need torch and transformers: imported here, so the command line starts fast.
    from audit.run.runner import RunRequest, run_audit

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    unlearn = UnlearnConfig(epochs=epochs, lr=lr, batch_size=batch_size, grad_accum=grad_accum, lora_r=lora_r,
                            lora_alpha=lora_alpha, lora_targets=lora_targets, seed=seed,
                            gradient_checkpointing=gradient_checkpointing)
    unlearn.check()   # first: a bad --seed is refused as itself, not as a setting built from it
    request = RunRequest(
        graph=graph_name, select=selector, cypher=cypher, method=method.lower(), method_options=_options(method_options),
        model=model, retain=retain_scope, utility=utility, idk=idk, per_edge=per_edge, run_id=run_id, device=device,
        eval_batch_size=eval_batch_size, equivalence=None if equivalence == "none" else equivalence, cache_dir=cache_dir or settings.store_dir / "cache",
        injection=InjectionConfig(target_rouge1=inject_target, max_epochs=inject_max_epochs, lr=inject_lr,
                                  batch_size=inject_batch_size, seed=seed, enabled=not no_inject),
        memorization=memorization_config_from_options(_options(memorization_options), seed=seed),
        unlearn=unlearn,
        training=TrainingDataConfig(train_on=train_on, mixed_passages=mixed_passages, chunk_tokens=chunk_tokens,
                                    inject_qa=inject_qa),
        resurfacing=apply_options(ResurfacingConfig(checks=check_names(checks), seed=seed), _options(check_options),
                                  "a resurfacing check"),
    )
    with GraphStore.open(settings) as store:
        store.setup_schema()
        outcome = run_audit(store, request, report=say)
    rows = summary_rows(outcome.summary)
    if fmt == "json":
        click.echo(json.dumps({"run": outcome.run, "status": outcome.status, "measures": rows,
                               "reading": outcome.reading, "summary": outcome.summary}, indent=2, default=str))
        return
    click.echo(f"run {outcome.run}: {outcome.status}")
    emit_rows(SUMMARY_COLUMNS, [[r[c] for c in SUMMARY_COLUMNS] for r in rows], fmt)
    if fmt == "table":
        for line in outcome.reading:
            click.echo(line)
        click.echo(f"per-edge results: audit edges --run {outcome.run}")
