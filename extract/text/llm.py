"""The ``llm`` extractor: an instruction-tuned model asked for each passage's facts, as JSON.

The prompt (``extract/data/prompts/triples.v1.json``, or a user's file of the same form) gives
the relation inventory as the schema (id, label, head kind -> tail kind) and a few numbered
passages; the reply is repaired and validated by ``extract.text.llm_reply`` (names must be in
the passage, relations in the inventory). It talks to whatever ``ChatBackend`` it is given:
the build passes the backends of ``--questions-llm`` (an OpenAI-compatible server such as
vLLM, llama.cpp's server or Ollama; or a local causal LM folder).

- **Batches:** ``passages_per_request`` passages per request, ``workers`` requests at once.
- **Failures:** a failed call (HTTP error, timeout) or an unreadable reply is asked again up
  to ``retries`` times; passages the reply skipped, or was cut short in, are asked again
  without the others (one cut short when asked alone keeps its complete facts, uncached). When that is spent,
  ``ExtractionError`` names the passage and the build stops before anything is written; or,
  with ``skip_unanswered``, the passage gives no facts and is counted in the summary.
- **Cache:** with a cache folder, each passage's validated facts are kept under the SHA-256 of
  (extractor version, passage text), so a build stopped half-way, or run again, asks only for
  passages it has not read.
- **Provenance:** every triple has its passage, the span of its evidence in the passage (of the
  sentence holding head and tail when the quoted evidence is not found verbatim), and the
  version ``llm:<model>+<prompt version>+<inventory version>``, recorded on the graph.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import string
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from graphstore.errors import BackendCallError, ConfigError, InputDataError

from extract.text.extractors import ChatBackend, Segment
from extract.text.llm_reply import Fact, ParsedReply, ReplyError, in_text, parse_reply
from extract.text.normalize import Relation, relations, relations_version
from extract.text.options import TextBuildOptions
from extract.text.units import Passage, Triple

SHIPPED_PROMPT = "data/prompts/triples.v1.json"
PROMPT_FIELDS = ("relations", "passages", "ids")
RETRY_PAUSE_SECONDS = 0.5   # times the attempt number, between tries of one request


class ExtractionError(InputDataError):
    """A passage the extractor could not read after every retry; nothing of the build is written."""


@dataclass(frozen=True)
class TriplePrompt:
    """A versioned prompt: ``system`` and ``user`` templates over {relations}, {passages}, {ids}."""

    version: str
    system: str
    user: str

    def render(self, inventory: Sequence[Relation], batch: Sequence[tuple[int, str]]) -> tuple[str, str]:
        values = {"relations": "\n".join(f"{r.id}: {r.label}, {r.head or 'thing'} -> {r.tail or 'thing'}"
                                         for r in inventory),
                  "passages": "\n\n".join(f"[{i}] {text}" for i, text in batch),
                  "ids": ", ".join(str(i) for i, _ in batch)}
        return self.system.format(**values), self.user.format(**values)


def load_prompt(path: str | Path | None = None) -> TriplePrompt:
    """The shipped ``triples.v1`` prompt, or a user's JSON file ``{"version", "system", "user"}``.

    Raises:
        InputDataError: naming the file: missing, not JSON, a field missing, or a placeholder
            other than {relations}, {passages}, {ids}.
    """
    where: str | Path = f"extract/{SHIPPED_PROMPT}" if path is None else Path(path)
    try:
        text = (resources.files("extract").joinpath(SHIPPED_PROMPT).read_text("utf-8") if path is None
                else Path(path).read_text(encoding="utf-8"))
        data = json.loads(text)
    except FileNotFoundError:
        raise InputDataError(where, "no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputDataError(where, f"not a JSON file: {e}") from e
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) and data[k].strip()
                                             for k in ("version", "system", "user")):
        raise InputDataError(where, 'expected {"version": ..., "system": ..., "user": ...}, each a non-empty string')
    for key in ("system", "user"):
        try:
            names = {n for _, n, _, _ in string.Formatter().parse(data[key]) if n is not None}
        except ValueError as e:
            raise InputDataError(where, f"field {key!r} is not a format template ({e}); write a brace twice") from e
        if names - set(PROMPT_FIELDS):
            raise InputDataError(where, f"field {key!r} uses {sorted(names - set(PROMPT_FIELDS))}; valid: "
                                        + ", ".join("{" + f + "}" for f in PROMPT_FIELDS))
    if "{passages}" not in data["user"]:
        raise InputDataError(where, "field 'user' must use {passages}")
    return TriplePrompt(data["version"], data["system"], data["user"])


@dataclass
class LLMStats:
    """What the extractor did, for the build's notes."""

    passages: int = 0
    cached: int = 0
    requests: int = 0
    retries: int = 0
    repaired: int = 0
    cut: int = 0          # passages whose reply was cut short even when asked alone (complete facts kept)
    unanswered: int = 0   # passages skipped with no usable answer (skip_unanswered)
    rejected: Counter | None = None

    def summary(self) -> str:
        rejected = ", ".join(f"{n} {reason}" for reason, n in sorted((self.rejected or Counter()).items()))
        return (f"llm extractor: {self.passages} passages ({self.cached} from the cache), {self.requests} requests, "
                f"{self.retries} asked again, {self.repaired} replies repaired, {self.cut} cut short alone, "
                f"{self.unanswered} passages never answered; facts refused: {rejected or 'none'}")


