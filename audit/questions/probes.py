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
from dataclasses import dataclass
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
    by_entity = collections.defaultdict(list)
    for c in facts.values():
        by_entity[c.head].append(c)
        by_entity[c.tail].append(c)
    out = []
    for key in edges:
        if key in facts:
            out += paraphrases(facts[key], templates) + two_hop(facts[key], by_entity, templates)
    return out


def paraphrases(c: Contract, templates: ProbeTemplates) -> list[Probe]:
    wordings = templates.paraphrases.get(c.type.domain, {})
    values = c.placeholders()
    return [Probe(c.key, "paraphrase", t.format(**values), answer, f"{templates.version}:{c.type.domain}.{attr}.{j}")
            for _, attr, answer in c.qa() for j, t in enumerate(wordings.get(attr, ()))]


def two_hop(c: Contract, by_entity: dict[str, list[Contract]], templates: ProbeTemplates) -> list[Probe]:
    """One 2-hop question per QA pair: the trained question with a party's name replaced by a
    description through a neighbouring contract (the head tried first; a question naming
    neither party, or no describable party, gets none)."""
    out = []
    for question, attr, answer in c.qa():
        for party in (c.head, c.tail):
            name = c.name_of(party)
            if not name or name not in question:
                continue
            found = describe(party, c, by_entity, templates)
            if found is not None:
                text, via = found
                out.append(Probe(c.key, "two_hop", question.replace(name, text), answer,
                                 f"{templates.version}:two_hop.{c.type.domain}.{attr}.{c.role_of(party)}", via))
                break
    return out


def describe(entity: str, fact: Contract, by_entity: dict[str, list[Contract]],
             templates: ProbeTemplates) -> tuple[str, str] | None:
    """A description of ``entity`` through one of its other contracts that picks it out alone:
    (text, that contract's key), or None. Neighbours are tried in key order; one whose other
    party is also a party of ``fact`` is skipped (it would name the fact's own parties)."""
    for n in sorted(by_entity[entity], key=lambda x: x.key):
        other = n.other(entity)
        if n.key == fact.key or other in (fact.head, fact.tail):
            continue
        role = n.role_of(entity)
        if role not in templates.two_hop:
            continue
        # every contract of `other`, of this type, in which `other` plays the counterpart's role
        same = [m for m in by_entity[other] if m.type.domain == n.type.domain and m.role_of(other) == n.role_of(other)
                and m.other(other) != other]
        wording = templates.two_hop[role]
        if len(same) == 1:
            return wording["plain"].format(other=n.name_of(other)), n.key
        if sum(m.date == n.date for m in same) == 1 and n.date:
            return wording["dated"].format(other=n.name_of(other), date=n.date), n.key
    return None


def llm_paraphrases(rows: list[dict], edges: list[str], backend, per_fact: int = 3,
                    notes=None) -> list[Probe]:
    """Paraphrase probes a language model writes for the text facts among ``edges`` (PISTOL
    contracts have their templates). ``backend``: an ``audit.questions.llm`` backend. A question
    the model writes that is one of the fact's trained questions (case and spacing aside) is
    dropped; bad replies are counted and said through ``notes``, never raised."""
    from audit.questions.llm import FactForQuestions, generate_questions, load_prompt

    wanted = set(edges)
    text = [r for r in rows if r["key"] in wanted and r["props"].get("source") != "pistol"
            and r.get("head_name") and r.get("tail_name")]
    if not text:
        return []
    prompt = load_prompt(resources.files("audit").joinpath(PARAPHRASE_PROMPT))
    facts = [FactForQuestions(r["key"], r["head_name"], r["domain"], r["tail_name"], "",
                              (r["props"].get("passages") or [""])[0]) for r in text]
    batch = generate_questions(facts, backend, per_fact=per_fact, prompt=prompt)
    if notes:
        notes(f"probes: {batch.summary()}")
    trained = {r["key"]: {_plain(q) for q in r["props"].get("questions") or []} for r in text}
    return [Probe(q.fact, "paraphrase", q.question, q.answer, q.source) for q in batch.questions
            if _plain(q.question) not in trained[q.fact]]


def _plain(text: str) -> str:
    return " ".join(text.lower().split())
