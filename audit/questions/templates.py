"""Template questions for facts extracted from text: at least two per fact.

Every fact gets the forward questions of its relation (asking for the tail), and, when the
tail and relation identify a single head in its split, the inverse ones too (asking for the
head: "Who was born in Ulm?" only when one person of the graph was born there). Each
question records the template that made it and the passage its fact came from, and the set
is versioned (``audit/data/text_questions.v2.json``).
"""

from __future__ import annotations

import collections
import dataclasses
import json
from dataclasses import dataclass
from importlib import resources

from graphstore.records import FactRecord, GraphRecord

TEMPLATE_FILE = "data/text_questions.v2.json"


@dataclass(frozen=True)
class TemplateSet:
    version: str
    default: dict
    relations: dict

    def for_relation(self, relation: str) -> dict:
        return self.relations.get(relation, self.default)


def load_templates() -> TemplateSet:
    data = json.loads(resources.files("audit").joinpath(TEMPLATE_FILE).read_text("utf-8"))
    return TemplateSet(data["version"], data["default"], data["relations"])


def fact_questions(fact: FactRecord, templates: TemplateSet, identifies_head: bool) -> list[tuple[str, str, str]]:
    """(question, answer, template id) for one fact of a text graph."""
    head, tail = fact.attributes["head_name"], fact.attributes["tail_name"]
    relation = fact.domain
    spec = templates.for_relation(fact.relation)
    which = fact.relation if fact.relation in templates.relations else "default"
    out = [(t.format(head=head, tail=tail, relation=relation), tail, f"{which}.forward.{i}")
           for i, t in enumerate(spec["forward"])]
    if identifies_head:
        out += [(t.format(head=head, tail=tail, relation=relation), head, f"{which}.inverse.{i}")
                for i, t in enumerate(spec.get("inverse", ()))]
    return out


def add_questions(record: GraphRecord, templates: TemplateSet | None = None) -> GraphRecord:
    """``record`` with template questions on every fact (aligned lists on the edge).

    ``qa_attributes[i]`` names the template of question i; the ``qa_passages`` attribute gives
    the passage each question's fact was read from (the first passage that states it).
    """
    templates = templates or load_templates()
    heads = collections.defaultdict(set)  # over both splits: the model is taught both
    for f in record.facts:
        heads[(f.relation, f.tail)].add(f.head)
    facts = []
    for fact in record.facts:
        qas = fact_questions(fact, templates, len(heads[(fact.relation, fact.tail)]) == 1)
        passage = fact.attributes["passages"][0] if fact.attributes.get("passages") else ""
        facts.append(dataclasses.replace(
            fact, questions=tuple(q for q, _, _ in qas), answers=tuple(a for _, a, _ in qas),
            qa_attributes=tuple(t for _, _, t in qas),
            attributes={**fact.attributes, "qa_passages": [passage] * len(qas)}))
    return dataclasses.replace(record, facts=tuple(facts),
                               properties={**record.properties, "templates": templates.version})


def add_generated(record: GraphRecord, generated) -> GraphRecord:
    """``record`` with language-model questions (``audit.questions.llm.GeneratedQuestion``)
    appended to their facts; ``qa_attributes`` records their source (``llm:<prompt version>``)."""
    by_fact = collections.defaultdict(list)
    for g in generated:
        by_fact[g.fact].append(g)
    facts = []
    for fact in record.facts:
        extra = by_fact.get(fact.key, [])
        if not extra:
            facts.append(fact)
            continue
        facts.append(dataclasses.replace(
            fact, questions=fact.questions + tuple(g.question for g in extra),
            answers=fact.answers + tuple(g.answer for g in extra),
            qa_attributes=fact.qa_attributes + tuple(g.source for g in extra),
            attributes={**fact.attributes,
                        "qa_passages": list(fact.attributes.get("qa_passages", [])) + [g.passage_key for g in extra]}))
    return dataclasses.replace(record, facts=tuple(facts))
