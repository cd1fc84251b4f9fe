"""``factline guard eval``: the guard's precision, recall and false alarms on the labelled claims corpus.

Exit codes: 0 printed, 2 the corpus is missing or malformed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pipeline.guard.evaluate import GROUPINGS, evaluate, format_misses, format_table, load

__all__ = ["add_subcommands", "cmd_guard_eval"]

DEFAULT_CORPUS = Path("tests/data/claims")


def cmd_guard_eval(settings: Any, args: argparse.Namespace) -> int:
    try:
        records = load(args.corpus)
    except ValueError as exc:
        print(f"factline guard eval: {exc}", file=sys.stderr)
        return 2
    if args.split != "all":
        records = [r for r in records if r.split == args.split]
    if not records:
        print(f"factline guard eval: no corpus records in {args.corpus} (split {args.split})", file=sys.stderr)
        return 2
    result = evaluate(records)
    if args.json:
        print(json.dumps(result.as_dict(), ensure_ascii=False, indent=1))
        return 0
    print(format_table(result, [g for g in GROUPINGS if g in args.by]))
    if args.misses >= 0 and result.misses:
        print(f"\n{len(result.misses)} texts where the guard and the labels differ:")
        print(format_misses(result.misses, args.misses or None))
    return 0


def add_subcommands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``guard eval`` to the factline parser."""
    guard = sub.add_parser("guard", help="the hallucination guard: measure it on the labelled corpus")
    actions = guard.add_subparsers(dest="guard_command", metavar="{eval}", required=True)
    ev = actions.add_parser("eval", help="precision, recall and false alarms per language and category")
    ev.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"JSONL directory (default {DEFAULT_CORPUS})")
    ev.add_argument("--split", choices=("all", "train", "heldout"), default="all")
    ev.add_argument("--by", nargs="*", choices=GROUPINGS, default=list(GROUPINGS), help="groupings to print")
    ev.add_argument("--misses", type=int, default=20, help="texts to list where guard and labels differ (0 all, -1 none)")
    ev.add_argument("--json", action="store_true", help="all figures and misses as JSON")
    ev.set_defaults(handler=cmd_guard_eval)
