"""What every benchmark shares: the import path, timing statistics, result files and a no-op catalog.

Benchmarks are scripts, not tests: they print tables and write ``benchmarks/results/<name>.json``;
nothing here asserts a timing.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results"
IMAGES = ROOT / "docs" / "img"
PG_ADMIN = os.environ.get("FACTLINE_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


@dataclass(frozen=True)
class Stats:
    """Median and spread (10th/90th percentile) of n samples, in the samples' unit."""

    n: int
    median: float
    p10: float
    p90: float

    @classmethod
    def of(cls, samples: Sequence[float]) -> Stats:
        ordered = sorted(samples)
        if len(ordered) == 1:
            return cls(1, ordered[0], ordered[0], ordered[0])
        deciles = statistics.quantiles(ordered, n=10, method="inclusive")
        return cls(len(ordered), statistics.median(ordered), deciles[0], deciles[-1])

    def scaled(self, factor: float) -> Stats:
        return Stats(self.n, self.median * factor, self.p10 * factor, self.p90 * factor)

    def fmt(self, digits: int = 1) -> str:
        return f"{self.median:.{digits}f} ({self.p10:.{digits}f}–{self.p90:.{digits}f})"


def repeat(fn: Callable[[], object], runs: int, number: int) -> list[float]:
    """``runs`` samples, each the mean seconds of ``number`` back-to-back calls of ``fn``."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - started) / number)
    return samples


def progress(message: str) -> None:
    print(f"  .. {message}", file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal"))
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(mem_kb / 2**20, 1),
            "python": platform.python_version(), "os": platform.platform(terse=True),
            "loadavg_1_5_15": os.getloadavg()}


def save(name: str, data: dict[str, Any]) -> Path:
    """Write one benchmark's results (with the machine) to benchmarks/results/<name>.json."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"machine": machine(), **data}, indent=2, default=_jsonable, ensure_ascii=False))
    return path


def _jsonable(value: object) -> object:
    if isinstance(value, Stats):
        return asdict(value)
    raise TypeError(f"not JSON-able: {value!r}")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def production_logs_to_devnull() -> None:
    """Configure loguru as pipeline.logs does (text format, INFO), writing to /dev/null: formatting is paid, I/O is not."""
    from config.deployment import Logs
    from config.secrets import Redactor
    from pipeline import logs

    logs.configure(Logs(format="text", level="INFO"), Redactor(()), stream=open(os.devnull, "w"))  # noqa: SIM115
