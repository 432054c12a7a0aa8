"""Probe questions beyond the trained ones: paraphrases and 2-hop questions, per edge.

A model that no longer answers the question it was unlearned on may still answer the same
question worded differently, or asked through another fact (RWKU's neighbour probes, Jin et al.
2024, arXiv:2406.10890; MUNCH, arXiv:2410.13274). Both kinds are built here from the graph, with
the trained answer as ground truth; ``audit/run/resurfacing.py`` scores them before and after
unlearning (docs/robustness.md).

- **Paraphrases** (PISTOL contract graphs): three templates per contract attribute, versioned in
  ``audit/data/probe_questions.v1.json``, filled with the same party names and date as the
  trained question.
- **2-hop questions** (PISTOL contract graphs): the trained question of an attribute with one
  party named through a neighbouring contract instead of by name, e.g. "Which jurisdiction's
  laws govern the contract between *the company that bought goods from Xlpq AG* and Mjfmxk
  SRL?". The description must pick out exactly one entity of the graph: "the customer of Y" when
  Y sold to one customer only, else with the neighbour contract's date, else that neighbour is
  not used. The answer is the trained one, so it follows from the graph: the description
  resolves to the party, and the party's contract holds the attribute.

- **LLM paraphrases** (text graphs, when a generator is configured): questions a language model
  writes about the fact (``audit/data/probe_paraphrase_prompt.v1.json``), checked like any
  generated question (``audit.questions.llm.parse_reply``), a trained wording dropped.

Text and Wikidata graphs get no template probes: their relations already have several trained
wordings.
"""

from __future__ import annotations

import collections
import json
import re
from dataclasses import dataclass, field
from importlib import resources

PROBE_FILE = "data/probe_questions.v1.json"
PARAPHRASE_PROMPT = "data/probe_paraphrase_prompt.v1.json"
KINDS = ("paraphrase", "two_hop")


@dataclass(frozen=True)
class Probe:
    """One probe question of an edge: its kind, wording, trained answer, template, and (2-hop)
    the neighbouring edge it goes through."""
    edge: str
    kind: str
    question: str
    answer: str
    template: str
    via: str | None = None


@dataclass(frozen=True)
class ContractType:
    """What a probe needs of a PISTOL contract type: the roles of head and tail, and the
    attribute holding its date (as in extract/data/pistol_templates.v1.json)."""
    domain: str
    head_role: str
    tail_role: str
    date: str


@dataclass(frozen=True)
class ProbeTemplates:
    version: str
    types: dict            # domain -> ContractType
    paraphrases: dict      # domain -> attribute -> [templates]
    two_hop: dict          # role -> {"plain": ..., "dated": ...}


def load_probe_templates() -> ProbeTemplates:
    data = json.loads(resources.files("audit").joinpath(PROBE_FILE).read_text("utf-8"))
    types = {domain: ContractType(domain, **t) for domain, t in data["contract_types"].items()}
    return ProbeTemplates(data["version"], types, data["paraphrases"], data["two_hop"])


@dataclass(frozen=True)
class Contract:
    """A PISTOL fact as the probes need it: its two parties (head, tail) and its attributes."""
    key: str
    type: ContractType
    head: str
    tail: str
    head_name: str
    tail_name: str
    props: dict

    @property
    def date(self) -> str:
        return str(self.props.get(self.type.date, ""))

    def placeholders(self) -> dict[str, str]:
        return {self.type.head_role: self.head_name, self.type.tail_role: self.tail_name, self.type.date: self.date}

    def role_of(self, entity: str) -> str:
        return self.type.head_role if entity == self.head else self.type.tail_role

    def other(self, entity: str) -> str:
        return self.tail if entity == self.head else self.head

    def name_of(self, entity: str) -> str:
        return self.head_name if entity == self.head else self.tail_name

    def qa(self) -> list[tuple[str, str, str]]:
        """(trained question, attribute, trained answer) of each QA pair."""
        return list(zip(self.props["questions"], self.props["qa_attributes"], self.props["answers"]))


def contracts(rows: list[dict], types: dict[str, ContractType]) -> dict[str, Contract]:
    """The PISTOL facts among ``FACTS_FOR_PROBES`` rows, by key (other facts are skipped)."""
    out = {}
    for row in rows:
        props = row["props"]
        if props.get("source") != "pistol" or row["domain"] not in types:
            continue
        out[row["key"]] = Contract(row["key"], types[row["domain"]], row["head_key"], row["tail_key"],
                                   row["head_name"], row["tail_name"], props)
    return out


def probes(rows: list[dict], edges: list[str], templates: ProbeTemplates | None = None) -> list[Probe]:
    """Every probe of ``edges`` (keys), from the graph's ``FACTS_FOR_PROBES`` rows, in edge order."""
    templates = templates or load_probe_templates()
    facts = contracts(rows, templates.types)
    graph = Neighbours(avoid=set(edges))
    for c in facts.values():
        graph.add(c)
    out = []
    for key in edges:
        if key in facts:
            out += paraphrases(facts[key], templates) + two_hop(facts[key], graph, templates)
    return out


