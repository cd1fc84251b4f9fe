"""Progress on stderr for anything that takes more than a few seconds, drawn by rich (the project's one
progress library).

On a terminal: one live line per bar, redrawn in place (rich clears the line before each redraw, so no
stale characters are left), fitted to the terminal's width, colored unless NO_COLOR is set.
Not on a terminal (a log file, CI, a pipe): nothing is redrawn and no control codes are written; a plain
line every ``log_interval`` seconds, rendered from the same columns, and the final state at the end.

    with Progress("probe all", total=250) as bar:          bar(done)  or  bar(done, total)
    with Progress("weights part 1/6", unit="bytes") as bar: bar(received, size)
    with Progress("humanize", unit="tokens") as bar:        bar(tokens_so_far)   (no total: count and rate)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.progress import Progress as RichProgress
from rich.table import Column
from rich.text import Text

__all__ = ["Progress"]

Unit = Literal["items", "bytes", "tokens"]


class _Rate(ProgressColumn):
    """Completed units per second, e.g. "2.4/s" or "31.0 tokens/s" (rich's own speed columns say it/s or bytes)."""

    def __init__(self, unit: str = "", table_column: Column | None = None) -> None:
        super().__init__(table_column)
        self.unit = f" {unit}" if unit else ""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:.1f}{self.unit}/s" if task.speed is not None else f"?{self.unit}/s")


FIGURES_WIDTH = {"items": 38, "bytes": 40, "tokens": 34}  # what the figures after the bar take, about


def _columns(unit: Unit, label: str, width: int | None) -> list[ProgressColumn]:
    """The columns of one bar, none of which wraps. On a terminal (``width`` given) the figures keep their
    room, the label is cut (with an ellipsis) when it must be, and the bar takes what is left, up to 40.
    In a log (``width`` None) there is no bar: it is noise there."""
    def cell() -> Column:
        return Column(no_wrap=True, overflow="ellipsis")

    head: list[ProgressColumn] = []
    if width is None:
        head.append(TextColumn("{task.description}", table_column=cell()))
    else:
        room = width - FIGURES_WIDTH[unit] - 2
        label_width = max(8, min(len(label), room - 6))
        head.append(TextColumn("{task.description}", table_column=Column(
            no_wrap=True, overflow="ellipsis", max_width=label_width)))
        if (bar_width := min(40, room - label_width)) >= 4:
            head.append(BarColumn(bar_width=bar_width, table_column=cell()))
    if unit == "bytes":
        return [*head, DownloadColumn(table_column=cell()), TransferSpeedColumn(table_column=cell()),
                TextColumn("ETA", table_column=cell()), TimeRemainingColumn(table_column=cell())]
    if unit == "tokens":
        return [*head, TextColumn("{task.completed:.0f} tokens", table_column=cell()),
                _Rate("tokens", table_column=cell()), TimeElapsedColumn(table_column=cell())]
    return [*head, MofNCompleteColumn(table_column=cell()), _Rate(table_column=cell()),
            TimeElapsedColumn(table_column=cell()), TextColumn("ETA", table_column=cell()),
            TimeRemainingColumn(table_column=cell())]


class Progress:
    """A bar: call it with (done) or (done, total); ``close()`` (or the with block's end) finishes it."""

    def __init__(self, label: str, total: int | None = None, *, unit: Unit = "items", stream: TextIO | None = None,
                 log_interval: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = Console(file=stream, stderr=stream is None)
        self.live = self.console.is_terminal and not self.console.is_dumb_terminal
        self.bar = RichProgress(*_columns(unit, label, self.console.width if self.live else None), console=self.console, get_time=clock, auto_refresh=self.live,
                                redirect_stdout=False, redirect_stderr=False)
        self.task = self.bar.add_task(label, total=total)
        self.log_interval, self.clock = log_interval, clock
        self.logged_at = clock()
        self.closed = False
        if self.live:
            self.bar.start()

    def __call__(self, done: float, total: float | None = None) -> None:
        self.bar.update(self.task, completed=done, **({"total": total} if total is not None else {}))
        if not self.live and self.clock() - self.logged_at >= self.log_interval:
            self._line()

    def _line(self) -> None:
        self.logged_at = self.clock()
        self.console.print(self.bar.make_tasks_table(self.bar.tasks), soft_wrap=True)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.live:
            self.bar.stop()
        else:
            self._line()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
