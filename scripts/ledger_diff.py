#!/usr/bin/env python3
"""The one-line claim-vs-fact audit: what the model claimed, what the system executed, and the difference.

    python scripts/ledger_diff.py            the last run
    python scripts/ledger_diff.py --run 12   one run
    python scripts/ledger_diff.py --last 20  the last 20 runs
    --json                                   a JSON list of {run_id, verdict, claimed, called, hallucinated,
                                             ungrounded, prose_calls, counts}

counts: the run's rejected, failed and dedup calls, shadow attempts, retries, escalations and stops.

Exit 1 when a listed run has hallucinations (claimed - called, ungrounded artifacts or prose tool calls).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy.exc import DBAPIError  # noqa: E402

from config import ConfigError, load_settings  # noqa: E402
from pipeline.ledger import queries  # noqa: E402
from pipeline.ledger.db import read_ledger  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--run", type=int)
    group.add_argument("--last", type=int)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        sessions = read_ledger(load_settings().database_url)
    except ConfigError as exc:
        print(f"ledger_diff: {exc}", file=sys.stderr)
        return 2
    try:
        with sessions() as s:
            ids = [args.run] if args.run is not None else queries.last_run_ids(s, args.last or 1)
            rows = queries.diffs(s, ids)
    except DBAPIError as exc:
        print(f"ledger_diff: cannot read the ledger ({exc.__class__.__name__}); run `factline db upgrade` "
              "or check DATABASE_URL", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([r.as_dict() for r in rows], ensure_ascii=False))
    else:
        if not rows:
            print("no runs in the ledger")
        for r in rows:
            print(r.line())
    return 1 if any(r.has_hallucinations for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
