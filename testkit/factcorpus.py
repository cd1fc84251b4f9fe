"""The fact check measured on a labelled corpus of (sources, article) pairs: recall per kind, false alarms.

The corpus (tests/data/facts/corpus.jsonl) holds, per entry, the sources (English or Chinese), honest
articles that restate their facts in other formats (1200 for 1,200, 30% for 30 percent, 百分之三十,
2022-09-01 for September 1, 2022, 四万 for 4万...), and fabrications: an edit (``from`` -> ``to``) of
the first honest article that injects one false fact of a kind - a changed number, an invented
percentage, a wrong year, an invented quotation, an invented person or organisation, a wrong unit, a number
written in words changed (thirty-six for twenty-six, 三千五百 for 三千二百), a lone invented name opening a
sentence ("Berger said ...", "张明说..."). An entry's ``provenance`` says who wrote it and when.

    python -m testkit.factcorpus [CORPUS]     prints the table docs/fact-check.md quotes
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from capabilities.factcheck import check_facts

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "facts" / "corpus.jsonl"
KINDS = ("changed_number", "invented_percent", "wrong_year", "invented_quote", "invented_name", "wrong_unit",
         "changed_number_word", "invented_opening_name")


@dataclass
class Score:
    """Per language: honest articles and false alarms among them, fabrications per kind and how many were caught."""

    honest: Counter[str] = field(default_factory=Counter)
    false_alarms: Counter[str] = field(default_factory=Counter)
    injected: Counter[tuple[str, str]] = field(default_factory=Counter)
    caught: Counter[tuple[str, str]] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    alarms: list[str] = field(default_factory=list)

    @property
    def pairs(self) -> int:
        return sum(self.honest.values()) + sum(self.injected.values())

    def recall(self, kind: str, lang: str | None = None) -> tuple[int, int]:
        keys = [k for k in self.injected if k[0] == kind and (lang is None or k[1] == lang)]
        return sum(self.caught[k] for k in keys), sum(self.injected[k] for k in keys)


def evaluate(path: Path = CORPUS) -> Score:
    score = Score()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        lang, sources = entry["lang"], list(enumerate(entry["sources"], 1))
        for article in entry["honest"]:
            report = check_facts(article, sources)
            score.honest[lang] += 1
            if not report.passed:
                score.false_alarms[lang] += 1
                score.alarms.append(f"{entry['id']}: {report.summary()}")
        for fabrication in entry["fabrications"]:
            base = entry["honest"][0]
            if fabrication["from"] not in base:
                raise ValueError(f"{entry['id']}: {fabrication['from']!r} is not in its first honest article")
            report = check_facts(base.replace(fabrication["from"], fabrication["to"], 1), sources)
            key = (fabrication["kind"], lang)
            score.injected[key] += 1
            if report.passed:
                score.misses.append(f"{entry['id']} {fabrication['kind']}: {fabrication['to']!r}")
            else:
                score.caught[key] += 1
    return score


def table(score: Score) -> str:
    lines = [f"{score.pairs} pairs: {sum(score.honest.values())} honest, {sum(score.injected.values())} fabricated",
             "| kind | en | zh | all |", "|---|---|---|---|"]
    for kind in [k for k in KINDS if score.recall(k)[1]]:
        cells = [score.recall(kind, lang) for lang in ("en", "zh")] + [score.recall(kind)]
        lines.append(f"| {kind} | " + " | ".join(f"{c}/{n}" for c, n in cells) + " |")
    alarms = [f"{score.false_alarms[lang]}/{score.honest[lang]}" for lang in ("en", "zh")]
    lines.append(f"| false alarms (honest) | {alarms[0]} | {alarms[1]} | "
                 f"{sum(score.false_alarms.values())}/{sum(score.honest.values())} |")
    lines += [f"missed: {m}" for m in score.misses] + [f"false alarm: {a}" for a in score.alarms]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(evaluate(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS)))
