"""A one-line progress bar on stderr: count/total, rate and ETA, redrawn at most a few times a second.

When the stream is not a terminal (CI logs) it writes a plain line at most every ``log_interval``
seconds instead of redrawing in place, so logs get a few lines rather than one endless one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress"]


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class Progress:
    """Callable as ``progress(done, total)``; ``close()`` ends the line."""

    def __init__(self, label: str, stream: TextIO = sys.stderr, interval: float = 0.25, log_interval: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tty = stream.isatty()
        self.label, self.stream, self.clock = label, stream, clock
        self.interval = interval if self.tty else log_interval
        self.started = clock()
        self.drawn_at: float | None = None
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if self.drawn_at is not None and now - self.drawn_at < self.interval and done < total:
            return
        self.drawn_at = now
        elapsed = max(now - self.started, 1e-9)
        speed = done / elapsed
        eta = _duration((total - done) / speed) if speed > 0 else "?"
        width = 24
        filled = width * done // total if total else width
        line = f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {speed:.1f}/s ETA {eta} "
        self.stream.write(f"\r{line}" if self.tty else f"{line.rstrip()}\n")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn and self.tty:
            self.stream.write("\n")
            self.stream.flush()
