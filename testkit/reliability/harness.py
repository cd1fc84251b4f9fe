"""The reliability suite's lab: `factline run` as a subprocess against the test WordPress, and what it left.

A ``Lab`` is one scenario's world: a fresh SQLite ledger, a topics file with one topic of its own
(so its idempotency key, hence its WordPress slug, is unique), a ScriptedModel in this process, and
the test WordPress. ``run()`` starts ``python -m pipeline.cli run`` with the environment a deployment
would set; the ledger, the posts WordPress holds and nginx's access log are read afterwards.
Checks are collected (``check``), not asserted, so the script can print a table and the tests fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from capabilities.publish import publication_key
from capabilities.records import TopicRecord
from capabilities.targets.wordpress import slug_for
from pipeline.ledger.detail import CallRow, RunDetail, run_detail
from pipeline.ledger.db import make_engine, session_factory
from pipeline.ledger.models import Publication, Registration, Run, Topic
from testkit.scripted_model import Policy, ScriptedModel, default_writer, happy_path
from testkit.wordpress import WordPress

REPO = Path(__file__).resolve().parents[2]
LIVE = {"publish", "future", "draft", "pending", "private"}
RETRY_MAX_ATTEMPTS = 3
HTTP_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Finished:
    """One `factline run` process: its exit code, wall time and output."""

    exit_code: int
    seconds: float
    stdout: str
    stderr: str


@dataclass
class Outcome:
    """What a scenario observed, and the checks that did not hold (empty: the scenario passed)."""

    observed: str = ""
    posts: int = 0
    registrations: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


@dataclass
class Lab:
    """One scenario's ledger, topic, scripted model and WordPress."""

    wp: WordPress
    workdir: Path
    model: ScriptedModel
    topic: str
    db_url: str
    outcome: Outcome = field(default_factory=Outcome)

    # --- running factline -----------------------------------------------------------------
    def env(self, **overrides: str) -> dict[str, str]:
        """The environment of `factline run`: real WordPress, scripted model, short retries and timeouts."""
        values = {
            "DATABASE_URL": self.db_url,
            "OPENAI_BASE_URL": self.model.base_url,
            "FACTLINE_MODEL": "scripted",
            "PUBLISH_TARGET": "wordpress",
            "WORDPRESS_URL": self.wp.url,
            "WORDPRESS_USER": self.wp.user,
            "WORDPRESS_APP_PASSWORD": self.wp.app_password,
            "PUBLISH_DOMAIN_WHITELIST": "127.0.0.1",
            "RETRY_MAX_ATTEMPTS": str(RETRY_MAX_ATTEMPTS),
            "RETRY_BASE_DELAY": "0.05",
            "RETRY_MAX_WAIT": "1",
            "HTTP_TIMEOUT_SECONDS": str(HTTP_TIMEOUT_SECONDS),
            "TOPICS_SOURCE": str(self.workdir / "topics.txt"),
            "LOG_LEVEL": "WARNING",
        }
        return {**os.environ, "PYTHONPATH": str(REPO), **values, **overrides}

    def start(self, policy: Policy = happy_path, **env: str) -> subprocess.Popen[str]:
        """Start `factline run` (cwd is the scenario's directory, so no .env is read)."""
        self.model.policy = policy
        return subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "run"],
            cwd=self.workdir,
            env=self.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(self, policy: Policy = happy_path, timeout: float = 120.0, **env: str) -> Finished:
        """Run `factline run` to its end."""
        started = time.monotonic()
        process = self.start(policy, **env)
        stdout, stderr = process.communicate(timeout=timeout)
        seconds = time.monotonic() - started
        self.outcome.seconds += seconds
        return Finished(process.returncode, seconds, stdout, stderr)

    # --- reading what it left -------------------------------------------------------------
    @contextmanager
    def ledger(self) -> Iterator[Session]:
        engine = make_engine(self.db_url)
        sessions: sessionmaker[Session] = session_factory(engine)
        try:
            with sessions() as s:
                yield s
        finally:
            engine.dispose()

    def runs(self) -> list[RunDetail]:
        """Every run's detail (verdict, tool calls, events), oldest first."""
        with self.ledger() as s:
            ids = s.scalars(select(Run.id).order_by(Run.id)).all()
            return [d for i in ids if (d := run_detail(s, i)) is not None]

    def count_registrations(self) -> int:
        with self.ledger() as s:
            return len(s.scalars(select(Registration.id)).all())

    def publications(self) -> list[Publication]:
        with self.ledger() as s:
            rows = s.scalars(select(Publication).order_by(Publication.id)).all()
            s.expunge_all()
            return list(rows)

    def key(self) -> str:
        """The publication key of this lab's topic (the topic row exists once pick_topic ran)."""
        with self.ledger() as s:
            topic = s.scalars(select(Topic).where(Topic.title == self.topic)).one()
            return publication_key("wordpress", TopicRecord(topic.id, topic.title))

    def posts(self) -> list[dict[str, Any]]:
        """Every post WordPress holds under this topic's slug, trashed ones included."""
        return self.wp.posts(key=self.key())

    def live_posts(self) -> list[dict[str, Any]]:
        return [p for p in self.posts() if p["status"] in LIVE]

    def access_log(self) -> list[str]:
        """nginx access-log lines that name this topic's slug (its REST lookups and its post's page)."""
        slug = slug_for(self.key())
        path = self.wp.base / "log" / "nginx-access.log"
        return [line for line in path.read_text(errors="replace").splitlines() if slug in line]

    # --- judging --------------------------------------------------------------------------
    def note(self, observation: str) -> None:
        """Add an observation to the table's 'observed' cell."""
        self.outcome.observed += f"; {observation}"

    def check(self, holds: bool, failure: str) -> None:
        if not holds:
            self.outcome.failures.append(failure)

    def expect_run(self, finished: Finished, exit_code: int, verdict: str) -> RunDetail:
        """Check the last run's exit code and verdict; record them as observed; return its detail."""
        detail = self.runs()[-1]
        self.outcome.observed = f"exit {finished.exit_code}, {detail.verdict}"
        self.check(
            finished.exit_code == exit_code,
            f"exit code {finished.exit_code}, expected {exit_code} "
            f"({detail.stop_reason}: {(detail.error or '')[:200]})",
        )
        self.check(detail.verdict == verdict, f"verdict {detail.verdict}, expected {verdict}")
        return detail

    def expect_posts(self, live: int, registrations: int) -> None:
        """Check how many live posts WordPress holds for the topic and how many registrations the ledger has.

        WordPress is restored first (faults undone): what counts is what it holds once it is healthy again.
        """
        self.wp.restore()
        self.outcome.posts = len(self.live_posts())
        self.outcome.registrations = self.count_registrations()
        self.check(self.outcome.posts == live, f"{self.outcome.posts} live posts in WordPress, expected {live}")
        self.check(
            self.outcome.registrations == registrations,
            f"{self.outcome.registrations} registrations, expected {registrations}",
        )


