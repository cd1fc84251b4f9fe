"""``factline site serve``: serve LOCAL_SITE_DIR (the local target's pages, index and feed) until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import CommandError, add_command, emit

NOTES = """\
The local target writes each article as a page of LOCAL_SITE_DIR, with index.html (newest first) and
feed.xml (Atom). `factline run` serves them only while it runs; this command, or the daemon, serves them
for as long as it runs, on LOCAL_SITE_HOST:LOCAL_SITE_PORT, the address published URLs carry. A run
started while this serves finds the port taken and publishes into the same directory. SIGTERM or SIGINT:
exit 0."""


def register(sub: Any) -> None:
    site = add_command(sub, "site", help="the local target's site: serve it", notes=NOTES,
                       settings=("LOCAL_SITE_*",), examples=["factline site serve"])
    actions = site.add_subparsers(dest="site_command", required=True, metavar="ACTION")
    add_command(actions, "serve", help="serve LOCAL_SITE_DIR until SIGTERM/SIGINT", handler=cmd_serve,
                settings=("LOCAL_SITE_*",), notes=NOTES,
                examples=["factline site serve                 http://127.0.0.1:8765/",
                          "LOCAL_SITE_PORT=8800 factline site serve"])


def cmd_serve(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    import signal
    import threading

    from capabilities.targets.site import SiteServer

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    try:
        site = deployment.site
        server = SiteServer(site.dir, site.host, site.port)
        with server:
            emit(f"factline site: {server.url} serves {site.dir.resolve()}; Ctrl-C stops it")
            stop.wait()
    except OSError as exc:
        raise CommandError(f"cannot serve on {deployment.site.host}:{deployment.site.port}: "
                           f"{exc.strerror or exc} (LOCAL_SITE_PORT)") from None
    return 0
