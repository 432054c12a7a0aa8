"""`audit memorization`: what does the model know about these people? Per-fact memorization
(WikiMem) measured on a Wikidata graph and written back."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import click
from click.core import ParameterSource

from audit.config import MEMORIZATION_CRITERIA, MEMORIZATION_PRESETS, MemorizationConfig, memorization_config
from audit.results.schema import FactResult
from cli.common import connection_options, emit_rows, format_option
from graphstore import GraphStore
from graphstore.progress import say

_config = MemorizationConfig()
# The options that are fields of MemorizationConfig, by the same names: given beside --preset, they override it.
CONFIG_OPTIONS = tuple(f.name for f in dataclasses.fields(MemorizationConfig) if f.name != "preset")
PRESETS_HELP = "; ".join(f"{p.name}: " + ", ".join(f"{k} {v}" for k, v in p.settings.items())
                         for p in MEMORIZATION_PRESETS.values())
CRITERIA_TEXT = {"mean": "a ground truth ranks first by its mean score over the templates (criterion mean)",
                 "strict": "a ground truth ranks first in every template (criterion strict)",
                 "lenient": "a ground truth ranks first in at least one template (criterion lenient)"}
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
@click.option("--preset", default=None, metavar="NAME",
              help=f"A named protocol of the measure ({PRESETS_HELP}; docs/wikidata.md). Every option below given "
                   "beside it overrides its value; their defaults shown here are those without a preset. A property "
                   "whose registry paraphrases or graph values fall short of it is warned about, not padded.")
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
              help="Count counterfactuals a judge finds equal to a ground truth as ground truths: embedding[:T], "
                   "or none.")
@click.option("--criterion", type=click.Choice(MEMORIZATION_CRITERIA), default=_config.criterion, show_default=True,
              help="When a fact is memorized: a ground truth ranks first by its mean score over the templates, "
                   "in every template (strict: WikiMem's reported rate), or in any (lenient).")
@click.option("--seed", type=int, default=_config.seed, show_default=True, help="Seed of counterfactuals, contexts, variants.")
@click.option("--batch-size", type=int, default=_config.batch_size, show_default=True, help="Sentences per forward pass.")
@click.option("--properties-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Your own property registry laid over the shipped one (docs/wikidata.md).")
@click.option("--device", default="auto", show_default=True, help="auto (CUDA when present), cpu, cuda, cuda:1 ...")
@format_option
@connection_options
def memorization(graph_name, subjects, properties, model, run_id, preset, properties_file, device, fmt, settings,
                 **options):
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
      audit memorization --graph people --model ./m --preset wikimem --property P106 --property P27
    """
    # The measure needs torch and transformers: imported here, so the command line starts fast.
    from audit.results.repository import read_fact_results
    from audit.run.memorization import MemorizationRequest, run_memorization

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    context = click.get_current_context()
    given = {name: options[name] for name in CONFIG_OPTIONS
             if name in options and context.get_parameter_source(name) is not ParameterSource.DEFAULT}
    if given.get("equivalence") == "none":
        given["equivalence"] = None
    config = memorization_config(preset, **given)
    request = MemorizationRequest(graph=graph_name, model=model, subjects=list(subjects), properties=list(properties),
                                  run_id=run_id, device=device, registry_file=properties_file, config=config)
    with GraphStore.open(settings) as store:
        store.setup_schema()
        run, summary = run_memorization(store, request, report=say)
        results = read_fact_results(store, run)
    emit_rows(TABLE, [[r.get(c) for c in TABLE] for r in results], fmt)
    click.echo(f"run {run}: " + ", ".join(f"{k} {v}" for k, v in summary.items()))
    click.echo(f"memorized: {CRITERIA_TEXT[config.criterion]}" + (f" (preset {preset})" if preset else ""))
    click.echo(f"forget set of the memorized facts: audit run --graph {graph_name} --select memorized:SUBJECT@{run}")
