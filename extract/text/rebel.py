"""Relation extraction with REBEL, a BART model that writes the triples of a text as a string.

REBEL (Huang Cabot & Navigli, 2021, "REBEL: Relation Extraction By End-to-end Language
generation"; hub id ``Babelscape/rebel-large``) reads at most 256 tokens and generates a
linearization of the facts it finds, with three marker tokens::

    <s><triplet> Punta Cana <subj> Higüey <obj> located in the administrative territorial entity
       <subj> La Altagracia Province <obj> located in the administrative territorial entity</s>

``<triplet> HEAD`` opens a head entity, and every ``<subj> TAIL <obj> RELATION`` after it is one
fact about that head. Relations are English Wikidata property labels ("place of birth"); a
build maps the ones it keeps to our relation ids (``P19``).

Parsing (``parse_rebel_sequence``) is a separate step from generation: it validates, drops and
counts bad fragments instead of crashing, and ``RebelExtractor.stats`` keeps the counts so a
build can report them.

Example::

    >>> parse_rebel_output("<s><triplet> Ada <subj> London <obj> place of birth</s>")
    [('Ada', 'place of birth', 'London')]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from extract.text.extractors import ChatBackend, Segment
from extract.text.normalize import rebel_relation_ids, relations_version
from extract.text.options import TextBuildOptions
from extract.text.units import Passage, Triple
from graphstore.errors import ConfigError, InputDataError

# torch and transformers are imported where a model is loaded or run, so that the parser and
# the constants can be used (and this module imported) without paying for them.

TRIPLET, SUBJ, OBJ = "<triplet>", "<subj>", "<obj>"
# Tokens that frame a generated sequence but say nothing: start, end, padding.
REBEL_FRAME_TOKENS = ("<s>", "</s>", "<pad>")
# REBEL was trained on inputs of at most 256 tokens, special tokens included.
REBEL_MAX_INPUT_TOKENS = 256
EXTRACTOR_NAME = "rebel"
# A build hands REBEL the passages of several documents at once: about this many batches of
# them, so that a GPU gets full batches of chunks (a news article is a few passages).
POOL_BATCHES = 4


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class ParsedOutput:
    """What one generated sequence says.

    ``triples`` are ``(head, relation_label, tail)`` in the order generated. ``malformed``
    counts the fragments dropped: a ``<subj> … <obj> …`` pair missing a part (or with a second
    ``<obj>``), a head with no pair at all, a pair under an empty or broken head, and stray text
    before the first ``<triplet>`` (one fragment however long). ``ends_complete`` is True when
    the last fragment of the sequence gave a triple: a sequence cut by the length limit may end
    in a relation label that lost its last words, and the caller can drop that one.
    """

    triples: tuple[tuple[str, str, str], ...]
    malformed: int
    ends_complete: bool


def _clean(part: str) -> str:
    """Whitespace-stripped, inner runs of whitespace made one space (decoding can double them)."""
    return " ".join(part.split())


def parse_rebel_sequence(text: str, frame_tokens: Iterable[str] = REBEL_FRAME_TOKENS) -> ParsedOutput:
    """Parse one decoded REBEL sequence (special tokens kept) into triples and a malformed count.

    Args:
        text: the decoded sequence, e.g. ``"<s><triplet> A <subj> B <obj> r</s><pad>"``.
        frame_tokens: tokens removed before parsing (start, end, padding).

    Returns:
        a ``ParsedOutput``; never raises on odd input, an empty sequence gives no triples and
        no malformed fragment.
    """
    for token in frame_tokens:
        text = text.replace(token, " ")
    preamble, *groups = text.split(TRIPLET)
    triples: list[tuple[str, str, str]] = []
    malformed = 1 if _clean(preamble) else 0
    ends_complete = False
    for group in groups:
        head_part, *pairs = group.split(SUBJ)
        head = _clean(head_part)
        head_ok = bool(head) and OBJ not in head_part
        if not pairs:  # "<triplet> HEAD" and nothing more
            malformed += 1
            ends_complete = False
            continue
        for pair in pairs:
            parts = pair.split(OBJ)
            tail, relation = (_clean(parts[0]), _clean(parts[1])) if len(parts) == 2 else ("", "")
            ends_complete = head_ok and bool(tail) and bool(relation)
            if ends_complete:
                triples.append((head, relation, tail))
            else:
                malformed += 1
    return ParsedOutput(tuple(triples), malformed, ends_complete)


def parse_rebel_output(text: str) -> list[tuple[str, str, str]]:
    """The ``(head, relation_label, tail)`` triples of one decoded REBEL sequence.

    Malformed fragments are dropped silently; use ``parse_rebel_sequence`` to count them.
    """
    return list(parse_rebel_sequence(text).triples)


# --------------------------------------------------------------------------- chunking


@dataclass(frozen=True)
class Chunk:
    """A span of a passage's text that fits REBEL's input; offsets are relative to the text."""

    start: int
    end: int
    text: str


def _count_tokens(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _sentence_spans(passage: Passage) -> list[tuple[int, int]]:
    """The passage's sentences, whitespace trimmed; the whole text when none are given."""
    spans = passage.sentences or ((0, len(passage.text)),)
    previous_end = 0
    trimmed = []
    for start, end in spans:
        if not 0 <= start <= end <= len(passage.text) or start < previous_end:
            raise InputDataError(passage.path, f"passage {passage.key}: sentence offsets ({start}, {end}) are "
                                 f"out of order or outside its text of {len(passage.text)} characters",
                                 record=passage.document)
        previous_end = end
        piece = passage.text[start:end]
        start += len(piece) - len(piece.lstrip())
        end -= len(piece) - len(piece.rstrip())
        if start < end:
            trimmed.append((start, end))
    return trimmed


