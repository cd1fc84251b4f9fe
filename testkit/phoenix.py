"""Arize Phoenix, the trace store of tests/pipeline/test_tracing_phoenix.py and scripts/phoenix_screenshot.py.

Phoenix comes from PyPI into a virtual environment of its own (``make phoenix``: ``.venv-phoenix``, or
FACTLINE_PHOENIX names its ``phoenix`` program): it pins a SQLAlchemy 2.1 that factline's ledger does not
take, so it cannot share factline's environment. ``Phoenix`` runs ``phoenix serve`` on 127.0.0.1 with free
ports (HTTP, which takes OTLP/HTTP at /v1/traces, and gRPC) and a working directory of its own, and
reads spans back through Phoenix's REST API (``GET /v1/projects/{project}/spans``).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

__all__ = ["PHOENIX", "Phoenix", "phoenix_program"]

ROOT = Path(__file__).resolve().parent.parent
PHOENIX = os.environ.get("FACTLINE_PHOENIX", str(ROOT / ".venv-phoenix" / "bin" / "phoenix"))


def phoenix_program() -> str | None:
    """The ``phoenix`` program to run, or None when it is not installed."""
    return PHOENIX if os.access(PHOENIX, os.X_OK) else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phoenix:
    """``phoenix serve`` on 127.0.0.1 until closed (its log in ``workdir``/phoenix.log)."""

    def __init__(self, workdir: Path, program: str = PHOENIX, start_timeout: float = 120.0) -> None:
        self.workdir, self.program, self.start_timeout = workdir, program, start_timeout
        self.port, self.grpc_port = _free_port(), _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def otlp_endpoint(self) -> str:
        """What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter appends /v1/traces)."""
        return self.url

    def __enter__(self) -> Phoenix:
        env = {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(self.port),
               "PHOENIX_GRPC_PORT": str(self.grpc_port), "PHOENIX_WORKING_DIR": str(self.workdir / "phoenix"),
               "PHOENIX_TELEMETRY_ENABLED": "false", "DO_NOT_TRACK": "1"}
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = open(self.workdir / "phoenix.log", "wb")  # noqa: SIM115 - the child writes it until closed
        self.process = subprocess.Popen([self.program, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"phoenix serve exited {self.process.returncode}: see {self.workdir}/phoenix.log")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.close()
        raise RuntimeError(f"phoenix serve did not answer /healthz in {self.start_timeout:.0f} s")

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGCONT)  # a test may have frozen it
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    def freeze(self) -> None:
        """SIGSTOP: the collector hangs (connections are accepted by the kernel and never answered)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def spans(self, trace_id: str, project: str = "default", wait: float = 30.0,
              until: Callable[[list[dict[str, Any]]], bool] = bool) -> list[dict[str, Any]]:
        """The spans of one trace, read through Phoenix's REST API; Phoenix stores what it receives a little
        later, so this asks again until ``until(spans)`` holds or ``wait`` seconds passed."""
        deadline = time.monotonic() + wait
        while True:
            found = [s for s in self._all_spans(project) if s["context"]["trace_id"] == trace_id]
            if until(found) or time.monotonic() > deadline:
                return found
            time.sleep(0.5)

    def _all_spans(self, project: str) -> list[dict[str, Any]]:
        spans: list[dict[str, Any]] = []
        cursor = None
        while True:
            params: dict[str, Any] = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
            answer = httpx.get(f"{self.url}/v1/projects/{project}/spans", params=params, timeout=10)
            if answer.status_code == 404:  # the project appears with its first span
                return spans
            answer.raise_for_status()
            body = answer.json()
            spans += body["data"]
            cursor = body.get("next_cursor")
            if not cursor:
                return spans
