"""What every command shares: its help page, output that survives a closed pipe, JSON, times, the ledger.

Help: ``add_command`` builds a subcommand whose epilog lists the settings it reads, with their defaults
taken from ``config.Deployment`` and ``config.Settings`` (patterns like ``"RUN_*"`` expand over their fields,
so a new setting with that prefix shows up by itself), and examples. Nothing there is copied text that can go
stale.

Output: ``emit`` writes to stdout; when the reader has gone (``factline runs | head -1``) it stops writing
for the rest of the command, and the command's exit code stays what it would have been: a closed pipe is
the reader's choice, not a failure (docs/cli.md).

JSON: ``to_json`` is the one encoder: datetimes as ISO 8601 with their UTC offset (a naive datetime from
SQLite is UTC), dates as YYYY-MM-DD, enums as their value, dataclasses as objects.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import enum
import fnmatch
import functools
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from config import Deployment, Settings
from config.settings import setting_fields

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = ["CommandError", "Handler", "NoSuchRun", "add_command", "emit", "local_zone", "positive_int",
           "reading_ledger", "setting_names", "shown_time", "stdout_closed", "to_json", "zone_label"]

Handler = Callable[[Deployment, Settings, argparse.Namespace], int]


class CommandError(Exception):
    """A command cannot do what was asked; the message is one line, the CLI prints it and exits 2."""


class NoSuchRun(CommandError):
    def __init__(self, run_id: int) -> None:
        super().__init__(f"no run {run_id} in the ledger")



def setting_names(*patterns: str) -> list[str]:
    """The settings (as the environment variables they are read from: FACTLINE_LANGUAGE, not LANGUAGE) matching
    ``patterns`` ("RUN_*"; "!PROBE_*" leaves out): the deployment's first, then a pipeline's, each in the order
    its type declares them (config.settings.setting_fields)."""
    fields = list(setting_fields())
    chosen = {field for p in patterns if not p.startswith("!") for field in fnmatch.filter(fields, p)}
    chosen -= {field for p in patterns if p.startswith("!") for field in fnmatch.filter(fields, p[1:])}
    return [field for field in fields if field in chosen]


@functools.cache
def _default(variable: str) -> str:
    """A setting's default as --help shows it (cached: every command's parser lists its settings at each start)."""
    field = setting_fields()[variable]
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, Path) and value.is_relative_to(Path.home()):
        return "~/" + str(value.relative_to(Path.home()))
    return str(value)


def epilog(settings: Sequence[str], examples: Sequence[str], notes: str = "") -> str:
    width = max((len(name) for name in settings), default=0) + 2
    parts = [notes.strip()] if notes else []
    if settings:
        parts.append("settings it reads (environment or ./.env; default after the name):\n" + "\n".join(
            f"  {name:<{width}}{_default(name)}" for name in settings))
    if examples:
        parts.append("examples:\n" + "\n".join(f"  {example}" for example in examples))
    return "\n\n".join(parts)


def add_command(sub: Any, name: str, *, help: str, handler: Handler | None = None,
                settings: Iterable[str] = (), examples: Sequence[str] = (), notes: str = "",
                description: str | None = None) -> argparse.ArgumentParser:
    """A subcommand whose --help says what it does, the settings it reads and how it is used."""
    names = setting_names(*settings)
    parser = sub.add_parser(name, help=help, description=description or help[0].upper() + help[1:] + ".",
                            epilog=epilog(names, examples, notes),
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser


@contextlib.contextmanager
def reading_ledger(database_url: str) -> Iterator[Session]:
    """A session on the ledger for a read-only command: nothing is created or migrated, and a failed
    query becomes LedgerUnreadable (one line: which ledger, and what to do)."""
    from sqlalchemy.exc import DBAPIError

    from pipeline.ledger.db import read_ledger, unreadable

    sessions = read_ledger(database_url)
    try:
        with sessions() as session:
            yield session
    except DBAPIError as exc:
        raise unreadable(exc, database_url) from None


def positive_int(text: str) -> int:
    """argparse type: an integer of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more (got {value})")
    return value


class _Stdout:
    closed = False


def emit(text: str) -> None:
    """Print a line (or lines) to stdout; once the reader has closed the pipe, print nothing more."""
    if _Stdout.closed:
        return
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()


def stdout_closed() -> None:
    """The reader of stdout has gone: write nothing more. Python flushes stdout again at exit and would
    report the same error, so stdout is pointed at /dev/null."""
    _Stdout.closed = True
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def to_json(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False, indent=indent)


def local_zone(utc: bool) -> tzinfo:
    """The zone tables show times in: the machine's local zone, or UTC with --utc."""
    return timezone.utc if utc else datetime.now().astimezone().tzinfo or timezone.utc


def zone_label(zone: tzinfo) -> str:
    """'UTC', or the zone's name and offset now, e.g. 'CST, UTC+08:00'."""
    now = datetime.now(zone)
    offset = now.strftime("%z")
    if zone is timezone.utc or offset == "+0000" and now.tzname() in ("UTC", "GMT"):
        return "UTC"
    return f"{now.tzname()}, UTC{offset[:3]}:{offset[3:]}"


def shown_time(value: datetime | None, zone: tzinfo) -> str:
    """A ledger time (naive means UTC) in ``zone``, to the second."""
    if value is None:
        return "-"
    aware = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return aware.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")
