"""``factline run``: one run of the pipeline now, then its report from the ledger; the exit code is the verdict's."""

from __future__ import annotations

import argparse
import signal
import textwrap
from types import FrameType
from typing import TYPE_CHECKING, Any

from config import Deployment, Settings
from pipeline.commands.common import add_command, emit
from pipeline.localmodel.weights import QWEN_CODER_05B

if TYPE_CHECKING:
    from capabilities.targets import LocalTarget

RUN_SETTINGS = ("*", "!PROBE_*", "!SCHEDULE_*", "!REPORT_CRON", "!PRUNE_*", "!ALERT_*", "!METRICS_*")


def _notes() -> str:
    from pipeline.outcome import EXIT_CODES

    codes: dict[int, list[str]] = {}
    for verdict, code in EXIT_CODES.items():
        codes.setdefault(code, []).append(str(verdict))
    codes[2] = ["a bad setting or usage"]
    codes[143] = ["interrupted by SIGTERM"]
    exits = textwrap.fill("Exit codes (the run's verdict, judged from the ledger): " + "; ".join(
        f"{code} {', '.join(names)}" for code, names in sorted(codes.items())) + ".", width=104)
    return f"""\
Which model: OPENAI_BASE_URL names any OpenAI-compatible endpoint. Without it, factline uses its embedded
model: the first time it builds llama-server from source (several minutes on 2 cores) and downloads the
{QWEN_CODER_05B.size / 1e6:.0f} MB weights ({QWEN_CODER_05B.file_name}) into MODEL_CACHE_DIR, with progress;
later runs start it from the cache in seconds. `make model` (or `factline model build` and
`factline model fetch`) does the first part ahead of time.

{exits}"""


def register(sub: Any) -> None:
    run = add_command(sub, "run", help="run the pipeline once now and print its report from the ledger",
                      handler=cmd_run, settings=RUN_SETTINGS, notes=_notes(),
                      examples=["factline run",
                                "factline run --topic 'Heat pumps in old houses'",
                                "OPENAI_BASE_URL=http://127.0.0.1:8000/v1 FACTLINE_MODEL=qwen2.5-7b factline run",
                                "factline run --dry-run           draft and humanize, then print the preview page's path",
                                "factline run; factline diff     the claim-vs-fact audit of that run"])
    run.add_argument("--pipeline", metavar="NAME", help="the pipeline to run (required when the pipelines file "
                                                        "has several; `factline pipelines` lists them)")
    run.add_argument("--topic", metavar="TITLE", help="use this topic instead of the next unused one from "
                                                      "TOPICS_SOURCE")
    run.add_argument("--dry-run", action="store_true",
                     help="topic, draft and humanize only; render the page to PREVIEW_DIR and print its path "
                          "(nothing is published or registered; the ledger records a dry run, verdict previewed)")


def cmd_run(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from capabilities.targets import LocalTarget
    from pipeline.ledger.detail import run_detail
    from pipeline.report import format_run
    from pipeline.runner import run_once
    from pipeline.runtime import open_runtimes

    from pipeline.outcome import Verdict
    from pipeline.review.decide import carry_out_owed
    from pipeline.runtime import Publisher

    interrupt_on_signals()
    with open_runtimes(deployment, [settings]) as runtimes:
        runtime = runtimes[settings.pipeline]
        for owed in carry_out_owed(Publisher.of(runtime)):  # approved, then its process died: still owed
            emit(f"run {owed.run_id}: carried out the approval its process left owed: {owed.verdict}")
        result = run_once(runtime, topic=args.topic, dry_run=args.dry_run)
        with runtime.sessions() as s:
            detail = run_detail(s, result.run_id)
        assert detail is not None
        emit(format_run(detail))
        if result.verdict == Verdict.awaiting_review:
            emit(_review_note(result.run_id))
        elif result.preview is not None:
            emit(f"preview: {result.preview.resolve()}")
        elif detail.publications and isinstance(runtime.target, LocalTarget):
            emit(_site_note(runtime.target))
    return result.exit_code


def _review_note(run_id: int) -> str:
    """How an editor reviews a held run, said plainly."""
    return (f"run {run_id} awaits review; nothing was published.\n"
            f"  factline review show {run_id}                          the article, its findings, its preview page\n"
            f"  factline review approve {run_id} --by NAME [--edit FILE]  publish it (or the edited text)\n"
            f"  factline review reject {run_id} --reason TEXT --by NAME [--requeue]")


def _site_note(site: LocalTarget) -> str:
    """Where the local site's pages are served after this command, said plainly."""
    if site.serving:
        return (f"note: {site.base_url} is served by this command only and stops now; "
                f"`factline site serve` (or the daemon) serves {site.site_dir} for as long as it runs")
    return f"note: {site.base_url} is served by another factline process (site serve or the daemon)"


def interrupt_on_signals() -> None:
    """SIGINT and SIGTERM raise Interrupted in the main thread wherever it waits (a socket read, a sleep), so
    the run stops at once and its ``finally`` closes the row as interrupted; exit 130 or 143.

    The first signal puts the default handlers back: a second one while the run closes its row and stops
    the local model ends the process the usual way (the next start marks a row left open as interrupted).
    """
    from pipeline.outcome import Interrupted

    def handle(signum: int, _frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Interrupted(signum)

    signal.signal(signal.SIGINT, handle)
    signal.signal(signal.SIGTERM, handle)
