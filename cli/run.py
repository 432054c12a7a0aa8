"""`audit run`: choose a forget set, inject, unlearn, measure per edge, write back."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import click
from click.core import ParameterSource

from audit.config import ADAPTERS, INJECT_QA, MASK_GROUPS, MASK_KINDS, MIXED_PASSAGES, RESURFACING_CHECKS, TRAIN_ON
from audit.run.methods import METHODS, PRETRAINED_UNLEARN_LR, SMALL_MODEL_WIDTH
from audit.run.options import DEFAULTS, SETTING_OPTIONS, read_options, request_from_options
from audit.run.selectors import SELECTORS
from audit.measure.metrics import summary_rows
from cli.common import connection_options, emit_rows, format_option
from extract.jsonfile import json_safe
from graphstore import GraphStore
from graphstore.errors import ConfigError
from graphstore.progress import say

D = DEFAULTS
SUMMARY_COLUMNS = ["measure", "before", "after", "change", "better"]
RUN_ID_CHARS = 128   # audit.results.repository.run_key


def _options(text: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in text:
        name, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} is not name=value (e.g. --method-option beta=0.2)")
        out[name] = value
    return out


def _merged(ctx: click.Context, given: dict, layers: list[tuple[Path, dict]]) -> dict:
    """The command line's options over each file's (later files over earlier), over the defaults.
    A file's value must have the option's type (checked as if it had been typed, and no looser:
    ``epochs = 10.5`` is refused, not cut to 10). The ``NAME=VALUE`` options merge by name, except:
    a layer's method settings are dropped when the method that runs is another (they are that
    method's), and a memorization ``preset`` given by a layer replaces the settings below it.
    ``select`` and ``cypher`` choose the edges together: a layer that gives one drops the other
    from the layers below."""
    here = {ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT}
    on_line = {name for name in given if ctx.get_parameter_source(name) in here}
    params = {p.name: p for p in ctx.command.params}
    options = {name: _options(v) if name in SETTING_OPTIONS else v for name, v in given.items()}
    method = given["method"].lower() if "method" in on_line else next(
        (str(v["method"]).lower() for _, v in reversed(layers) if "method" in v), given["method"].lower())
    settings: dict[str, dict[str, object]] = {name: {} for name in SETTING_OPTIONS}   # from the files, by name
    for path, values in layers:
        for name, value in values.items():
            if name in SETTING_OPTIONS:
                if name == "method_option" and str(values.get("method", method)).lower() != method:
                    continue   # another method's settings
                if name == "memorization_option" and "preset" in value:
                    settings[name] = {}
                settings[name].update(value)
                continue
            if name in ("select", "cypher"):
                other = "cypher" if name == "select" else "select"
                if other not in on_line and other not in values:
                    options[other] = None
            if name in on_line:
                continue
            options[name] = _cast(ctx, params[name], path, name, value)
    for name, other in (("select", "cypher"), ("cypher", "select")):
        if name in on_line and other not in on_line:
            options[other] = None
    for name in SETTING_OPTIONS:
        line = options[name]
        options[name] = line if name == "memorization_option" and "preset" in line else {**settings[name], **line}
    checks = [c.lower() for c in options["check"]]
    if "none" in checks:
        if len(checks) > 1:
            raise click.BadParameter("none runs no check: give it alone", param_hint="--check")
        options["check"], options["check_option"] = (), {}
    return options


def _cast(ctx: click.Context, param: click.Parameter, path: Path, name: str, value):
    """A file's value as the option takes it, refused unless its TOML type is the option's."""
    def refuse(expected: str):
        shown = json.dumps(value, default=str)
        raise ConfigError(f"{path}: {name} = {shown if len(shown) <= 60 else shown[:57] + '...'}: expected {expected}")

    kind = param.type
    if param.multiple:
        value = value if isinstance(value, list) else [value]   # check = "relearn" as check = ["relearn"]
        if not all(isinstance(v, str) for v in value):
            refuse("a list of texts")
    elif isinstance(kind, click.types.BoolParamType):
        if not isinstance(value, bool):
            refuse("true or false")
    elif isinstance(kind, click.types.IntParamType):
        if not isinstance(value, int) or isinstance(value, bool):
            refuse("a whole number")
    elif isinstance(kind, click.types.FloatParamType):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            refuse("a number")
    elif not isinstance(value, str):
        refuse("a text")
    try:
        return param.type_cast_value(ctx, value)
    except click.BadParameter as e:
        raise ConfigError(f"{path}: {name} = {json.dumps(value, default=str)[:60]}: {e.message}") from None


@click.command()
@click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Options from a TOML (or .json) file: the option names without dashes, e.g. epochs = 10, "
                   "method_option = {beta = 0.2}; options given here override it. A run's folder holds its own "
                   "(config.toml). See docs/runs.md, section 8.")
@click.option("--rerun", metavar="RUN_ID",
              help="Run again with the options RUN_ID ran with (its config.toml) under a new id, "
                   "<RUN_ID>-rerun-<UTC time> unless --run-id; options given here override them.")
@click.option("--graph", metavar="NAME", help="The graph to audit (audit status lists them). Required, here or "
                                             "from --config or --rerun.")
@click.option("--select", metavar="SPEC",
              help=f"Named selector: {', '.join(SELECTORS)}; e.g. top-degree:3, bottom-degree:1, domain:sales, "
                   "density:dense:2, entity:'Jzrcws SA', edges:A_B,A_C. See docs/runs.md.")
@click.option("--cypher", metavar="QUERY", help="Any read-only Cypher returning a column `key` of edge keys; $graph is set.")
@click.option("--method", default=D["method"], show_default=True, type=click.Choice(list(METHODS), case_sensitive=False),
              help="Unlearning method (docs/runs.md): idk is PISTOL's \"DPO\" (Eq. 6: refusal NLL + "
                   "retain NLL); dpo is Rafailov et al.'s contrastive loss.")
@click.option("--method-option", multiple=True, metavar="NAME=VALUE",
              help="A setting of the method's config, e.g. beta=0.2 or retain_weight=1. Repeatable.")
@click.option("--model", default=D["model"], show_default=True, metavar="PATH|ID|scratch[:SIZE]",
              help="A Hugging Face causal LM folder or hub id, a .gguf file, a model package such as "
                   "gemma3-270m (audit models), or scratch[:tiny|small|base] for a model built here with a "
                   "tokenizer trained on the graph's QA text.")
@click.option("--per-edge/--joint", default=False, help="Unlearn each selected edge on its own (PISTOL protocol), "
                                                       "from the same injected model; --joint (the default): all together.")
@click.option("--retain", default=D["retain"], show_default=True, metavar="all|neighbours|sample:N",
              help="Which other edges form the training retain set. Every other edge is measured regardless.")
@click.option("--utility", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="General {question, answer} pairs outside the graph, measured before and after "
                   "(e.g. ../shared/data/pistol/factual_data.json).")
@click.option("--idk", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Refusal sentences for dpo and idk, one per line (default: the shipped refusals.v1).")
@click.option("--run-id", default=None, metavar="ID",
              help="Name of the run (default <graph>-<method>-<UTC time>). The same id again resumes it.")
@click.option("--epochs", type=int, default=D["epochs"], show_default=True, help="Unlearning epochs.")
@click.option("--lr", type=float, default=None,
              help="Unlearning learning rate (AdamW, LoRA adapters). Default: per method for models of width "
                   f"<= {SMALL_MODEL_WIDTH} such as the scratch ones "
                   f"({', '.join(f'{m} {c.scratch_lr:g}' for m, c in METHODS.items())}), "
                   f"{PRETRAINED_UNLEARN_LR:g} for wider ones and for model packages (docs/runs.md).")
@click.option("--batch-size", type=int, default=D["batch_size"], show_default=True, help="Forget QA pairs per step.")
@click.option("--grad-accum", type=int, default=D["grad_accum"], show_default=True,
              help="Steps per update; effective batch = batch size x this.")
@click.option("--lora-r", type=int, default=D["lora_r"], show_default=True, help="LoRA rank of the unlearning adapters.")
@click.option("--lora-alpha", type=int, default=D["lora_alpha"], show_default=True, help="LoRA alpha.")
@click.option("--lora-targets", default=D["lora_targets"], show_default=True,
              help="Modules the adapters attach to: all-linear or names such as q_proj,v_proj.")
@click.option("--seed", type=int, default=D["seed"], show_default=True,
              help="Seed of adapters, data order, pairing and random selectors.")
@click.option("--gradient-checkpointing/--no-gradient-checkpointing", default=False, help="Save GPU memory at some speed.")
@click.option("--inject-target", type=float, default=D["inject_target"], show_default=True,
              help="Injection stops when every edge's ROUGE-1 recall reaches this.")
@click.option("--inject-max-epochs", type=int, default=D["inject_max_epochs"], show_default=True,
              help="Injection gives up after this many epochs.")
@click.option("--inject-lr", type=float, default=None,
              help="Injection learning rate (default 3e-3 scratch, 2e-4 LoRA).")
@click.option("--no-inject/--inject", "no_inject", default=False,
              help="Audit the model as it is, without knowledge injection: it already knows the facts "
                   "(a pretrained model and Wikidata people, or a model you trained). --inject (the default) "
                   "undoes it for a --rerun or --config that had it.")
@click.option("--memorization-option", multiple=True, metavar="NAME=VALUE",
              help="Wikidata graphs: a setting of the memorization measure run before and after unlearning, "
                   "e.g. counterfactuals=20, or preset=wikimem (WikiMem's protocol; the other settings given "
                   "override it; see audit memorization --help). Repeatable.")
@click.option("--inject-batch-size", type=int, default=D["inject_batch_size"], show_default=True, help="Injection batch size.")
@click.option("--eval-batch-size", type=int, default=D["eval_batch_size"], show_default=True,
              help="QA pairs per generation/scoring batch.")
@click.option("--equivalence", default=D["equivalence"], show_default=True, metavar="SPEC",
              help="Judge of semantically equivalent answers, counted as memorization cases beside "
                   "ROUGE-1 = 1: embedding[:THRESHOLD] (all-MiniLM-L6-v2), nli:PATH[@THRESHOLD], or none.")
@click.option("--train-on", type=click.Choice(TRAIN_ON), default=D["train_on"], show_default=True,
              help="What injection and unlearning train on: the edges' QA pairs; the source passages of a text "
                   "graph (forget = passages stating a forget fact); or the canary sentences of a Wikidata graph. "
                   "Measurement stays on the facts' questions. See docs/runs.md, \"Training data\".")
@click.option("--mixed-passages", type=click.Choice(MIXED_PASSAGES), default=D["mixed_passages"], show_default=True,
              help="--train-on passages: a passage stating a forget fact and a retained one is unlearned, kept "
                   "as retain text, or left out of unlearning. The run counts them.")
@click.option("--chunk-tokens", type=int, default=None,
              help="Longest training text in tokens; longer passages are cut into chunks (default: the model's context).")
@click.option("--inject-qa", type=click.Choice(INJECT_QA), default=D["inject_qa"], show_default=True,
              help="With --train-on passages|canaries, whether injection also trains on the QA pairs; auto: "
                   "yes for scratch models (they cannot answer questions about text they only read).")
@click.option("--check", multiple=True, type=click.Choice((*RESURFACING_CHECKS, "all", "none"), case_sensitive=False),
              help="After unlearning, check whether the forgotten facts come back, per edge (repeatable): quantize "
                   "(weights rounded to int8 and 4-bit), relearn (a few steps on the neighbours' QA pairs, and a "
                   "control), probes (paraphrased and 2-hop questions), mia (membership inference); all: every "
                   "one; none: no check (over a --rerun or --config that had some). In a --per-edge sweep, after each "
                   "edge's own unlearning, on that edge. See docs/robustness.md.")
@click.option("--check-option", multiple=True, metavar="NAME=VALUE",
              help="An option of the checks, e.g. quantize=nf4, relearn_steps=20, mia_k=0.1 (docs/robustness.md).")
@click.option("--adapter", type=click.Choice(ADAPTERS), default=D["adapter"], show_default=True,
              help="What unlearning trains: lora adapters, or the full model (every weight but the input "
                   "embeddings, as LACUNA's methods; a frozen copy of the injected weights is the reference).")
@click.option("--mask-groups", type=click.Choice((*MASK_GROUPS, "none")), default=None,
              help="Masked injection (LACUNA): each group of edges trained into its own share of the attention and "
                   "MLP weights: forget (the forget set and the rest), component, entity (head entity) or edge. "
                   "Needed by --localization and --method oraclegrad. See docs/localization.md.")
@click.option("--mask-share", type=float, default=D["mask_share"], show_default=True,
              help="Share of the attention and MLP weights in each group's mask.")
@click.option("--mask-kind", type=click.Choice(MASK_KINDS), default=D["mask_kind"], show_default=True,
              help="element (single weights at random) or structural (whole heads and MLP neurons).")
@click.option("--localization/--no-localization", default=False,
              help="After unlearning, LACUNA's localization precision: each attention and MLP weight's change "
                   "scored, and each score's ROC AUC against the forget groups' mask (1: only the forget weights "
                   "moved, 0.5: indiscriminate); also against the weights of the forget edges' graph neighbours.")
@click.option("--localization-option", multiple=True, metavar="NAME=VALUE",
              help="An option of the localization measure: control=false (no unmasked control run), "
                   "max_weights=N (weights scored at most). Repeatable.")
@click.option("--device", default=D["device"], show_default=True, help="auto (CUDA when present), cpu, cuda, cuda:1 ...")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Injected models, checkpoints and logs (default <store>/cache).")
@format_option
@connection_options
@click.pass_context
def run(ctx, config_file, rerun, fmt, settings, **given):
    """Unlearn a forget set chosen on the graph and write per-edge results back.

    Selects edges (--select or --cypher), makes the model know every QA pair of the graph
    (knowledge injection, cached; --no-inject for a model that already knows them), measures
    every edge, unlearns with LoRA adapters, measures again, and writes a Run node and one
    EdgeResult per edge. On a Wikidata graph, the memorization of every fact of the subjects
    concerned is also measured before and after (one FactResult per fact). A run killed
    part-way resumes when started again with the same --run-id. The run's folder
    (<cache>/runs/<id>) keeps its options (config.toml), versions and hardware
    (environment.json), loss per epoch (loss.jsonl) and results (results.json). Launched
    with torchrun or accelerate launch, its training runs data parallel over the processes,
    one GPU each, with the one-process results; with accelerate launch --use_fsdp (or
    AUDIT_FSDP=1 under torchrun) each process holds a share of the model's weights, for a
    model too large to train on one GPU (docs/scale.md).

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
      audit run --config demo.toml --epochs 5
      audit run --rerun demo-npo --seed 1
      audit run --graph demo --select top-degree:2 --method oraclegrad --adapter full --mask-groups forget --localization
      torchrun --standalone --nproc_per_node 8 -m cli.main run --graph demo --select top-degree:2 --per-edge
    """
    layers = []
    if rerun is not None:
        cache_dir = given["cache_dir"] if ctx.get_parameter_source("cache_dir") == ParameterSource.COMMANDLINE else None
        from audit.run.record import stored_options   # imports torch: only when asked

        with GraphStore.open(settings) as store:
            path, stored = stored_options(store, rerun, cache_dir)
        stored.pop("run_id", None)   # a new run: --run-id, or the one made below
        layers.append((path, stored))
    if config_file is not None:
        layers.append((config_file, read_options(config_file)))
    options = _merged(ctx, given, layers)
    if rerun is not None and ctx.get_parameter_source("run_id") != ParameterSource.COMMANDLINE:
        suffix = f"-rerun-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}"
        options["run_id"] = rerun[:RUN_ID_CHARS - len(suffix)] + suffix
    if not options["graph"]:
        raise click.UsageError("Missing option '--graph' (or graph = NAME in the --config file)")
    if options["check_option"] and not options["check"]:
        raise click.BadParameter("--check-option without --check: name the checks to run (--check all for every one)",
                                 param_hint="--check-option")
    # Injection and unlearning need torch and transformers: imported here, so the command line starts fast.
    from audit.run.runner import run_audit

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    request = request_from_options({**options, "cache_dir": options["cache_dir"] or settings.store_dir / "cache"})
    with GraphStore.open(settings) as store:
        store.setup_schema()
        outcome = run_audit(store, request, report=say)
    rows = summary_rows({**outcome.summary, "model": request.model})
    if fmt == "json":
        click.echo(json.dumps(json_safe({"run": outcome.run, "status": outcome.status, "measures": rows,
                                         "reading": outcome.reading, "summary": outcome.summary}),
                              indent=2, default=str, allow_nan=False))
        return
    click.echo(f"run {outcome.run}: {outcome.status}")
    emit_rows(SUMMARY_COLUMNS, [[r[c] for c in SUMMARY_COLUMNS] for r in rows], fmt)
    if fmt == "table":
        for line in outcome.reading:
            click.echo(line)
        click.echo(f"per-edge results: audit edges --run {outcome.run}")
