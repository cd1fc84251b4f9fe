"""``factline probe run`` (run the suite, print rates, gate; bare ``factline probe`` does the same) and
``factline probe report`` (trend table; an HTML page only where ``--out`` says).

Exit codes follow pipeline.cli: 0 ok, 2 usage, 3 a gated rate above its threshold (``--gate``);
an endpoint that stops the run (a StopRun from pipeline.model) exits with its verdict's code, as
`factline run` does: 4 unavailable (the run is kept as interrupted; re-run to resume), 6 authentication.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from config import Deployment, Settings
from pipeline.commands.common import add_command, emit, positive_int, reading_ledger
from pipeline.probe.model import SOURCES

if TYPE_CHECKING:
    from capabilities.errors import Retryable

__all__ = ["cmd_probe", "cmd_probe_report", "format_summary", "register"]


def _log_retry(attempt: int, wait: float, exc: Retryable) -> None:
    from loguru import logger

    logger.warning("probe.llm_retry", attempt=attempt, wait=round(wait, 2), detail=exc.detail)


def cmd_probe(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger.db import open_ledger
    from pipeline.model import LLMUnavailable, make_chat_model, make_client
    from pipeline.probe.runner import PROMPT_VERSION, jobs, load_suite, run_suite, select
    from pipeline.probe.storage import RunKey, stored
    from pipeline.probe.summary import gate_failures, summarize
    from pipeline.progress import Progress
    from pipeline.http import RunDeadline
    from pipeline.runtime import open_endpoint

    suite = load_suite(args.source)
    chosen = select(suite.probes, args.limit)
    todo = jobs(chosen)
    sessions = open_ledger(deployment.ledger.url)
    with ExitStack() as stack:
        endpoint = open_endpoint(deployment.model, settings, stack)
        deadline = RunDeadline()  # never started: a probe run is bounded by PROBE_MAX_TOKENS, not by time
        client = make_client(settings, endpoint, deadline)
        stack.callback(client.close)
        chat = make_chat_model(client, endpoint, settings, sleep=time.sleep, on_retry=_log_retry, deadline=deadline)
        key = RunKey(endpoint.model, endpoint.mode, suite.source, PROMPT_VERSION, suite.catalog_version,
                     suite.suite_version)
        progress = Progress(f"probe {suite.source}")
        try:
            outcome = run_suite(sessions, chat, key, todo, fresh=args.fresh, concurrency=deployment.probe.concurrency,
                                max_tokens=deployment.probe.max_tokens, progress=progress)
        except LLMUnavailable as exc:  # pipeline.cli prints it and exits 4
            raise LLMUnavailable(f"{exc.detail}; the probe run is kept, re-run the same command to resume") from exc
        finally:
            progress.close()
    wanted = {(job.probe.id, job.variant) for job in todo}
    with sessions() as s:
        answers = [a for a in stored(s, outcome.run_id) if (a.probe_id, a.variant) in wanted]
    summary = summarize(key, outcome.run_id, outcome.status, len(chosen), answers)
    emit(json.dumps(summary, ensure_ascii=False) if args.json else format_summary(summary))
    failures = gate_failures(summary, deployment.probe) if args.gate else []
    for line in failures:
        print(f"factline: probe gate: {line}", file=sys.stderr)
    return 3 if failures else 0


def format_summary(summary: dict[str, Any]) -> str:
    """A short human report of one run's figures."""
    lines = [f"probe run {summary['run_id']} ({summary['status']}): {summary['model']} {summary['mode']}, "
             f"source {summary['source']}, {summary['probes']} probes, {summary['answers']} answers, "
             f"{summary['errors']} refused by the endpoint, {summary['tokens']} tokens",
             f"  prompt {summary['prompt_version']}  catalog {summary['catalog_version']}  "
             f"suite {summary['suite_version']}"]
    for name, figure in summary["rates"].items():
        lo, hi = figure["ci95"]
        lines.append(f"  {name:<22} {figure['rate']:.3f}  ({figure['count']}/{figure['total']}, "
                     f"95% CI {lo:.3f}-{hi:.3f})")
    outcomes = ", ".join(f"{label} {f['count']}" for label, f in summary["decoy_outcomes"].items())
    lines.append(f"  decoy outcomes: {outcomes}")
    if summary["overclaim_delta"] is not None:
        lines.append(f"  overclaimed-prompt delta: {summary['overclaim_delta']:+.3f} "
                     f"({summary['overclaim']['matched']['rate']:.3f} -> "
                     f"{summary['overclaim']['overclaimed']['rate']:.3f})")
    return "\n".join(lines)


def cmd_probe_report(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.probe.report import format_table, render_html, trend

    with reading_ledger(deployment.ledger.url) as s:
        rows = trend(s)
    emit(format_table(rows))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(render_html(rows), encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


RUN_SETTINGS = ("DATABASE_URL", "OPENAI_*", "FACTLINE_MODEL", "TOOL_CALL_MODE", "LLM_*", "MODEL_CACHE_DIR",
                "LOCAL_MODEL_*", "RETRY_*", "PROBE_*")
RUN_NOTES = """\
Rates (unknown-tool, shadow-call, hallucinated-argument, prose-call) with 95% Wilson intervals, stored in
the ledger by model, prompt, catalog and suite version; an interrupted run resumes where it stopped.
Exit codes: 0 done, 3 a rate above its PROBE_GATE_* threshold (--gate), 4 endpoint unavailable (re-run to
resume), 6 authentication, 2 usage. Without OPENAI_BASE_URL it uses the embedded model (see run --help)."""
RUN_EXAMPLES = ["factline probe run --limit 5", "factline probe run --source bfcl --gate",
                "factline probe --json          (bare probe runs the suite too)"]


def _suite_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", choices=SOURCES, default="all", help="which probes to run (default all)")
    parser.add_argument("--limit", type=positive_int, metavar="N", help="run only the first N probes of each kind")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--gate", action="store_true", help="exit 3 when a rate exceeds its PROBE_GATE_* threshold")
    parser.add_argument("--fresh", action="store_true", help="start a new run instead of resuming the last one")


def register(sub: Any) -> None:
    """``probe`` with its actions ``run`` and ``report``; bare ``probe [options]`` is ``probe run``."""
    probe = add_command(sub, "probe", help="measure tool-hallucination rates on the probe suite", handler=cmd_probe,
                        settings=RUN_SETTINGS, notes=RUN_NOTES, examples=RUN_EXAMPLES)
    _suite_arguments(probe)
    actions = probe.add_subparsers(dest="probe_command", metavar="{run,report}")
    run = add_command(actions, "run", help="run the suite against the configured endpoint and print the rates",
                      handler=cmd_probe, settings=RUN_SETTINGS, notes=RUN_NOTES, examples=RUN_EXAMPLES)
    _suite_arguments(run)
    report = add_command(actions, "report", help="trend table of the rates by version; an HTML page with --out",
                         handler=cmd_probe_report, settings=("DATABASE_URL",),
                         notes="Read-only: it never creates or migrates a ledger, and writes a file only with --out.",
                         examples=["factline probe report", "factline probe report --out docs/probe-report.html"])
    report.add_argument("--out", type=Path, metavar="FILE", help="also write the trend as an HTML page to FILE")
