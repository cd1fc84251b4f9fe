"""``factline web``: serve the dashboard until SIGTERM/SIGINT (exit 0); a bad host, port or ledger exits 2."""

from __future__ import annotations

import argparse
import signal
import threading
from typing import Any

from config import Settings
from pipeline.web.app import build_app
from pipeline.web.server import WebServer, check_exposure, read_only_ledger

__all__ = ["add_subcommands", "cmd_web"]

DEFAULT_PORT = 8766


def cmd_web(settings: Settings, args: argparse.Namespace) -> int:
    host = args.host or settings.web_host
    port = args.port if args.port is not None else (settings.web_port or DEFAULT_PORT)
    check_exposure(host, settings)
    sessions = read_only_ledger(settings.database_url)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    with WebServer(build_app(settings, sessions), host, port) as web:
        guard = "WEB_TOKEN required" if settings.web_token else "no WEB_TOKEN: anyone on this host can read it"
        print(f"factline web: {web.url}/ ({guard}); Ctrl-C stops it", flush=True)
        stop.wait()
    return 0


def add_subcommands(sub: Any) -> None:
    """Add ``web`` to the CLI's subparsers."""
    web = sub.add_parser(
        "web", help="serve the read-only dashboard of the ledger (Today, runs, publications, probes)",
        description="Serve the read-only dashboard of the ledger until Ctrl-C. Reads DATABASE_URL, "
                    "SCHEDULE_TIMEZONE (the days), WEB_HOST, WEB_PORT and WEB_TOKEN.",
        epilog=f"example: WEB_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe())') factline web "
               f"--port {DEFAULT_PORT}")
    web.add_argument("--host", help="address to bind (default WEB_HOST, 127.0.0.1); other than loopback needs "
                                    "WEB_TOKEN")
    web.add_argument("--port", type=int, help=f"port (default WEB_PORT if set, else {DEFAULT_PORT}; 0 picks one)")
    web.set_defaults(handler=cmd_web)
