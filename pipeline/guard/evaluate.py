"""Measure the guard on the labelled claims corpus (tests/data/claims/*.jsonl): precision, recall, false alarms.

Each corpus record is one model text with the run it came from (what executed, the tool results) and
the findings a careful reader expects the guard to report (unbacked claims by capability, ungrounded
artifacts, prose calls; none for an honest text). The guard is run on the text with the record's
evidence, and its unbacked findings are compared with the expected ones:

    recall        expected findings the guard reported / expected findings
    precision     reported findings that were expected / reported findings
    false alarms  honest texts with at least one finding / honest texts
    detected      dishonest texts with at least one finding / dishonest texts (what the verdict needs)

Figures are given overall and per language, category, source (written / model) and split. The held-out
split (``split: heldout``, a quarter chosen by a hash of the text) is not looked at while tuning the
reader; its figures show how far the rules generalise.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from capabilities import CATALOG
from pipeline.guard import Evidence, inspect
from pipeline.guard.claims import ClaimRules, claim_rules

# the records were written against the six-step pipeline: "all done" claims those six steps, not steps added
# since (fact_check), so each record is read with the claim rules of those six
CORPUS_TOOLS = frozenset({"pick_topic", "write_draft", "humanize", "publish", "register", "report"})


@lru_cache(maxsize=8)
def _rules(names: frozenset[str]) -> ClaimRules:
    return claim_rules({n: c for n, c in CATALOG.items() if n in names})


@dataclass(frozen=True)
class Record:
    id: str
    text: str
    language: str
    called: frozenset[str]
    results: tuple[dict[str, Any], ...]
    expected: frozenset[str]
    category: str
    source: str
    split: str
    reason: str

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Record:
        exp = row["expected"]
        expected = {f"claim:{c}" for c in exp["claims"]} | {f"ungrounded:{key(a)}" for a in exp["ungrounded"]}
        expected |= {f"prose_call:{c}" for c in exp["prose_calls"]}
        return cls(row["id"], row["text"], row["language"], frozenset(row["called"]), tuple(row["results"]),
                   frozenset(expected), row["category"], row["source"], row["split"], row["reason"])


def key(span: str) -> str:
    """How an artifact is compared between the labels and the guard: NFKC, case-folded, stripped."""
    return unicodedata.normalize("NFKC", span).casefold().strip()


def load(directory: Path) -> list[Record]:
    records = []
    for path in sorted(directory.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    records.append(Record.from_json(json.loads(line)))
                except (KeyError, json.JSONDecodeError) as exc:
                    raise ValueError(f"{path}:{n}: not a corpus record: {exc}") from exc
    return records


def predicted(record: Record) -> frozenset[str]:
    """The guard's unbacked findings for one record, as comparable strings."""
    evidence = Evidence.from_results(record.called, [(r["tool"], r["result"]) for r in record.results], CATALOG)
    found = set()
    for f in inspect(record.text, evidence, set(CORPUS_TOOLS), _rules(CORPUS_TOOLS)):
        if f.backed:
            continue
        found.add(f"ungrounded:{key(f.span)}" if f.kind == "ungrounded" else f"{f.kind}:{f.capability}")
    return frozenset(found)


@dataclass
class Figures:
    texts: int = 0
    honest: int = 0
    false_alarms: int = 0
    dishonest: int = 0
    detected: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, expected: frozenset[str], got: frozenset[str]) -> None:
        self.texts += 1
        if expected:
            self.dishonest += 1
            self.detected += bool(got)
        else:
            self.honest += 1
            self.false_alarms += bool(got)
        self.tp += len(expected & got)
        self.fp += len(got - expected)
        self.fn += len(expected - got)

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def false_alarm_rate(self) -> float | None:
        return self.false_alarms / self.honest if self.honest else None

    @property
    def detection_rate(self) -> float | None:
        return self.detected / self.dishonest if self.dishonest else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "recall": self.recall, "precision": self.precision,
                "false_alarm_rate": self.false_alarm_rate, "detection_rate": self.detection_rate}


@dataclass(frozen=True)
class Miss:
    id: str
    split: str
    language: str
    category: str
    text: str
    missed: list[str]  # expected, not reported
    false: list[str]  # reported, not expected
    reason: str


@dataclass
class Evaluation:
    overall: Figures = field(default_factory=Figures)
    groups: dict[str, dict[str, Figures]] = field(default_factory=dict)
    misses: list[Miss] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"overall": self.overall.as_dict(),
                "groups": {g: {k: f.as_dict() for k, f in sorted(v.items())} for g, v in self.groups.items()},
                "misses": [asdict(m) for m in self.misses]}


GROUPINGS = ("language", "split", "source", "category", "split+language")


def evaluate(records: Iterable[Record]) -> Evaluation:
    result = Evaluation(groups={g: {} for g in GROUPINGS})
    for record in records:
        got = predicted(record)
        result.overall.add(record.expected, got)
        labels = {"language": record.language, "split": record.split, "source": record.source,
                  "category": record.category, "split+language": f"{record.split}/{record.language}"}
        for grouping, label in labels.items():
            result.groups[grouping].setdefault(label, Figures()).add(record.expected, got)
        if got != record.expected:
            result.misses.append(Miss(record.id, record.split, record.language, record.category, record.text,
                                      sorted(record.expected - got), sorted(got - record.expected), record.reason))
    return result


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def format_table(result: Evaluation, groupings: Iterable[str] = GROUPINGS) -> str:
    head = f"{'group':<28} {'texts':>5} {'recall':>7} {'precis.':>7} {'detect':>7} {'false al.':>9}"
    lines = [head, "-" * len(head)]

    def row(label: str, f: Figures) -> str:
        alarms = f"{_pct(f.false_alarm_rate)}" + (f" ({f.false_alarms}/{f.honest})" if f.honest else "")
        return (f"{label:<28} {f.texts:>5} {_pct(f.recall):>7} {_pct(f.precision):>7} {_pct(f.detection_rate):>7} "
                f"{alarms:>9}")

    lines.append(row("all", result.overall))
    for grouping in groupings:
        for label, figures in sorted(result.groups[grouping].items()):
            lines.append(row(f"{grouping}={label}", figures))
    return "\n".join(lines)


def format_misses(misses: list[Miss], limit: int | None = None) -> str:
    lines = []
    for m in misses[:limit]:
        text = m.text.replace("\n", "⏎")
        lines.append(f"{m.id} [{m.split}/{m.language}/{m.category}] {text[:160]}")
        if m.missed:
            lines.append(f"    missed: {', '.join(m.missed)}")
        if m.false:
            lines.append(f"    false:  {', '.join(m.false)}")
    if limit is not None and len(misses) > limit:
        lines.append(f"... {len(misses) - limit} more (--misses 0 lists all)")
    return "\n".join(lines)
