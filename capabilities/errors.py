"""The capability exception tree. Every library error is converted into one of these where it enters.

    CapabilityError
    ├── ToolRejected          not executed: the arguments are not business-valid; tell the model, it may correct
    ├── ToolFailed            executed and failed for good; tell the model, do not retry
    │   └── ArgumentsRejected the platform refused the arguments (400/422); one correction is allowed
    ├── StopPipeline          nothing this run can still do makes the article publishable (its sources all
    │                         failed, its facts are not in them): the run stops with ``verdict`` and ``reason``
    ├── Retryable             transient (timeout, connection, 429, 5xx but 501/505: httperrors.is_retryable_status);
    │                         the gateway backs off and retries
    └── AuthFailed            401/403: stop the run at once, no retry (exit 6)
"""

from __future__ import annotations


class CapabilityError(Exception):
    """Base of every error a capability raises on purpose."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class ToolRejected(CapabilityError):
    """Business validation failed before execution.

    ``hallucinated_argument`` marks identity/scope failures (an id from another run, an unknown
    publication): they are recorded as hallucinated-argument signals, not as generic errors.
    """

    def __init__(self, detail: str, *, hallucinated_argument: bool = False) -> None:
        super().__init__(detail)
        self.hallucinated_argument = hallucinated_argument


class ToolFailed(CapabilityError):
    """The capability ran and failed in a way a retry will not change."""


class StopPipeline(CapabilityError):
    """Stop the run: ``verdict`` (a pipeline.outcome.Verdict value), ``reason`` a short code, the detail one line."""

    def __init__(self, detail: str, *, verdict: str, reason: str) -> None:
        super().__init__(detail)
        self.verdict, self.reason = verdict, reason


class ArgumentsRejected(ToolFailed):
    """The platform answered 400/422 to these arguments."""


class Retryable(CapabilityError):
    """A transient failure; ``retry_after`` is the server's Retry-After in seconds, if it sent one."""

    def __init__(self, detail: str, *, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class AuthFailed(CapabilityError):
    """Authentication or permission refused (401/403)."""
