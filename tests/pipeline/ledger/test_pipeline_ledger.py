"""The ledger keyed by pipeline: the migration that carries old rows to `content`, and registration numbers."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from datetime import datetime, timezone

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import func, select, text

from pipeline.ledger import runs
from pipeline.ledger.db import alembic_config, head_revisions, make_engine, open_ledger, session_factory, upgrade
from pipeline.ledger.models import Registration, RegistrationCounter, Topic
from pipeline.ledger.numbers import next_registration_number
from pipeline.ledger.store import LedgerStore

OLD_ROWS = [  # ids far above what a sequence hands out next (explicit ids do not move a PostgreSQL sequence)
    "INSERT INTO topics (id, title, first_seen_at) VALUES (900, 'Old topic', '2026-01-01 06:00:00+00')",
    "INSERT INTO runs (id, pipeline, trigger, started_at, status, tokens_used, topic_id) "
    "VALUES (900, 'content', 'manual', '2026-01-01 06:00:00+00', 'finished', 0, 900)",
    "INSERT INTO drafts (id, run_id, topic_id, created_at) VALUES (900, 900, 900, '2026-01-01 06:00:00+00')",
    "INSERT INTO draft_versions (id, draft_id, version, kind, title, body, created_at) "
    "VALUES (900, 900, 1, 'humanized', 't', 'b', '2026-01-01 06:00:00+00')",
]


def _publication(i: int) -> str:
    return ("INSERT INTO publications (id, run_id, topic_id, draft_version_id, target, external_id, url, "
            f"idempotency_key, created_at) VALUES ({i}, 900, 900, 900, 'local', 'x{i}', 'http://127.0.0.1/{i}', 'k{i}', "
            "'2026-01-01 06:00:00+00')")


def _registration(i: int, number: str) -> str:
    return (f"INSERT INTO registrations (id, run_id, publication_id, number, created_at) VALUES ({i}, 900, {i}, "
            f"'{number}', '2026-01-01 06:00:00+00')")


@pytest.mark.empty_ledger
def test_upgrade_carries_existing_rows_to_content_and_counts_past_999(db_url: str) -> None:
    """A ledger at 0003 with rows upgrades: rows belong to `content`, the day's counter resumes at 1000."""
    engine = make_engine(db_url)
    command.upgrade(alembic_config(engine), "0003")
    with engine.begin() as conn:
        for sql in OLD_ROWS:
            conn.execute(text(sql))
        for i, number in enumerate(["CT-20260101-998", "CT-20260101-999", "CT-20260102-001"], start=901):
            conn.execute(text(_publication(i)))
            conn.execute(text(_registration(i, number)))
    upgrade(engine)
    sessions = session_factory(engine)
    with sessions() as s:
        assert s.scalar(select(Topic.pipeline)) == "content"
        assert set(s.scalars(select(Registration.pipeline))) == {"content"}
        assert dict(s.execute(select(RegistrationCounter.day, RegistrationCounter.last)).all()) == {
            "20260101": 999, "20260102": 1}
    with sessions.begin() as s:
        assert next_registration_number(s, datetime(2026, 1, 1, 12, tzinfo=timezone.utc)) == "CT-20260101-1000"
    with sessions.begin() as s:  # the same title in another pipeline is another topic
        s.add(Topic(pipeline="news", title="Old topic"))
    engine.dispose()


def test_downgrade_returns_to_the_previous_schema(db_url: str) -> None:
    """0004 downgrades cleanly on an empty ledger (the migration is reversible)."""
    engine = make_engine(db_url)
    upgrade(engine)
    command.downgrade(alembic_config(engine), "0003")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0003"
    engine.dispose()


@pytest.mark.empty_ledger
def test_open_ledger_migrates_a_ledger_behind_head_and_opens_one_at_head_without_alembic(db_url: str) -> None:
    """open_ledger takes a ledger at 0003 to alembic's head; a ledger at head opens without importing alembic."""
    engine = make_engine(db_url)
    command.upgrade(alembic_config(engine), "0003")
    head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
    assert head_revisions() == {head}
    open_ledger(db_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head
    engine.dispose()
    opened = subprocess.run([sys.executable, "-c", "import sys; from pipeline.ledger.db import open_ledger; "
                             "open_ledger(sys.argv[1]); print(sorted(m for m in sys.modules if m == 'alembic'))",
                             db_url], capture_output=True, text=True, timeout=60)
    assert (opened.returncode, opened.stdout) == (0, "[]\n"), opened.stderr


def test_the_thousandth_registration_of_a_day_gets_a_new_number(db_url: str) -> None:
    """Numbers keep counting past 999 without a collision (the old max-over-strings allocator looped at 1000)."""
    sessions = open_ledger(db_url)
    day = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)
    with sessions.begin() as s:
        s.add(RegistrationCounter(day="20260301", last=998))
    numbers = []
    for _ in range(3):
        with sessions.begin() as s:
            numbers.append(next_registration_number(s, day))
    assert numbers == ["CT-20260301-999", "CT-20260301-1000", "CT-20260301-1001"]


