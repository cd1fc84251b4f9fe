"""Exact-name lookup only. Resemblance is measured to record shadow attempts, never to route a call.

An unknown name is a shadow of a catalog tool when (1) their similarity ratio is at least 0.75, or
(2) it contains the tool's whole name (``publish_article``, ``republish``), or (3) it is made only of
words of the tool's name (``draft`` for ``write_draft``). Words are split on separators and camelCase.
Rule 3 used to be plain substring containment, which made ``a`` a shadow of ``write_draft`` and so
counted any one-letter invention as a shadow call; a fragment must now be whole words, 4+ letters.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

SHADOW_RATIO = 0.75
MIN_FRAGMENT = 4  # letters an invented name needs before "made of the tool's words" counts


def words(name: str) -> list[str]:
    """``publishArticle`` and ``publish-article`` -> ["publish", "article"]."""
    return [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()) if w]


def _is_fragment(name: str, real: str) -> bool:
    parts = words(name)
    return bool(parts) and sum(map(len, parts)) >= MIN_FRAGMENT and set(parts) <= set(words(real))


def resembles(name: str, catalog: list[str]) -> str | None:
    """The catalog tool that an unknown ``name`` imitates (see the module docstring), if any."""
    lowered = name.lower()
    best, best_ratio = None, 0.0
    for real in catalog:
        ratio = difflib.SequenceMatcher(None, lowered, real).ratio()
        if real in lowered or _is_fragment(name, real):
            ratio = max(ratio, SHADOW_RATIO)
        if ratio >= SHADOW_RATIO and ratio > best_ratio:
            best, best_ratio = real, ratio
    return best


def fingerprint(name: str, arguments: Any) -> str:
    """name + canonical JSON of the arguments (raw text when they did not parse)."""
    canonical = arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return f"{name}({canonical})"
