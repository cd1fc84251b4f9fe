"""``factline model ...`` subcommands: build, fetch, serve, status.

``add_subcommands(sub)`` hangs a ``model`` parser off the main CLI's
subparsers; every leaf sets ``handler(settings, args) -> int``. Only three
settings are read: ``model_cache_dir``, ``local_model_ctx`` and
``local_model_threads``. A LocalModelError propagates: pipeline.cli.run_command
prints it and exits 1, as for every other command.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from . import (
    LocalModelServer,
    ensure_local_model,
    ensure_server_binary,
    ensure_weights,
    is_server_built,
    model_path,
    server_binary_path,
    verify_weights,
)
from .build import SDIST_NAME, SDIST_VERSION
from .weights import QWEN_CODER_05B


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def add_subcommands(sub: Any) -> None:
    """Add ``model {build,fetch,serve,status}`` to an argparse subparsers object."""
    model = sub.add_parser("model", help="embedded local model (llama-server + Qwen2.5-Coder-0.5B)")
    actions = model.add_subparsers(dest="model_command", metavar="{build,fetch,serve,status}", required=True)

    actions.add_parser("build", help="build llama-server from source into the cache").set_defaults(handler=_build)
    actions.add_parser("fetch", help="download, verify and assemble the model weights").set_defaults(handler=_fetch)

    serve = actions.add_parser("serve", help="run llama-server on 127.0.0.1 until SIGINT/SIGTERM")
    serve.add_argument("--port", type=int, default=None, help="TCP port (default: a free one)")
    serve.set_defaults(handler=_serve)

    status = actions.add_parser("status", help="show what is in the cache and whether it is verified")
    status.add_argument("--full", action="store_true", help="re-hash the model file instead of trusting its stamp")
    status.set_defaults(handler=_status)


def _build(settings: Any, args: argparse.Namespace) -> int:
    ensure_server_binary(settings.model_cache_dir, _progress)
    return 0


def _fetch(settings: Any, args: argparse.Namespace) -> int:
    ensure_weights(settings.model_cache_dir, _progress)
    return 0


def _serve(settings: Any, args: argparse.Namespace) -> int:
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        binary, model = ensure_local_model(settings.model_cache_dir, _progress)
        server = LocalModelServer(
            binary, model, settings.model_cache_dir / "logs" / "llama-server.log",
            port=args.port, ctx_size=settings.local_model_ctx, threads=settings.local_model_threads,
        )
        with server:
            print(server.base_url, flush=True)
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


def _status(settings: Any, args: argparse.Namespace) -> int:
    cache = settings.model_cache_dir
    binary, model = server_binary_path(cache), model_path(cache)
    built = is_server_built(cache)
    verified = verify_weights(cache, full=args.full)
    parts_dir = model.parent / "parts"
    parts = sorted(p.name for p in parts_dir.glob("part*.bin")) if parts_dir.is_dir() else []

    print(f"cache:        {cache}")
    print(f"llama-server: {'built' if built else 'not built'} ({SDIST_NAME}=={SDIST_VERSION}) {binary}")
    if verified:
        state = "verified (full sha256)" if args.full else "verified"
    elif model.is_file():
        state = "present but does NOT match the pinned sha256"
    elif parts:
        state = f"incomplete: {len(parts)}/{len(QWEN_CODER_05B.chunks)} parts extracted"
    else:
        state = "missing"
    print(f"weights:      {state} {model}")
    return 0 if built and verified else 1
