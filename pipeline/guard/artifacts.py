"""Artifact grounding: every URL and registration number in the model's text must come from a tool result."""

from __future__ import annotations

import re

URL = re.compile(r"https?://[^\s<>\"'`()\[\]{}，。、）（]+")
REGISTRATION_NUMBER = re.compile(r"\bCT-\d{8}-\d{3,}\b")
_TRAILING = ".,;:!?"


def artifacts(text: str) -> list[str]:
    """URLs (trailing punctuation trimmed) and registration numbers, in order of appearance, unique."""
    seen: dict[str, None] = {}
    for match in URL.finditer(text):
        seen.setdefault(match.group().rstrip(_TRAILING), None)
    for match in REGISTRATION_NUMBER.finditer(text):
        seen.setdefault(match.group(), None)
    return list(seen)


def ungrounded(text: str, evidence: str) -> list[str]:
    """Artifacts of ``text`` that do not appear in ``evidence`` (the run's recorded tool results)."""
    return [a for a in artifacts(text) if a not in evidence and a.rstrip("/") not in evidence]
