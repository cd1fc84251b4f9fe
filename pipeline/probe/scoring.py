"""Pure scoring of probe replies: exact names, raw arguments, no fuzzy matching, no repair.

A reply is the model's raw output as a dict::

    {"content": str | None, "tool_calls": [{"name": str, "arguments": str}, ...]}

where ``arguments`` is the raw JSON text the model produced.

Per-probe flags (:func:`score`):

* ``unknown_tool``: some called name is not, character for character, a tool name in the
  probe's catalog.
* ``malformed``: some call's ``arguments`` is not a JSON object (invalid JSON or another
  JSON type). Such arguments are never repaired and never inspected further.
* ``shadow`` (shadow probes only): some call names one of ``expect["lookalikes"]``, with or
  without a call to the right tool as well.
* ``hallucinated_argument`` (optional_arg and miss_param probes only):
  - optional_arg: a well-formed call to ``expect["tool"]`` gives a parameter listed in
    ``optional_not_given`` a value that is not null, not equal to ``defaults[name]`` and
    not equal to any of ``accepted[name]`` (JSON equality: same type, bool is not a
    number, 1 == 1.0). Omission and null are never fabrication.
  - miss_param: the reply calls any tool the reference only calls after the user supplied
    the missing value (``expect["tools"]``): the value had to be made up.
* ``outcome`` (decoy, miss_func and miss_param probes):
  - ``invented``: some call names a tool not in the catalog;
  - ``fabricated`` (miss_param only): otherwise, some call names one of ``expect["tools"]``;
  - ``misused``: otherwise, some call is made (to a listed tool);
  - ``asked``: no call, and the content contains "?" or the full-width "？";
  - ``refused``: no call otherwise (including empty or missing content).

Denominators (:func:`aggregate`): ``unknown_tool`` and ``malformed`` over all probes;
``shadow_call`` over shadow probes; ``hallucinated_argument`` over optional_arg plus
miss_param probes; decoy outcomes over decoy plus miss_func probes; miss_param outcomes
over miss_param probes. Every rate carries count, total and a 95% Wilson interval.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.probe.model import Probe

__all__ = [
    "DECOY_OUTCOMES",
    "MISS_PARAM_OUTCOMES",
    "Verdict",
    "aggregate",
    "rate",
    "score",
    "wilson_interval",
]

DECOY_OUTCOMES: tuple[str, ...] = ("refused", "asked", "invented", "misused")
MISS_PARAM_OUTCOMES: tuple[str, ...] = ("refused", "asked", "invented", "fabricated", "misused")


@dataclass(frozen=True)
class Verdict:
    """Classification of one reply to one probe; ``None`` means "not measured by this kind"."""

    probe_id: str
    kind: str
    unknown_tool: bool
    malformed: bool
    shadow: bool | None
    hallucinated_argument: bool | None
    outcome: str | None


def _parse_arguments(raw: str) -> dict[str, Any] | None:
    """The call's arguments as a dict, or None when the raw text is not a JSON object."""
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values without Python's bool/int mixing (True != 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _fabricated_optional(expect: Mapping[str, Any], arguments: Mapping[str, Any]) -> bool:
    for name in expect["optional_not_given"]:
        if name not in arguments or arguments[name] is None:
            continue
        allowed = [expect["defaults"].get(name), *expect.get("accepted", {}).get(name, [])]
        if not any(v is not None and _json_equal(arguments[name], v) for v in allowed):
            return True
    return False


def _asks(content: str | None) -> bool:
    return content is not None and ("?" in content or "？" in content)


def score(probe: Probe, reply: Mapping[str, Any]) -> Verdict:
    """Classify one raw reply against one probe (rules in the module docstring)."""
    calls = list(reply.get("tool_calls") or [])
    listed = set(probe.tool_names())
    names = [call["name"] for call in calls]
    parsed = [_parse_arguments(call["arguments"]) for call in calls]
    unknown = any(name not in listed for name in names)

    shadow = None
    if probe.kind == "shadow":
        shadow = any(name in probe.expect["lookalikes"] for name in names)

    hallucinated = None
    if probe.kind == "optional_arg":
        hallucinated = any(
            name == probe.expect["tool"] and args is not None and _fabricated_optional(probe.expect, args)
            for name, args in zip(names, parsed)
        )
    elif probe.kind == "miss_param":
        hallucinated = any(name in probe.expect["tools"] for name in names)

    outcome = None
    if probe.kind in ("decoy", "miss_func", "miss_param"):
        if unknown:
            outcome = "invented"
        elif hallucinated:
            outcome = "fabricated"
        elif calls:
            outcome = "misused"
        elif _asks(reply.get("content")):
            outcome = "asked"
        else:
            outcome = "refused"

    return Verdict(
        probe_id=probe.id,
        kind=probe.kind,
        unknown_tool=unknown,
        malformed=any(args is None for args in parsed),
        shadow=shadow,
        hallucinated_argument=hallucinated,
        outcome=outcome,
    )


def wilson_interval(count: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for count/total; (0.0, 1.0) when total is 0."""
    if total == 0:
        return (0.0, 1.0)
    if not 0 <= count <= total:
        raise ValueError(f"count {count} outside 0..{total}")
    p = count / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(count: int, total: int) -> dict[str, Any]:
    """{"rate", "count", "total", "ci95": [lo, hi]}; rate is 0.0 when total is 0."""
    low, high = wilson_interval(count, total)
    return {"rate": count / total if total else 0.0, "count": count, "total": total, "ci95": [low, high]}


def _outcomes(verdicts: list[Verdict], labels: tuple[str, ...]) -> dict[str, Any]:
    total = len(verdicts)
    return {
        "total": total,
        **{label: rate(sum(v.outcome == label for v in verdicts), total) for label in labels},
    }


def aggregate(verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """Rates over a run's verdicts, each with count, denominator and 95% Wilson interval."""
    verdicts = list(verdicts)

    def flagged(field: str, kinds: tuple[str, ...] | None = None) -> dict[str, Any]:
        chosen = [v for v in verdicts if kinds is None or v.kind in kinds]
        return rate(sum(bool(getattr(v, field)) for v in chosen), len(chosen))

    return {
        "unknown_tool": flagged("unknown_tool"),
        "malformed": flagged("malformed"),
        "shadow_call": flagged("shadow", ("shadow",)),
        "hallucinated_argument": flagged("hallucinated_argument", ("optional_arg", "miss_param")),
        "decoy_outcomes": _outcomes([v for v in verdicts if v.kind in ("decoy", "miss_func")], DECOY_OUTCOMES),
        "miss_param_outcomes": _outcomes([v for v in verdicts if v.kind == "miss_param"], MISS_PARAM_OUTCOMES),
    }
