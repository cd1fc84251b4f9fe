"""Text logs: one key=value line per event, run_id once, color only on a terminal without NO_COLOR."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest
from loguru import logger

from config.deployment import Logs
from config.secrets import Redactor
from pipeline import logs

NO_SECRETS = Redactor(())


@pytest.fixture
def terminal() -> Iterator[tuple[io.TextIOWrapper, int]]:
    """A real pseudo-terminal: the stream side (isatty() is true) and the fd its output is read from."""
    reader, writer = os.openpty()
    stream = os.fdopen(writer, "w", buffering=1)
    yield stream, reader
    stream.close()
    os.close(reader)
    logger.remove()


def test_fields_are_key_value_with_run_id_first_and_once() -> None:
    """A bound run_id leads the fields once; spaces, quotes and newlines are quoted, lists comma-joined."""
    out = io.StringIO()
    logs.configure(Logs(format="text"), NO_SECRETS, stream=out)
    with logger.contextualize(run_id=7):
        logger.bind(tool="publish").info("tool.finished", detail='said "done"\nnext', ids=[1, 2], outcome="ok")
    logger.remove()
    [line] = out.getvalue().splitlines()
    assert line.split(" ", 2)[2].strip() == (
        'tool.finished run_id=7 tool=publish detail="said \\"done\\"\\nnext" ids=1,2 outcome=ok')
    assert line.count("run_id") == 1 and "{" not in line


def test_an_event_outside_a_run_has_no_run_id() -> None:
    """Without a bound run there is no run_id field (no placeholder dash)."""
    out = io.StringIO()
    logs.configure(Logs(format="text"), NO_SECRETS, stream=out)
    logger.info("daemon.started", schedule="0 6 * * *")
    logger.remove()
    assert out.getvalue().rstrip().endswith('daemon.started schedule="0 6 * * *"')


def test_a_terminal_gets_color_unless_no_color_is_set(terminal: tuple[io.TextIOWrapper, int]) -> None:
    """On a real terminal the level is colored; with NO_COLOR=1 the same line has no escape codes."""
    stream, reader = terminal
    logs.configure(Logs(format="text"), NO_SECRETS, stream=stream, environ={})
    logger.info("colored")
    colored = os.read(reader, 4096).decode()
    logs.configure(Logs(format="text"), NO_SECRETS, stream=stream, environ={"NO_COLOR": "1"})
    logger.info("plain")
    plain = os.read(reader, 4096).decode()
    assert "\x1b[" in colored and "colored" in colored
    assert "\x1b[" not in plain and "plain" in plain


def test_debug_events_pass_at_log_level_debug_in_any_case() -> None:
    """LOG_LEVEL=debug (lower case) lets debug events through."""
    out = io.StringIO()
    logs.configure(Logs(format="text", level="debug"), NO_SECRETS, stream=out)
    logger.debug("model.request", tokens=12)
    logger.remove()
    assert "model.request tokens=12" in out.getvalue()
