#!/usr/bin/env python3
"""`factline audit` on its development set: tau-bench airline trajectories labelled by hand, and counterfactuals.

    python scripts/audit_devset.py                       # the table: recall, detected, false alarms by kind and split
    python scripts/audit_devset.py --misses tuned        # and the misses and false alarms of the tuned split
    python scripts/audit_devset.py --json
    python scripts/audit_devset.py --model-set           # the embedded model's airline replies, by language

The trajectories are ../shared/external/tau-bench/gpt-4o-airline.json (MIT, see its README) unless --trajectories
names them; the labels tests/data/audit/tau-airline-labels.jsonl. What is scored: pipeline/audit/devset.py.
``--model-set``: tests/data/audit/model-airline.jsonl (recorded by scripts/audit_model_transcripts.py, text
nobody tuned the reader on) against its hand labels, model-airline-labels.jsonl.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.audit.check import Auditor  # noqa: E402
from pipeline.audit.devset import cases, load_labels, model_cases, score, score_model_set  # noqa: E402
from pipeline.audit.transcripts import read, tool_names  # noqa: E402

TRAJECTORIES = ROOT.parent / "shared" / "external" / "tau-bench" / "gpt-4o-airline.json"
LABELS = ROOT / "tests" / "data" / "audit" / "tau-airline-labels.jsonl"
MODEL_SET = ROOT / "tests" / "data" / "audit" / "model-airline.jsonl"
MODEL_LABELS = ROOT / "tests" / "data" / "audit" / "model-airline-labels.jsonl"


def evaluate(trajectories: Path = TRAJECTORIES, labels: Path = LABELS) -> dict:  # type: ignore[type-arg]
    auditor = Auditor()
    auditor.know(tool_names(trajectories))
    return score(cases(read(trajectories), load_labels(labels)), auditor)


def evaluate_model_set(transcripts: Path = MODEL_SET, labels: Path = MODEL_LABELS) -> dict:  # type: ignore[type-arg]
    return score_model_set(model_cases(read(transcripts), labels), Auditor())


def print_model_set(result: dict) -> None:  # type: ignore[type-arg]
    print(f"{'language':<9} {'texts':>5} {'unbacked found':>16} {'detected':>16} {'false alarms':>16}")
    for key in ("en", "zh", "mixed", "all"):
        if key in result:
            r = result[key]
            print(f"{key:<9} {r['texts']:>5} {_cell(r['recall']):>16} {_cell(r['detected_share']):>16} "
                  f"{_cell(r['false_alarm_share']):>16}")


def _cell(r: dict) -> str:  # type: ignore[type-arg]
    return "-" if r["share"] is None else f"{100 * r['share']:.1f}% ({r['n']}/{r['of']})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=Path, default=TRAJECTORIES)
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--model-set", action="store_true", help="score the embedded model's replies instead")
    parser.add_argument("--misses", choices=("all", "tuned", "untuned"),
                        help="list the missed unbacked claims and false alarms of a split (tune on 'tuned' only)")
    args = parser.parse_args(argv)
    if args.model_set:
        result = evaluate_model_set()
        if args.json:
            print(json.dumps(result, indent=1, ensure_ascii=False))
            return 0
        print_model_set(result)
        for line in result["misses"]["lines"] if args.misses else ():
            print(line)
        return 0
    scores = evaluate(args.trajectories, args.labels)
    if args.json:
        print(json.dumps({f"{k}/{s}": v.as_dict() for (k, s), v in scores.items()}, indent=1))
        return 0
    print(f"{'kind':<8} {'split':<8} {'recall':>16} {'detected':>16} {'false alarms':>16} {'claims read':>16}")
    for (kind, split), value in sorted(scores.items()):
        d = value.as_dict()
        print(f"{kind:<8} {split:<8} {_cell(d['recall']):>16} {_cell(d['detected']):>16} "
              f"{_cell(d['false_alarms']):>16} {_cell(d['claims_read']):>16}")
    if args.misses:
        for line in scores[("all", args.misses)].misses:
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
