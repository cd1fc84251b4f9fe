"""What the ledger shows for one run, in the shape the guard checks text against.

Built from the run's successful tool results, by the fields each capability declares as its evidence
(``Capability.evidence``, capabilities.base.EvidenceFields) and never by free text or by a key's name:

    called         capabilities that executed successfully
    urls           declared URL fields (publish's ``url``, the report's publications) - keys per artifacts.url_key
    registrations  declared registration numbers (register's, the report's publications)
    scores         declared scores (humanize's, the report's versions)
    quotes         declared quotable text (topic titles): what the model may repeat verbatim without claiming anything

A field that no capability declares grounds nothing, whatever it is called; so does a result of a tool
that is not in the catalog.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from capabilities.base import Capability, field_values
from pipeline.guard.artifacts import url_key


@dataclass(frozen=True)
class Evidence:
    called: frozenset[str] = frozenset()
    urls: frozenset[str] = frozenset()
    registrations: frozenset[str] = frozenset()
    scores: frozenset[int] = frozenset()
    quotes: tuple[str, ...] = field(default=())

    @classmethod
    def from_results(cls, called: Iterable[str], results: Iterable[tuple[str, Mapping[str, Any]]],
                     catalog: Mapping[str, Capability[Any, Any]]) -> Evidence:
        """``results``: (tool name, payload) of this run's successful tool calls; ``catalog`` declares their evidence."""
        found: dict[str, list[Any]] = {"urls": [], "registrations": [], "scores": [], "quotes": []}
        for name, payload in results:
            if (capability := catalog.get(name)) is None:
                continue
            for kind, values in found.items():
                for path in getattr(capability.evidence, kind):
                    values.extend(field_values(payload, path))
        return cls(
            called=frozenset(called),
            urls=frozenset(url_key(unicodedata.normalize("NFKC", u)) for u in found["urls"] if isinstance(u, str)),
            registrations=frozenset(unicodedata.normalize("NFKC", n) for n in found["registrations"]
                                    if isinstance(n, str)),
            scores=frozenset(s for s in found["scores"] if isinstance(s, int) and not isinstance(s, bool)),
            quotes=tuple(dict.fromkeys(t for t in found["quotes"] if isinstance(t, str) and t)),
        )
