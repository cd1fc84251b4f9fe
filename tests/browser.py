"""Debian's chromium driven by Playwright for Python (never `playwright install`: the browser is the system's).

``browser`` is session-scoped. Without /usr/bin/chromium the tests FAIL with the command that installs it;
they are skipped only when FACTLINE_SKIP_BROWSER=1 (as FACTLINE_SKIP_WORDPRESS=1 does for WordPress).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = os.environ.get("FACTLINE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def launch(playwright: Any) -> Any:
    """Debian's chromium, headless, with nothing that reaches the network by itself."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if os.environ.get("FACTLINE_SKIP_BROWSER") == "1":
        pytest.skip("FACTLINE_SKIP_BROWSER=1: the browser tests are switched off")
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(f"no browser at {CHROMIUM}: `apt-get install -y chromium` (make test does), "
                    "or FACTLINE_SKIP_BROWSER=1 to switch these tests off", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()
