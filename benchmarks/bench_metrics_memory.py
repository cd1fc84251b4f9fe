"""What each pipeline's /metrics series cost the scheduler: memory per pipeline, the page's size, one render's CPU.

    python -m benchmarks.bench_metrics_memory              1,000 pipelines
    python -m benchmarks.bench_metrics_memory --short      50 pipelines (CI)
    python -m benchmarks.bench_metrics_memory --pipelines 5000

docs/benchmarks.md section 12 saw the scheduler's RSS rise while the workers finished runs, and put it down to
the series each pipeline gains in /metrics when its first run finishes (a ``pipeline`` label on every series,
histograms included); this measures that alone, in one process, with the project's own ``pipeline.metrics.Metrics``.

One real run (scripted model, local target, a temporary SQLite ledger) gives the ``RunDetail`` a finished run
hands the scheduler; its tick is made a Celery one (``scheduled_for`` and ``sent_at`` set, so that its lateness
has the ``sent`` and ``taken`` stages, as in section 12). Then, for each of N pipelines, the calls the daemon
makes (pipeline.daemon: ``Daemon._count`` for a queued tick, ``Daemon.after_run`` for the run the reconciler
found finished): ``ticks.labels(p, "queued").inc()``, ``observe_run(detail of p)``, ``published_at(p, ...)``.

Measured: the process's RSS (VmRSS, after gc) before and after, and at each tenth; the same again for a second
finished run of every pipeline (no new series: the growth is the first run's); Python's own allocations with
tracemalloc (a second, fresh ``Metrics``), with the allocation sites that hold most; the /metrics text's
bytes and lines; the CPU time (process_time) of one ``render()``, and the memory a render holds at its peak.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import shutil
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from benchmarks.common import Stats, machine, production_logs_to_devnull, progress, save, table

FULL, SHORT = 1000, 50
LATE_SENT, LATE_TAKEN = 0.3, 3.0  # seconds: a tick sent 0.3 s after its time and taken 3 s after it


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def settled_rss() -> int:
    gc.collect()
    return rss_bytes()


def finished_run() -> tuple[Any, datetime]:
    """The RunDetail of one real, successful run, as the scheduler reads it when a worker finished it (a Celery
    tick: ``scheduled_for`` and ``sent_at`` set), and the time of its publication."""
    from config import load_settings
    from pipeline.ledger.detail import run_detail
    from pipeline.runner import run_once
    from pipeline.runtime import open_runtime
    from testkit.scripted_model import ScriptedModel

    work = Path(tempfile.mkdtemp(prefix="bench-metrics-"))
    try:
        topics = work / "topics.txt"
        topics.write_text("Metrics memory topic\n", encoding="utf-8")
        production_logs_to_devnull()
        with ScriptedModel() as model:
            settings = load_settings(database_url=f"sqlite:///{work}/ledger.db", openai_base_url=model.base_url,
                                     factline_model="scripted", topics_source=str(topics),
                                     local_site_dir=work / "site", local_site_port=0)
            with open_runtime(settings) as rt:
                result = run_once(rt)
                with rt.sessions() as s:
                    detail = run_detail(s, result.run_id)
        assert result.verdict == "success" and detail is not None, result.error
    finally:
        shutil.rmtree(work, ignore_errors=True)
    scheduled = detail.started_at - timedelta(seconds=LATE_TAKEN)
    detail = dataclasses.replace(detail, trigger="schedule", scheduled_for=scheduled,
                                 sent_at=scheduled + timedelta(seconds=LATE_SENT))
    published = next((p.verified_at for p in detail.publications if p.verified_at), datetime.now(timezone.utc))
    return detail, published


def finish_runs(metrics: Any, detail: Any, published: datetime, names: list[str],
                checkpoint: Any = None) -> None:
    """For each pipeline, what the daemon does when its tick is queued and the reconciler finds its run finished."""
    step = max(1, len(names) // 10)
    for i, name in enumerate(names, start=1):
        metrics.ticks.labels(name, "queued").inc()  # Daemon._count, Queued()
        metrics.observe_run(dataclasses.replace(detail, pipeline=name), 12.5)  # Daemon.after_run
        metrics.published_at(name, published)
        if checkpoint is not None and (i % step == 0 or i == len(names)):
            checkpoint(i)


def render_cpu(metrics: Any, renders: int) -> Stats:
    """CPU milliseconds (process_time) of one render, over ``renders`` renders."""
    samples = []
    for _ in range(renders):
        started = time.process_time()
        metrics.render()
        samples.append((time.process_time() - started) * 1000)
    return Stats.of(samples)


def series_lines(page: bytes, name: str) -> dict[str, int]:
    """The page's sample lines of pipeline ``name``: all, the histograms' buckets, and prometheus_client's
    ``_created`` timestamps (one per counter and histogram child)."""
    lines = [line.split("{", 1)[0] for line in page.decode().splitlines() if f'pipeline="{name}"' in line]
    return {"all": len(lines), "buckets": sum(n.endswith("_bucket") for n in lines),
            "created": sum(n.endswith("_created") for n in lines)}


def measure(pipelines: int, renders: int) -> dict[str, Any]:
    from pipeline.metrics import Metrics

    progress("one real run (scripted model, SQLite) for the RunDetail a finished run gives the scheduler")
    detail, published = finished_run()
    names = [f"pipeline-{i:04d}" for i in range(pipelines)]

    progress(f"RSS: the series of {pipelines:,} pipelines' first finished runs")
    metrics = Metrics()
    empty_page = metrics.render()
    empty_cpu = render_cpu(metrics, renders)
    base = settled_rss()
    curve: list[dict[str, int]] = []

    def checkpoint(done: int) -> None:
        curve.append({"pipelines": done, "rss_delta_bytes": settled_rss() - base})
        progress(f"{done:,} pipelines: RSS +{curve[-1]['rss_delta_bytes'] / 2**20:.1f} MiB")

    finish_runs(metrics, detail, published, names, checkpoint)
    first = curve[-1]["rss_delta_bytes"]
    progress("RSS: a second finished run of every pipeline (no new series)")
    before_second = settled_rss()
    finish_runs(metrics, detail, published, names)
    second = settled_rss() - before_second

    progress(f"rendering /metrics {renders} times")
    page = metrics.render()
    full_cpu = render_cpu(metrics, renders)
    per_pipeline_lines = series_lines(page, names[0])

    progress("tracemalloc: the same series in a fresh Metrics; a render's peak")
    tracemalloc.start(1)
    fresh = Metrics()
    gc.collect()
    before, _ = tracemalloc.get_traced_memory()
    snapshot_before = tracemalloc.take_snapshot()
    finish_runs(fresh, detail, published, names)
    gc.collect()
    after, _ = tracemalloc.get_traced_memory()
    own = [tracemalloc.Filter(False, tracemalloc.__file__)]
    top = tracemalloc.take_snapshot().filter_traces(own).compare_to(snapshot_before.filter_traces(own), "filename")[:4]
    tracemalloc.reset_peak()
    held, _ = tracemalloc.get_traced_memory()
    fresh.render()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    traced = after - before
    return {
        "pipelines": pipelines, "renders": renders,
        "run": {"tool_calls": len(detail.tool_calls), "nudges": len(detail.nudges), "events": len(detail.events),
                "lateness_stages": sorted(detail.lateness())},
        "rss_start_bytes": base, "rss_curve": curve, "rss_first_runs_bytes": first,
        "rss_per_pipeline_bytes": first / pipelines, "rss_second_runs_bytes": second,
        "traced_bytes": traced, "traced_per_pipeline_bytes": traced / pipelines,
        "traced_top": [{"file": str(s.traceback[0].filename).split("site-packages/")[-1], "bytes": s.size_diff,
                        "blocks": s.count_diff} for s in top],
        "render_peak_bytes": peak - held,
        "page_bytes_empty": len(empty_page), "page_bytes": len(page), "page_lines": len(page.splitlines()),
        "page_bytes_per_pipeline": (len(page) - len(empty_page)) / pipelines,
        "lines_per_pipeline": per_pipeline_lines,
        "render_cpu_ms_empty": empty_cpu, "render_cpu_ms": full_cpu,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help=f"{SHORT} pipelines instead of {FULL:,}, 5 renders")
    parser.add_argument("--pipelines", type=int, help="pipelines (default 1,000; 50 with --short)")
    args = parser.parse_args(argv)
    pipelines = args.pipelines or (SHORT if args.short else FULL)
    renders = 5 if args.short else 30
    load_before = machine()["loadavg_1_5_15"]
    r = measure(pipelines, renders)
    mib = 2**20
    print(table(["figure", "value"], [
        ["pipelines (each: one queued tick, one finished run)", f"{pipelines:,}"],
        ["the run", f"{r['run']['tool_calls']} tool calls, {r['run']['nudges']} nudges, "
                    f"lateness {', '.join(r['run']['lateness_stages'])}"],
        ["sample lines per pipeline in /metrics", f"{r['lines_per_pipeline']['all']} (histogram buckets "
                                                  f"{r['lines_per_pipeline']['buckets']}, _created "
                                                  f"{r['lines_per_pipeline']['created']})"],
        ["RSS growth, first runs", f"{r['rss_first_runs_bytes'] / mib:.1f} MiB = "
                                   f"{r['rss_per_pipeline_bytes'] / 1024:.1f} KiB per pipeline"],
        ["RSS growth, second runs (no new series)", f"{r['rss_second_runs_bytes'] / mib:.2f} MiB"],
        ["Python allocations (tracemalloc), first runs", f"{r['traced_bytes'] / mib:.1f} MiB = "
                                                         f"{r['traced_per_pipeline_bytes'] / 1024:.1f} KiB per pipeline"],
        ["/metrics text", f"{r['page_bytes'] / 1024:.0f} KiB, {r['page_lines']:,} lines "
                          f"({r['page_bytes_per_pipeline'] / 1024:.2f} KiB per pipeline; "
                          f"{r['page_bytes_empty'] / 1024:.1f} KiB without any)"],
        ["CPU of one render, ms median (p10–p90)", f"{r['render_cpu_ms'].fmt(1)} "
                                                   f"({r['render_cpu_ms_empty'].fmt(2)} without any pipeline)"],
        ["a render's peak allocation (tracemalloc)", f"{r['render_peak_bytes'] / mib:.1f} MiB"],
    ]))
    print()
    print(table(["where the first runs' allocations are (tracemalloc, by file)", "MiB", "blocks"],
                [[t["file"], f"{t['bytes'] / mib:.2f}", f"{t['blocks']:,}"] for t in r["traced_top"]]))
    load_after = machine()["loadavg_1_5_15"]
    save("metrics_memory", {"short": args.short, "load_before": load_before, "load_after": load_after, **r})
    return 0


if __name__ == "__main__":
    sys.exit(main())
