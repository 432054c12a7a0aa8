"""A run held against the protocol it names: the settings given over its preset, and what the
graph and the property registry cannot supply of it.

A preset (``audit.config.MEMORIZATION_PRESETS``) asks, per fact, for 1 + ``paraphrases``
distinct templates and ``counterfactuals`` counterfactual values. The registry may hold fewer
distinct paraphrases for a property, and the graph fewer other values of it (77 people have
two values of sex or gender between them, so a fact of theirs has one counterfactual, not
100). Such a fact is measured with what there is: nothing is padded or invented. What falls
short is said here, one warning line per kind, before anything is scored; each FactResult
records its own ``templates`` and ``counterfactuals``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from audit.config import MemorizationConfig, memorization_preset
from audit.measure.memorization.canaries import Subject, value_pools
from audit.measure.memorization.ranking import plan_fact
from audit.questions.properties import PropertyRegistry


@dataclass(frozen=True)
class Shortfall:
    """The facts of one property that get fewer templates or counterfactuals than asked."""
    what: str       # "templates" or "counterfactuals"
    property: str
    label: str
    asked: int
    facts: int      # facts of the property measured
    short: int      # of them, those that get fewer
    fewest: int     # the fewest any of them gets

    def text(self) -> str:
        return f"{self.property} ({self.label}) {self.short} of {self.facts} fact(s), as few as {self.fewest}"


def departures(config: MemorizationConfig) -> dict[str, tuple]:
    """The settings given over the config's preset: name -> (value used, the preset's value)."""
    if config.preset is None:
        return {}
    return {name: (getattr(config, name), value) for name, value in memorization_preset(config.preset).settings.items()
            if getattr(config, name) != value}


def shortfalls(registry: PropertyRegistry, subjects: dict[str, Subject], targets: list[tuple[str, str]],
               config: MemorizationConfig) -> list[Shortfall]:
    """Per property, the facts of ``targets`` that the measure will give fewer distinct
    templates (base + paraphrases, contextualized variants aside) or counterfactuals than
    ``config`` asks; templates only when it asks for a number of paraphrases."""
    pools = value_pools(subjects)
    counts: dict[tuple[str, str], list[int]] = defaultdict(list)
    labels = {}
    for qid, pid in targets:
        plan = plan_fact(registry, subjects, pools, qid, pid, config)
        counts["templates", pid].append(len({t.sentence for t in plan.templates if not t.context}))
        counts["counterfactuals", pid].append(len(plan.counterfactuals))
        labels[pid] = registry.get(pid, subjects[qid].property_labels.get(pid)).label
    asked = {"counterfactuals": config.counterfactuals,
             "templates": None if config.paraphrases is None else 1 + config.paraphrases}
    out = []
    for (what, pid), got in sorted(counts.items()):
        wanted = asked[what]
        if wanted is None:   # no number of paraphrases asked: no templates are short
            continue
        short = [n for n in got if n < wanted]
        if short:
            out.append(Shortfall(what, pid, labels[pid], wanted, len(got), len(short), min(short)))
    return out


def protocol_warnings(registry: PropertyRegistry, subjects: dict[str, Subject], targets: list[tuple[str, str]],
                      config: MemorizationConfig) -> list[str]:
    """One line per way the run departs from its preset (none without a preset): settings given
    over it, properties short of templates, properties short of counterfactuals."""
    if config.preset is None:
        return []
    preset = memorization_preset(config.preset)
    lines = []
    given = departures(config)
    if given:
        lines.append(f"preset {preset.name} ({preset.source}) with settings of its own: "
                     + ", ".join(f"{name}={value!r} (the preset's: {ours!r})" for name, (value, ours) in given.items()))
    found = shortfalls(registry, subjects, targets, config)
    for what, source in (("templates", "the property registry holds fewer distinct paraphrases of"),
                         ("counterfactuals", "the graph holds fewer other values of")):
        short = [s for s in found if s.what == what]
        if short:
            asked = short[0].asked
            asked_text = f"{asked} templates (base + {asked - 1} paraphrases)" if what == "templates" else f"{asked} {what}"
            lines.append(f"preset {preset.name}: the run asks {asked_text} per fact; {source}: "
                         + "; ".join(s.text() for s in short) + f" (each fact is measured with what there is; "
                         f"its FactResult records its {what})")
    return lines
