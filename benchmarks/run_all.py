"""Run every benchmark, each in its own process, and print their tables.

    python -m benchmarks.run_all            the full set (tens of minutes; writes docs/img/*.png)
    python -m benchmarks.run_all --short    small sizes and few samples: checks that they still run
    python -m benchmarks.run_all --only bench_claim_scan bench_idle

Results go to benchmarks/results/*.json; docs/benchmarks.md reports a full run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from benchmarks.common import ROOT

BENCHMARKS = ("bench_gateway", "bench_agent_turn", "bench_ledger_diff", "bench_claim_scan", "bench_audit", "bench_idle",
              "bench_local_model", "bench_dashboard", "bench_celery", "bench_ledger_scale", "bench_scheduler",
              "bench_metrics_memory")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="checks that every benchmark still runs")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, help="run these benchmarks only")
    args = parser.parse_args(argv)
    failed = []
    for name in args.only or BENCHMARKS:
        print(f"\n## {name}\n", flush=True)
        started = time.monotonic()
        command = [sys.executable, "-m", f"benchmarks.{name}"] + (["--short"] if args.short else [])
        code = subprocess.run(command, cwd=ROOT, check=False).returncode
        print(f"\n({name}: exit {code} in {time.monotonic() - started:.0f} s)", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
