"""Benchmark 5: the daemon at rest: resident memory and CPU of an idle process over a minute (5 s with --short).

Runs ``factline daemon`` when the CLI has that command; otherwise an idle stand-in: a process that has
imported pipeline and opened the runtime (ledger, HTTP client, local site server), then sleeps. The
output says which one was measured. Memory is VmRSS from /proc, CPU is utime + stime from /proc.

    python -m benchmarks.bench_idle [--short]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import ROOT, Stats, progress, save, table

STAND_IN = """
import time
from config import load_settings
from pipeline.runtime import open_runtime
with open_runtime(load_settings()):
    print("ready", flush=True)
    time.sleep(10**6)
"""


def has_daemon() -> bool:
    from pipeline.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")  # noqa: SLF001 - argparse has no public API for it
    return "daemon" in sub.choices  # type: ignore[operator]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="5 seconds instead of 60")
    args = parser.parse_args(argv)
    duration, settle = (5, 1.0) if args.short else (60, 5.0)
    daemon = has_daemon()
    subject = "factline daemon" if daemon else "stand-in: imported pipeline + open_runtime, sleeping"
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder}/ledger.db", "LOCAL_SITE_DIR": f"{folder}/site",
               "LOCAL_SITE_PORT": "0", "OPENAI_BASE_URL": os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
               "LOG_LEVEL": "WARNING"}
        command = ([sys.executable, "-m", "pipeline.cli", "daemon"] if daemon
                   else [sys.executable, "-c", STAND_IN])
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
        try:
            progress(f"measuring {subject}: start-up, {settle:.0f} s to settle, then {duration} s idle")
            if not daemon:
                assert proc.stdout is not None
                proc.stdout.readline()  # "ready": imports and open_runtime are done
            time.sleep(settle)
            if proc.poll() is not None:
                print(f"{subject} exited with {proc.returncode} before it was measured", file=sys.stderr)
                return 1
            cpu_start, rss = cpu_seconds(proc.pid), []
            for _ in range(duration):
                rss.append(rss_mib(proc.pid))
                time.sleep(1)
            cpu = cpu_seconds(proc.pid) - cpu_start
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    memory = Stats.of(rss)
    print(f"measured: {subject}\n")
    print(table(["seconds idle", "RSS MiB median (p10–p90)", "RSS MiB max", "CPU s", "CPU % of one core"],
                [[duration, memory.fmt(1), f"{max(rss):.1f}", f"{cpu:.2f}", f"{100 * cpu / duration:.2f}"]]))
    save("idle", {"subject": subject, "seconds": duration, "rss_mib": memory, "rss_max_mib": max(rss),
                  "cpu_seconds": cpu})
    return 0


if __name__ == "__main__":
    sys.exit(main())
