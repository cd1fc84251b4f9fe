"""Many `factline run` processes at once on one ledger, and an audit of what the target really holds.

A ``Swarm`` is one trial's world: a ledger (SQLite or PostgreSQL), a topics file of titles of its own
(a tag makes them unique, so the WordPress posts of one trial are told apart from every other's), the
scripted model of this process, and a target: the local one (its folder served by this process on a
fixed port, so a page stays reachable after the process that wrote it is killed) or the test WordPress.
``run(n)`` starts n processes together and may SIGKILL some of them at random moments of their runs. ``audit``
compares the ledger with the target: duplicate items, items without a publications row, rows without
an item, runs left `running`, pending intents, and tracebacks in what the processes printed.
Used by tests/pipeline/ledger/test_concurrency.py and scripts/chaos.py.
"""

from __future__ import annotations

import html
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from testkit.wordpress import WordPress

ROOT = Path(__file__).resolve().parent.parent


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return None


@dataclass(frozen=True)
class Exit:
    """How one `factline run` process ended."""

    code: int
    killed: bool
    output: str
    seconds: float
    pid: int


@dataclass
class Audit:
    """The ledger against the target after a trial."""

    runs: int
    verdicts: dict[str, int]
    left_running: int
    publications: int
    pending_intents: int
    items: int  # posts (WordPress) or pages (local) of this trial on the target
    duplicate_items: int  # items beyond the first for one topic title
    duplicate_rows: int  # publications rows beyond the first for one topic
    items_without_row: int
    rows_without_item: int
    runs_sharing_a_topic: int  # successful runs whose topic another successful run also had
    tracebacks: int
    notes: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        found = [f"{name.replace('_', ' ')}: {value}" for name, value in (
            ("left_running", self.left_running), ("duplicate_items", self.duplicate_items),
            ("duplicate_rows", self.duplicate_rows), ("items_without_row", self.items_without_row),
            ("rows_without_item", self.rows_without_item), ("runs_sharing_a_topic", self.runs_sharing_a_topic),
            ("tracebacks", self.tracebacks)) if value]
        return found + self.notes


