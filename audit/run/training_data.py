"""What injection and unlearning train on: QA pairs, source passages or canary sentences.

``--train-on`` (``TrainingDataConfig.train_on``):

- ``qa``: the QA pairs of the edges (PISTOL, TOFU). Forget = the forget edges' pairs, retain =
  the training-retain edges' pairs, injection = every pair of the graph.
- ``passages`` (text graphs): the passages the facts were extracted from (MUSE, HANKER: the
  model reads the corpus, the audit asks per fact). Forget = every passage that states a forget
  fact; retain = the passages that state none (with ``--retain all``; with another scope, those
  stating a training-retain fact); injection = every passage of both corpora. A passage that
  states a forget fact *and* a fact not being forgotten is *mixed*: ``--mixed-passages`` puts it
  in the forget set (default: the fact must go, and the retained fact beside it takes the
  damage, as when a whole forget corpus is unlearned), in the retain set, or in neither.
- ``canaries`` (Wikidata graphs): one sentence per fact, the property registry's base sentence
  with the subject's name and the true value ("Douglas Adams was born in Cambridge."); the
  memorization measure scores these and its other templates (WikiMem, arXiv:2507.11128).

Texts longer than the context are cut into chunks once a tokenizer exists (``chunked``).
Measurement stays on the facts' questions (and, on Wikidata graphs, the memorization measure).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from audit.config import TrainingDataConfig
from audit.measure.memorization.subjects import load_subjects
from audit.models.encoding import EncodedQA, QAEncoder
from audit.questions.properties import fill, load_registry
from audit.run.qa import Edge, QAExample
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError

SOURCE_OF = {"passages": "text", "canaries": "wikidata"}


@dataclass(frozen=True)
class TextExample:
    """A training text: a passage (or a chunk of one) or a canary sentence."""
    edge: str                  # where it comes from: the passage key, or the canary's fact key
    index: int                 # chunk number within that source (0 when whole)
    text: str
    facts: tuple[str, ...] = ()   # the edges it states


TrainItem = QAExample | TextExample


@dataclass
class TrainingData:
    """The forget, retain and injection sets of one run, and how they were chosen."""
    kind: str                              # qa | passages | canaries
    forget: list[TrainItem]
    retain: list[TrainItem]
    inject: list[TextExample] = field(default_factory=list)   # texts injection trains on (QA pairs aside)
    mixed: list[str] = field(default_factory=list)            # mixed passages (passages only)
    mixed_policy: str | None = None

    def record(self) -> dict:
        """What the run stores about its training data (Run properties)."""
        sources = sorted({item.edge for item in self.forget})
        return {"train_on": self.kind, "train_forget_items": len(self.forget), "train_retain_items": len(self.retain),
                "train_forget_sources": sources, "mixed_passages": len(self.mixed) if self.kind == "passages" else None,
                "mixed_passages_policy": self.mixed_policy}


def encode(encoder: QAEncoder, item: TrainItem) -> EncodedQA:
    """A QA pair with the prompt format (loss on the answer), a text as it is (loss on all of it)."""
    if isinstance(item, TextExample):
        return encoder.encode_text(item.text)
    return encoder.encode(item.question, item.answer)


def context_tokens(model, config: TrainingDataConfig) -> int:
    """The longest text trained on: ``--chunk-tokens``, else the model's context less the
    beginning and end tokens."""
    if config.chunk_tokens is not None:
        return config.chunk_tokens
    positions = getattr(model.config, "max_position_embeddings", None) or 2048
    return max(8, positions - 2)


def chunked(items: list[TrainItem], encoder: QAEncoder, max_tokens: int) -> list[TrainItem]:
    """Texts longer than ``max_tokens`` cut into chunks (``index`` numbers them); QA pairs as they are."""
    out: list[TrainItem] = []
    for item in items:
        if isinstance(item, TextExample):
            out += [TextExample(item.edge, i, piece, item.facts)
                    for i, piece in enumerate(encoder.chunk_text(item.text, max_tokens))]
        else:
            out.append(item)
    return out


def choose(store: GraphStore, graph: str, source: str, edges: dict[str, Edge], forget: list[str],
           train_retain: list[str], retain_scope: str, config: TrainingDataConfig, uses_refusal: bool) -> TrainingData:
    """The training data of a run that forgets ``forget`` and keeps ``train_retain``."""
    config.check()
    if config.train_on == "qa":
        return TrainingData("qa", [qa for k in forget for qa in edges[k].qas],
                            [qa for k in train_retain for qa in edges[k].qas])
    needed = SOURCE_OF[config.train_on]
    if source != needed:
        raise ConfigError(f"--train-on {config.train_on} needs a graph built from {needed} sources; "
                          f"graph {graph!r} was built from {source} data (use --train-on qa)")
    if uses_refusal:
        raise ConfigError(f"--train-on {config.train_on}: dpo pairs a refusal with a question, and texts have "
                          "none; use --train-on qa, or another method")
    if config.train_on == "passages":
        return _passages(store, graph, forget, train_retain, retain_scope, config.mixed_passages)
    return _canaries(store, graph, edges, forget, train_retain)


def _passages(store: GraphStore, graph: str, forget: list[str], train_retain: list[str], retain_scope: str,
              policy: str) -> TrainingData:
    passages = {r["key"]: r["text"] for r in store.read(Q.PASSAGES_OF_GRAPH, graph=graph)}
    states: dict[str, set[str]] = {key: set() for key in passages}   # passage -> the facts it states
    for row in store.read(Q.FACT_PASSAGES, graph=graph):
        for passage in row["passages"] or ():
            if passage in states:
                states[passage].add(row["key"])
    forget_set, keep = set(forget), set(train_retain)
    forget_texts, retain_texts, mixed = [], [], []
    for key in sorted(passages):
        facts = states[key]
        example = TextExample(key, 0, passages[key], tuple(sorted(facts)))
        if facts & forget_set:
            if facts - forget_set:   # it also states a fact that is not being forgotten
                mixed.append(key)
                if policy == "retain":
                    retain_texts.append(example)
                if policy != "forget":
                    continue
            forget_texts.append(example)
        elif retain_scope == "all" or facts & keep:
            retain_texts.append(example)
    if not forget_texts:
        raise ConfigError(f"--train-on passages: no passage of graph {graph!r} states a forget fact"
                          + (f" that is not mixed (--mixed-passages {policy} left out {len(mixed)})" if mixed else ""))
    inject = [TextExample(key, 0, passages[key], tuple(sorted(states[key]))) for key in sorted(passages)]
    return TrainingData("passages", forget_texts, retain_texts, inject, mixed, policy)


def _canaries(store: GraphStore, graph: str, edges: dict[str, Edge], forget: list[str],
              train_retain: list[str]) -> TrainingData:
    registry = load_registry()
    sentences: dict[str, TextExample] = {}
    for subject in load_subjects(store, graph).values():
        for pid, values in subject.facts.items():
            base = registry.get(pid, subject.property_labels.get(pid)).base
            for value in values:
                sentences[value.edge] = TextExample(value.edge, 0, fill(base, subject.name, value.text,
                                                                        value.preposition), (value.edge,))
    missing = [k for k in edges if k not in sentences]
    if missing:
        raise ConfigError(f"--train-on canaries: {len(missing)} edge(s) of graph {graph!r} are not subject facts "
                          f"(e.g. {missing[0]})")
    return TrainingData("canaries", [sentences[k] for k in forget], [sentences[k] for k in train_retain],
                        [sentences[k] for k in edges])
