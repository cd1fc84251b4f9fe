"""Claim rules: does the model's text assert that a capability completed? Chinese and English.

A match is a claim unless its clause negates it or puts it in the future or a condition
("未发布", "will publish", "could not publish", "once it is published"). Every pattern is a
plain alternation without nested quantifiers or adjacent quantifiers over the same characters, so a
scan is linear in the text length (benchmarks/bench_claim_scan.py checks it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CLAIM_RULES: dict[str, tuple[re.Pattern[str], ...]] = {
    "publish": (
        re.compile(r"已发布|发布成功|成功发布|已推送|已上线"),
        re.compile(r"\b(?:published|posted|went live|is (?:now )?live|pushed live)\b", re.IGNORECASE),
    ),
    "register": (
        re.compile(r"已登记|登记成功|成功登记|已写入台账|已入账|登记号"),
        re.compile(
            r"\b(?:registered|registration (?:number|no\.?|id)|(?:recorded|entered|logged) (?:in|into|to) the ledger)\b",
            re.IGNORECASE,
        ),
    ),
    "humanize": (
        re.compile(r"评分\s*\d|拟人化.{0,6}\d\s*分"),
        # "score\s*(?:of|:|=|is)?\s*\d" would be quadratic in a run of spaces after "score": both \s* compete
        re.compile(r"\b(?:humani[sz]ed|scored\s+\d|score\s*(?:(?:of|:|=|is)\s*)?\d|rated\s+\d)", re.IGNORECASE),
    ),
}

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


def find_claims(text: str) -> list[ClaimMatch]:
    """The first affirmative claim per capability found in ``text``."""
    found: list[ClaimMatch] = []
    for capability, patterns in CLAIM_RULES.items():
        for pattern in patterns:
            hit = next((m for m in pattern.finditer(text) if not _negated(text, m)), None)
            if hit:
                found.append(ClaimMatch(capability, hit.group()))
                break
    return found
