"""Running `factline` as a user does, for the CLI tests: a real process, a real ledger, a real shell pipe; and
``factline_here``, the same command line run inside the test process (``factline_read`` for read-only commands),
for tests that are not about the process (its exit status as the shell sees it, signals, closed pipes, tab
completion, daemons, concurrent processes and kills stay real processes): it skips the interpreter's start and
factline's imports, most of what a short command costs (a `factline run` as a process: about 3 s here)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from tests.paths import ROOT

FACTLINE = [sys.executable, "-m", "pipeline.cli"]


def user_env(**values: str) -> dict[str, str]:
    """The test process's environment without factline's settings, plus ``values``."""
    prefixes = ("OPENAI_", "FACTLINE_", "DATABASE_", "SCHEDULE_", "REPORT_", "PRUNE_", "ALERT_", "LOG_", "NO_COLOR", "TZ")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(PYTHONPATH=str(ROOT), **values)
    return env


def factline(env: dict[str, str], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FACTLINE, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


def piped(env: dict[str, str], command: str, reader: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``factline COMMAND | READER`` in bash with pipefail, so the exit status is factline's unless it is 0."""
    line = f"set -o pipefail; {' '.join(FACTLINE)} {command} | {reader}"
    return subprocess.run(["bash", "-c", line], env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


# commands that read and answer (review list and show also close expired reviews): no run, server or signal handler
READ_ONLY = ("runs", "report", "diff", "review list", "review show", "probe report", "audit", "pipelines",
             "config show")


def factline_read(env: dict[str, str], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``factline ARGS`` for a read-only command, in this process (``factline_here``)."""
    assert {"--help", "--version"} & set(args) or " ".join(args).startswith(READ_ONLY), f"not read-only: {args}"
    return factline_here(env, *args, cwd=cwd)


# commands that serve until a signal, or start other processes: never in the test process
LONG_RUNNING = ("daemon", "web", "site serve", "worker")


def factline_here(env: dict[str, str], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``factline ARGS`` run by ``pipeline.cli.main`` in this process with ``env`` as the whole environment and
    ``cwd`` as the folder, stdout and stderr captured, the exit code what ``sys.exit(main())`` would give the
    shell; what it changed (environment, folder, time zone, signal handlers, log sinks, database engines) is put
    back afterwards, and a thread it started and left running fails the test. For `run`, `review approve`,
    `retract`... whose test is about what the command does, not about its process."""
    assert not " ".join(args).startswith(LONG_RUNNING), f"serves until a signal: use factline(): {args}"
    assert "_ARGCOMPLETE" not in env, "tab completion ends its process (os._exit): use factline()"
    out, err = io.StringIO(), io.StringIO()
    threads = set(threading.enumerate())
    with _as_a_process(env, cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        from pipeline.cli import main

        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
    left = [t for t in set(threading.enumerate()) - threads if t.join(5) or t.is_alive()]  # a server, a pool
    assert not left, f"factline {' '.join(args)} left threads running: {left}"
    return subprocess.CompletedProcess(["factline", *args], code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _as_a_process(env: dict[str, str], cwd: Path) -> Iterator[None]:
    from loguru import logger

    import pipeline.ledger.db as ledger_db

    saved_env, saved_cwd = dict(os.environ), Path.cwd()
    saved_signals = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    engines = []
    create_engine = ledger_db.create_engine

    def recorded(*a, **kw):  # type: ignore[no-untyped-def]
        engines.append(create_engine(*a, **kw))
        return engines[-1]

    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    os.chdir(cwd)
    ledger_db.create_engine = recorded
    try:
        yield
    finally:
        ledger_db.create_engine = create_engine
        for engine in engines:
            engine.dispose()
        logger.remove()  # the command's sinks write to its captured stderr
        logger.add(sys.stderr)
        for sig, handler in saved_signals.items():
            signal.signal(sig, handler)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()
