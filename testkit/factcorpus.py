"""The fact check measured on a labelled corpus of (sources, article) pairs: recall per kind, false alarms.

The corpus (tests/data/facts/corpus.jsonl) holds, per entry, the sources (English or Chinese), honest
articles that restate their facts in other formats (1200 for 1,200, 30% for 30 percent, 百分之三十,
2022-09-01 for September 1, 2022, 四万 for 4万...), and fabrications: an edit (``from`` -> ``to``) of
the first honest article that injects one false fact of a kind - a changed number, an invented
percentage, a wrong year, an invented quotation, an invented person or organisation, a wrong unit, a number
written in words changed (thirty-six for twenty-six, 三千五百 for 三千二百), a lone invented name opening a
sentence ("Berger said ...", "张明说..."). An entry's ``provenance`` says who wrote it and when.

A fabrication is caught when its check flags a fact that the honest article's check did not flag (compared by
kind, value and unit, as a multiset): a copy that fails only on a false alarm its honest article already had is a
miss, since the injected fact went through. The looser count, "its check failed", is kept beside it (``failed``).

A set written by someone else may hold honest articles that go beyond their sources (a name or a date the excerpt
never writes, a number the writer computed): flagging those is the check doing its job, not a false alarm. Where
``tests/data/facts/adjudicated/<set file name>`` exists (one line per flagged fact: ``id``, ``article`` index,
``fact``, ``in_sources``, ``passage``, ``why``, written by a session that did not read the checker), the table adds
a second count: honest articles with a flag on a fact the adjudicator found in the sources. A flag nobody
adjudicated counts as a false alarm there too, so a new flag cannot hide behind the sidecar.

    python -m testkit.factcorpus [CORPUS]     prints the table docs/fact-check.md quotes
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from capabilities.factcheck import FactReport, check_facts

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "facts" / "corpus.jsonl"
ADJUDICATED = "adjudicated"  # the sidecar folder beside a set
KINDS = ("changed_number", "invented_percent", "wrong_year", "invented_quote", "invented_name", "wrong_unit",
         "changed_number_word", "invented_opening_name")


@dataclass
class Score:
    """Per language: honest articles and false alarms among them, fabrications per kind and how many were caught."""

    honest: Counter[str] = field(default_factory=Counter)
    false_alarms: Counter[str] = field(default_factory=Counter)
    injected: Counter[tuple[str, str]] = field(default_factory=Counter)
    caught: Counter[tuple[str, str]] = field(default_factory=Counter)
    failed: Counter[tuple[str, str]] = field(default_factory=Counter)  # the fabricated copy's check failed at all
    misses: list[str] = field(default_factory=list)
    alarms: list[str] = field(default_factory=list)
    adjudicated: bool = False  # a sidecar of adjudicated flags exists for this set
    # honest articles with a flag the adjudicator found in the sources, or did not adjudicate
    sourced_alarms: Counter[str] = field(default_factory=Counter)
    beyond: list[str] = field(default_factory=list)  # flags on facts no source states (adjudicated): correct flags

    @property
    def pairs(self) -> int:
        return sum(self.honest.values()) + sum(self.injected.values())

    def recall(self, kind: str, lang: str | None = None, *, loose: bool = False) -> tuple[int, int]:
        """(caught, injected) for ``kind``; ``loose`` counts a copy whose check failed on anything as caught."""
        keys = [k for k in self.injected if k[0] == kind and (lang is None or k[1] == lang)]
        counted = self.failed if loose else self.caught
        return sum(counted[k] for k in keys), sum(self.injected[k] for k in keys)


def _flagged(report: FactReport) -> Counter[tuple[str, str, str | None]]:
    return Counter((f.fact.kind, f.fact.key, f.fact.unit) for f in report.unsupported)


def adjudications(path: Path) -> dict[tuple[str, int, str], bool] | None:
    """The sidecar's verdicts for a set, (entry id, article index, fact as written) -> in the sources; None if none."""
    sidecar = path.parent / ADJUDICATED / path.name
    if not sidecar.is_file():
        return None
    verdicts = {}
    for line in sidecar.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            verdicts[(row["id"], row["article"], row["fact"])] = bool(row["in_sources"])
    return verdicts


