"""Shared fixtures: a fresh ledger on SQLite and on PostgreSQL, settings, the scripted model, a runtime,
the test WordPress (``wordpress`` once per session, ``wp`` restored after each test; testkit.wordpress).

Tests that take ``db_url`` (directly or through ``settings``/``runtime``) run once per backend.
PostgreSQL is the machine's server (127.0.0.1:5432, trust auth); each test gets its own database. On SQLite
``db_url`` names a copy of an empty ledger migrated once per session (migrating a new ledger was about half of
what a short ledger test cost); a test marked ``empty_ledger`` gets a path where nothing is yet.
Set FACTLINE_TEST_BACKENDS=sqlite to run only SQLite.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from config import Settings, load_settings
from pipeline.ledger.db import open_ledger
from pipeline.runtime import Runtime, open_runtime
from testkit.databases import fresh_pg_database
from testkit.scripted_model import ScriptedModel
from testkit.wordpress import WordPress, start_wordpress, stop_wordpress
from tests.browser import browser  # noqa: F401  (one session-wide chromium for every browser test)

BACKENDS = os.environ.get("FACTLINE_TEST_BACKENDS", "sqlite,postgresql").split(",")
EXTERNAL_FIXTURES = {"wordpress", "wp", "browser", "phoenix"}  # a test that takes one of these needs that service


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that takes the test WordPress, the browser or Phoenix ``external`` (test-fast leaves it out)."""
    for item in items:
        if EXTERNAL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.external)


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty SQLite ledger at the migrations' head, for ``db_url`` to copy."""
    path = tmp_path_factory.mktemp("migrated") / "ledger.db"
    open_ledger(f"sqlite:///{path}").kw["bind"].dispose()  # closed: the write-ahead log is folded into the file
    return path


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        if request.node.get_closest_marker("empty_ledger") is None:
            shutil.copyfile(request.getfixturevalue("migrated_sqlite"), tmp_path / "ledger.db")
        yield f"sqlite:///{tmp_path}/ledger.db"
        return
    with fresh_pg_database() as url:
        yield url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """PostgreSQL only: for tests of several processes sharing one ledger."""
    with fresh_pg_database() as url:
        yield url


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as m:
        yield m


def make_settings(db_url: str, base_url: str, tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": db_url,
        "openai_base_url": base_url,
        "factline_model": "scripted",
        "local_site_dir": tmp_path / "site",
        "local_site_port": 0,
        "preview_dir": tmp_path / "preview",  # not the checkout's var/preview
        "retry_base_delay": 0.01,
        "http_timeout_seconds": 5,
    }
    values.update(overrides)
    return load_settings(**values)


@pytest.fixture
def settings(db_url: str, model: ScriptedModel, tmp_path: Path) -> Settings:
    return make_settings(db_url, model.base_url, tmp_path)


@pytest.fixture
def runtime(settings: Settings) -> Iterator[Runtime]:
    with open_runtime(settings) as rt:
        yield rt


class FakeSleep:
    """Counts the waits the retry state machine asks for, instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture(scope="session")
def wordpress() -> Iterator[WordPress]:
    """The test WordPress, brought up once per session by scripts/wordpress/wp-up.sh.

    If it cannot come up the test FAILS; it is skipped only when FACTLINE_SKIP_WORDPRESS=1.
    """
    if os.environ.get("FACTLINE_SKIP_WORDPRESS") == "1":
        pytest.skip("FACTLINE_SKIP_WORDPRESS=1: the real-WordPress tests are switched off")
    started = time.monotonic()
    try:
        site, was_up = start_wordpress()
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)
    print(f"\nwordpress: up at {site.url} in {time.monotonic() - started:.1f} s (already running: {was_up})")
    yield site
    if not was_up and os.environ.get("FACTLINE_WP_KEEP") != "1":
        stop_wordpress(site)


@pytest.fixture
def wp(wordpress: WordPress) -> Iterator[WordPress]:
    """The test WordPress, restored to normal after the test (faults cleared, servers running)."""
    wordpress.restore()
    try:
        yield wordpress
    finally:
        wordpress.restore()
