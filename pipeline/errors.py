"""The pipeline's own exception tree (capabilities.errors, pipeline.model and pipeline.guard have theirs).

    PipelineError
    └── StopRun   a stop rule fired; carries the verdict the run ends with and the reason
"""

from __future__ import annotations


class PipelineError(Exception):
    """Base of errors raised by the run loop itself."""


class StopRun(PipelineError):
    """Stop the run now with ``verdict`` (budget, loop, unavailable, auth_failed, error, interrupted)."""

    def __init__(self, verdict: str, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.verdict, self.reason, self.detail = verdict, reason, detail
