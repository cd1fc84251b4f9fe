"""Serving the dashboard: uvicorn in a thread, on a socket bound before it starts.

``WebServer`` is used by ``factline web`` (which then waits for SIGTERM/SIGINT), by ``factline daemon``
when WEB_PORT is not 0, and by the tests. Binding first makes a taken port a one-line error at start
and lets port 0 report the port it got.

Exposure: a host that is not a loopback address needs WEB_TOKEN; without it the server refuses to start.
The ledger is opened read only (no migration); a ledger that is missing or behind the code is an error
that says which command fixes it.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from starlette.types import ASGIApp

from capabilities.targets.httpserver import ThreadedServer
from config import ConfigError
from config.deployment import Web
from pipeline.ledger.db import MIGRATIONS_DIR, make_engine, refuse_newer, session_factory

__all__ = ["WebServer", "check_exposure", "read_only_ledger"]


def check_exposure(host: str, web: Web) -> None:
    """Refuse a non-loopback address without WEB_TOKEN: the ledger would be open to the network."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and web.token is None:
        raise ConfigError(f"web host {host} is not a loopback address: set WEB_TOKEN to serve the dashboard there")


def read_only_ledger(database_url: str) -> sessionmaker[Session]:
    """Sessions on an existing ledger at the latest migration; ConfigError naming the fix otherwise."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
            and not Path(url.database).exists():  # type: ignore[arg-type]
        raise ConfigError(f"no ledger at {url.database}: run `factline run` or `factline db upgrade` first")
    engine = make_engine(database_url)
    head = ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()
    with engine.connect() as conn:
        refuse_newer(conn, database_url)  # LedgerNewer: one line, exit 1 (pipeline.cli)
        current = MigrationContext.configure(conn).get_current_revision()
    if current != head:
        raise ConfigError(f"the ledger is at migration {current or 'none'}, the code needs {head}: "
                          "run `factline db upgrade`")
    return session_factory(engine)


class WebServer(ThreadedServer):
    """The app on ``host:port`` in a background thread while the ``with`` block runs (a taken port: ConfigError)."""

    def __init__(self, app: ASGIApp, host: str, port: int) -> None:
        try:
            super().__init__(app, host, port, "factline-web")
        except OSError as exc:
            raise ConfigError(f"web: cannot listen on {host}:{port}: {exc.strerror or exc}") from None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"
