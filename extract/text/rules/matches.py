"""The frame-matches stage: every frame of ``extract.text.frames`` (and the news, organisation,
kin and member frames) run over a sentence's signature, keeping the matches whose fillers stand
where the frame's options ask (``Frame.org_not_after_article``, ``free_head``, ``head_ends_in``)."""

from __future__ import annotations

import re
from typing import Iterator

from spacy.tokens import Span

from extract.text.coref import Mentions
from extract.text.frame_checks import after_article, after_preposition, head_ends
from extract.text.frames import FRAMES, Frame
from extract.text.kin_frames import KIN_FRAMES
from extract.text.lexicons import rule_words
from extract.text.member_frames import MEMBER_FRAMES
from extract.text.news_frames import NEWS_FRAMES
from extract.text.org_frames import ORG_FRAMES
from extract.text.rules.values import FrameMatch, ParsedDocument
from extract.text.signature import signature_parts

ALL_FRAMES: tuple[Frame, ...] = FRAMES + NEWS_FRAMES + ORG_FRAMES + KIN_FRAMES + MEMBER_FRAMES


def frame_matches(parsed: ParsedDocument, mentions: Mentions, sentence: Span, passage: str,
                  frames: tuple[Frame, ...] = ALL_FRAMES) -> list[FrameMatch]:
    """The matches of ``frames`` in ``sentence`` that their frames' options keep, frame by frame
    in order. ``passage`` is the key of the passage the sentence belongs to."""
    line, starts, tokens = signature_parts(sentence, mentions)
    return [FrameMatch(frame, match, sentence, passage, tuple(starts), tuple(tokens))
            for frame in frames for match in regex_matches(frame, line) if fillers_stand(parsed, frame, match)]


def regex_matches(frame: Frame, line: str) -> Iterator[re.Match]:
    """A frame's matches in a signature; a news frame's may overlap ("Mr Ash said the company
    employs ...": the match from "Ash" fails its checks, the one from "the company" holds)."""
    if not frame.news:
        yield from frame.regex.finditer(line)
        return
    pos = 0
    while (match := frame.regex.search(line, pos)) is not None:
        yield match
        pos = match.start() + 1


def fillers_stand(parsed: ParsedDocument, frame: Frame, match: re.Match) -> bool:
    """Whether the match's fillers stand where the frame's options ask."""
    doc = parsed.doc
    if frame.org_not_after_article and after_article(doc, match.group("org")):
        return False  # "the Venetian painter X"
    if frame.free_head and after_preposition(doc, match.group("head")):
        return False  # "at Drexel University, a poet"
    return not frame.head_ends_in or head_ends(doc, match, rule_words(frame.head_ends_in))
