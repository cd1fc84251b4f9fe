"""scripts/chaos.py --short: 8 runs at once and 4 SIGKILLs on each setup, judged by what the target holds."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow


def test_chaos_short_leaves_the_target_and_the_ledger_in_agreement(request: pytest.FixtureRequest) -> None:
    """One trial of 8 concurrent runs and 4 kills, SQLite + local and PostgreSQL + WordPress: nothing to report."""
    setups = "sqlite-local"
    if os.environ.get("FACTLINE_SKIP_WORDPRESS") != "1":
        request.getfixturevalue("wordpress")  # up once per session, shared with the other WordPress tests
        setups += ",postgresql-wordpress"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "chaos.py"), "--short", "--setups", setups],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "PROBLEM" not in done.stdout
