"""The runs row: what a run records it was given (RunStamp), written once when it opens or is taken."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RunStamp:
    """The model, the tool-call mode and the versions of the prompt and the catalog a run is given.

    Built once per runtime (pipeline.runtime.Runtime.stamp) from its endpoint and catalog; written into the
    runs row by whoever opens the run (the runner) or takes it (a Celery worker)."""

    model: str
    tool_call_mode: str
    prompt_version: str
    catalog_version: str

    def columns(self) -> dict[str, str]:
        """The runs row's columns that hold the stamp, by name."""
        return asdict(self)
