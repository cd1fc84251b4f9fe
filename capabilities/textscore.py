"""The humanize score: a deterministic text metric computed by code, 0-100. The model never supplies it.

Scorer ``textscore-v1`` averages four sub-scores, each 0-100:

- burstiness: human prose varies sentence length. Coefficient of variation of sentence lengths
  (in words), mapped linearly from 0.0 -> 0 to 0.6 or more -> 100.
- lexical variety: type/token ratio over the first 400 words, from 0.3 -> 0 to 0.7 or more -> 100.
- stock phrases: 100 minus 20 per occurrence of a phrase typical of generated text
  ("in conclusion", "delve", "it is important to note", ...), floored at 0.
- length: 0 under 40 words, 100 from 150 words, linear between.

Sentences split on . ! ? 。！？ and newlines; words are runs of letters/digits, and each CJK
character counts as one word. Everything is linear in the text size.
"""

from __future__ import annotations

import re
from statistics import mean, pstdev

SCORER = "textscore-v1"

_SENTENCE_SPLIT = re.compile(r"[.!?。！？\n]+")
_WORD = re.compile(r"[\u4e00-\u9fff]|[^\W_]+", re.UNICODE)
STOCK_PHRASES = (
    "in conclusion",
    "delve",
    "it is important to note",
    "in today's fast-paced world",
    "as an ai",
    "furthermore",
    "moreover",
    "in summary",
    "综上所述",
    "总而言之",
)


def _scale(value: float, low: float, high: float) -> float:
    if value <= low:
        return 0.0
    if value >= high:
        return 100.0
    return 100.0 * (value - low) / (high - low)


def score_text(text: str) -> int:
    """Score ``text`` 0-100 with scorer textscore-v1 (see the module docstring)."""
    words = [w.lower() for w in _WORD.findall(text)]
    sentences = [s for s in _SENTENCE_SPLIT.split(text) if _WORD.search(s)]
    lengths = [len(_WORD.findall(s)) for s in sentences]
    burst = _scale(pstdev(lengths) / mean(lengths), 0.0, 0.6) if len(lengths) > 1 else 0.0
    sample = words[:400]
    variety = _scale(len(set(sample)) / len(sample), 0.3, 0.7) if sample else 0.0
    lowered = text.lower()
    stock = max(0.0, 100.0 - 20.0 * sum(lowered.count(p) for p in STOCK_PHRASES))
    length = _scale(len(words), 40, 150)
    return round((burst + variety + stock + length) / 4)
