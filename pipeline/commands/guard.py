"""``factline guard eval``: the guard's precision, recall and false alarms on the labelled claims corpus."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import CommandError, add_command, emit, to_json

SUMMARY = "the hallucination guard, measured"
EVAL_NOTES = """\
Runs the guard on every text of the corpus (tests/data/claims/*.jsonl: the text, the run's tool results,
the findings a careful reader expects) and compares: recall (expected findings reported), precision,
detected (dishonest texts with a finding), false alarms (honest texts with a finding), per language,
split (train / heldout), source and category, then lists the texts where guard and labels differ.
It reads no ledger and no endpoint; of the settings only the log ones. Exit 2 when the corpus is missing or
malformed. docs/guard.md."""
SETTINGS = ("LOG_LEVEL", "LOG_FORMAT")
EXAMPLES = ["factline guard eval", "factline guard eval --split heldout --misses 0",
            "factline guard eval --by language --json"]
DEFAULT_CORPUS = Path("tests/data/claims")
# pipeline.guard.evaluate.GROUPINGS, written out (a test keeps them equal): importing the guard to read them
# would cost every factline process the guard's import, --help included
GROUPINGS = ("language", "split", "source", "category", "split+language")


def register(sub: Any) -> None:
    guard = add_command(sub, "guard", help=SUMMARY, settings=SETTINGS, examples=EXAMPLES)
    actions = guard.add_subparsers(dest="guard_command", metavar="{eval}", required=True)
    ev = add_command(actions, "eval", help="precision, recall and false alarms per language and category",
                     handler=cmd_guard_eval, settings=SETTINGS, notes=EVAL_NOTES, examples=EXAMPLES)
    ev.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"JSONL directory (default {DEFAULT_CORPUS})")
    ev.add_argument("--split", choices=("all", "train", "heldout"), default="all",
                    help="only the texts tuned on (train), only the held-out quarter, or all (default)")
    ev.add_argument("--by", nargs="*", choices=GROUPINGS, default=list(GROUPINGS), help="groupings to print")
    ev.add_argument("--misses", type=int, default=20,
                    help="texts to list where guard and labels differ (0 all, -1 none; default 20)")
    ev.add_argument("--json", action="store_true", help="all figures and misses as JSON")


def cmd_guard_eval(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.guard.evaluate import evaluate, format_misses, format_table, load

    try:
        records = load(args.corpus)
    except ValueError as exc:
        raise CommandError(f"guard eval: {exc}") from exc
    if args.split != "all":
        records = [r for r in records if r.split == args.split]
    if not records:
        raise CommandError(f"guard eval: no corpus records in {args.corpus} (split {args.split})")
    result = evaluate(records)
    if args.json:
        emit(to_json(result.as_dict(), indent=1))
        return 0
    emit(format_table(result, [g for g in GROUPINGS if g in args.by]))
    if args.misses >= 0 and result.misses:
        emit(f"\n{len(result.misses)} texts where the guard and the labels differ:")
        emit(format_misses(result.misses, args.misses or None))
    return 0
