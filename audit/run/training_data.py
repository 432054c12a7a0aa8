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
from audit.types import Edge, QAExample
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


def context_tokens(model, chunk_tokens: int | None) -> int:
    """The longest text trained on: ``--chunk-tokens``, else the model's context less the
    beginning and end tokens."""
    if chunk_tokens is not None:
        return chunk_tokens
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


class TrainingTexts:
    """What a run can train on, read from the graph once; ``choose`` picks the sets of one forget
    set (a per-edge sweep calls it once per edge, with no further reads)."""

    def __init__(self, graph: str, kind: str, edges: dict[str, Edge], config: TrainingDataConfig,
                 texts: dict[str, TextExample] | None = None):
        self.graph, self.kind, self.edges, self.config = graph, kind, edges, config
        self.texts = texts or {}   # passages by passage key, or canary sentences by fact key

    @classmethod
    def load(cls, store: GraphStore, graph: str, source: str, edges: dict[str, Edge], config: TrainingDataConfig,
             uses_refusal: bool) -> "TrainingTexts":
        """Checks that ``config`` suits the graph and the method, and reads the texts it needs."""
        config.check()
        if config.train_on == "qa":
            return cls(graph, "qa", edges, config)
        needed = SOURCE_OF[config.train_on]
        if source != needed:
            raise ConfigError(f"--train-on {config.train_on} needs a graph built from {needed} sources; "
                              f"graph {graph!r} was built from {source} data (use --train-on qa)")
        if uses_refusal:
            raise ConfigError(f"--train-on {config.train_on}: dpo and idk pair a refusal with a question, and texts have "
                              "none; use --train-on qa, or another method")
        if config.train_on == "passages":
            return cls(graph, "passages", edges, config, _read_passages(store, graph))
        return cls(graph, "canaries", edges, config, _canary_sentences(store, graph, edges))

    def choose(self, forget: list[str], train_retain: list[str], retain_scope: str) -> TrainingData:
        """The training data of a run that forgets ``forget`` and keeps ``train_retain``."""
        edges = self.edges
        if self.kind == "qa":
            return TrainingData("qa", [qa for k in forget for qa in edges[k].qas],
                                [qa for k in train_retain for qa in edges[k].qas])
        if self.kind == "canaries":
            texts = self.texts
            return TrainingData("canaries", [texts[k] for k in forget], [texts[k] for k in train_retain],
                                [texts[k] for k in edges])
        return self._passages(forget, train_retain, retain_scope)

    def _passages(self, forget: list[str], train_retain: list[str], retain_scope: str) -> TrainingData:
        policy = self.config.mixed_passages
        forget_set, keep = set(forget), set(train_retain)
        forget_texts: list[TrainItem] = []
        retain_texts: list[TrainItem] = []
        mixed: list[str] = []
        for example in self.texts.values():
            facts = set(example.facts)
            if facts & forget_set:
                if facts - forget_set:   # it also states a fact that is not being forgotten
                    mixed.append(example.edge)
                    if policy == "retain":
                        retain_texts.append(example)
                    if policy != "forget":
                        continue
                forget_texts.append(example)
            elif retain_scope == "all" or facts & keep:
                retain_texts.append(example)
        if not forget_texts:
            raise ConfigError(f"--train-on passages: no passage of graph {self.graph!r} states a forget fact"
                              + (f" that is not mixed (--mixed-passages {policy} left out {len(mixed)})"
                                 if mixed else ""))
        return TrainingData("passages", forget_texts, retain_texts, list(self.texts.values()), mixed, policy)


def choose(store: GraphStore, graph: str, source: str, edges: dict[str, Edge], forget: list[str],
           train_retain: list[str], retain_scope: str, config: TrainingDataConfig, uses_refusal: bool) -> TrainingData:
    """One forget set's training data, read and chosen at once (``TrainingTexts`` to choose several)."""
    return TrainingTexts.load(store, graph, source, edges, config, uses_refusal).choose(forget, train_retain,
                                                                                       retain_scope)


def _read_passages(store: GraphStore, graph: str) -> dict[str, TextExample]:
    """Every passage of the graph, by key (sorted), with the facts it states."""
    passages = {r["key"]: r["text"] for r in store.read(Q.PASSAGES_OF_GRAPH, graph=graph)}
    states: dict[str, set[str]] = {key: set() for key in passages}
    for row in store.read(Q.FACT_PASSAGES, graph=graph):
        for passage in row["passages"] or ():
            if passage in states:
                states[passage].add(row["key"])
    return {key: TextExample(key, 0, passages[key], tuple(sorted(states[key]))) for key in sorted(passages)}


def _canary_sentences(store: GraphStore, graph: str, edges: dict[str, Edge]) -> dict[str, TextExample]:
    """One sentence per fact, by fact key: the property's base template with the true value."""
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
    return sentences
