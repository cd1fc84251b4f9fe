"""Counts of things a source counts itself (round 12): "three types of HTTP Authentication", "two ways of getting the
latest source".

A count in words before a noun such as types, ways, kinds or options ("three reasons", "five key steps") usually
counts the article's own parts and is not checked (extract.STRUCTURE_NOUNS). When a source counts the same noun itself
("The following three types of HTTP Authentication are supported"), the article's count of that noun restates the
source's, and a changed one ("Four types of HTTP authentication") is a false fact: it is checked against the sources'
counts of the noun, and against their lists (counts.py), so a count the source shows item by item is found too. Where
no source counts the noun, the article's count stays its own structure, unchecked, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from capabilities.factcheck import counts
from capabilities.factcheck.extract import NUMBER_WORDS, STRUCTURE_NOUNS
from capabilities.factcheck.reading import sentence_at
from capabilities.factcheck.types import Fact, FactKind


def _count_pattern(digits: bool) -> re.Pattern[str]:
    """A count in words ("three"), with ``digits`` in figures too ("3"), then not touching a "." or "," (1.5, 1,000)."""
    beside = r"[\w.,-]" if digits else r"[\w-]"
    count = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + (r"|\d{1,2}" if digits else "")
    return re.compile(rf"(?<!{beside})({count})(?!{beside})", re.I)


_COUNT = {digits: _count_pattern(digits) for digits in (False, True)}
_POINTING = frozenset({"them", "these", "those", "us", "the"})  # "two of them" counts no noun


def _singular(noun: str) -> str:
    noun = noun.casefold()
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith(("ches", "shes", "sses", "xes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") else noun


def _counted(text: str, digits: bool) -> Iterator[tuple[re.Match[str], int, str, int]]:
    """Each count of a structure noun in ``text``: the count, its value, the noun (singular), where the noun ends."""
    for m in _COUNT[digits].finditer(text):
        noun = STRUCTURE_NOUNS.match(text, m.end())
        if not noun or (last := noun.group().split()[-1].casefold()) in _POINTING:
            continue
        value = int(m.group(1)) if m.group(1).isdigit() else NUMBER_WORDS[m.group(1).casefold()]
        yield m, value, _singular(last), noun.end()


def noun_counts(text: str, sources: list[tuple[int, str]]) -> list[tuple[Fact, int | None, str | None]]:
    """The article's counts in words of a noun a source counts too, each with the source number and passage that
    holds it (None, None when none does): "Three types" for the source's "three types", or its list of three."""
    counted: dict[str, list[tuple[int, int, str]]] = {}
    for number, source in sources:
        for m, value, noun, _ in _counted(source, digits=True):
            counted.setdefault(noun, []).append((value, number, sentence_at(source, m.start())))
    checked: list[tuple[Fact, int | None, str | None]] = []
    for m, value, noun, end in _counted(text, digits=False):
        if noun not in counted:
            continue
        fact = Fact(FactKind.number, text[m.start():end].strip(), str(value), sentence_at(text, m.start()))
        hit = next(((n, passage) for v, n, passage in counted[noun] if v == value), None)
        if hit is None:
            hit = next(((n, sentence_at(source, at)) for n, source in sources
                        if (at := counts.listed(fact, source)) is not None), None)
        checked.append((fact, *(hit or (None, None))))
    return checked
