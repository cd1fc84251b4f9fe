"""Benchmark 4: throughput of the claim scan (guard.inspect, find_claims) from 1 KB to 10 MB, and its linearity.

Typical inputs are English and Chinese prose with some claims, URLs and numbers. Adversarial inputs
aim at regex backtracking: long runs of spaces after "score", digits after 评分, repeated "https://"
prefixes, many '{"name":' fragments, many negated claims. A scan is linear when MB/s stays flat as
the size grows by 10x; the script prints the growth factor of time per 10x of size.
A PNG of text size against scan time goes to docs/img/claim_scan.png.

    python -m benchmarks.bench_claim_scan [--short] [--largest BYTES]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks.common import IMAGES, Stats, progress, save, table
from capabilities import CATALOG
from pipeline.guard import Evidence, inspect
from pipeline.guard.claims import find_claims

NAMES = set(CATALOG)
EVIDENCE = Evidence.from_results({"pick_topic"}, [("publish", {"url": "http://127.0.0.1:8765/a.html"}),
                                                  ("register", {"registration_number": "CT-20260101-001"})], CATALOG)
UNITS: dict[str, str | Callable[[int], str]] = {
    "english": ("The draft was written and then reviewed by the editor; it will be published later today, once "
                "the checks pass. See http://127.0.0.1:8765/a.html for the page and CT-20260101-001 for the entry. "),
    "chinese": "草稿已经写好，编辑正在审阅；计划今天稍后发布，检查通过后再登记。页面见 http://127.0.0.1:8765/a.html ，登记号待定。",
    "spaces after score": lambda size: "score" + " " * (size - 6) + "x",
    "digits after 评分": "评分" + "7" * 998,
    "repeated https://": "https://" * 128,
    '{"name": fragments': '{"name": "pick_topic_x", ' * 40,
    "negated claims": "not published, 未发布, could not register, 未登记, ",
    "call syntax": "pick_topic(" + "a" * 60 + " ",
}


def text_of(unit: str | Callable[[int], str], size: int) -> str:
    """``unit`` repeated to ``size`` UTF-8 bytes (about), or built by ``unit(size)``."""
    if callable(unit):
        return unit(size)
    per = len(unit.encode())
    return unit * max(1, size // per)


def seconds(fn: Callable[[str], Any], text: str, budget: float) -> list[float]:
    """Time ``fn(text)`` repeatedly for about ``budget`` seconds (at least 3 samples)."""
    samples: list[float] = []
    deadline = time.perf_counter() + budget
    while len(samples) < 3 or (time.perf_counter() < deadline and len(samples) < 50):
        started = time.perf_counter()
        fn(text)
        samples.append(time.perf_counter() - started)
    return samples


def scan(text: str) -> Any:
    return inspect(text, EVIDENCE, NAMES)


def chart(results: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in UNITS:
        points = [r for r in results if r["input"] == name and r["function"] == "inspect"]
        label = name.replace("评分", "pingfen")  # matplotlib's default font has no CJK glyphs
        ax.plot([r["bytes"] for r in points], [r["seconds"].median for r in points], marker="o", label=label)
    ax.set(xscale="log", yscale="log", xlabel="text size (bytes)", ylabel="guard.inspect seconds (median)",
           title="claim scan time vs text size (a slope of 1 is linear)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    IMAGES.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(IMAGES / "claim_scan.png", dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="1 KB and 10 KB, no chart: checks that it runs")
    parser.add_argument("--largest", type=int, default=10_000_000, help="the largest text size in bytes (1 KB x 10^n)")
    args = parser.parse_args(argv)
    sizes = [1_000, 10_000] if args.short else [s for s in (1_000, 10_000, 100_000, 1_000_000, 10_000_000)
                                                if s <= args.largest]
    results: list[dict[str, Any]] = []
    for name, unit in UNITS.items():
        progress(f"{name}: {', '.join(f'{s:,}' for s in sizes)} bytes")
        for size in sizes:
            text = text_of(unit, size)
            nbytes = len(text.encode())
            for label, fn in (("inspect", scan), ("find_claims", find_claims)):
                stats = Stats.of(seconds(fn, text, 0.02 if args.short else 2.0))
                results.append({"input": name, "function": label, "bytes": nbytes, "seconds": stats,
                                "mb_per_s": nbytes / stats.median / 1e6})
    rows, worst = [], 0.0
    for name in UNITS:
        for label in ("inspect", "find_claims"):
            points = [r for r in results if r["input"] == name and r["function"] == label]
            growth = [b["seconds"].median / a["seconds"].median for a, b in zip(points, points[1:])]
            worst = max(worst, growth[-1])
            rows.append([name, label, *[f"{r['mb_per_s']:.2f}" for r in points], f"{growth[-1]:.1f}"])
    print(table(["input", "function", *[f"MB/s @ {s:,} B" for s in sizes], "time × per last 10× size"], rows))
    print(f"\nworst growth of time for the last 10x of size: {worst:.1f}x (linear is ~10x)")
    if not args.short:
        chart(results)
    save("claim_scan", {"sizes": sizes, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
