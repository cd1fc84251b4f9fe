"""Exact-name lookup only. Resemblance is measured to record shadow attempts, never to route a call."""

from __future__ import annotations

import difflib
import json
from typing import Any

SHADOW_RATIO = 0.75


def resembles(name: str, catalog: list[str]) -> str | None:
    """The catalog tool that an unknown ``name`` imitates (containment or similarity >= 0.75), if any."""
    lowered = name.lower()
    best, best_ratio = None, 0.0
    for real in catalog:
        ratio = difflib.SequenceMatcher(None, lowered, real).ratio()
        if real in lowered or lowered in real:
            ratio = max(ratio, SHADOW_RATIO)
        if ratio >= SHADOW_RATIO and ratio > best_ratio:
            best, best_ratio = real, ratio
    return best


def fingerprint(name: str, arguments: Any) -> str:
    """name + canonical JSON of the arguments (raw text when they did not parse)."""
    canonical = arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return f"{name}({canonical})"
