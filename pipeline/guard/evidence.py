"""What the ledger shows for one run, in the shape the guard checks text against.

Built from the run's successful tool results, by field and never by free text:

    called         capabilities that executed successfully
    urls           ``url`` fields (publish's result, the report's publications) - keys per artifacts.url_key
    registrations  ``registration_number`` fields (register's result, the report's publications)
    scores         ``score`` fields (humanize's result, the report's versions)
    quotes         ``title`` and ``topic`` fields: text the model may repeat verbatim without claiming anything
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pipeline.guard.artifacts import url_key


@dataclass(frozen=True)
class Evidence:
    called: frozenset[str] = frozenset()
    urls: frozenset[str] = frozenset()
    registrations: frozenset[str] = frozenset()
    scores: frozenset[int] = frozenset()
    quotes: tuple[str, ...] = field(default=())

    @classmethod
    def from_results(cls, called: Iterable[str], results: Iterable[Mapping[str, Any]]) -> Evidence:
        """``results``: the payloads of this run's successful tool calls."""
        fields: dict[str, list[Any]] = {"url": [], "registration_number": [], "score": [], "title": [], "topic": []}
        for result in results:
            _collect(result, fields)
        return cls(
            called=frozenset(called),
            urls=frozenset(url_key(unicodedata.normalize("NFKC", u)) for u in fields["url"] if isinstance(u, str)),
            registrations=frozenset(unicodedata.normalize("NFKC", n) for n in fields["registration_number"]
                                    if isinstance(n, str)),
            scores=frozenset(s for s in fields["score"] if isinstance(s, int) and not isinstance(s, bool)),
            quotes=tuple(dict.fromkeys(t for t in fields["title"] + fields["topic"] if isinstance(t, str) and t)),
        )


def _collect(node: Any, fields: dict[str, list[Any]]) -> None:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in fields:
                fields[key].append(value)
            _collect(value, fields)
    elif isinstance(node, list):
        for item in node:
            _collect(item, fields)
