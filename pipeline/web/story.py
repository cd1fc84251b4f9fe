"""One run told turn by turn: what the model wrote (its claims marked backed or unbacked), each tool call it
made with its outcome, attempts and waits, the nudges it got, and the verdict with its reason.

Built on the ledger's ``RunDetail`` (pipeline.ledger.detail) plus what only the dashboard shows: the model's
text per turn, the pipeline, versions and topic, the publications, the ledger_diff line. A fixed number of
queries, each by run id. The model's text is data: it is split into
plain-text segments here and escaped by the template, never parsed as Markdown or HTML. A claim is marked at
the first place its recorded span occurs in its turn's text; every claim of a turn is also listed beside it,
so a span the text no longer shows verbatim is never lost.

Retry waits are attached to calls by the call they name: the gateway's ``tool_retry`` events carry the call's
turn and id. Events written before they did are joined by order (the gateway writes a call's events before its
row, so each call of tool X takes the next ``attempts - 1`` unnamed retry events of X).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pipeline.ledger import queries
from pipeline.ledger.detail import CallRow, FactCheckRow, SourceRow, run_detail
from pipeline.ledger.models import AgentTurn, Run, ToolCall, Topic
from pipeline.outcome import EventKind
from pipeline.web.data import Link, run_links

__all__ = ["CallView", "ClaimView", "RunStory", "Segment", "TurnView", "pretty", "run_story"]


@dataclass(frozen=True)
class ClaimView:
    kind: str  # claim | ungrounded | prose_call
    capability: str | None
    span: str
    backed: bool


@dataclass(frozen=True)
class Segment:
    """A piece of the model's text; ``claim`` is set where the piece is a claim's span."""

    text: str
    claim: ClaimView | None = None


@dataclass(frozen=True)
class CallView(CallRow):
    """A call as the ledger has it (``CallRow``) and the waits before its retries."""

    waits: tuple[float, ...] = ()


@dataclass(frozen=True)
class NudgeView:
    kind: str
    detail: str | None


@dataclass(frozen=True)
class TurnView:
    number: int
    recorded: bool  # False for runs from before the ledger kept the model's text
    tokens: int
    segments: tuple[Segment, ...]
    claims: tuple[ClaimView, ...]
    calls: tuple[CallView, ...]
    nudges: tuple[NudgeView, ...]


@dataclass(frozen=True)
class RunStory:
    id: int
    pipeline: str
    trigger: str
    model: str | None
    tool_call_mode: str | None
    prompt_version: str | None
    catalog_version: str | None
    started_at: datetime
    finished_at: datetime | None
    status: str
    verdict: str | None
    stop_reason: str | None
    error: str | None
    tokens: int
    topic: str | None
    diff: queries.RunDiff
    trace_id: str | None
    lateness: dict[str, float]  # a scheduled run: seconds late at each stage (pipeline.ledger.detail.tick_lateness)
    diff_line: str
    turns: tuple[TurnView, ...]
    events: tuple[dict[str, Any], ...]  # LLM retries, escalations, stops: {"kind", ...detail}
    links: tuple[Link, ...]
    sources: tuple[SourceRow, ...] = ()  # the topic's sources as this run read them
    fact_checks: tuple[FactCheckRow, ...] = ()  # each check with each fact, its verdict and backing passage
    pruned_at: datetime | None = None  # factline db prune cleared its bulky texts: the page says "text pruned"

    @property
    def seconds(self) -> float | None:
        return (self.finished_at - self.started_at).total_seconds() if self.finished_at else None


def run_story(s: Session, run_id: int) -> RunStory | None:
    """The run's story, or None when there is no such run."""
    detail = run_detail(s, run_id)
    if detail is None:
        return None
    pipeline, prompt_version, catalog_version, topic = s.execute(
        select(Run.pipeline, Run.prompt_version, Run.catalog_version, Topic.title)
        .outerjoin(Topic, Topic.id == Run.topic_id).where(Run.id == run_id)).one()
    texts = {t.turn: t for t in s.scalars(select(AgentTurn).where(AgentTurn.run_id == run_id))}
    events = [{"kind": e.kind, **e.detail} for e in detail.events]
    diff = queries.diffs(s, [run_id])[0]

    ids = dict(s.execute(select(ToolCall.seq, ToolCall.call_id).where(ToolCall.run_id == run_id)).tuples().all())
    waits = _waits(detail.tool_calls, ids, [e for e in events if e["kind"] == EventKind.tool_retry])
    by_turn: dict[str, dict[int, list[Any]]] = {"calls": defaultdict(list), "claims": defaultdict(list),
                                                "nudges": defaultdict(list)}
    for c in detail.tool_calls:
        by_turn["calls"][c.turn].append(_call(c, waits.get(c.seq, ())))
    for c in detail.claims:
        by_turn["claims"][c.turn].append(ClaimView(c.kind, c.capability, c.span, c.backed))
    for n in detail.nudges:
        by_turn["nudges"][n.turn].append(NudgeView(n.kind, n.detail))
    numbers = sorted(set(texts) | {t for rows in by_turn.values() for t in rows})
    turns = tuple(
        TurnView(
            number=n, recorded=n in texts, tokens=texts[n].tokens if n in texts else 0,
            segments=segments(texts[n].text if n in texts else "", by_turn["claims"][n]),
            claims=tuple(by_turn["claims"][n]), calls=tuple(by_turn["calls"][n]), nudges=tuple(by_turn["nudges"][n]))
        for n in numbers
    )
    return RunStory(
        id=run_id, pipeline=pipeline, trigger=detail.trigger, model=detail.model, tool_call_mode=detail.tool_call_mode,
        prompt_version=prompt_version, catalog_version=catalog_version, started_at=detail.started_at,
        finished_at=detail.finished_at, status=detail.status, verdict=detail.verdict, stop_reason=detail.stop_reason,
        error=detail.error, tokens=detail.tokens, topic=topic, diff=diff, trace_id=detail.trace_id,
        lateness=detail.lateness(),
        diff_line=diff.line(), turns=turns,
        events=tuple(e for e in events if e["kind"] != EventKind.tool_retry),
        links=tuple(run_links(s, [run_id]).get(run_id, [])), sources=detail.sources, fact_checks=detail.fact_checks,
        pruned_at=detail.pruned_at,
    )


