"""Running `factline` as a user does, for the CLI tests: a real process, a real ledger, a real shell pipe."""

from __future__ import annotations

import os
import subprocess
import sys
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
