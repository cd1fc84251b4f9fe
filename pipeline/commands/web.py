"""``factline web``: serve the read-only dashboard until SIGTERM/SIGINT (docs/dashboard.md)."""

from __future__ import annotations

import argparse
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import add_command, emit

DEFAULT_PORT = 8766
NOTES = f"""\
Pages: Today (the day's runs per pipeline, failures first, with totals), a run turn by turn, Publications,
Probes; each has a JSON twin under /api/. Read-only: the ledger is never created or migrated (a missing or
older ledger exits 2 naming the fix). Binds WEB_HOST (127.0.0.1); another address needs WEB_TOKEN, which
pages and /api/ then require (a bearer token, or the login form's cookie). The port is --port, else
WEB_PORT when set, else {DEFAULT_PORT}; 0 picks a free one. The daemon serves the same pages when WEB_PORT
is set. SIGTERM or SIGINT: exit 0."""


def register(sub: Any) -> None:
    web = add_command(sub, "web", help="serve the read-only dashboard of the ledger", handler=cmd_web,
                      settings=("DATABASE_URL", "SCHEDULE_TIMEZONE", "WEB_*"), notes=NOTES,
                      examples=["factline web                       http://127.0.0.1:8766/",
                                "factline web --port 0              any free port (the URL is printed)",
                                "WEB_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe())') "
                                "factline web --host 0.0.0.0"])
    web.add_argument("--host", help="address to bind (default WEB_HOST); other than loopback needs WEB_TOKEN")
    web.add_argument("--port", type=int, help=f"port (default WEB_PORT if set, else {DEFAULT_PORT}; 0 picks one)")


def cmd_web(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    import threading

    from pipeline.stopping import on_stop_signals, wait_for_stop
    from pipeline.web import WebServer, build_app, check_exposure, read_only_ledger

    web = deployment.web
    host = args.host or web.host
    port = args.port if args.port is not None else (web.port or DEFAULT_PORT)
    check_exposure(host, web)
    sessions = read_only_ledger(deployment.ledger.url)
    stop = threading.Event()
    on_stop_signals(stop)
    with WebServer(build_app(deployment, settings, sessions), host, port) as server:
        guard = "WEB_TOKEN required" if web.token else "no WEB_TOKEN: anyone on this host can read it"
        emit(f"factline web: {server.url}/ ({guard}); Ctrl-C stops it")
        wait_for_stop(stop)
    return 0