def _cut_by_tokens(text: str, start: int, end: int, tokenizer, budget: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` at token boundaries into spans of at most ``budget`` tokens."""
    encoding = tokenizer(text[start:end], add_special_tokens=False, return_offsets_mapping=True)
    offsets = [(start + a, start + b) for a, b in encoding["offset_mapping"] if b > a]
    spans = []
    i = 0
    while i < len(offsets):
        j = min(i + budget, len(offsets))
        # A span cut at token boundaries can re-tokenize differently; shrink until it fits.
        # One token alone is kept whatever it counts: encoding truncates as a last guard.
        while j > i + 1 and _count_tokens(tokenizer, text[offsets[i][0]:offsets[j - 1][1]]) > budget:
            j -= 1
        spans.append((offsets[i][0], offsets[j - 1][1]))
        i = j
    return spans


def split_into_chunks(passage: Passage, tokenizer, max_tokens: int = REBEL_MAX_INPUT_TOKENS) -> list[Chunk]:
    """Cut a passage into chunks of whole consecutive sentences that fit ``max_tokens``.

    Sentences (``Passage.sentences``, or the whole text when there are none) are packed in
    order while the chunk, with the tokenizer's special tokens, stays within ``max_tokens``. A
    sentence longer than that on its own is cut at token boundaries. Text outside every
    sentence is not read.

    Raises:
        ConfigError: ``max_tokens`` leaves no room beside the special tokens.
        InputDataError: the sentence offsets do not fit the passage text.
    """
    budget = max_tokens - tokenizer.num_special_tokens_to_add(pair=False)
    if budget < 1:
        raise ConfigError(f"max input tokens {max_tokens} leaves no room for text beside the "
                          f"tokenizer's special tokens; give at least {max_tokens - budget + 1}")
    text = passage.text
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for start, end in _sentence_spans(passage):
        if current is not None and _count_tokens(tokenizer, text[current[0]:end]) <= budget:
            current = (current[0], end)
            continue
        if current is not None:
            spans.append(current)
            current = None
        if _count_tokens(tokenizer, text[start:end]) <= budget:
            current = (start, end)
        else:
            spans.extend(_cut_by_tokens(text, start, end, tokenizer, budget))
    if current is not None:
        spans.append(current)
    return [Chunk(start, end, text[start:end]) for start, end in spans]


# --------------------------------------------------------------------------- extraction


@dataclass
class RebelStats:
    """Counts over every ``extract`` call of one extractor, for a build's report."""

    passages: int = 0
    chunks: int = 0
    triples: int = 0              # kept and returned
    malformed_fragments: int = 0  # see ParsedOutput.malformed
    truncated: int = 0            # last triple of a sequence that hit the output length limit
    unknown_relations: int = 0    # triples whose relation label is not in the mapping
    degenerate: int = 0           # head and tail the same (ignoring case)
    duplicates: int = 0           # the same triple twice from one chunk
    unknown_labels: Counter = field(default_factory=Counter)  # label -> how often dropped

    def summary(self) -> str:
        return (f"rebel: {self.passages} passages in {self.chunks} chunks, {self.triples} triples kept; dropped: "
                f"{self.unknown_relations} outside the inventory, {self.malformed_fragments} malformed fragments, "
                f"{self.truncated} cut by the length limit, {self.degenerate} with head = tail, "
                f"{self.duplicates} repeated")


def _select_device(requested: str | None) -> str:
    import torch

    if requested is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {requested!r}: no CUDA device is visible to torch "
                          f"(torch {torch.__version__}); use cpu or leave the device unset")
    try:
        return str(torch.device(requested))
    except RuntimeError as e:
        raise ConfigError(f"device {requested!r} is not a device torch knows; try cpu or cuda:0") from e


def _looks_like_path(model: str) -> bool:
    """Hub ids are ``name`` or ``owner/name``; anything else is meant as a folder."""
    return (Path(model).expanduser().exists() or model.startswith(("/", ".", "~"))
            or model.count("/") > 1 or "\\" in model)


def _load(model: str):
    """Tokenizer and seq2seq model of ``model`` (a folder or a hub id), errors made ConfigError."""
    from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoTokenizer

    if _looks_like_path(model) and not Path(model).expanduser().is_dir():
        raise ConfigError(f"model folder '{model}' does not exist; give a folder with a saved REBEL "
                          f"model or a hub id such as Babelscape/rebel-large")
    local = _looks_like_path(model)
    source = str(Path(model).expanduser()) if local else model
    try:
        config = AutoConfig.from_pretrained(source)
    except (OSError, ValueError) as e:
        where = ("the folder holds no usable config.json" if local
                 else "no folder of that name is here and the Hugging Face Hub could not provide it")
        raise ConfigError(f"model '{model}' could not be loaded: {where} ({e})") from e
    if not getattr(config, "is_encoder_decoder", False):
        raise ConfigError(f"model '{model}' is a {config.model_type!r} model, not a sequence-to-sequence "
                          f"(encoder-decoder) model; REBEL needs one such as Babelscape/rebel-large")
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        seq2seq = AutoModelForSeq2SeqLM.from_pretrained(source)
    except (OSError, ValueError) as e:
        raise ConfigError(f"model '{model}' could not be loaded as a sequence-to-sequence model: {e}") from e
    missing = [m for m in (TRIPLET, SUBJ, OBJ) if m not in tokenizer.get_vocab()]
    if missing:
        raise ConfigError(f"the tokenizer of model '{model}' lacks REBEL's marker tokens {', '.join(missing)}; "
                          f"it cannot write triples")
    if not getattr(tokenizer, "is_fast", False):
        raise ConfigError(f"the tokenizer of model '{model}' is not a fast (Rust) tokenizer; "
                          f"chunking needs its character offsets")
    return tokenizer, seq2seq


def _check_relation_ids(relation_ids: Mapping[str, str]) -> dict[str, str]:
    if not relation_ids:
        raise ConfigError("the REBEL relation mapping is empty: every triple would be dropped; "
                          "map REBEL labels to relation ids, e.g. {'place of birth': 'P19'}")
    checked = {}
    for label, relation in relation_ids.items():
        if not isinstance(label, str) or not _clean(label) or not isinstance(relation, str) or not relation.strip():
            raise ConfigError(f"REBEL relation mapping entry {label!r} -> {relation!r}: "
                              f"both the label and the relation id must be non-empty strings")
        checked[_clean(label)] = relation.strip()
    return checked


class RebelExtractor:
    """Triples of passages by a REBEL model, kept only for relations in a given mapping
    (registered as ``rebel``: ``extract.text.catalog``).

    Args:
        model: a folder with a saved REBEL model, or a hub id such as ``Babelscape/rebel-large``.
        relation_ids: REBEL relation label -> our relation id, e.g. ``{"place of birth": "P19"}``;
            labels are matched exactly (after whitespace is normalized), others are dropped.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``; None for CUDA when present, else CPU.
        batch_size: chunks generated together.
        num_beams: beam search width (REBEL's authors generate with 3).
        max_output_tokens: the most tokens one generated linearization may have; a sequence
            that reaches it loses its last triple, whose label may have been cut short.
        max_input_tokens: REBEL's input limit, special tokens included (256 for REBEL).

    Raises:
        ConfigError: an option is out of range, or the model cannot be loaded or is not a
            seq2seq model with REBEL's marker tokens.
    """

    name = EXTRACTOR_NAME

    def __init__(self, model: str, relation_ids: Mapping[str, str], *, device: str | None = None,
                 batch_size: int = 8, num_beams: int = 3, max_output_tokens: int = 256,
                 max_input_tokens: int = REBEL_MAX_INPUT_TOKENS):
        for name, value in (("batch size", batch_size), ("num beams", num_beams),
                            ("max output tokens", max_output_tokens), ("max input tokens", max_input_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"REBEL {name} must be a whole number of at least 1, got {value!r}")
        self.relation_ids = _check_relation_ids(relation_ids)
        self.device = _select_device(device)
        self.batch_size = batch_size
        self.num_beams = num_beams
        self.max_output_tokens = max_output_tokens
        self.max_input_tokens = max_input_tokens
        self.tokenizer, self.model = _load(model)
        self.model.to(self.device).eval()
        # A decoder cannot write past its position table (REBEL-large: 1,024); a smaller
        # model would fail mid-batch with an index error instead of cutting the sequence.
        positions = getattr(self.model.config, "max_position_embeddings", None)
        if positions:
            self.max_output_tokens = min(self.max_output_tokens, positions - 1)
        # Besides REBEL's own <s>, </s>, <pad>: whatever this tokenizer frames sequences with.
        own = (self.tokenizer.bos_token, self.tokenizer.eos_token, self.tokenizer.pad_token)
        self._frame_tokens = tuple(dict.fromkeys([*REBEL_FRAME_TOKENS, *(t for t in own if t)]))
        self.stats = RebelStats()
        self.version = f"rebel:{model}+{relations_version()}"
        self.batch_passages = POOL_BATCHES * batch_size

    @classmethod
    def from_options(cls, options: TextBuildOptions, backend: ChatBackend | None = None) -> RebelExtractor:
        assert options.rebel_model is not None  # TextBuildOptions asks rebel for a model
        return cls(options.rebel_model, rebel_relation_ids(), device=options.rebel_device,
                   batch_size=options.rebel_batch_size)

    def summary(self) -> str:
        return self.stats.summary()

    def extract(self, segments: Sequence[Segment]) -> list[Triple]:
        """The ``Extractor`` interface: the triples of each segment's passage."""
        return self.extract_passages([s.passage for s in segments])

    def extract_passages(self, passages: Sequence[Passage]) -> list[Triple]:
        """The triples REBEL finds in ``passages``, in passage and chunk order.

        Each triple's ``evidence`` is the chunk it was read from. Triples with an unmapped
        relation label, the same head and tail, or cut off by the output length limit are
        dropped and counted in ``self.stats``.
        """
        work = [(passage, chunk) for passage in passages for chunk in split_into_chunks(
            passage, self.tokenizer, self.max_input_tokens)]
        self.stats.passages += len(passages)
        self.stats.chunks += len(work)
        triples: list[Triple] = []
        for first in range(0, len(work), self.batch_size):
            batch = work[first:first + self.batch_size]
            for (passage, chunk), (text, finished) in zip(batch, self._generate([c.text for _, c in batch])):
                triples.extend(self._keep(passage, chunk, text, finished))
        return triples

    def _generate(self, texts: list[str]) -> list[tuple[str, bool]]:
        """Decoded sequences (special tokens kept) and whether each ended before the length limit."""
        import torch

        inputs = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_input_tokens,
                                return_tensors="pt").to(self.device)
        with torch.inference_mode():
            output = self.model.generate(**inputs, num_beams=self.num_beams, num_return_sequences=1,
                                         max_new_tokens=self.max_output_tokens)
        decoded = self.tokenizer.batch_decode(output, skip_special_tokens=False)
        # An end token does not prove a sequence ended on its own: BART configs (REBEL's
        # included) force </s> at the length limit. A row that fills every position up to the
        # limit (no padding after it) was cut there, or ended exactly there: both count as cut.
        if output.shape[1] - 1 < self.max_output_tokens:
            return [(text, True) for text in decoded]
        pad = self.tokenizer.pad_token_id
        return [(text, pad is not None and last == pad) for text, last in zip(decoded, output[:, -1].tolist())]

    def _keep(self, passage: Passage, chunk: Chunk, text: str, finished: bool) -> list[Triple]:
        parsed = parse_rebel_sequence(text, self._frame_tokens)
        self.stats.malformed_fragments += parsed.malformed
        found = list(parsed.triples)
        if not finished and parsed.ends_complete:
            found.pop()
            self.stats.truncated += 1
        kept: dict[tuple[str, str, str], Triple] = {}
        for head, label, tail in found:
            if label not in self.relation_ids:
                self.stats.unknown_relations += 1
                self.stats.unknown_labels[label] += 1
            elif not head or not tail or head.casefold() == tail.casefold():
                self.stats.degenerate += 1
            elif (head, label, tail) in kept:
                self.stats.duplicates += 1
            else:
                kept[(head, label, tail)] = Triple(head=head, relation=self.relation_ids[label], tail=tail,
                                                   passage=passage.key, extractor=EXTRACTOR_NAME,
                                                   evidence=chunk.text, start=chunk.start, end=chunk.end)
        self.stats.triples += len(kept)
        return list(kept.values())