@dataclass
class Neighbours:
    """The contracts by entity, the entities by name, and the edges a description should not go
    through when another will do (the forget set: a probe through a forgotten contract asks for
    two forgotten facts at once)."""
    avoid: set
    by_entity: dict = field(default_factory=lambda: collections.defaultdict(list))
    names: dict = field(default_factory=lambda: collections.defaultdict(set))   # name -> entity keys

    def add(self, c: Contract) -> None:
        for entity, name in ((c.head, c.head_name), (c.tail, c.tail_name)):
            self.by_entity[entity].append(c)
            self.names[name].add(entity)


def paraphrases(c: Contract, templates: ProbeTemplates) -> list[Probe]:
    wordings = templates.paraphrases.get(c.type.domain, {})
    values = c.placeholders()
    return [Probe(c.key, "paraphrase", t.format(**values), answer, f"{templates.version}:{c.type.domain}.{attr}.{j}")
            for _, attr, answer in c.qa() for j, t in enumerate(wordings.get(attr, ()))]


def two_hop(c: Contract, graph: Neighbours, templates: ProbeTemplates) -> list[Probe]:
    """One 2-hop question per QA pair: the trained question with a party's name replaced (as a
    whole name) by a description through a neighbouring contract (the head tried first; a
    question naming neither party, or no describable party, gets none)."""
    out = []
    for question, attr, answer in c.qa():
        for party in (c.head, c.tail):
            spans = _mentions(question, c.name_of(party), c.name_of(c.other(party)))
            if not spans:
                continue
            found = describe(party, c, graph, templates)
            if found is not None:
                text, via = found
                for start, end in reversed(spans):
                    question = question[:start] + text + question[end:]
                out.append(Probe(c.key, "two_hop", question, answer,
                                 f"{templates.version}:two_hop.{c.type.domain}.{attr}.{c.role_of(party)}", via))
                break
    return out


def describe(entity: str, fact: Contract, graph: Neighbours, templates: ProbeTemplates) -> tuple[str, str] | None:
    """A description of ``entity`` through one of its other contracts that picks it out alone:
    (text, that contract's key), or None. Neighbours outside ``graph.avoid`` are tried first,
    then in key order. Skipped: one whose other party is also a party of ``fact`` (it would name
    the fact's own parties), and one whose other party's name another entity shares (the
    description would not say which)."""
    for n in sorted(graph.by_entity[entity], key=lambda x: (x.key in graph.avoid, x.key)):
        other = n.other(entity)
        if n.key == fact.key or other in (fact.head, fact.tail) or len(graph.names[n.name_of(other)]) > 1:
            continue
        role = n.role_of(entity)
        if role not in templates.two_hop:
            continue
        # every contract of `other`, of this type, in which `other` plays the counterpart's role
        same = [m for m in graph.by_entity[other] if m.type.domain == n.type.domain
                and m.role_of(other) == n.role_of(other) and m.other(other) != other]
        wording = templates.two_hop[role]
        if len(same) == 1:
            return wording["plain"].format(other=n.name_of(other)), n.key
        if sum(m.date == n.date for m in same) == 1 and n.date:
            return wording["dated"].format(other=n.name_of(other), date=n.date), n.key
    return None


def _mentions(question: str, name: str, other: str) -> list[tuple[int, int]]:
    """Where ``name`` stands in ``question`` as a whole name: not inside a longer word, and not
    inside a mention of the contract's other party ("Acme" in "Acme Ltd" is Acme Ltd)."""
    if not name:
        return []
    taken = [(m.start(), m.end()) for m in _whole(other).finditer(question)] if other and other != name else []
    return [(m.start(), m.end()) for m in _whole(name).finditer(question)
            if not any(a <= m.start() and m.end() <= b for a, b in taken)]


def _whole(name: str) -> re.Pattern:
    return re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])")


def llm_paraphrases(rows: list[dict], edges: list[str], backend, per_fact: int = 3,
                    notes=None) -> list[Probe]:
    """Paraphrase probes a language model writes for the text facts among ``edges`` (PISTOL
    contracts have their templates). ``backend``: an ``audit.questions.llm`` backend. A question
    the model writes that is one of the fact's trained questions (case and spacing aside) is
    dropped; bad replies are counted and said through ``notes``, never raised."""
    from audit.questions.llm import FactForQuestions, _normalize, generate_questions, load_prompt

    wanted = set(edges)
    text = [r for r in rows if r["key"] in wanted and r["props"].get("source") != "pistol"
            and r.get("head_name") and r.get("tail_name")]
    if not text:
        return []
    prompt = load_prompt(shipped=PARAPHRASE_PROMPT)
    facts = [FactForQuestions(r["key"], r["head_name"], r["domain"], r["tail_name"], "",
                              (r["props"].get("passages") or [""])[0]) for r in text]
    batch = generate_questions(facts, backend, per_fact=per_fact, prompt=prompt)
    if notes:
        notes(f"probes: {batch.summary()}")
    trained = {r["key"]: {_normalize(q) for q in r["props"].get("questions") or []} for r in text}
    return [Probe(q.fact, "paraphrase", q.question, q.answer, q.source) for q in batch.questions
            if _normalize(q.question) not in trained[q.fact]]