def segments(text: str, claims: list[ClaimView]) -> tuple[Segment, ...]:
    """``text`` cut at the first occurrence of each claim's span (overlapping spans: the earlier one wins)."""
    marks = sorted((at, at + len(c.span), c) for c in claims if c.span and (at := text.find(c.span)) >= 0)
    pieces: list[Segment] = []
    pos = 0
    for start, end, claim in marks:
        if start < pos:
            continue
        if start > pos:
            pieces.append(Segment(text[pos:start]))
        pieces.append(Segment(text[start:end], claim))
        pos = end
    if pos < len(text):
        pieces.append(Segment(text[pos:]))
    return tuple(pieces)


def _waits(calls: tuple[CallRow, ...], ids: dict[int, str | None],
           retries: list[dict[str, Any]]) -> dict[int, tuple[float, ...]]:
    """Each call's retry waits, by its seq: the events naming its (turn, call id), or else the next unnamed ones
    of its tool (events from before they named their call)."""
    named: dict[tuple[int, str], list[float]] = defaultdict(list)
    pending: dict[str, list[float]] = defaultdict(list)
    for event in retries:
        wait = float(event.get("wait", 0.0))
        if event.get("call_id") is not None:
            named[(event.get("turn"), event["call_id"])].append(wait)
        else:
            pending[event.get("tool", "")].append(wait)
    waits = {}
    for c in calls:
        if (key := (c.turn, ids.get(c.seq))) in named:
            waits[c.seq] = tuple(named.pop(key))
        elif c.attempts > 1 and pending[c.name]:
            taken, pending[c.name] = pending[c.name][:c.attempts - 1], pending[c.name][c.attempts - 1:]
            waits[c.seq] = tuple(taken)
    return waits


def pretty(value: str | dict[str, Any] | None) -> str:
    """Arguments or a result for reading: JSON indented, anything else (text that did not parse) as it is."""
    if value is None:
        return ""
    try:
        data = json.loads(value) if isinstance(value, str) else value
        return json.dumps(data, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _call(c: CallRow, waits: tuple[float, ...]) -> CallView:
    return CallView(**vars(c), waits=waits)
