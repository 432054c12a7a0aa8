"""Canaries: one fact of a subject said in many sentences, for the true value and for others.

For a subject h and a property p (WikiMem, Staufer 2025, arXiv:2507.11128, Sec. 3):
- templates: the registry's base sentence, its paraphrases, and contextualized variants that
  first state up to four other facts of h;
- candidate values: the ground truths G plus counterfactuals, values of p that other subjects
  of the graph have (the same value type, the same time precision first), drawn with a seed;
- subject surrogates: h itself, the generic subject h0 ("this person") and similar-looking
  name variants S(h) (another given name, another family name, a one-letter change), never
  the name of a subject in the graph.
Everything here is plain data; ``audit.measure.memorization.ranking`` scores and ranks it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from audit.questions.properties import PropertyRegistry, fill

VOWELS = "aeiou"


@dataclass(frozen=True)
class FactValue:
    """One value of a fact as the graph stores it."""
    edge: str                 # the FACT's key
    text: str
    value_type: str
    precision: int | None = None

    @property
    def preposition(self) -> str:
        """``on`` a day, ``in`` a month, year, decade or century (Wikidata precision 11 = day)."""
        return "on" if self.precision is not None and self.precision >= 11 else "in"


@dataclass
class Subject:
    qid: str
    key: str
    name: str
    facts: dict               # pid -> [FactValue]
    property_labels: dict     # pid -> label


def subjects_from_rows(rows) -> dict[str, Subject]:
    """Subjects with their facts grouped by property, from fact rows (dicts with ``key``,
    ``subject``, ``subject_key``, ``subject_name``, ``pid``, ``property_label``, ``value``,
    ``value_type``, ``precision``: what ``graphstore.queries.WIKIDATA_FACTS`` returns)."""
    subjects: dict[str, Subject] = {}
    for row in rows:
        s = subjects.setdefault(row["subject"], Subject(row["subject"], row["subject_key"], row["subject_name"], {}, {}))
        s.facts.setdefault(row["pid"], []).append(FactValue(row["key"], row["value"], row["value_type"], row["precision"]))
        s.property_labels[row["pid"]] = row["property_label"]
    return subjects


@dataclass(frozen=True)
class Template:
    """A sentence template, with the facts (pid, value) stated before it as context."""
    sentence: str
    context: tuple = ()       # ((base template, FactValue), ...)
    name: str = ""            # "base", "paraphrase.3", "context.1"


def fact_templates(registry: PropertyRegistry, subject: Subject, pid: str, paraphrases: int | None,
                   contexts: int, context_facts: int, seed: int) -> list[Template]:
    """Base, paraphrases (all, or the first ``paraphrases`` distinct ones that differ from the
    base: the count the registry's check and a preset ask for), and ``contexts`` contextualized variants.

    Variant j states up to ``context_facts`` other facts of the subject (one value each, drawn
    with the seed), then template j of the list above (cycling)."""
    spec = registry.get(pid, subject.property_labels.get(pid))
    distinct = tuple(dict.fromkeys(t for t in spec.paraphrases if t != spec.base))
    chosen = distinct if paraphrases is None else distinct[:paraphrases]
    out = [Template(spec.base, (), "base")] + [Template(t, (), f"paraphrase.{i}") for i, t in enumerate(chosen)]
    others = sorted(p for p in subject.facts if p != pid)
    if not others or not contexts:
        return out
    plain = [t.sentence for t in out]
    for j in range(contexts):
        rng = random.Random(f"{seed}/context/{subject.qid}/{pid}/{j}")
        picked = rng.sample(others, min(context_facts, len(others)))
        context = tuple((registry.get(p, subject.property_labels.get(p)).base, rng.choice(subject.facts[p]))
                        for p in picked)
        out.append(Template(plain[j % len(plain)], context, f"context.{j}"))
    return out


def render(template: Template, surrogate: str, value: FactValue) -> tuple[str, str]:
    """(context text, sentence) with ``surrogate`` as the subject."""
    context = " ".join(fill(t, surrogate, v.text, v.preposition) for t, v in template.context)
    return context, fill(template.sentence, surrogate, value.text, value.preposition)


def value_pools(subjects: dict[str, Subject]) -> dict[str, list[FactValue]]:
    """Per property, its distinct values over every subject of the graph (by case-folded text)."""
    pools: dict[str, dict[str, FactValue]] = {}
    for subject in subjects.values():
        for pid, values in subject.facts.items():
            for v in values:
                pools.setdefault(pid, {}).setdefault(v.text.casefold(), v)
    return {pid: sorted(values.values(), key=lambda v: v.text) for pid, values in pools.items()}


def counterfactuals(pool: list[FactValue], truths: list[FactValue], count: int, seed: str) -> list[FactValue]:
    """Up to ``count`` values of the pool that are not ground truths, of the truths' value type,
    those with the truths' time precision first (so "on"/"in" reads the same), drawn with ``seed``."""
    truth_texts = {t.text.casefold() for t in truths}
    types = {t.value_type for t in truths}
    precisions = {t.precision for t in truths}
    candidates = [v for v in pool if v.text.casefold() not in truth_texts and v.value_type in types]
    rng = random.Random(seed)
    same = [v for v in candidates if v.precision in precisions]
    other = [v for v in candidates if v.precision not in precisions]
    rng.shuffle(same)
    rng.shuffle(other)
    return (same + other)[:count]


def name_variants(name: str, subjects: dict[str, Subject], count: int, seed: str) -> list[str]:
    """``count`` names that look like ``name`` but belong to no subject of the graph.

    In turn: another subject's given name with this family name, this given name with another
    family name, and one-letter changes of the family name (a vowel replaced, two inner letters
    swapped). Deterministic for a seed.
    """
    rng = random.Random(seed)
    taken = {s.name.casefold() for s in subjects.values()}
    parts = name.split()
    firsts = sorted({s.name.split()[0] for s in subjects.values() if len(s.name.split()) > 1} - {parts[0]})
    lasts = sorted({s.name.split()[-1] for s in subjects.values() if len(s.name.split()) > 1} - {parts[-1]})
    rng.shuffle(firsts)
    rng.shuffle(lasts)
    generators = []
    if len(parts) > 1:
        generators.append(iter([f"{first} {' '.join(parts[1:])}" for first in firsts]))
        generators.append(iter([f"{' '.join(parts[:-1])} {last}" for last in lasts]))
    generators.append(_letter_changes(parts, rng))
    out: list[str] = []
    while len(out) < count and generators:
        for gen in list(generators):
            candidate = next(gen, None)
            if candidate is None:
                generators.remove(gen)
                continue
            if candidate.casefold() not in taken and candidate not in out and candidate != name:
                out.append(candidate)
                if len(out) == count:
                    break
    return out


def _letter_changes(parts: list[str], rng: random.Random):
    word = parts[-1]
    changes = []
    for i, ch in enumerate(word):
        if ch.lower() in VOWELS and i > 0:
            for other in VOWELS:
                if other != ch.lower():
                    changes.append(word[:i] + other + word[i + 1:])
    for i in range(1, len(word) - 2):
        if word[i] != word[i + 1]:
            changes.append(word[:i] + word[i + 1] + word[i] + word[i + 2:])
    rng.shuffle(changes)
    for changed in changes:
        yield " ".join(parts[:-1] + [changed])
