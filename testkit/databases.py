"""Throwaway PostgreSQL databases on the test server (127.0.0.1:5432, trust auth), for tests, scripts and benchmarks."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

PG_ADMIN = os.environ.get("FACTLINE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


@contextmanager
def fresh_pg_database() -> Iterator[str]:
    """A new, empty PostgreSQL database on the test server, dropped afterwards."""
    name = f"factline_t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
    yield f"{base}/{name}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
