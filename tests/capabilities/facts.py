"""What the fact-check tests share: whether one source holds every fact of an article."""

from __future__ import annotations

from capabilities.factcheck import check_facts


def supported(article: str, source: str) -> bool:
    return check_facts(article, [(1, source)]).passed
