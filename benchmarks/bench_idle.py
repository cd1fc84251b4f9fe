"""Benchmark 5: ``factline daemon`` at rest: resident memory and CPU over a minute of idling (5 s with --short).

Two configurations, each a fresh daemon on a temporary SQLite ledger, with schedules that do not
fire during the measurement:

* external endpoint: OPENAI_BASE_URL points at a (closed) port, so the daemon process is measured alone;
* embedded model (not with --short): OPENAI_BASE_URL unset, so the runtime starts llama-server as a
  child; the daemon and the child are measured separately and together.

Measurement starts after the daemon announces its metrics URL (runtime open, scheduler started)
plus a settling delay. Memory is VmRSS from /proc/PID/status every second; CPU is utime + stime from
/proc/PID/stat over the window.

    python -m benchmarks.bench_idle [--short]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, Stats, progress, save, table

NEVER_SOON = "0 0 1 1 *"  # New Year's midnight: no tick and no daily report during a benchmark


@dataclass(frozen=True)
class Config:
    """One way to start the daemon: a label and the environment overrides it needs."""

    label: str
    env: dict[str, str | None]  # None removes the variable


EXTERNAL = Config("external endpoint", {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
EMBEDDED = Config("embedded model", {"OPENAI_BASE_URL": None})


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def children(pid: int) -> list[int]:
    """Direct child processes of ``pid``: every process in /proc whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # the process ended while we looked
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def measure(config: Config, duration: int, settle: float) -> dict[str, Any]:
    """Start the daemon under ``config``, wait until it is up and settled, then sample it for ``duration`` s."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder}/ledger.db", "LOCAL_SITE_DIR": f"{folder}/site",
               "LOCAL_SITE_PORT": "0", "METRICS_PORT": "0", "SCHEDULE_CRON": NEVER_SOON,
               "REPORT_CRON": NEVER_SOON, "LOG_LEVEL": "WARNING"}
        for name, value in config.env.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "daemon"], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            progress(f"{config.label}: starting factline daemon")
            started = time.perf_counter()
            assert proc.stdout is not None
            announced = proc.stdout.readline()  # "factline daemon: metrics at ...": runtime open, scheduler on
            if not announced.startswith("factline daemon:"):
                raise RuntimeError(f"factline daemon ({config.label}) exited with {proc.wait()} before it was up")
            startup = time.perf_counter() - started
            progress(f"{config.label}: up in {startup:.1f} s; {settle:.0f} s to settle, then {duration} s idle")
            time.sleep(settle)
            pids = {"daemon": proc.pid, **{f"child {c}": c for c in children(proc.pid)}}
            cpu_start = {name: cpu_seconds(pid) for name, pid in pids.items()}
            rss: dict[str, list[float]] = {name: [] for name in pids}
            for _ in range(duration):
                for name, pid in pids.items():
                    rss[name].append(rss_mib(pid))
                time.sleep(1)
            cpu = {name: cpu_seconds(pid) - cpu_start[name] for name, pid in pids.items()}
            commands = {name: Path(f"/proc/{pid}/comm").read_text().strip() for name, pid in pids.items()}
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    processes = [{"process": "factline daemon" if name == "daemon" else commands[name], "rss_mib": Stats.of(rss[name]),
                  "rss_max_mib": max(rss[name]), "cpu_seconds": cpu[name]} for name in pids]
    total_rss = [sum(samples) for samples in zip(*rss.values())]
    return {"config": config.label, "startup_s": startup, "seconds": duration, "processes": processes,
            "total_rss_mib": Stats.of(total_rss), "total_rss_max_mib": max(total_rss),
            "total_cpu_seconds": sum(cpu.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="external endpoint only, 5 seconds instead of 60")
    args = parser.parse_args(argv)
    duration, settle = (5, 1.0) if args.short else (60, 5.0)
    configs = [EXTERNAL] if args.short else [EXTERNAL, EMBEDDED]
    results = [measure(config, duration, settle) for config in configs]
    rows = []
    for r in results:
        for p in r["processes"]:
            rows.append([r["config"], p["process"], f"{r['startup_s']:.1f}", duration, p["rss_mib"].fmt(1),
                         f"{p['rss_max_mib']:.1f}", f"{p['cpu_seconds']:.2f}",
                         f"{100 * p['cpu_seconds'] / duration:.2f}"])
        if len(r["processes"]) > 1:
            rows.append([r["config"], "**total**", "", duration, r["total_rss_mib"].fmt(1),
                         f"{r['total_rss_max_mib']:.1f}", f"{r['total_cpu_seconds']:.2f}",
                         f"{100 * r['total_cpu_seconds'] / duration:.2f}"])
    print(table(["configuration", "process", "start-up s", "seconds idle", "RSS MiB median (p10–p90)", "RSS MiB max",
                 "CPU s", "CPU % of one core"], rows))
    save("idle", {"seconds": duration, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
