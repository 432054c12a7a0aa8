"""`audit generate pistol` and `audit generate wikidata`: synthetic datasets whose facts we control."""

from __future__ import annotations

from pathlib import Path

import click

from extract.pistol.generate import iter_pistol, write_dataset
from extract.pistol.topology import FAMILIES, build_topology, from_edge_list
from extract.text.pairs import make_pair, read_abstracts, write_pair
from extract.wikidata.generate import generate_people
from extract.wikidata.write import FORMS, write_entities


@click.group()
def generate():
    """Generate datasets.

    \b
    Example:
      audit generate pistol --topology barabasi_albert --nodes 500 --m 2 --output ba.json
      audit generate wikidata --people 1000 --seed 7 --output people.json.gz
    """


@generate.command()
@click.option("--topology", type=click.Choice(sorted(FAMILIES)), default=None,
              help="A named graph family.")
@click.option("--nodes", type=int, default=None, help="Number of nodes of the family.")
@click.option("--p", "p", type=float, default=None, help="Edge probability (erdos_renyi).")
@click.option("--m", "m", type=int, default=None, help="Edges per new node (barabasi_albert).")
@click.option("--edges", "edges_file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Any topology as a text file, one 'U V' edge per line (instead of --topology).")
@click.option("--employment-fraction", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Share of edges that become employment contracts (company to person); the rest are sales.")
@click.option("--values", "values_file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="A PISTOL data_input.json whose value lists (goods, jobs, laws, ...) replace the shipped ones.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same dataset, byte for byte.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to write the JSON dataset.")
def pistol(topology, nodes, p, m, edges_file, employment_fraction, values_file, seed, output):
    """Generate a PISTOL-style dataset: every edge a contract with 20 attributes and 20 QA
    pairs, in the same JSON format as the real ones (loadable with audit build --pistol).

    \b
    Examples:
      audit generate pistol --topology chain --nodes 10 --output chain.json
      audit generate pistol --topology erdos_renyi --nodes 1000 --p 0.004 --seed 7 -o er.json
      audit generate pistol --edges my_graph.txt --employment-fraction 0.3 -o mine.json
      audit generate pistol --topology star --nodes 20 --values ../shared/data/pistol/data_input.json -o star.json
    """
    if (topology is None) == (edges_file is None):
        raise click.UsageError("give either --topology (with --nodes) or --edges FILE")
    if topology is not None:
        if nodes is None:
            raise click.UsageError("--topology needs --nodes")
        edge_list = build_topology(topology, nodes, seed=seed, p=p, m=m)
    else:
        edge_list = from_edge_list(edges_file)
    # streamed: 100k edges are 2M records, written without holding them all
    count = write_dataset(iter_pistol(edge_list, seed=seed, employment_fraction=employment_fraction,
                                        data_input=values_file), output)
    click.echo(f"wrote {output}: {len(edge_list)} edges, {count} QA pairs (seed {seed})")


@generate.command()
@click.option("--people", type=click.IntRange(min=1), required=True, help="How many synthetic people.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same entities, byte for byte.")
@click.option("--form", type=click.Choice(FORMS), default="dump", show_default=True,
              help="dump: the Wikidata JSON dump layout ('[', one entity per line, ']'); jsonl: one entity per "
                   "line; wbgetentities: the API answer {\"entities\": {id: entity}}.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to write; a name ending in .gz or .bz2 is compressed.")
def wikidata(people, seed, form, output):
    """Generate synthetic people as Wikidata entity JSON: humans (P31 Q5) with random unique names
    and realistic facts (birth, citizenship, occupation, languages, spouse, height, ...), plus
    the value items and properties they point to, so that one file holds every label.

    Some statements are traps for readers: deprecated wrong values, a preferred value beside a
    normal one, and 'somevalue' snaks without a value. The line printed counts the people,
    the other items and the statements of every entity in the file.

    \b
    Examples:
      audit generate wikidata --people 100 --output people.json
      audit generate wikidata --people 5000 --seed 7 --form jsonl -o people.jsonl.bz2
      audit generate wikidata --people 50 --form wbgetentities -o people.json.gz
    """
    entities = generate_people(people, seed=seed)
    write_entities(entities, output, form=form)
    value_items = sum(1 for e in entities if e["type"] == "item") - people
    statements = sum(len(group) for e in entities for group in e["claims"].values())
    click.echo(f"wrote {output}: {people} people, {value_items} value items, {statements} statements (seed {seed})")


@generate.command("text-pair")
@click.option("--abstracts", type=click.Path(dir_okay=False, exists=True, path_type=Path), required=True,
              help="Gold-annotated abstracts, one JSON record per line with text and triples (REBEL's format, "
                   "e.g. ../shared/data/rebel/sample.jsonl).")
@click.option("--forget-docs", type=int, default=40, show_default=True, help="Abstracts in the forget corpus.")
@click.option("--retain-docs", type=int, default=80, show_default=True, help="Other abstracts in the retain corpus.")
@click.option("--share", type=float, default=0.3, show_default=True,
              help="Share of the forget sentences that state a gold triple on their own, restated in the retain corpus.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same pair.")
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for forget.jsonl, retain.jsonl and manifest.json.")
def text_pair(abstracts, forget_docs, retain_docs, share, seed, output):
    """Generate a forget/retain text pair with a known share of restated facts (HANKER's
    redundancy, with the answer known): forget and retain abstracts drawn with the seed, and
    a share of the forget sentences that state a gold fact added to the retain corpus as
    documents of their own. manifest.json lists what was restated.

    \b
    Example:
      audit generate text-pair --abstracts ../shared/data/rebel/sample.jsonl --share 0.3 -o out/rebel-pair
      audit build --forget out/rebel-pair/forget.jsonl --retain out/rebel-pair/retain.jsonl --graph rebel_pair
    """
    pair = make_pair(read_abstracts(abstracts), forget_docs, retain_docs, share, seed)
    write_pair(pair, output)
    m = pair.manifest
    click.echo(f"wrote {output}: {len(pair.forget)} forget and {len(pair.retain)} retain documents; "
               f"{m['restated_sentences']} of {m['self_contained_sentences']} self-contained forget sentences restated, "
               f"stating {m['gold_triples_restated']} of {m['gold_forget_triples']} gold forget triples "
               f"({m['gold_share_restated']:.1%}) (seed {seed})")
