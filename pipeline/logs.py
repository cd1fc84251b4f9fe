"""Logs are events: loguru, run_id bound on every line of a run, LOG_FORMAT=json for machines.

A text line is the time, the level, the event name, then its fields as ``key=value`` (logfmt):

    13:02:11.123 INFO    tool.finished run_id=7 tool=publish outcome=ok latency_ms=41

``run_id`` comes first when a run is bound, once. A value with a space, a quote, ``=`` or a newline is
written in double quotes with JSON escapes, so every event stays one line that ``grep`` and logfmt
parsers read. Color only on a terminal, and never when NO_COLOR is set (https://no-color.org).
LOG_FORMAT=json writes loguru's serialized records (every field under ``record.extra``).

Secrets: every sink writes through ``Redacting``, which replaces each configured secret (config.secrets)
in the finished line, text or JSON, message, fields and traceback alike. Tracebacks never carry
variable values (loguru's ``diagnose``) except at LOG_LEVEL=DEBUG, where a developer asked for them.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from loguru import logger

from config.deployment import Logs
from config.secrets import Redactor

UNBOUND = "-"
TEXT_FORMAT = ("<green>{time:HH:mm:ss.SSS}</green> <level>{level: <7}</level> <cyan>{message}</cyan>"
               "{extra[_fields]}\n{exception}")
_BARE = re.compile(r"[^\s\"=\\]+")


def logfmt_value(value: Any) -> str:
    """One field value as logfmt: bare when safe, else JSON-quoted; lists comma-joined, dicts as JSON."""
    if isinstance(value, (list, tuple, set, frozenset)):
        value = ",".join(str(v) for v in value)
    elif isinstance(value, dict):
        value = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    text = str(value)
    return text if _BARE.fullmatch(text) else json.dumps(text, ensure_ascii=False)


def _fields(extra: Mapping[str, Any]) -> str:
    items = [(k, v) for k, v in extra.items() if not k.startswith("_") and not (k == "run_id" and v == UNBOUND)]
    items.sort(key=lambda item: item[0] != "run_id")  # run_id first, the rest in the order they were bound
    return "".join(f" {key}={logfmt_value(value)}" for key, value in items)


def text_format(record: Any) -> str:
    """loguru format callable: renders the fields once, then the line's template."""
    record["extra"]["_fields"] = _fields(record["extra"])
    return TEXT_FORMAT


def use_color(stream: TextIO, environ: Mapping[str, str]) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)()) and not environ.get("NO_COLOR")


class Redacting:
    """A stream that writes each finished log line with every secret replaced."""

    def __init__(self, stream: TextIO, redact: Redactor) -> None:
        self.stream, self.redact = stream, redact

    def write(self, text: str) -> None:
        self.stream.write(self.redact(text))

    def flush(self) -> None:
        self.stream.flush()


def _sink_options(logs: Logs) -> dict[str, Any]:
    debug = logs.level == "DEBUG"
    return {"level": logs.level, "diagnose": debug, "backtrace": debug}


def configure(logs: Logs, redact: Redactor, stream: TextIO | None = None,
              environ: Mapping[str, str] | None = None) -> None:
    """Send every event to ``stream`` (stderr) in LOG_FORMAT at LOG_LEVEL, the secrets of ``redact`` replaced."""
    stream = sys.stderr if stream is None else stream
    environ = os.environ if environ is None else environ
    sink = Redacting(stream, redact)
    logger.remove()
    logger.configure(extra={"run_id": UNBOUND})
    if logs.format == "json":
        logger.add(sink, serialize=True, **_sink_options(logs))
    else:
        logger.add(sink, format=text_format, colorize=use_color(stream, environ), **_sink_options(logs))
