#!/usr/bin/env python3
"""Screenshots of the dashboard's four pages into docs/img/, from a ledger written by real scripted runs.

    python scripts/dashboard_screenshots.py [--out docs/img]

The ledger is the browser tests' (testkit/web_ledger.py: the run loop with the scripted model, the local
target, two probe runs), on SQLite in a temporary folder; the browser is Debian's chromium via Playwright.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from pipeline.web import WebServer, build_app, read_only_ledger  # noqa: E402
from testkit.browser import launch  # noqa: E402
from testkit.web_ledger import web_ledger  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, \
            web_ledger(f"sqlite:///{tmp}/ledger.db", Path(tmp), log_level="WARNING") as ledger:
        app = build_app(ledger.settings.deployment(), ledger.settings, read_only_ledger(ledger.settings.deployment().ledger.url))
        pages = {"today": "/", "run": f"/runs/{ledger.hostile}", "publications": "/publications",
                 "probes": "/probes"}
        with WebServer(app, "127.0.0.1", 0) as web, sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1360, "height": 900})
            for name, path in pages.items():
                page.goto(web.url + path)
                target = args.out / f"dashboard_{name}.png"
                page.screenshot(path=str(target), full_page=True)
                print(f"wrote {target}", file=sys.stderr)
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
