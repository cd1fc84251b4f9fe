"""Run every benchmark, each in its own process, and print their tables.

    python -m benchmarks.run_all            the full set (tens of minutes; writes docs/img/*.png)
    python -m benchmarks.run_all --short    small sizes and few samples: checks that they still run
    python -m benchmarks.run_all --only bench_claim_scan bench_idle
    python -m benchmarks.run_all --short --retry    CI: a benchmark that fails is run once more, and fails if it fails again

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
    parser.add_argument("--retry", action="store_true",
                        help="run a benchmark that fails once more; fail only if it fails again (listed as flaky if not)")
    args = parser.parse_args(argv)
    failed, flaky = [], []
    for name in args.only or BENCHMARKS:
        code = _run(name, args.short)
        if code and args.retry:
            print(f"\n({name} failed: once more)", flush=True)
            if not _run(name, args.short):
                flaky.append(name)
                continue
        if code:
            failed.append(name)
    if flaky:
        print(f"\nflaky (failed, then passed): {', '.join(flaky)}", file=sys.stderr)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def _run(name: str, short: bool) -> int:
    """One benchmark in its own process; its exit code."""
    print(f"\n## {name}\n", flush=True)
    started = time.monotonic()
    command = [sys.executable, "-m", f"benchmarks.{name}"] + (["--short"] if short else [])
    code = subprocess.run(command, cwd=ROOT, check=False).returncode
    print(f"\n({name}: exit {code} in {time.monotonic() - started:.0f} s)", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
