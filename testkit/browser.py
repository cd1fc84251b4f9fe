"""Debian's chromium as Playwright for Python launches it: the system's browser through ``executable_path``
(``playwright install`` is never run), headless, with nothing that reaches the network by itself."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "launch"]

CHROMIUM = os.environ.get("FACTLINE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def launch(playwright: Any) -> Any:
    """A chromium Browser from a ``sync_playwright()`` instance."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