def calls_named(detail: RunDetail, name: str) -> list[CallRow]:
    return [c for c in detail.tool_calls if c.name == name]


@contextmanager
def open_lab(wp: WordPress, workdir: Path, scenario: str, db_url: str | None = None) -> Iterator[Lab]:
    """A lab with a topic of its own and a fresh ledger (``db_url``, or SQLite in ``workdir``).

    WordPress is restored (faults cleared, servers up) before and after.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    topic = f"Reliability {scenario} {uuid.uuid4().hex[:8]}"
    (workdir / "topics.txt").write_text(topic + "\n", encoding="utf-8")
    wp.restore()
    try:
        with ScriptedModel(writer=default_writer) as model:
            yield Lab(wp, workdir, model, topic, db_url or f"sqlite:///{workdir}/ledger.db")
    finally:
        wp.restore()


@dataclass(frozen=True)
class Scenario:
    """One reliability scenario: a name (also the test's), what should happen, and how to play it."""

    name: str
    expected: str
    play: Callable[[Lab], None]


def play(scenario: Scenario, wp: WordPress, workdir: Path, db_url: str | None = None) -> Outcome:
    """Play ``scenario`` in a fresh lab under ``workdir`` (ledger at ``db_url`` if given); return what it observed."""
    with open_lab(wp, workdir, scenario.name, db_url) as lab:
        scenario.play(lab)
        return lab.outcome
