"""The daily report: one day of the ledger as text. A day without publications says so first."""

from __future__ import annotations

from pipeline.ledger.daily import DayLedger


def format_day(day: DayLedger) -> str:
    """Every figure comes from ledger rows (pipeline.ledger.daily)."""
    online = [p for p in day.publications if p.verified]
    if day.publications:
        first = (f"{day.day} ({day.time_zone}): {len(day.publications)} publications, {len(online)} verified online, "
                 f"{sum(p.registration_number is not None for p in day.publications)} registered")
    else:
        first = f"{day.day} ({day.time_zone}): no publications"
    verdicts = ", ".join(f"{v} {n}" for v, n in sorted(day.verdicts.items())) or "none"
    lines = [first, f"runs: {day.runs} ({verdicts})", f"hallucinations caught: {day.hallucinations_caught}"]
    if day.publications:
        lines.append("publications:")
        for p in day.publications:
            state = "online" if p.verified else "NOT verified"
            lines.append(f"  run {p.run_id}: {p.url} [{state}] registration {p.registration_number or '-'}")
    if day.failures:
        lines.append("failures:")
        for f in day.failures:
            why = ": ".join(x for x in (f.reason, f.error) if x) or "no reason recorded"
            lines.append(f"  run {f.run_id}: {f.verdict}: {why}")
    return "\n".join(lines)