class LLMExtractor:
    """Facts of passages from an instruction-tuned model (see the module's notes)."""

    name = "llm"

    def __init__(self, backend: ChatBackend, model: str, *, prompt: TriplePrompt | None = None,
                 passages_per_request: int = 4, workers: int = 4, retries: int = 2, cache: Path | None = None,
                 skip_unanswered: bool = False, source: str = ""):
        self.backend = backend
        self.prompt = prompt or load_prompt()
        self.inventory = sorted(relations().values(), key=lambda r: r.id)
        self.relation_ids = {s.lower(): r.id for r in self.inventory for s in (r.id, r.label)}
        self.version = f"llm:{model}+{self.prompt.version}+{relations_version()}"
        self.batch_passages = passages_per_request * workers
        self.passages_per_request, self.workers, self.retries = passages_per_request, workers, retries
        self.cache = Path(cache) if cache is not None else None
        self.skip_unanswered = skip_unanswered
        self.stats = LLMStats(rejected=Counter())
        self._stats_lock = threading.Lock()
        # a cached answer is this model's, from this server, to this very prompt text
        self._cache_salt = hashlib.sha256("\0".join((self.version, source, self.prompt.system,
                                                     self.prompt.user)).encode()).hexdigest()

    @classmethod
    def from_options(cls, options: TextBuildOptions, backend: ChatBackend | None) -> LLMExtractor:
        if options.llm is None or backend is None:
            raise ConfigError("the llm extractor needs a model: --extractor-llm URL|PATH")
        llm = options.llm
        model = llm.model if llm.source.startswith(("http://", "https://")) else Path(llm.source).name
        return cls(backend, model, prompt=load_prompt(llm.prompt) if llm.prompt else None,
                   passages_per_request=llm.passages_per_request, workers=llm.workers, retries=llm.retries,
                   cache=llm.cache, skip_unanswered=llm.skip_unanswered, source=llm.source)

    def summary(self) -> str:
        return self.stats.summary()

    def extract(self, segments: Sequence[Segment]) -> list[Triple]:
        passages = [s.passage for s in segments]
        self.stats.passages += len(passages)
        answers: dict[str, list[Fact]] = {}
        asked = []
        for p in passages:
            cached = self._cached(p)
            if cached is None:
                asked.append(p)
            else:
                answers[p.key] = cached
                self.stats.cached += 1
        batches = [asked[i:i + self.passages_per_request] for i in range(0, len(asked), self.passages_per_request)]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for found in pool.map(self._ask, batches):   # an error in any batch stops the build here
                answers.update(found)
        return [self._triple(p, fact) for p in passages for fact in answers[p.key]]

    # -- asking --------------------------------------------------------------------------

    def _ask(self, batch: list[Passage]) -> dict[str, list[Fact]]:
        """Every passage of ``batch`` answered, asking again for what failed or was skipped."""
        out: dict[str, list[Fact]] = {}
        pending, note, tries = list(batch), "", 0
        while pending:
            numbered = {i: p for i, p in enumerate(pending, 1)}
            try:
                parsed = self._request(numbered, note)
            except (BackendCallError, ReplyError) as e:
                tries += 1
                if tries > self.retries:
                    return {**out, **self._give_up(pending, f"got no usable answer after {tries} tries: {e}")}
                self._count(retries=1)
                note = f"\n\nYour last reply could not be used ({e}). Reply with the JSON object only."
                time.sleep(RETRY_PAUSE_SECONDS * tries)
                continue
            again = list(parsed.missing)
            for i, passage in numbered.items():
                if i not in parsed.facts:
                    continue
                if i in parsed.partial and len(numbered) > 1:
                    again.append(i)        # cut short with others: asked again with fewer
                    continue
                out[passage.key] = parsed.facts[i]
                if i in parsed.partial:    # cut short alone: its complete facts kept, not cached
                    self._count(cut=1)
                else:
                    self._store(passage, parsed.facts[i])
            parsed.missing = sorted(again)
            pending = [numbered[i] for i in parsed.missing]
            if pending:
                tries += 1
                if tries > self.retries:
                    return {**out, **self._give_up(pending, f"never answered for it in {tries} tries")}
                self._count(retries=1)
                note = ""
        return out

    def _give_up(self, pending: list[Passage], why: str) -> dict[str, list[Fact]]:
        """No facts for ``pending`` when unanswered passages are skipped (counted, not cached:
        a rerun asks again); else the error that stops the build."""
        if not self.skip_unanswered:
            more = f" (and {len(pending) - 1} more passages of its request)" if len(pending) > 1 else ""
            raise ExtractionError(pending[0].key, f"the llm extractor {why}{more}; --extractor-skip-unanswered "
                                                  "reads on without them")
        self._count(unanswered=len(pending))
        return {p.key: [] for p in pending}

    def _request(self, numbered: dict[int, Passage], note: str) -> ParsedReply:
        system, user = self.prompt.render(self.inventory, [(i, p.text) for i, p in numbered.items()])
        self._count(requests=1)
        reply = self.backend.complete(system, user + note)
        parsed = parse_reply(reply, {i: p.text for i, p in numbered.items()}, self.relation_ids)
        self._count(repaired=int(parsed.repaired), rejected=parsed.rejected)
        return parsed

    def _count(self, rejected: Counter | None = None, **counts: int) -> None:
        """Add to the stats; requests run in several threads at once."""
        with self._stats_lock:
            for name, n in counts.items():
                setattr(self.stats, name, getattr(self.stats, name) + n)
            if rejected:
                assert self.stats.rejected is not None
                self.stats.rejected.update(rejected)

    def _triple(self, passage: Passage, fact: Fact) -> Triple:
        relation = relations()[fact.relation]
        start, end = _span(passage, fact)
        return Triple(fact.head, fact.relation, fact.tail, passage.key, self.name, relation.head, relation.tail,
                      passage.text[start:end] if start >= 0 else (fact.evidence or passage.text), start, end)

    # -- cache ---------------------------------------------------------------------------

    def _cache_file(self, passage: Passage) -> Path | None:
        if self.cache is None:
            return None
        digest = hashlib.sha256(f"{self._cache_salt}\0{passage.text}".encode()).hexdigest()
        return self.cache / digest[:2] / f"{digest}.json"

    def _cached(self, passage: Passage) -> list[Fact] | None:
        path = self._cache_file(passage)
        if path is None or not path.exists():
            return None
        try:
            return [Fact(**f) for f in json.loads(path.read_text("utf-8"))["facts"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None   # a damaged or unreadable entry is asked again, and replaced

    def _store(self, passage: Passage, facts: list[Fact]) -> None:
        path = self._cache_file(passage)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"version": self.version, "passage": passage.key,
                           "facts": [f.__dict__ for f in facts]}, ensure_ascii=False)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False) as tmp:
            tmp.write(body)
        os.chmod(tmp.name, 0o644)    # a cache shared between users stays readable
        os.replace(tmp.name, path)   # a reader sees the whole entry or none


def _span(passage: Passage, fact: Fact) -> tuple[int, int]:
    """The evidence's span in the passage; else the first sentence naming head and tail; else
    (-1, -1): not known."""
    text = passage.text
    if fact.evidence:
        at = text.find(fact.evidence)
        if at >= 0:
            return at, at + len(fact.evidence)
    spans = list(passage.sentences) or [(m.start(), m.end()) for m in re.finditer(r"[^.!?]+[.!?]*", text)]
    for start, end in spans:
        piece = text[start:end]
        if in_text(fact.head, piece) and in_text(fact.tail, piece):
            return start, end
    return -1, -1
