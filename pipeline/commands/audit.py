"""``factline audit``: what an agent said it did against the tool calls that succeeded, for any OpenAI-format transcript."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import CommandError, NoSuchRun, add_command, emit, positive_int, reading_ledger, to_json

SUMMARY = "claims in agent transcripts against the tool calls that really succeeded"
NOTES = """\
Reads transcripts in OpenAI chat format (a list of messages, or an object with messages and optional
tools; JSON Lines; tau-bench and tau2-bench trajectory files with many trajectories each), streamed, or
factline's own run N from the ledger (--run N). Per transcript: the tool calls and whether each succeeded (a
tool message marked as an error, or starting with "Error:", backs nothing), the claims in the assistant's
text - an action asserted as done - with the tool each refers to and whether a successful call backs it (a
claim naming a resource id only by a successful call on that id), ids, URLs and numbers in claims that no call
holds, and tool calls written as prose. Claim words for unseen tools are derived from their names and
descriptions (--catalog adds words: {"tool": {"en_done": [...], "zh_verbs": [...], ...}}). docs/guard.md.
Exit 3 when anything is unbacked, 2 when a file could not be read (the others are still audited), else 0."""
EXAMPLES = ["factline audit transcript.json",
            "factline audit runs.jsonl tau2-results.json --json",
            "factline audit gpt-4o-airline.json --catalog airline-words.json",
            "factline audit --run 12"]


def register(sub: Any) -> None:
    audit = add_command(sub, "audit", help=SUMMARY, handler=cmd_audit, settings=("DATABASE_URL", "LOG_LEVEL"),
                        notes=NOTES, examples=EXAMPLES)
    audit.add_argument("files", nargs="*", type=Path, metavar="FILE", help="transcript files (.json or .jsonl)")
    audit.add_argument("--run", type=positive_int, metavar="N", help="also audit factline's run N from the ledger")
    audit.add_argument("--catalog", type=Path, metavar="FILE", help="claim words per tool (JSON), added to the derived ones")
    audit.add_argument("--json", action="store_true", help="one JSON object per transcript per line (JSON Lines)")


def cmd_audit(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    import sys

    from pipeline.audit.check import Audit, Auditor
    from pipeline.audit.transcripts import TranscriptError, read, tool_names
    from pipeline.guard.vocabulary import CatalogError, load_catalog

    if not args.files and args.run is None:
        raise CommandError("audit: give a transcript FILE or --run N")
    try:
        catalog = load_catalog(args.catalog) if args.catalog else None
    except CatalogError as exc:
        raise CommandError(f"audit: {exc}") from exc
    totals = Totals()
    show = (lambda a: emit(to_json(a.as_dict()))) if args.json else (lambda a: emit(format_audit(a)))
    if args.run is not None:
        from pipeline.audit.ledger_run import run_transcript
        from pipeline.ledger import listing

        with reading_ledger(deployment.ledger.url) as s:
            if not listing.run_exists(s, args.run):
                raise NoSuchRun(args.run)
            transcript = run_transcript(s, args.run)
        from capabilities import CATALOG

        called = {c.name for m in transcript.messages for c in m.tool_calls}
        # factline's own tools are read with their declared words; a run of other tools (an Agents SDK run
        # written by pipeline.hooks.openai_agents) with words derived from their names
        result = (Auditor.factline() if called <= set(CATALOG) else Auditor(catalog)).audit(transcript)
        totals.add(result)
        show(result)
    auditor = Auditor(catalog)
    for path in args.files:
        auditor.know(tool_names(path))
    for path in args.files:
        try:
            for transcript in read(path):
                result: Audit = auditor.audit(transcript)
                totals.add(result)
                show(result)
        except TranscriptError as exc:
            totals.bad_files += 1
            print(f"factline: audit: {exc}", file=sys.stderr)
    if not args.json:
        emit(totals.line())
    return 3 if totals.unbacked else 2 if totals.bad_files else 0


class Totals:
    def __init__(self) -> None:
        self.transcripts = self.unbacked = self.claims = self.unbacked_claims = self.bad_files = 0

    def add(self, result: Any) -> None:
        self.transcripts += 1
        self.unbacked += result.unbacked
        self.claims += len(result.claims)
        self.unbacked_claims += sum(not c.backed for c in result.claims)

    def line(self) -> str:
        bad = f", {self.bad_files} file(s) unreadable" if self.bad_files else ""
        return (f"{self.transcripts} transcripts: {self.unbacked} with something unbacked; "
                f"{self.claims} claims, {self.unbacked_claims} unbacked{bad}")


def format_audit(result: Any) -> str:
    calls = result.calls
    failed = sum(c.outcome == "error" for c in calls)
    head = (f"{'UNBACKED' if result.unbacked else 'ok      '}  {result.source}: {len(calls)} calls ({failed} failed), "
            f"{len(result.claims)} claims, {sum(not c.backed for c in result.claims)} unbacked, "
            f"{len(result.ungrounded)} ungrounded, {len(result.prose_calls)} prose calls")
    return "\n".join([head, *_details(result)])


def _details(result: Any) -> Iterator[str]:
    for c in result.claims:
        mark = "backed  " if c.backed else "UNBACKED"
        sentence = " ".join(c.sentence.split())
        yield f"    {mark} message {c.message}  {c.tool}: {sentence[:110]!r}  ({c.why})"
    for u in result.ungrounded:
        yield f"    ungrounded {u.kind} {u.text!r} in message {u.message}: no call holds it"
    for p in result.prose_calls:
        yield f"    prose call {p.tool} in message {p.message}: written as text, never executed"