def evaluate(path: Path = CORPUS) -> Score:
    verdicts = adjudications(path)
    score = Score(adjudicated=verdicts is not None)
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        lang, sources = entry["lang"], list(enumerate(entry["sources"], 1))
        flagged_in_base = _flagged(check_facts(entry["honest"][0], sources))
        for index, article in enumerate(entry["honest"]):
            report = check_facts(article, sources)
            score.honest[lang] += 1
            if not report.passed:
                score.false_alarms[lang] += 1
                score.alarms.append(f"{entry['id']}: {report.summary()}")
            beyond = [f.fact.text for f in report.unsupported
                      if verdicts is not None and verdicts.get((entry["id"], index, f.fact.text)) is False]
            if len(beyond) < len(report.unsupported):
                score.sourced_alarms[lang] += 1
            score.beyond += [f"{entry['id']}: {text!r}" for text in beyond]
        for fabrication in entry["fabrications"]:
            base = entry["honest"][0]
            if fabrication["from"] not in base:
                raise ValueError(f"{entry['id']}: {fabrication['from']!r} is not in its first honest article")
            report = check_facts(base.replace(fabrication["from"], fabrication["to"], 1), sources)
            key = (fabrication["kind"], lang)
            score.injected[key] += 1
            if not report.passed:
                score.failed[key] += 1
            if _flagged(report) - flagged_in_base:
                score.caught[key] += 1
            else:
                hidden = " (its check failed only on the honest article's false alarm)" if not report.passed else ""
                score.misses.append(f"{entry['id']} {fabrication['kind']}: {fabrication['to']!r}{hidden}")
    return score


def table(score: Score) -> str:
    lines = [f"{score.pairs} pairs: {sum(score.honest.values())} honest, {sum(score.injected.values())} fabricated",
             "caught: a fact the honest article's check did not flag is flagged (in brackets: the check failed at all)",
             "| kind | en | zh | all |", "|---|---|---|---|"]
    for kind in [k for k in KINDS if score.recall(k)[1]]:
        cells = [(score.recall(kind, lang), score.recall(kind, lang, loose=True)) for lang in ("en", "zh")]
        cells.append((score.recall(kind), score.recall(kind, loose=True)))
        lines.append(f"| {kind} | " + " | ".join(_cell(strict, loose) for strict, loose in cells) + " |")
    total = sum(score.injected.values())
    lines.append(f"| caught (all kinds) | | | {sum(score.caught.values())}/{total} ({sum(score.failed.values())}) |")
    alarms = [f"{score.false_alarms[lang]}/{score.honest[lang]}" for lang in ("en", "zh")]
    lines.append(f"| false alarms (honest) | {alarms[0]} | {alarms[1]} | "
                 f"{sum(score.false_alarms.values())}/{sum(score.honest.values())} |")
    if score.adjudicated:
        sourced = [f"{score.sourced_alarms[lang]}/{score.honest[lang]}" for lang in ("en", "zh")]
        lines.append(f"| false alarms on facts the sources state (adjudicated) | {sourced[0]} | {sourced[1]} | "
                     f"{sum(score.sourced_alarms.values())}/{sum(score.honest.values())} |")
    lines += [f"missed: {m}" for m in score.misses] + [f"false alarm: {a}" for a in score.alarms]
    lines += [f"beyond the sources (adjudicated, rightly flagged): {b}" for b in score.beyond]
    return "\n".join(lines)


def _cell(strict: tuple[int, int], loose: tuple[int, int]) -> str:
    return f"{strict[0]}/{strict[1]}" + (f" ({loose[0]})" if loose[0] != strict[0] else "")


if __name__ == "__main__":
    print(table(evaluate(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS)))
