"""Several real `factline run` processes on one ledger, kills between a post and its row: what the target holds.

Each test compares what the target really holds (local pages on disk, WordPress posts over REST) with
the ledger (testkit.swarm.Swarm.audit): no topic published twice, no item without a publications row,
no run left `running`, no traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, text

from pipeline.ledger.db import open_ledger
from testkit.daemon_process import wait_for
from testkit.scripted_model import ScriptedModel
from testkit.swarm import Swarm
from testkit.wordpress import WordPress
from tests.paths import ROOT

pytestmark = pytest.mark.slow



def _seed_topics(db_url: str, titles: list[str]) -> None:
    engine = open_ledger(db_url).kw["bind"]
    with engine.begin() as conn:
        for title in titles:
            conn.execute(text("INSERT INTO topics (pipeline, title, first_seen_at) VALUES ('content', :t, "
                              "CURRENT_TIMESTAMP)"), {"t": title})
    engine.dispose()


def _assert_clean(swarm: Swarm, runs: int) -> None:
    audit = swarm.audit()
    outputs = "\n".join(e.output[-1500:] for e in swarm.exits if e.code != 0)
    assert [e.code for e in swarm.exits] == [0] * runs, outputs
    assert audit.problems() == [], audit
    assert audit.verdicts == {"success": runs}
    assert audit.items == audit.publications == runs
    assert audit.pending_intents == 0


@pytest.mark.parametrize("known", [True, False], ids=["topics-in-ledger", "topics-new"])
def test_concurrent_runs_take_distinct_topics_and_the_target_holds_the_ledger(
        db_url: str, model: ScriptedModel, tmp_path: Path, known: bool) -> None:
    """4 runs started together on one ledger and one topics file: 4 topics, 4 pages, 4 rows, no error."""
    with Swarm(db_url, tmp_path, model.base_url, topics=4) as swarm:
        if known:
            _seed_topics(db_url, swarm.titles)
        swarm.run(4)
        _assert_clean(swarm, 4)
        assert not any("IntegrityError" in e.output for e in swarm.exits)


def test_concurrent_runs_on_wordpress_make_one_post_per_topic(
        pg_url: str, model: ScriptedModel, tmp_path: Path, wp: WordPress) -> None:
    """4 runs on PostgreSQL and the real WordPress, same topics: 4 posts, each with its publications row."""
    with Swarm(pg_url, tmp_path, model.base_url, topics=4, wp=wp) as swarm:
        _seed_topics(pg_url, swarm.titles)
        swarm.run(4)
        _assert_clean(swarm, 4)


def test_processes_starting_together_on_an_empty_ledger_all_migrate(db_url: str, tmp_path: Path) -> None:
    """3 `factline db upgrade` at once on a ledger that does not exist yet: all exit 0, one schema at head."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DATABASE_URL": db_url}
    procs = [subprocess.Popen([sys.executable, "-m", "pipeline.cli", "db", "upgrade"], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(3)]
    outputs = [p.communicate(timeout=120)[0].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    engine = create_engine(db_url)
    with engine.connect() as conn:
        heads = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    engine.dispose()
    from alembic.script import ScriptDirectory

    from pipeline.ledger.db import alembic_config

    assert heads == [ScriptDirectory.from_config(alembic_config(engine)).get_current_head()]


@pytest.mark.parametrize("target", ["local", "wordpress"])
def test_a_run_killed_between_the_post_and_its_row_is_settled_by_lookup(
        pg_url: str, model: ScriptedModel, tmp_path: Path, request: pytest.FixtureRequest, target: str) -> None:
    """SIGKILL after the target holds the article but before its row: the next run finds it; one item, one row."""
    wp = request.getfixturevalue("wp") if target == "wordpress" else None
    open_ledger(pg_url).kw["bind"].dispose()
    with Swarm(pg_url, tmp_path, model.base_url, topics=1, wp=wp) as swarm:
        # the publications row cannot be written while this lock is held: the run stops right after the post
        blocker = psycopg.connect(pg_url.replace("postgresql+psycopg://", "postgresql://"))
        blocker.execute("LOCK TABLE publications IN SHARE ROW EXCLUSIVE MODE")
        try:
            first = swarm.start()
            wait_for(lambda: len(swarm.items()) == 1 or first.poll() is not None, timeout=120, interval=0.2)
            time.sleep(0.5)  # the run is now waiting on the lock to record what the target holds
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(30)
        finally:
            blocker.rollback()
            blocker.close()
        crashed = swarm.audit()
        assert (crashed.items, crashed.publications, crashed.pending_intents) == (1, 0, 1)

        swarm.run(1)
        audit = swarm.audit()
        assert swarm.exits[-1].code == 0, swarm.exits[-1].output[-2000:]
        assert audit.problems() == [], audit
        assert (audit.items, audit.publications, audit.pending_intents) == (1, 1, 0)
        assert audit.verdicts == {"interrupted": 1, "success": 1}