class Swarm:
    """One trial: ``topics`` fresh titles, a ledger at ``db_url``, the target ``wp`` (WordPress) or local."""

    def __init__(self, db_url: str, workdir: Path, model_url: str, *, topics: int, wp: WordPress | None = None,
                 **env: str) -> None:
        self.db_url, self.workdir, self.wp = db_url, workdir, wp
        self.tag = uuid.uuid4().hex[:8]
        self.titles = [f"Swarm {self.tag} topic {i:02d}" for i in range(topics)]
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "topics.txt").write_text("\n".join(self.titles) + "\n", encoding="utf-8")
        self.site = workdir / "site"
        self.site.mkdir(exist_ok=True)
        self._server: ThreadingHTTPServer | None = None
        base = {k: v for k, v in os.environ.items() if not k.startswith(("FACTLINE_", "SCHEDULE_", "REPORT_", "ALERT_"))}
        self.env = {**base, "PYTHONPATH": str(ROOT), "DATABASE_URL": db_url, "OPENAI_BASE_URL": model_url,
                    "FACTLINE_MODEL": "scripted", "TOPICS_SOURCE": str(workdir / "topics.txt"),
                    "PUBLISH_DOMAIN_WHITELIST": "127.0.0.1", "RETRY_BASE_DELAY": "0.05", "RETRY_MAX_WAIT": "1",
                    "HTTP_TIMEOUT_SECONDS": "20", "LOG_LEVEL": "WARNING", "METRICS_PORT": "0"}
        if wp is not None:
            self.env.update({"PUBLISH_TARGET": "wordpress", "WORDPRESS_URL": wp.url, "WORDPRESS_USER": wp.user,
                             "WORDPRESS_APP_PASSWORD": wp.app_password})
        else:
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(self.site)))
            threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()  # closes in <= 50 ms
            self.env.update({"PUBLISH_TARGET": "local", "LOCAL_SITE_DIR": str(self.site),
                             "LOCAL_SITE_PORT": str(self._server.server_address[1])})
        self.env.update(env)
        self.exits: list[Exit] = []

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> Swarm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # running ------------------------------------------------------------------------------------
    def start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "pipeline.cli", "run"], cwd=self.workdir, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)

    def run(self, n: int, kills: int = 0, within: float = 0.0, timeout: float = 300) -> list[Exit]:
        """Start ``n`` processes together; SIGKILL ``kills`` of them, each at a random moment within ``within``
        seconds after its run row appeared (so kills fall inside runs, not during Python's start-up)."""
        started = time.monotonic()
        procs = [self.start() for _ in range(n)]
        outputs: dict[int, tuple[bytes, float]] = {}

        def read(p: subprocess.Popen[bytes]) -> None:
            assert p.stdout is not None
            output = p.stdout.read()  # until the process (and all it started) closed it: its end
            outputs[p.pid] = (output, time.monotonic() - started)

        readers = [threading.Thread(target=read, args=(p,), daemon=True) for p in procs]
        for reader in readers:
            reader.start()
        killed = self._kill(random.sample(procs, min(kills, n)), within, started + timeout) if kills else set()
        for p in procs:
            try:
                p.wait(max(1.0, timeout - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                killed.add(p.pid)
        for reader in readers:
            reader.join(10)
        exits = []
        for p in procs:
            output, seconds = outputs.get(p.pid, (b"", time.monotonic() - started))
            exits.append(Exit(p.returncode, p.pid in killed, output.decode("utf-8", "replace"), seconds, p.pid))
        self.exits.extend(exits)
        return exits

    def _kill(self, victims: list[subprocess.Popen[bytes]], within: float, deadline: float) -> set[int]:
        delay = {p.pid: random.uniform(0.0, within) for p in victims}
        alive = {p.pid: p for p in victims}
        opened: dict[int, float] = {}
        killed: set[int] = set()
        engine = create_engine(self.db_url)
        try:
            while alive and time.monotonic() < deadline:
                waiting = [pid for pid in alive if pid not in opened]
                if waiting:
                    try:
                        with engine.connect() as conn:
                            rows = conn.execute(text("SELECT pid FROM runs WHERE pid IN (%s)" % ",".join(
                                str(pid) for pid in waiting))).scalars().all()
                    except DBAPIError:  # the ledger is not migrated yet
                        rows = []
                    opened.update({pid: time.monotonic() for pid in rows})
                for pid, p in list(alive.items()):
                    if p.poll() is not None:
                        del alive[pid]
                    elif pid in opened and time.monotonic() >= opened[pid] + delay[pid]:
                        os.killpg(pid, signal.SIGKILL)  # the run and anything it started
                        killed.add(pid)
                        del alive[pid]
                time.sleep(0.05)
        finally:
            engine.dispose()
        return killed

    # judging ------------------------------------------------------------------------------------
    def items(self) -> dict[str, str]:
        """What the target holds for this trial: external id -> title."""
        if self.wp is None:
            found = {}
            for page in self.site.glob("a-*.html"):  # article pages (capabilities.targets.local: "a-" + key digest)
                title = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"))
                found[page.stem] = html.unescape(title.group(1)) if title else ""
            return found
        posts: dict[str, str] = {}
        with self.wp.client() as http:
            for page in range(1, 100):
                r = http.get(f"{self.wp.url}/wp-json/wp/v2/posts", params={
                    "search": self.tag, "status": "publish,future,draft,pending,private", "context": "edit",
                    "per_page": 100, "page": page, "_fields": "id,title"})
                r.raise_for_status()
                posts.update({str(p["id"]): html.unescape(p["title"]["raw"]) for p in r.json()})
                if page >= int(r.headers.get("x-wp-totalpages", "1")):
                    break
        return posts

    def run_seconds(self) -> list[float]:
        """How long each finished run took, from its row's start to its end."""
        engine = create_engine(self.db_url)
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT started_at, finished_at FROM runs WHERE finished_at IS NOT NULL")).all()
        engine.dispose()
        return [(_utc(end) - _utc(start)).total_seconds() for start, end in rows]

    def stages(self) -> Counter[str]:
        """Where each killed process was: the last tool call its run recorded, or that it had no run row yet."""
        killed = [e.pid for e in self.exits if e.killed]
        engine = create_engine(self.db_url)
        with engine.connect() as conn:
            last = dict(conn.execute(text(
                "SELECT r.pid, coalesce((SELECT c.name || ' ' || c.outcome FROM tool_calls c WHERE c.run_id = r.id "
                "ORDER BY c.seq DESC LIMIT 1), 'run opened') FROM runs r")).all())
        engine.dispose()
        return Counter(last.get(pid, "before its run row") for pid in killed)

    def audit(self) -> Audit:
        engine = create_engine(self.db_url)
        with engine.connect() as conn:
            q = lambda sql: [tuple(r) for r in conn.execute(text(sql))]  # noqa: E731
            verdicts = dict(q("SELECT coalesce(verdict, status), count(*) FROM runs GROUP BY 1"))
            runs = sum(verdicts.values())
            left_running = q("SELECT count(*) FROM runs WHERE status IN ('queued', 'running')")[0][0]
            rows = q("SELECT p.external_id, t.title FROM publications p JOIN topics t ON t.id = p.topic_id")
            pending = q("SELECT count(*) FROM publication_intents WHERE status = 'pending'")[0][0]
            sharing = q("SELECT count(*) FROM runs WHERE verdict = 'success' AND topic_id IN (SELECT topic_id "
                        "FROM runs WHERE verdict = 'success' GROUP BY topic_id HAVING count(*) > 1)")[0][0]
        engine.dispose()
        items = self.items()
        row_ids = {external_id for external_id, _ in rows}
        duplicate_items = sum(n - 1 for n in Counter(_article_title(t) for t in items.values()).values())
        duplicate_rows = sum(n - 1 for n in Counter(title for _, title in rows).values())
        tracebacks = sum("Traceback (most recent call last)" in e.output for e in self.exits)
        return Audit(runs=runs, verdicts=verdicts, left_running=left_running, publications=len(rows),
                     pending_intents=pending, items=len(items), duplicate_items=duplicate_items,
                     duplicate_rows=duplicate_rows, items_without_row=len(set(items) - row_ids),
                     rows_without_item=len(row_ids - set(items)), runs_sharing_a_topic=sharing,
                     tracebacks=tracebacks)


def _utc(when: datetime | str) -> datetime:
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when


def _article_title(title: str) -> str:
    """The topic an article's title is about (the scripted writer puts the topic title in it)."""
    match = re.search(r"Swarm \w+ topic \d+", title)
    return match.group() if match else title
