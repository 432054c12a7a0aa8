"""`audit memorization`: what does the model know about these people? Per-fact memorization
(WikiMem) measured on a Wikidata graph and written back."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from audit.config import MemorizationConfig
from audit.results.schema import FactResult
from cli.common import connection_options, emit_rows, format_option
from graphstore import GraphStore
from graphstore.progress import say

_config = MemorizationConfig()
TABLE = FactResult.check(["subject_name", "property", "property_label", "values", "memorized", "rank", "strength",
                          "strict_rate", "lenient_rate", "top_value", "counterfactuals"])


@click.command()
@click.option("--graph", "graph_name", required=True, metavar="NAME", help="A graph built with audit build --wikidata.")
@click.option("--subject", "subjects", multiple=True, metavar="QID|NAME",
              help="A subject to measure (Q-id, entity key or exact name); repeatable. Default: every subject.")
@click.option("--property", "properties", multiple=True, metavar="PID",
              help="Only these properties (P106, P19, ...); repeatable. Default: every property of the subject.")
@click.option("--model", required=True, metavar="PATH|ID",
              help="A trained Hugging Face causal LM folder or hub id, a .gguf file, or a model package such as "
                   "gemma3-270m (audit models).")
@click.option("--run-id", default=None, metavar="ID", help="Name of the run (default <graph>-memorization-<UTC time>).")
@click.option("--counterfactuals", type=int, default=_config.counterfactuals, show_default=True,
              help="Counterfactual values per fact, drawn (seeded) from other subjects' values of the property.")
@click.option("--paraphrases", type=int, default=None,
              help="Paraphrased templates per property (default: all of the registry's, at least 10).")
@click.option("--contexts", type=int, default=_config.contexts, show_default=True,
              help="Contextualized variants per fact (each first states up to --context-facts other facts).")
@click.option("--context-facts", type=int, default=_config.context_facts, show_default=True,
              help="Other facts of the subject stated before a contextualized variant.")
@click.option("--variants", type=int, default=_config.variants, show_default=True,
              help="Similar-looking name variants S(h) for the calibration.")
@click.option("--alpha", type=float, default=_config.alpha, show_default=True, help="Weight of the name-variant calibration.")
@click.option("--equivalence", default=None, metavar="SPEC",
              help="Count counterfactuals a judge finds equal to a ground truth as ground truths: embedding[:T].")
@click.option("--seed", type=int, default=_config.seed, show_default=True, help="Seed of counterfactuals, contexts, variants.")
@click.option("--batch-size", type=int, default=_config.batch_size, show_default=True, help="Sentences per forward pass.")
@click.option("--properties-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Your own property registry laid over the shipped one (docs/wikidata.md).")
@click.option("--device", default="auto", show_default=True, help="auto (CUDA when present), cpu, cuda, cuda:1 ...")
@format_option
@connection_options
def memorization(graph_name, subjects, properties, model, run_id, counterfactuals, paraphrases, contexts,
                 context_facts, variants, alpha, equivalence, seed, batch_size, properties_file, device, fmt, settings):
    """Measure which facts about people a model has memorized, and write them back.

    For every (subject, property) fact: canary sentences (base, paraphrases, contextualized
    variants) for the true values and for counterfactual values; each value's calibrated
    likelihood score against a generic subject and similar names; the fact is memorized
    when a true value ranks first. Results: one FactResult node per fact under a Run
    (kind memorization), linked to its subject. A forget set follows with
    audit run --select memorized:SUBJECT (docs/wikidata.md).

    \b
    Examples:
      audit memorization --graph people --subject Q42 --model ./my-llama
      audit memorization --graph people --subject "Ada Lovelace" --property P106 --property P19 --model ./m
      audit memorization --graph people --model ./m --counterfactuals 20 --run-id people-mem
    """
    # The measure needs torch and transformers: imported here, so the command line starts fast.
    from audit.results.store import read_fact_results
    from audit.run.memorization import MemorizationRequest, run_memorization

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    config = MemorizationConfig(counterfactuals=counterfactuals, paraphrases=paraphrases, contexts=contexts,
                                context_facts=context_facts, variants=variants, alpha=alpha, seed=seed,
                                batch_size=batch_size, equivalence=equivalence)
    request = MemorizationRequest(graph=graph_name, model=model, subjects=list(subjects), properties=list(properties),
                                  run_id=run_id, device=device, registry_file=properties_file, config=config)
    with GraphStore.open(settings) as store:
        store.setup_schema()
        run, summary = run_memorization(store, request, report=say)
        results = read_fact_results(store, run)
    emit_rows(TABLE, [[r.get(c) for c in TABLE] for r in results], fmt)
    click.echo(f"run {run}: " + ", ".join(f"{k} {v}" for k, v in summary.items()))
    click.echo(f"forget set of the memorized facts: audit run --graph {graph_name} --select memorized:SUBJECT@{run}")
