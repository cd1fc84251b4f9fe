"""The ``browser`` fixture: Debian's chromium (testkit.browser), one per test session.

Registered once, in tests/conftest.py. A test module must not import it itself: each import makes a
fixture of its own, and the second ``sync_playwright()`` in one process fails ("Sync API inside the
asyncio loop") while the first one's browser is still open.

Without the browser the tests FAIL with the command that installs it; they are skipped only when
FACTLINE_SKIP_BROWSER=1 (as FACTLINE_SKIP_WORDPRESS=1 does for WordPress).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from testkit.browser import CHROMIUM, launch


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
