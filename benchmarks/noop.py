"""No-op capabilities with the real catalog's names and argument models, for measuring the machinery alone.

Each returns the id its successor needs (``topic_id``, ``draft_id`` ...), so the scripted model's
``happy_path`` walks every step exactly as it does against the real catalog.
"""

from __future__ import annotations

from typing import Any

from capabilities import CATALOG
from capabilities.base import Capability, CapabilityContext, Prepared, StrictArgs, ToolResult

PAYLOADS: dict[str, dict[str, Any]] = {
    "pick_topic": {"topic_id": 1, "title": "Benchmarks"},
    "write_draft": {"draft_id": 1, "version_id": 1},
    "humanize": {"draft_id": 1, "version_id": 2, "score": 80},
    "fact_check": {"version_id": 2, "status": "supported", "facts": 0, "unsupported": 0, "revisions": 0},
    "publish": {"publication_id": 1, "url": "http://127.0.0.1/benchmarks"},
    "register": {"number": "CT-20260101-001"},
    "report": {"runs": 1},
}


class NoOp(Capability[StrictArgs, Prepared[StrictArgs]]):
    """A capability that validates nothing beyond its schema and returns a fixed payload."""

    def __init__(self, name: str, args: type[StrictArgs], payload: dict[str, Any]) -> None:
        self.name, self.description, self.Args, self.payload = name, f"no-op {name}", args, payload  # type: ignore[misc]

    def prepare(self, ctx: CapabilityContext, args: StrictArgs) -> Prepared[StrictArgs]:
        return Prepared(args=args)

    def execute(self, ctx: CapabilityContext, prepared: Prepared[StrictArgs]) -> ToolResult:
        return ToolResult(self.payload, f"{self.name} done")


def noop_catalog() -> dict[str, Capability]:
    """The pipeline's tools, same names and Args as capabilities.CATALOG, doing nothing."""
    return {name: NoOp(name, cap.Args, PAYLOADS[name]) for name, cap in CATALOG.items()}
