"""The probe page's figures: every probe run as a point, grouped into one series per (model, mode, source).

Each point is rated exactly as ``factline probe`` rates a run (pipeline.probe.scoring.aggregate over the
``matched`` answers, pipeline.probe.summary.hallucination for the overclaim delta), from the verdict columns
only: two queries for the whole page, the raw replies are never loaded.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import distinct, select
from sqlalchemy.orm import Session

from pipeline.ledger.models import ProbeResult, ProbeRun
from pipeline.probe.scoring import DECOY_OUTCOMES, Verdict, aggregate
from pipeline.probe.summary import GATED, hallucination
from pipeline.web.data import utc

__all__ = ["GATED", "ProbePoint", "ProbeSeries", "probe_models", "probe_series"]


@dataclass(frozen=True)
class ProbePoint:
    run_id: int
    started_at: datetime
    prompt_version: str
    catalog_version: str
    suite_version: str
    status: str
    answers: int
    errors: int
    rates: dict[str, dict[str, Any]]  # GATED name -> {"rate", "count", "total", "ci95"}
    decoy_outcomes: dict[str, dict[str, Any]]
    overclaim: dict[str, dict[str, Any]]  # matched / overclaimed hallucination shares
    overclaim_delta: float | None

    @property
    def label(self) -> str:
        """What the chart writes under the point: the prompt and catalog versions it was measured with."""
        return f"p {self.prompt_version[:6]} c {self.catalog_version[:6]}"


@dataclass(frozen=True)
class ProbeSeries:
    model: str
    mode: str
    source: str
    points: tuple[ProbePoint, ...]  # oldest first


def probe_series(s: Session, model: str | None = None) -> list[ProbeSeries]:
    """Every probe run (optionally of one model), oldest first, grouped by (model, mode, source)."""
    stmt = select(ProbeRun).order_by(ProbeRun.started_at, ProbeRun.id)
    runs = s.scalars(stmt.where(ProbeRun.model == model) if model else stmt).all()
    verdicts: dict[int, dict[str, list[Verdict]]] = defaultdict(lambda: {"matched": [], "overclaimed": []})
    answers: dict[int, int] = defaultdict(int)
    errors: dict[int, int] = defaultdict(int)
    if runs:
        rows = s.execute(select(
            ProbeResult.probe_run_id, ProbeResult.probe_id, ProbeResult.kind, ProbeResult.variant, ProbeResult.error,
            ProbeResult.unknown_tool, ProbeResult.malformed, ProbeResult.shadow, ProbeResult.hallucinated_argument,
            ProbeResult.outcome).where(ProbeResult.probe_run_id.in_([r.id for r in runs])))
        for run_id, probe_id, kind, variant, error, unknown, malformed, shadow, argument, outcome in rows:
            answers[run_id] += 1
            if error is not None:
                errors[run_id] += 1
                continue
            verdicts[run_id][variant].append(
                Verdict(probe_id, kind, bool(unknown), bool(malformed), shadow, argument, outcome))
    series: dict[tuple[str, str, str], list[ProbePoint]] = defaultdict(list)
    for run in runs:
        series[(run.model, run.mode, run.source)].append(
            _point(run, verdicts[run.id], answers[run.id], errors[run.id]))
    return [ProbeSeries(m, mode, source, tuple(points)) for (m, mode, source), points in sorted(series.items())]


def _point(run: ProbeRun, verdicts: dict[str, list[Verdict]], answers: int, errors: int) -> ProbePoint:
    rates = aggregate(verdicts["matched"])
    matched, overclaimed = hallucination(verdicts["matched"]), hallucination(verdicts["overclaimed"])
    delta = overclaimed["rate"] - matched["rate"] if matched["total"] and overclaimed["total"] else None
    started = utc(run.started_at)
    assert started is not None
    return ProbePoint(
        run_id=run.id, started_at=started, prompt_version=run.prompt_version, catalog_version=run.catalog_version,
        suite_version=run.suite_version, status=run.status, answers=answers, errors=errors,
        rates={name: rates[name] for name in GATED},
        decoy_outcomes={label: rates["decoy_outcomes"][label] for label in DECOY_OUTCOMES},
        overclaim={"matched": matched, "overclaimed": overclaimed}, overclaim_delta=delta,
    )


def probe_models(s: Session) -> list[str]:
    """Every model the probe suite has measured: the options of the page's model filter."""
    return sorted(s.scalars(select(distinct(ProbeRun.model))))
