"""The executor seam: where the daemon's claimed ticks run (httpx's BaseTransport is the model).

    Executor                one small interface; each implementation a class of its own
      tick(pipeline, t)     claim the tick (pipeline, fire time) and run it -> Ticked
      tick_many(names, t)   the same for several pipelines' ticks of one moment (groups_ticks: the daemon
                            gives it one job per distinct schedule instead of one per pipeline)
      claim_ahead(names, t) claim those ticks claim_ahead_seconds before t (when that is not None), so that
                            tick_many at t only hands them on
      missed_ticks()        the ticks the daemon runs once at start (the inline catch-up)
      reconcile()           every reconcile_seconds, when that is not None: the runs finished elsewhere
      close()               stop what it started (also as a context manager)
    InlineExecutor          (inline.py)  EXECUTOR=inline: the run happens in the daemon's process
    CeleryExecutor          (celery.py)  EXECUTOR=celery: the tick is claimed and sent to the workers

What the daemon does around a tick (metrics, alerts, the job count a stop waits for) is the daemon's;
what happens to the tick is the executor's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import ClassVar

from sqlalchemy.orm import Session, sessionmaker

from capabilities.targets import LocalTarget
from pipeline.tracing import Tracing


@dataclass(frozen=True)
class Ran:
    """The run of the tick happened here and ended."""

    run_id: int
    seconds: float


@dataclass(frozen=True)
class Queued:
    """The tick was claimed and handed on (its task sent, or left for the reconciler to send)."""

    run_id: int


@dataclass(frozen=True)
class ClaimedElsewhere:
    """Another replica (or an earlier life of this one) has the tick."""

    reason: str


@dataclass(frozen=True)
class Crashed:
    """The ledger failed as the run opened or closed (a run's own crash is its verdict, not this)."""

    error: str


Ticked = Ran | Queued | ClaimedElsewhere | Crashed


class Executor(ABC):
    """Where the ticks of a deployment's pipelines run. The ledger's sessions are the executor's: the
    daemon reads its runs through them."""

    name: ClassVar[str]
    groups_ticks: ClassVar[bool] = False
    """Whether the daemon hands it the ticks of pipelines sharing a schedule together (``tick_many``)."""
    sessions: sessionmaker[Session]
    claim_ahead_seconds: ClassVar[float | None] = None
    """How long before a moment the daemon calls ``claim_ahead`` with its ticks (groups_ticks); None: never."""
    reconcile_seconds: float | None = None
    """How often ``reconcile`` is due (the first pass at once); None: never."""
    tracing: Tracing | None = None
    """The tracing its runs write to, when they run in this process (the daemon's /metrics counts its spans)."""
    sites: tuple[LocalTarget, ...] = ()
    """The local sites this process serves."""

    @abstractmethod
    def tick(self, pipeline: str, scheduled_for: datetime) -> Ticked:
        """Claim the tick (``scheduled_for`` in UTC, whole seconds) and run it or hand it on."""

    def tick_many(self, pipelines: Sequence[str], scheduled_for: datetime) -> dict[str, Ticked]:
        """The ticks of ``pipelines`` at one moment, by pipeline; one after the other unless said otherwise."""
        return {pipeline: self.tick(pipeline, scheduled_for) for pipeline in pipelines}

    def claim_ahead(self, pipelines: Sequence[str], scheduled_for: datetime) -> None:
        """Claim the ticks of ``pipelines`` at ``scheduled_for``, a moment still to come (``claim_ahead_seconds``)."""

    def missed_ticks(self) -> dict[str, list[datetime]]:
        """The ticks, by pipeline, the daemon runs one after the other at start; none unless said otherwise."""
        return {}

    def reconcile(self) -> list[Ran]:
        """The periodic pass (every ``reconcile_seconds``): the runs that ended elsewhere since the last one."""
        return []

    def close(self) -> None:
        """Stop what the executor started."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
