"""Progress bars: redrawn in place within the terminal's width on a terminal, sparse plain lines elsewhere."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator

import pytest

from pipeline.progress import Progress

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[io.TextIOWrapper, int]]:
    """A real pseudo-terminal 50 columns wide: the stream the bar writes to, and the fd to read it from."""
    monkeypatch.setenv("COLUMNS", "50")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    reader, writer = os.openpty()
    stream = os.fdopen(writer, "w")
    yield stream, reader
    stream.close()
    os.close(reader)


def _read_all(fd: int) -> str:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()


def test_on_a_terminal_each_redraw_clears_the_line_and_fits_the_width(terminal) -> None:
    """Every redraw starts by clearing the line (nothing stale stays) and no drawn line is wider than 50."""
    stream, reader = terminal
    with Progress("probe all (a label that is rather long)", total=1000, stream=stream) as bar:
        for done in range(0, 1001, 50):
            bar(done)
            bar.bar.refresh()
    out = _read_all(reader)
    frames = [ANSI.sub("", frame) for frame in out.split("\r") if frame.strip(" \n\x1b[?25lh2K")]
    assert out.count("\r\x1b[2K") >= 20
    assert frames and all(len(line) <= 50 for frame in frames for line in frame.splitlines())
    assert "1000/1000" in frames[-1].replace("\n", "")


def test_no_color_leaves_only_cursor_control_on_a_terminal(terminal, monkeypatch: pytest.MonkeyPatch) -> None:
    """With NO_COLOR set the bar is still redrawn in place, but no color codes are written."""
    monkeypatch.setenv("NO_COLOR", "1")
    stream, reader = terminal
    with Progress("probe", total=3, stream=stream) as bar:
        bar(3)
    out = _read_all(reader)
    assert "\x1b[2K" in out and not re.search(r"\x1b\[[0-9;]*m", out)


def test_off_a_terminal_it_writes_sparse_plain_lines_and_the_last_state() -> None:
    """Into a log: no carriage returns or escape codes; one line per log_interval, plus the final one."""
    now = [0.0]
    stream = io.StringIO()
    bar = Progress("probe", total=30, stream=stream, log_interval=10.0, clock=lambda: now[0])
    for done in range(1, 31):
        now[0] += 1.0
        bar(done)
    bar.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert [line.split()[1] for line in text.splitlines()] == ["10/30", "20/30", "30/30", "30/30"]


def test_bytes_are_shown_with_units_and_tokens_without_a_total() -> None:
    """A download shows bytes done/total in MB; a generation shows tokens so far with no total."""
    stream = io.StringIO()
    with Progress("weights part 1/6", unit="bytes", stream=stream) as bar:
        bar(45_000_000, 89_128_960)
    with Progress("humanize", unit="tokens", stream=stream) as bar:
        bar(123)
    lines = stream.getvalue().splitlines()
    assert "45.0/89.1 MB" in lines[0] and "123 tokens" in lines[1]
