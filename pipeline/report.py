"""Reports as text, every figure from the ledger: one run (`factline run`, `runs --run N`) and one day
(`factline report`, the daemon's daily log). A day without publications says so first."""

from __future__ import annotations

from datetime import datetime, timezone

from pipeline.ledger.daily import DayLedger
from pipeline.ledger.detail import RunDetail
from pipeline.ledger.prune import PRUNED_NOTE


def format_run(detail: RunDetail, now: datetime | None = None) -> str:
    """A short report of one run; its duration is the ledger's (started to finished), or so far if running."""
    if detail.verdict is not None and detail.finished_at is not None:
        seconds = (detail.finished_at - detail.started_at).total_seconds()
        state = f"{detail.verdict} (exit {detail.verdict.exit_code}) in {seconds:.1f} s"
    else:
        seconds = ((now or datetime.now(timezone.utc)) - detail.started_at).total_seconds()
        state = f"{detail.status} for {seconds:.0f} s so far (no verdict yet)"
    lines = [f"run {detail.run_id}: {state}, model {detail.model} ({detail.tool_call_mode}), {detail.tokens} tokens"]
    if detail.pruned_at is not None:
        lines.append(f"  {PRUNED_NOTE} on {detail.pruned_at:%Y-%m-%d} (factline db prune): the model's text, long "
                     "arguments and results, unpublished versions and source texts")
    for call in detail.tool_calls:
        reason = f" [{call.reason}]" if call.reason else ""
        lines.append(f"  {call.seq:>2}. {call.name:<12} {call.outcome}{reason}")
    for src in detail.sources:
        state = f"read ({src.status or 'file'}, sha256 {src.digest[:12]})" if src.ok and src.digest else f"FAILED: {src.failure}"
        lines.append(f"  source [{src.number}] {src.final_url or src.source}: {state}")
    for check in detail.fact_checks:
        lines.append(f"  fact check of version {check.draft_version_id} (round {check.round}, {check.mode}): "
                     f"{check.status}: {check.detail}")
        for fact in check.facts:
            where = (f"source [{fact.source_number}]" if fact.source_number else "the brief") if fact.supported else ""
            verdict = f"found in {where}: {fact.passage!r}" if fact.supported else f"NOT in the sources; in: {fact.sentence!r}"
            lines.append(f"      {fact.kind:<8} {fact.fact!r} {verdict}")
    for pub in detail.publications:
        lines.append(f"  published {pub.url}: {_checked(pub.verified_at, pub.found)}")
    for reg in detail.registrations:
        marks = (f", retracted {reg.retracted_at:%Y-%m-%d %H:%M}" if reg.retracted_at else "") + (
            f", corrected {reg.corrections}x" if reg.corrections else "")
        lines.append(f"  registered {reg.number} for {reg.url}{marks}")
    if detail.nudges:
        lines.append(f"  nudges: {len(detail.nudges)} ({', '.join(n.kind for n in detail.nudges)})")
    unbacked = [c for c in detail.claims if not c.backed]
    if unbacked:
        kinds = dict.fromkeys(f"{c.kind}:{c.capability or c.span}" for c in unbacked)
        lines.append(f"  unbacked claims: {', '.join(kinds)} (in {detail.hallucinations_caught()} turn(s))")
    if detail.error:
        lines.append(f"  stopped: {detail.stop_reason}: {detail.error}")
    return "\n".join(lines)


def _checked(verified_at: datetime | None, found: str | None) -> str:
    """What the ledger knows of a page: when a check found the article on it, never a present-tense "online"."""
    if verified_at is not None:
        return f"verified at {verified_at.astimezone(timezone.utc):%Y-%m-%d %H:%M:%S} UTC" + (f" ({found})" if found else "")
    return f"NOT verified: {found}" if found else "NOT verified"


def format_day(day: DayLedger) -> str:
    """Every figure comes from ledger rows (pipeline.ledger.daily)."""
    verified = [p for p in day.publications if p.verified]
    if day.publications:
        first = (f"{day.day} ({day.time_zone}): {len(day.publications)} publications, {len(verified)} verified, "
                 f"{sum(p.registration_number is not None for p in day.publications)} registered")
    else:
        first = f"{day.day} ({day.time_zone}): no publications"
    verdicts = ", ".join(f"{v} {n}" for v, n in sorted(day.verdicts.items())) or "none"
    lines = [first, f"runs: {day.runs} ({verdicts})", f"hallucinations caught: {day.hallucinations_caught}"]
    if day.publications:
        lines.append("publications:")
        for p in day.publications:
            lines.append(f"  run {p.run_id}: {p.url} [{_checked(p.verified_at, p.content_found)}] "
                         f"registration {p.registration_number or '-'}")
    if day.awaiting_review:
        now = datetime.now(timezone.utc)
        lines.append("awaiting review (factline review list):")
        for w in day.awaiting_review:
            lines.append(f"  run {w.run_id}: {w.title} (waiting {w.hours(now):.1f} h)")
    if day.failures:
        lines.append("failures:")
        for f in day.failures:
            why = ": ".join(x for x in (f.reason, f.error) if x) or "no reason recorded"
            lines.append(f"  run {f.run_id}: {f.verdict}: {why}")
    return "\n".join(lines)
