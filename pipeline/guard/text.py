"""The text the guard reads: NFKC-normalised, echoes and quotes masked, split into sentences and clauses.

Masking keeps offsets: a masked span is replaced by as many copies of one private-use character, so
positions in the reading text are positions in the normalised text.

    ECHO   a topic or draft title of this run quoted verbatim: neither a claim nor an artifact
    QUOTE  text between quotation marks (", “”, 「」, 『』, 《》, ‘’, '...'): reported speech, titles, instructions
    URL / NUMBER  artifacts, masked in the reading text so that their dots and question marks are no
                  sentence ends, and status-line values can see that a value is an artifact

Sentences end at a newline, 。, !, ?, ;, | and at a full stop before a space, a CJK character or the end.
Clauses end at , : 、 dashes and brackets. The splitter is hand-written, for a measured reason: on this
corpus pysbd 0.3.4 (the rule-based splitter with a zh mode) cut 49 of the 117 texts that hold a URL
inside the URL (at its ``?`` or ``.``), and segmented 100 KB of English at 0.005 MB/s. Masking artifacts
first and splitting on a handful of marks keeps ``?p=57`` whole and is linear.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

ECHO, QUOTE, URL_MARK, NUMBER_MARK = "\ue000", "\ue001", "\ue002", "\ue003"
ECHO_MIN = 6  # characters of a title that count as quoting it, whole or cut short at the end of the reply
ECHO_PART = 16  # characters of a part of a title that count as quoting it
MASKS = ECHO + QUOTE + URL_MARK + NUMBER_MARK

_QUOTES = re.compile(
    r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|「[^」\n]{1,300}」|『[^』\n]{1,300}』|《[^》\n]{1,300}》|‘[^’\n]{1,300}’"
    r"|(?<![A-Za-z0-9])'[^'\n]{1,300}?'(?![A-Za-z0-9])"
    # a template slot is no text of the model's own: "[Insert URL of the published post]", "<your link>", "[此处填写链接]"
    r"|(?i:\[(?:insert|enter|add|put|paste|your|placeholder|fill in|tbd|todo)\b[^\]\n]{0,120}\]"
    r"|<(?:insert|enter|your|placeholder|url|link)\b[^>\n]{0,120}>)|\[(?:填写|插入|此处|请填|待填|在此)[^\]\n]{0,60}\]"
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


_ARTIFACT_LIKE = re.compile(r"[A-Za-z]{2,3}[-–_ ]?\d[\d\-–_ ]*|https?://\S+|\d+")
_NUMBER_KEY = re.compile(r"登记号|登记编号|台账编号|注册号|编号|号码|registration (?:number|no|id)|number|no\.|id[:#]?|[:#：]",
                         re.IGNORECASE)


def echo_spans(text: str, quotes: Iterable[str]) -> list[tuple[int, int]]:
    """Where the text repeats a title of this run, whole or in part, verbatim (case-insensitive).

    A part counts if it is at least ``ECHO_PART`` characters and holds title words besides any number in
    it ("CT-20200101-999 的由来" quotes the title; a bare "CT-20200101-999" is a number and stays one). A
    reply stopped by the token limit mid-title ends with its start, which counts too.
    """
    folded = text.casefold()
    spans: list[tuple[int, int]] = []
    for quote in quotes:
        needle = normalize(quote).casefold().strip()
        if len(needle) < ECHO_MIN:
            continue
        start = folded.find(needle)
        while start != -1:
            spans.append((start, start + len(needle)))
            start = folded.find(needle, start + len(needle))
        for i in range(len(needle) - ECHO_PART + 1):
            seed = needle[i:i + ECHO_PART]
            at = folded.find(seed)
            while at != -1:
                n = ECHO_PART
                while i + n < len(needle) and at + n < len(folded) and folded[at + n] == needle[i + n]:
                    n += 1
                # title words besides numbers and the words that name a number: "CT-20200101-999 的由来" quotes
                # the title, "登记号 CT-20200101-999" gives a number under its key
                if len(_NUMBER_KEY.sub("", _ARTIFACT_LIKE.sub("", needle[i:i + n])).strip()) >= 3:
                    spans.append((at, at + n))
                at = folded.find(seed, at + n)
        tail = len(folded.rstrip())
        for cut in range(min(len(needle) - 1, tail), ECHO_MIN - 1, -1):
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
