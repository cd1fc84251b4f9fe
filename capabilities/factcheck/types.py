"""The fact check's types: a fact as the article writes it, its verdict, and the report of one check."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FactKind(StrEnum):
    url = "url"
    date = "date"
    time = "time"
    money = "money"
    percent = "percent"
    number = "number"
    year = "year"
    quote = "quote"
    title = "title"
    name = "name"


@dataclass(frozen=True)
class Fact:
    kind: FactKind
    text: str  # as the article writes it
    key: str  # the normalised value it is looked up by
    sentence: str
    unit: str | None = None
    approx: bool = False  # hedged ("about 18,000", "约46万"): a source value it rounds honestly is enough
    short_key: str | None = None  # a Chinese name whose given name may be one character shorter ("厂长陈志强于")
    # a release series ("gawk 5.2", "the 252 branch"): the product word before it ("gawk"), or "" when a version word
    # marks it; found in a source's version of that series (5.2.1, 252.38)
    series: str | None = None
    # a name opening a sentence with a word capitalised only there ("Upstream GnuPG", "Maintainers note"): that word
    # may be an ordinary one, which a source writes in lower case
    opening: bool = False


@dataclass(frozen=True)
class CheckedFact:
    fact: Fact
    supported: bool
    source_number: int | None  # 0 the brief; None when no source holds it
    passage: str | None  # the source sentence that holds it


@dataclass(frozen=True)
class FactReport:
    facts: tuple[CheckedFact, ...]

    @property
    def unsupported(self) -> tuple[CheckedFact, ...]:
        return tuple(f for f in self.facts if not f.supported)

    @property
    def passed(self) -> bool:
        return not self.unsupported

    def summary(self, limit: int = 5) -> str:
        """One line: "2 facts not in the sources: '73%', 'Jane Smith'" (or how many facts were found)."""
        missing = self.unsupported
        if not missing:
            return f"all {len(self.facts)} facts found in the sources"
        shown = ", ".join(repr(f.fact.text) for f in missing[:limit]) + (", ..." if len(missing) > limit else "")
        return f"{len(missing)} fact{'s' if len(missing) != 1 else ''} not in the sources: {shown}"
