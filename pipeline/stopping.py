"""Long-running commands (`factline daemon`, `factline web`): stop on SIGTERM or SIGINT, always.

Python runs a signal handler in the main thread, between two bytecodes. The kernel may deliver a signal
sent to the process to any of its threads; when it picks another one, the main thread learns of it only
when it next runs Python code. A main thread blocked in an untimed ``Event.wait()`` never does: the
SIGTERM is acted on only when a second signal arrives. Seen at load 17 on 2 cores: a daemon replica
went on ticking for 30 s after SIGTERM and stopped at once on the next one. So the main thread waits
in slices of WAKE_SECONDS, each ending in Python code that runs the pending handler.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

WAKE_SECONDS = 0.5


def on_stop_signals(stop: threading.Event, before: Callable[[signal.Signals], None] = lambda _: None) -> None:
    """SIGTERM and SIGINT set ``stop`` (after ``before(signal)``, e.g. a log line)."""
    def handle(signum: int, _frame: object) -> None:
        before(signal.Signals(signum))
        stop.set()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def wait_for_stop(stop: threading.Event) -> None:
    """Block the main thread until ``stop`` is set, waking up to run signal handlers whichever thread got the signal."""
    while not stop.wait(WAKE_SECONDS):
        pass