def test_a_rolled_back_registration_gives_its_number_back(db_url: str) -> None:
    """The counter moves in the registering transaction: a rollback leaves no gap."""
    sessions = open_ledger(db_url)
    day = datetime(2026, 3, 2, tzinfo=timezone.utc)
    with pytest.raises(RuntimeError), sessions.begin() as s:
        next_registration_number(s, day)
        raise RuntimeError("the registration failed")
    with sessions.begin() as s:
        assert next_registration_number(s, day) == "CT-20260302-001"


def _register_many(db_url: str, pipeline: str, count: int) -> None:
    """One process: open runs and register ``count`` publications through LedgerStore."""
    sessions = session_factory(make_engine(db_url))
    with sessions.begin() as s:
        run_id = runs.open_run(s, trigger="manual", pipeline=pipeline)
        s.execute(text("INSERT INTO topics (pipeline, title, first_seen_at) VALUES (:p, :t, now())"),
                  {"p": pipeline, "t": f"topic of {pipeline}"})
        topic_id = s.scalar(text("SELECT id FROM topics WHERE pipeline = :p"), {"p": pipeline})
        s.execute(text("INSERT INTO drafts (run_id, topic_id, created_at) VALUES (:r, :t, now())"),
                  {"r": run_id, "t": topic_id})
        draft_id = s.scalar(text("SELECT max(id) FROM drafts WHERE run_id = :r"), {"r": run_id})
        s.execute(text("INSERT INTO draft_versions (draft_id, version, kind, title, body, created_at) "
                       "VALUES (:d, 1, 'humanized', 't', 'b', now())"), {"d": draft_id})
        version_id = s.scalar(text("SELECT max(id) FROM draft_versions WHERE draft_id = :d"), {"d": draft_id})
    store = LedgerStore(sessions, run_id, pipeline)
    for i in range(count):
        store.intend_publication(topic_id=topic_id, draft_version_id=version_id, target="local",
                                 key=f"publish:{pipeline}:{i}", digest="0" * 64)
        publication = store.complete_publication(key=f"publish:{pipeline}:{i}", external_id=f"{pipeline}-{i}",
                                                 url=f"http://127.0.0.1/{pipeline}/{i}")
        store.add_registration(publication.id)


@pytest.mark.slow  # several processes
def test_concurrent_processes_never_share_a_number(pg_url: str) -> None:
    """4 processes registering 150 publications each on PostgreSQL: 600 distinct, consecutive numbers."""
    open_ledger(pg_url)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_register_many, args=(pg_url, f"p{i}", 150)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    sessions = open_ledger(pg_url)
    with sessions() as s:
        numbers = list(s.scalars(select(Registration.number)))
        assert s.scalar(select(func.count(func.distinct(Registration.pipeline)))) == 4
    sequence = sorted(int(n.rsplit("-", 1)[1]) for n in numbers)
    assert sequence == list(range(1, 601))


@pytest.mark.slow  # 100,000 topics: about 2 min on PostgreSQL
def test_claim_inserts_a_hundred_thousand_new_topics_and_takes_the_first(db_url: str) -> None:
    """100,000 topics not yet in the ledger: inserted in batches (no bind-parameter limit), the first one claimed."""
    sessions = open_ledger(db_url)
    with sessions.begin() as s:
        run_id = runs.open_run(s, trigger="manual")
    titles = [f"Topic {i:06d}" for i in range(100_000)]
    topic = LedgerStore(sessions, run_id).claim_topic(titles, None)
    assert topic is not None and topic.title == "Topic 000000"
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Topic)) == 100_000
    with sessions.begin() as s:
        second = runs.open_run(s, trigger="manual")
    assert LedgerStore(sessions, second).claim_topic(titles, None).title == "Topic 000001"  # type: ignore[union-attr]
    sessions.kw["bind"].dispose()
