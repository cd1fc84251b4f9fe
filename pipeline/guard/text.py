"""The text the guard reads: NFKC-normalised, echoes and quotes masked, split into sentences and clauses.

Masking keeps offsets: a masked span is replaced by as many copies of one private-use character, so
positions in the reading text are positions in the normalised text.

    ECHO   a topic or draft title of this run quoted verbatim: neither a claim nor an artifact
    QUOTE  text between quotation marks (", “”, 「」, 『』, 《》, ‘’, '...'): reported speech, titles, instructions
    URL / NUMBER  artifacts, masked in the reading text so that their dots and question marks are no
                  sentence ends, and status-line values can see that a value is an artifact

Sentences end at a newline, 。, !, ?, ; and at a full stop before a space, a CJK character or the end.
Clauses end at , : 、-less commas, dashes and parentheses. The splitter is hand-written: the texts are
short reports full of URLs, Markdown and tables, which generic splitters cut inside (pysbd splits
"http://x/?p=57" at "?", segments Markdown table rows as one sentence) or do not split at CJK marks;
masking first and splitting on a handful of marks is linear and measured on the corpus (docs/guard.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

ECHO, QUOTE, URL_MARK, NUMBER_MARK = "\ue000", "\ue001", "\ue002", "\ue003"
MASKS = ECHO + QUOTE + URL_MARK + NUMBER_MARK

_QUOTES = re.compile(
    r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|「[^」\n]{1,300}」|『[^』\n]{1,300}』|《[^》\n]{1,300}》|‘[^’\n]{1,300}’"
    r"|(?<![A-Za-z0-9])'[^'\n]{1,300}?'(?![A-Za-z0-9])"
)
_SENTENCE_END = re.compile(r"\n|[。!?;]+|\.+(?=\s|$|[\u3000-\u9fff])|\|")
_CLAUSE_END = re.compile(r"[,:、()\[\]]|——|—|–| - |->|→|=>")


def normalize(text: str) -> str:
    """NFKC: full-width letters, digits and punctuation become ASCII (，→ , ：→ : ０→ 0), "…" → "..."."""
    return unicodedata.normalize("NFKC", text)


def mask(text: str, spans: Iterable[tuple[int, int]], char: str) -> str:
    """``text`` with each span replaced by as many ``char``."""
    parts, last = [], 0
    for start, end in sorted(spans):
        if start < last:
            start = last
        if end <= start:
            continue
        parts += [text[last:start], char * (end - start)]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def echo_spans(text: str, quotes: Iterable[str]) -> list[tuple[int, int]]:
    """Where the text repeats a title of this run verbatim (case-insensitive), also cut short at the text's end."""
    folded = text.casefold()
    tail = len(folded.rstrip())
    spans = []
    for quote in quotes:
        needle = normalize(quote).casefold().strip()
        if len(needle) < 6:
            continue
        start = folded.find(needle)
        while start != -1:
            spans.append((start, start + len(needle)))
            start = folded.find(needle, start + len(needle))
        for cut in range(len(needle) - 1, 5, -1):  # a reply stopped by the token limit mid-title
            if folded.startswith(needle[:cut], tail - cut):
                spans.append((tail - cut, tail))
                break
    return spans


def quote_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _QUOTES.finditer(text)]


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str  # the reading text of the sentence, including its end mark
    clause_ends: tuple[int, ...]  # offsets (in the sentence) of clause boundaries

    def clause_of(self, offset: int) -> tuple[int, int]:
        """The [start, end) of the clause holding ``offset`` (sentence-relative)."""
        start, end = 0, len(self.text)
        for boundary in self.clause_ends:
            if boundary < offset:
                start = boundary
            else:
                end = boundary
                break
        return start, end


def sentences(reading: str) -> list[Sentence]:
    result, last = [], 0
    for match in _SENTENCE_END.finditer(reading):
        end = match.end()
        if reading[last:end].strip():
            result.append(_sentence(reading, last, end))
        last = end
    if reading[last:].strip():
        result.append(_sentence(reading, last, len(reading)))
    return result


def _sentence(reading: str, start: int, end: int) -> Sentence:
    text = reading[start:end]
    return Sentence(start, end, text, tuple(m.start() for m in _CLAUSE_END.finditer(text)))
