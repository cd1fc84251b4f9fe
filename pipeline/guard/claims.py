"""Claim rules: does the model's text assert that a capability completed? Chinese and English.

The vocabulary is each capability's own (``Capability.claims``, declared in its module); the rules
are built from the catalog, so a new capability brings its words with it. A match is a claim unless
its clause negates it or puts it in the future or a condition ("未发布", "will publish", "could not
publish", "once it is published"): that reading is the guard's, the same for every capability.
Every pattern is a plain alternation without nested quantifiers or adjacent quantifiers over the same
characters, so a scan is linear in the text length (benchmarks/bench_claim_scan.py checks it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from capabilities import CATALOG
from capabilities.base import Capability

Rules = dict[str, tuple[re.Pattern[str], ...]]


def claim_rules(catalog: Mapping[str, Capability[Any, Any]]) -> Rules:
    """Each capability's compiled claim patterns (zh as written, en case-insensitive); none for one without words."""
    rules: Rules = {}
    for name, capability in catalog.items():
        words = capability.claims
        patterns = [re.compile(words.zh)] if words.zh else []
        patterns += [re.compile(words.en, re.IGNORECASE)] if words.en else []
        if patterns:
            rules[name] = tuple(patterns)
    return rules


CLAIM_RULES = claim_rules(CATALOG)

_CLAUSE_END = re.compile(r"[.!?;,:\n。！？；，：]")
_NEGATION_ZH = re.compile(r"未|没|不|无法|将|准备|计划|即将|待|尚|还需|如果|一旦")
_NEGATION_EN = re.compile(
    r"\b(?:not|never|no|will|won't|shall|would|should|could|cannot|can't|couldn't|unable|failed|going to|"
    r"about to|yet to|plan|plans|planning|need|needs|if|once|when|until|unless|before|after|whether)\b|n't\b",
    re.IGNORECASE,
)
_FAILED_AFTER = re.compile(r"^.{0,4}(?:失败|failed)", re.IGNORECASE)
WINDOW = 40


@dataclass(frozen=True)
class ClaimMatch:
    capability: str
    span: str


def _clause_prefix(text: str, start: int) -> str:
    window = text[max(0, start - WINDOW):start]
    cut = None
    for cut in _CLAUSE_END.finditer(window):
        pass
    return window[cut.end():] if cut else window


def _negated(text: str, match: re.Match[str]) -> bool:
    prefix = _clause_prefix(text, match.start())
    if _NEGATION_ZH.search(prefix) or _NEGATION_EN.search(prefix):
        return True
    return bool(_FAILED_AFTER.match(text[match.end():match.end() + 12]))


def find_claims(text: str, rules: Rules = CLAIM_RULES) -> list[ClaimMatch]:
    """The first affirmative claim per capability found in ``text``."""
    found: list[ClaimMatch] = []
    for capability, patterns in rules.items():
        for pattern in patterns:
            hit = next((m for m in pattern.finditer(text) if not _negated(text, m)), None)
            if hit:
                found.append(ClaimMatch(capability, hit.group()))
                break
    return found
