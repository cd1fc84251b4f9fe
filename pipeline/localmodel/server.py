"""Run llama-server as a child process for the length of a ``with`` block.

``LocalModelServer`` starts llama.cpp's OpenAI-compatible server on
127.0.0.1, waits until ``GET /health`` answers 200, exposes ``base_url`` for an
OpenAI client, and on exit stops the whole process group (SIGTERM, then SIGKILL
after a bound) so no server outlives its owner. If the process dies or never
becomes healthy, ``ServerError`` carries the tail of its log.

When the owner cannot stop it (``kill -9`` of factline), the kernel does: the child asks for
SIGKILL when its parent dies (Linux ``prctl(PR_SET_PDEATHSIG)``, set between fork and exec), so
no llama-server is left orphaned spinning a core. The signal follows the *thread* that started the
server, so it is started from the process's main thread (the CLI, the daemon, the worker all do).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from loguru import logger

from .errors import ServerError

HOST = "127.0.0.1"
DEFAULT_MODEL_NAME = "qwen2.5-coder-0.5b-instruct"
_LOG_TAIL_LINES = 25


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent() -> Callable[[], None]:
    """A preexec_fn: the child gets SIGKILL when the process that started it dies (and exits at once if that
    already happened). libc is loaded here, in the parent: between fork and exec nothing may load or spawn."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


def free_port() -> int:
    """Ask the kernel for a currently unused TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def log_tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file ('' if it does not exist)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


class LocalModelServer:
    """A llama-server child process serving one GGUF model on 127.0.0.1."""

    def __init__(
        self,
        binary: Path,
        model: Path,
        log_path: Path,
        *,
        port: int | None = None,
        ctx_size: int = 8192,
        threads: int = 2,
        parallel: int = 1,
        model_name: str = DEFAULT_MODEL_NAME,
        startup_timeout: float = 60.0,
        stop_timeout: float = 10.0,
    ) -> None:
        self.binary = binary
        self.model = model
        self.log_path = log_path
        self.port = port
        self.ctx_size = ctx_size
        self.threads = threads
        self.parallel = parallel
        self.model_name = model_name
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:8080/v1``."""
        if self.port is None:
            raise ServerError("server not started")
        return f"http://{HOST}:{self.port}/v1"

    @property
    def running(self) -> bool:
        """True while the child process is alive."""
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        """The llama-server command line for the current settings."""
        return [
            str(self.binary), "-m", str(self.model), "--host", HOST, "--port", str(self.port),
            "--jinja", "-c", str(self.ctx_size), "-t", str(self.threads),
            "--parallel", str(self.parallel), "--alias", self.model_name, "--no-webui",
        ]

    def start(self) -> LocalModelServer:
        """Launch the server and block until it is healthy; raise ``ServerError`` otherwise."""
        if self._process is not None:
            raise ServerError("server already started")
        if not self.model.is_file():
            raise ServerError(f"model file not found: {self.model}")
        if self.port is None:
            self.port = free_port()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            try:
                self._process = subprocess.Popen(
                    self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True, preexec_fn=die_with_parent(),
                )
            except OSError as exc:
                raise ServerError(f"cannot launch {self.binary}: {exc}") from exc
        atexit.register(self.stop)
        logger.info("llama-server pid {} starting on {}", self._process.pid, self.base_url)
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_healthy(self) -> None:
        assert self._process is not None
        url = f"http://{HOST}:{self.port}/health"
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            code = self._process.poll()
            if code is not None:
                raise ServerError(
                    f"llama-server exited with code {code} during startup; "
                    f"last lines of {self.log_path}:\n{log_tail(self.log_path)}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        logger.info("llama-server healthy at {}", self.base_url)
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass  # not listening yet, or 503 while the model loads
            time.sleep(0.2)
        raise ServerError(
            f"llama-server not healthy after {self.startup_timeout:.0f}s; "
            f"last lines of {self.log_path}:\n{log_tail(self.log_path)}")

    def stop(self) -> None:
        """Stop the process group: SIGTERM, then SIGKILL after ``stop_timeout``. Idempotent."""
        process, self._process = self._process, None
        atexit.unregister(self.stop)
        if process is None:
            return
        if process.poll() is None:
            self._signal_group(process, signal.SIGTERM)
            try:
                process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                logger.warning("llama-server pid {} ignored SIGTERM; killing it", process.pid)
                self._signal_group(process, signal.SIGKILL)
                process.wait()
        else:
            # The leader is gone; make sure nothing it started survives it.
            self._signal_group(process, signal.SIGKILL)
        logger.info("llama-server pid {} stopped (exit {})", process.pid, process.returncode)

    @staticmethod
    def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
