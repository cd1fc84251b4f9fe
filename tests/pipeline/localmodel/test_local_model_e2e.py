"""`factline run` with no configuration at all: the embedded local model (llama-server + Qwen2.5-Coder-0.5B).

This is the README's first command as a test. On a machine with a cold cache the first run builds
llama-server and fetches the weights (minutes, with progress); `make test` warms the cache first.
"""

from __future__ import annotations

import os
import re
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.external]  # the embedded model


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run_unconfigured(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "FACTLINE_", "DATABASE_", "TOOL_CALL_", "LOCAL_SITE_"))}
    env.update(LOCAL_SITE_PORT=str(_free_port()), **extra)  # a fixed port of its own: 8765 may be taken
    return subprocess.run([sys.executable, "-m", "pipeline.cli", "run"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1800)


def _ledger_counts(tmp_path: Path) -> tuple[int, int]:
    with sqlite3.connect(tmp_path / "var" / "factline.db") as conn:
        publications = conn.execute("SELECT count(*) FROM publications WHERE verified_at IS NOT NULL").fetchone()[0]
        registrations = conn.execute("SELECT count(*) FROM registrations").fetchone()[0]
    return publications, registrations


def test_unconfigured_run_publishes_verifies_and_registers_on_the_local_model(tmp_path: Path) -> None:
    """No OPENAI_BASE_URL: constrained mode on the local model, exit 0, one verified publication and registration."""
    done = _run_unconfigured(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert re.search(r"success \(exit 0\) in [\d.]+ s, model qwen2\.5-coder-0\.5b-instruct \(constrained\)", done.stdout)
    assert _ledger_counts(tmp_path) == (1, 1)


def test_native_mode_on_the_local_model_fails_honestly_if_it_fails(tmp_path: Path) -> None:
    """Native tool calling may fail on this model, but only with exit 3, 4 or 5, never 0 without a publication."""
    done = _run_unconfigured(tmp_path, TOOL_CALL_MODE="native")
    assert done.returncode in (0, 3, 4, 5), done.stdout + done.stderr[-3000:]
    publications, registrations = _ledger_counts(tmp_path)
    if done.returncode == 0:
        assert (publications, registrations) == (1, 1)
    else:
        assert registrations == 0
