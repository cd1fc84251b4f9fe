"""The figures of one probe run, computed from its stored answers, and the CI gate on them.

Rates come from the ``matched`` answers (scoring.aggregate). The overclaim delta compares the
hallucination share of decoy and miss_func probes, (invented + misused) / answered, under the
overclaimed prompt against the matched one: positive means the prompt's claim made it worse.
Answers the endpoint refused (``error``) count in ``errors`` and in no rate.
``prose_call`` (not gated) is the share of matched answers with no structured tool call whose text
holds a tool call written as JSON or XML: the "tool call degraded to prose" failure; the scoring
still counts such a reply as text (refused/asked), since raw output is never repaired.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from config.deployment import Probe
from pipeline.guard.prose_calls import written_calls
from pipeline.probe.scoring import DECOY_OUTCOMES, Verdict, aggregate, rate
from pipeline.probe.storage import RunKey, StoredAnswer

__all__ = ["GATED", "gate_failures", "hallucination", "summarize"]

GATED: tuple[str, ...] = ("unknown_tool", "shadow_call", "hallucinated_argument")


def prose_call(answers: Iterable[StoredAnswer]) -> dict[str, Any]:
    """Matched answers whose text carries a written tool call instead of a structured one."""
    scored = [a for a in answers if a.verdict is not None and a.variant == "matched"]
    written = sum(not (a.reply or {}).get("tool_calls") and bool(written_calls((a.reply or {}).get("content") or ""))
                  for a in scored)
    return rate(written, len(scored))


def hallucination(verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """(invented + misused) over decoy and miss_func verdicts, with its Wilson interval."""
    decoys = [v for v in verdicts if v.kind in ("decoy", "miss_func")]
    return rate(sum(v.outcome in ("invented", "misused") for v in decoys), len(decoys))


def summarize(key: RunKey, run_id: int, status: str, probes: int, answers: list[StoredAnswer]) -> dict[str, Any]:
    """The one JSON object ``factline probe --json`` prints."""
    by_variant: dict[str, list[Verdict]] = {"matched": [], "overclaimed": []}
    for answer in answers:
        if answer.verdict is not None:
            by_variant[answer.variant].append(answer.verdict)
    rates = aggregate(by_variant["matched"])
    matched, overclaimed = hallucination(by_variant["matched"]), hallucination(by_variant["overclaimed"])
    delta = overclaimed["rate"] - matched["rate"] if matched["total"] and overclaimed["total"] else None
    return {
        "model": key.model,
        "mode": key.mode,
        "source": key.source,
        "run_id": run_id,
        "status": status,
        "prompt_version": key.prompt_version,
        "catalog_version": key.catalog_version,
        "suite_version": key.suite_version,
        "probes": probes,
        "answers": len(answers),
        "errors": sum(a.error is not None for a in answers),
        "tokens": sum(a.tokens for a in answers),
        "rates": {**{name: rates[name] for name in (*GATED, "malformed")}, "prose_call": prose_call(answers)},
        "decoy_outcomes": {label: rates["decoy_outcomes"][label] for label in DECOY_OUTCOMES},
        "overclaim": {"matched": matched, "overclaimed": overclaimed},
        "overclaim_delta": delta,
    }


def gate_failures(summary: dict[str, Any], probe: Probe) -> list[str]:
    """One line per gated rate above its threshold (PROBE_GATE_<RATE>); empty when the gate passes."""
    failures = []
    for name in GATED:
        threshold = getattr(probe, f"gate_{name}")
        figure = summary["rates"][name]
        if figure["total"] and figure["rate"] > threshold:
            failures.append(f"{name} {figure['rate']:.3f} ({figure['count']}/{figure['total']}) > {threshold}")
    return failures
