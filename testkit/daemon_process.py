"""Real `factline daemon` processes for tests: started with an environment, read through the ledger.

``DaemonProcess`` starts ``python -m pipeline.cli daemon``, waits for the line that says where
metrics are served, and keeps stderr (the logs) in a file the test can read afterwards.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parent.parent
# Until the daemon says where metrics are: importing it costs ~3 s of CPU (openai, celery, sqlalchemy,
# alembic), 6-30 s of wall time measured on 2 cores at load 11 while several test suites ran at once.
STARTUP_SECONDS = 90


def daemon_env(db_url: str, base_url: str, tmp_path: Path, **overrides: str) -> dict[str, str]:
    """The environment of a daemon that ticks every second against ``db_url`` and the scripted model."""
    topics = tmp_path / "topics.txt"
    if not topics.exists():
        topics.write_text("\n".join(f"Daemon topic {i:02d}" for i in range(60)) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FACTLINE_", "SCHEDULE_", "REPORT_", "PRUNE_", "ALERT_"))}
    env.update({
        "DATABASE_URL": db_url, "OPENAI_BASE_URL": base_url, "FACTLINE_MODEL": "scripted",
        "LOCAL_SITE_DIR": str(tmp_path / "site"), "LOCAL_SITE_PORT": "0", "METRICS_PORT": "0",
        "TOPICS_SOURCE": str(topics), "SCHEDULE_CRON": "* * * * * *", "SCHEDULE_MISFIRE_GRACE_SECONDS": "1",
        "RETRY_BASE_DELAY": "0.01", "HTTP_TIMEOUT_SECONDS": "5", "PYTHONPATH": str(ROOT),
    })
    env.update(overrides)
    return env


class DaemonProcess:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        self._log_file = log.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "daemon"], env=env, cwd=log.parent,
                                     stdout=subprocess.PIPE, stderr=self._log_file)
        self.metrics_url = self._announced_url()

    def _announced_url(self, timeout: float = STARTUP_SECONDS) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline().decode() if ready else ""
        if "metrics at " not in line:
            self.proc.kill()
            raise AssertionError(f"daemon did not start: {line!r}\n{self.logs()[-3000:]}")
        return line.split("metrics at ", 1)[1].split()[0].removesuffix(",")

    def logs(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 30) -> int:
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            self._log_file.close()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)
        self._log_file.close()


def pid_alive(pid: int) -> bool:
    """True if the pid runs and is not a zombie awaiting its (re)parent's reaping."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def wait_for(condition: Callable[[], object], timeout: float, interval: float = 0.05) -> object:
    """Poll ``condition`` until it is truthy; fail with the timeout otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


class LedgerProbe:
    """Reads the ledger the daemons write, with plain SQL (the test is an outside observer)."""

    def __init__(self, db_url: str) -> None:
        self.engine = create_engine(db_url)

    def rows(self, sql: str, **params: object) -> list[tuple]:
        with self.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql), params)]

    def scalar(self, sql: str, **params: object) -> object:
        with self.engine.connect() as conn:
            return conn.execute(text(sql), params).scalar()

    def close(self) -> None:
        self.engine.dispose()
