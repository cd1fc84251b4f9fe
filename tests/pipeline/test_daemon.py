"""`factline daemon` as real processes: replicas on one PostgreSQL ledger, signals, kill -9, alerts, metrics."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from testkit.daemon_process import DaemonProcess, LedgerProbe, daemon_env, wait_for
from tests.local_http import LocalHTTP, trickle
from testkit.scripted_model import ScriptedModel, happy_path, say, script
from tests.paths import ROOT

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SCHEDULED = "SELECT id, scheduled_for, pid, verdict FROM runs WHERE trigger = 'schedule' ORDER BY scheduled_for"


def slow(policy: Any, seconds: float) -> Any:
    """``policy`` with every answer delayed, so a run is reliably in flight when the test acts."""
    return lambda request: dataclasses.replace(policy(request), delay=seconds)


@pytest.fixture
def probe(pg_url: str) -> Iterator[LedgerProbe]:
    p = LedgerProbe(pg_url)
    yield p
    p.close()


@pytest.mark.slow  # three daemons for 30 s
def test_three_replicas_run_each_tick_exactly_once(pg_url: str, model: ScriptedModel, probe: LedgerProbe,
                                                   tmp_path: Path) -> None:
    """Three daemons on one PostgreSQL ledger, ticking every second: one run per tick, nothing published twice."""
    env = daemon_env(pg_url, model.base_url, tmp_path, LOG_FORMAT="json")
    replicas = [DaemonProcess(env, tmp_path / "replica-0.log")]  # migrates the ledger before the others start
    try:
        replicas += [DaemonProcess(env, tmp_path / f"replica-{i}.log") for i in (1, 2)]
        wait_for(lambda: probe.scalar("SELECT count(*) FROM runs WHERE status <> 'running'") >= 32, timeout=120,
                 interval=0.5)
    finally:  # replica 0 serves the local site the others publish to: it stops last
        codes = [r.stop() for r in reversed(replicas)]
    assert codes == [0, 0, 0]
    runs = probe.rows(SCHEDULED)
    ticks = [r[1] for r in runs]
    assert len(ticks) >= 32 and len(set(ticks)) == len(ticks)
    assert all(t.microsecond == 0 and t.utcoffset().total_seconds() == 0 for t in ticks)
    assert len(runs) <= (ticks[-1] - ticks[0]).total_seconds() + 1  # no tick ran twice under two names
    assert len({r[2] for r in runs}) >= 2  # the ticks were shared out, not taken by one replica
    records = [json.loads(line)["record"] for r in replicas for line in r.logs().splitlines() if line.startswith("{")]
    lost = {datetime.fromisoformat(r["extra"]["scheduled_for"]) for r in records if r["message"] == "tick.skipped"}
    assert lost and lost <= set(ticks)  # a replica loses a tick only to a run of that very tick
    assert all(isinstance(r["extra"]["run_id"], int) for r in records if r["message"].startswith(("tool.", "run.")))
    assert {r[3] for r in runs} <= {"success", "interrupted"}
    assert probe.scalar("SELECT count(*) FROM publications") == probe.scalar(
        "SELECT count(DISTINCT topic_id) FROM publications")
    assert probe.scalar("SELECT count(*) FROM registrations") == probe.scalar(
        "SELECT count(DISTINCT publication_id) FROM registrations")
    # one registration per successful run; the only other owner is a run the stop caught between register and
    # report (SIGTERM lets a call finish, then starts no step: test_sigterm_lets_the_tool_call_finish...)
    by_run = probe.rows("SELECT r.verdict, r.stop_reason, count(g.id) FROM runs r LEFT JOIN registrations g "
                        "ON g.run_id = r.id GROUP BY r.id, r.verdict, r.stop_reason")
    assert all(n == 1 for verdict, _, n in by_run if verdict == "success")
    assert all((verdict, reason) == ("interrupted", "signal") for verdict, reason, n in by_run
               if verdict != "success" and n)


def test_sigterm_lets_the_tool_call_finish_and_records_interrupted(pg_url: str, model: ScriptedModel,
                                                                  probe: LedgerProbe, tmp_path: Path) -> None:
    """SIGTERM mid-run: the run stops before its next step as `interrupted`, no new run starts, exit 0."""
    model.policy = slow(happy_path, 0.4)
    daemon = DaemonProcess(daemon_env(pg_url, model.base_url, tmp_path), tmp_path / "daemon.log")
    wait_for(lambda: probe.scalar(
        "SELECT count(*) FROM tool_calls JOIN runs ON runs.id = tool_calls.run_id WHERE runs.status = 'running'"),
        timeout=30)
    assert daemon.stop(signal.SIGTERM, timeout=20) == 0  # the bound: one slow model turn, with room for a busy CI
    runs = probe.rows("SELECT id, status, verdict, stop_reason FROM runs ORDER BY id")
    assert len(runs) == 1
    assert runs[0][1:] == ("interrupted", "interrupted", "signal")
    outcomes = [r[0] for r in probe.rows("SELECT outcome FROM tool_calls ORDER BY seq")]
    assert outcomes and set(outcomes) == {"ok"} and len(outcomes) < 6


@pytest.mark.slow  # two daemon processes
def test_restart_after_kill_marks_the_run_interrupted_and_keeps_its_publication(
        pg_url: str, model: ScriptedModel, probe: LedgerProbe, tmp_path: Path) -> None:
    """kill -9 after publish: the next start marks the dead run interrupted; the topic is registered, not republished."""
    model.policy = slow(happy_path, 0.3)
    # a fixed site port, as in production: a publication's URL names the port of the process that made it
    env = daemon_env(pg_url, model.base_url, tmp_path, LOCAL_SITE_PORT=str(free_port()))
    daemon = DaemonProcess(env, tmp_path / "first.log")
    wait_for(lambda: probe.scalar("SELECT count(*) FROM publications"), timeout=30, interval=0.02)
    daemon.kill()
    dead = probe.rows("SELECT id, status FROM runs ORDER BY id")
    assert dead[-1][1] == "running"
    model.policy = happy_path
    restarted = DaemonProcess(env, tmp_path / "second.log")
    try:
        wait_for(lambda: probe.scalar("SELECT count(*) FROM registrations"), timeout=30)
    finally:
        assert restarted.stop() == 0
    assert probe.rows("SELECT status, verdict, stop_reason FROM runs WHERE id = :id", id=dead[-1][0]) == [
        ("interrupted", "interrupted", "process_died")]
    first_publication = probe.rows("SELECT id, topic_id FROM publications ORDER BY id")[0]
    assert probe.scalar("SELECT count(*) FROM publications WHERE topic_id = :t", t=first_publication[1]) == 1
    assert probe.scalar("SELECT publication_id FROM registrations ORDER BY id LIMIT 1") == first_publication[0]


def test_a_stop_signal_the_kernel_gives_another_thread_still_stops_the_main_thread(tmp_path: Path) -> None:
    """SIGTERM handled by a non-main thread (the kernel may pick any): the main thread still acts on it at once."""
    code = ("import signal, threading\n"
            "from pipeline.stopping import on_stop_signals, wait_for_stop\n"
            "stop = threading.Event()\n"
            "on_stop_signals(stop)\n"
            "threading.Thread(target=lambda: signal.pthread_kill(threading.get_ident(), signal.SIGTERM)).start()\n"
            "wait_for_stop(stop)\n"
            "print('stopped')\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout) == (0, "stopped\n"), done.stderr
    assert time.monotonic() - started < 30  # an untimed Event.wait() would wait here for a second signal


@pytest.mark.parametrize(("variable", "value"), [
    ("SCHEDULE_CRON", "every day at six"), ("SCHEDULE_CRON", "0 25 * * *"), ("REPORT_CRON", "* * * * 9"),
    ("SCHEDULE_TIMEZONE", "Mars/Olympus_Mons"),
])
def test_bad_schedule_fails_at_start_with_one_line(variable: str, value: str, tmp_path: Path) -> None:
    """A bad cron expression or time zone: exit 2 and one line on stderr naming the variable."""
    env = daemon_env(f"sqlite:///{tmp_path}/ledger.db", "http://127.0.0.1:9/v1", tmp_path, **{variable: value})
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "daemon"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and variable in done.stderr
    assert not (tmp_path / "ledger.db").exists()  # nothing started


class Webhook:
    """A local HTTP server that keeps every JSON body POSTed to it."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                hook.bodies.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
                self.send_response(204)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()  # closes in <= 50 ms

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_hallucinated_run_posts_an_alert_without_secrets(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A run that only claims success in prose ends hallucinated and the webhook gets run_id, verdict, reason."""
    model.policy = script(say("已发布，登记号 CT-20260101-001"), say("已发布"), say("已发布"))
    hook = Webhook()
    env = daemon_env(db_url, model.base_url, tmp_path, ALERT_WEBHOOK_URL=hook.url,
                     OPENAI_API_KEY="sk-secret-do-not-send")
    daemon = DaemonProcess(env, tmp_path / "daemon.log")
    try:
        wait_for(lambda: hook.bodies, timeout=30)
    finally:
        assert daemon.stop() == 0
        hook.close()
    body = hook.bodies[0]
    assert (body["verdict"], body["reason"]) == ("hallucinated", "nudges_exhausted")
    assert isinstance(body["run_id"], int) and body["unbacked_claims"]
    assert "sk-secret" not in json.dumps(body)


def test_a_trickling_webhook_never_wedges_the_daemon_and_sigterm_stays_prompt(model: ScriptedModel,
                                                                            tmp_path: Path) -> None:
    """Every run alerts a webhook that answers a byte every 0.2 s: runs go on each second, each POST is cut at
    ALERT_DEADLINE_SECONDS, and SIGTERM still ends the daemon within seconds with exit 0."""
    model.policy = lambda request: say("Done.")  # each run ends incomplete, and so alerts
    with LocalHTTP() as hook:
        hook.routes["/hook"] = trickle(b" ", every=0.2)
        env = daemon_env(f"sqlite:///{tmp_path}/ledger.db", model.base_url, tmp_path, ALERT_WEBHOOK_URL=hook.url("/hook"),
                         ALERT_DEADLINE_SECONDS="1", AGENT_MAX_CONTINUE_PROMPTS="0")
        daemon = DaemonProcess(env, tmp_path / "daemon.log")
        probe = LedgerProbe(f"sqlite:///{tmp_path}/ledger.db")
        try:
            wait_for(lambda: probe.scalar("SELECT count(*) FROM runs WHERE status = 'finished'") >= 4
                     and len(hook.requests) >= 3, timeout=60, interval=0.2)
        finally:
            started = time.monotonic()
            code = daemon.stop()
            stopped_in = time.monotonic() - started
            probe.close()
    assert code == 0 and stopped_in < 10
    assert daemon.logs().count("alert.failed") >= 2 and "error=deadline" in daemon.logs()
    alerted = {json.loads(body)["run_id"] for _, _, body in hook.requests}
    assert len(alerted) == len(hook.requests)  # one POST per run


def test_a_day_with_nothing_online_alerts_once_at_report_cron(model: ScriptedModel, tmp_path: Path) -> None:
    """REPORT_CRON fires every second on a day without publications: one no_publication alert for that day."""
    hook = Webhook()
    env = daemon_env(f"sqlite:///{tmp_path}/ledger.db", model.base_url, tmp_path, ALERT_WEBHOOK_URL=hook.url,
                     SCHEDULE_CRON="0 0 1 1 *", REPORT_CRON="* * * * * *")
    daemon = DaemonProcess(env, tmp_path / "daemon.log")
    try:
        wait_for(lambda: daemon.logs().count("report.daily") >= 3, timeout=30)
    finally:
        assert daemon.stop() == 0
        hook.close()
    [body] = hook.bodies
    assert body["event"] == "no_publication" and body["runs"] == 0
    assert body["text"] == f"factline: nothing published online on {body['day']} (UTC); 0 runs"


def _samples(metrics_url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    families = text_string_to_metric_families(httpx.get(metrics_url).text)
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for family in families for s in family.samples}


FINISHED_CALLS = ("SELECT tool_calls.name, tool_calls.outcome, count(*) FROM tool_calls JOIN runs ON runs.id = "
                  "tool_calls.run_id WHERE runs.status <> 'running' GROUP BY tool_calls.name, tool_calls.outcome")
# the gauge's definition, over finished runs only: a run in flight may have registered already, but the
# daemon sets the gauge when the run is over
FINISHED_LAST_PUBLICATION = ("SELECT max(publications.verified_at) FROM publications JOIN registrations ON "
                             "registrations.publication_id = publications.id JOIN runs ON runs.id = registrations.run_id "
                             "WHERE runs.status <> 'running'")


def _metrics_with_ledger(metrics_url: str, probe: LedgerProbe) -> tuple[dict, list[tuple], object] | None:
    """/metrics and the finished runs' rows at one moment: None while a run is being counted."""
    before = _samples(metrics_url)
    finished = probe.scalar("SELECT count(*) FROM runs WHERE status <> 'running'")
    calls = probe.rows(FINISHED_CALLS)
    verified = probe.scalar(FINISHED_LAST_PUBLICATION)
    after = _samples(metrics_url)
    counted = sum(v for (name, _), v in after.items() if name == "factline_runs_total")
    return (after, calls, verified) if before == after and counted == finished >= 1 else None


def test_metrics_count_what_the_runs_recorded(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """/metrics shows runs by verdict, tool calls by name and outcome, and the last publication as the ledger has them."""
    probe = LedgerProbe(db_url)
    daemon = DaemonProcess(daemon_env(db_url, model.base_url, tmp_path, SCHEDULE_CRON="*/2 * * * * *"),
                           tmp_path / "daemon.log")
    try:
        assert httpx.get(daemon.metrics_url.replace("/metrics", "/healthz")).status_code == 200
        samples, calls, verified = wait_for(lambda: _metrics_with_ledger(daemon.metrics_url, probe),  # type: ignore[misc]
                                            timeout=60)
    finally:
        assert daemon.stop() == 0
        probe.close()
    assert {name for name, _, _ in calls} == {"pick_topic", "write_draft", "humanize", "fact_check", "publish", "register", "report"}
    for name, outcome, count in calls:
        assert samples[("factline_tool_calls_total", (("name", name), ("outcome", outcome), ("pipeline", "content")))] == count
    assert samples[("factline_runs_total", (("pipeline", "content"), ("verdict", "success")))] >= 1
    when = verified if isinstance(verified, datetime) else datetime.fromisoformat(str(verified))
    expected = (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()
    assert samples[("factline_last_publication_timestamp_seconds", (("pipeline", "content"),))] == pytest.approx(
        expected, abs=0.01)


def test_daemon_logs_the_daily_report_at_report_cron(model: ScriptedModel, tmp_path: Path) -> None:
    """At REPORT_CRON the daemon logs `report.daily` with the day's report text, counted from the ledger."""
    env = daemon_env(f"sqlite:///{tmp_path}/ledger.db", model.base_url, tmp_path, LOG_FORMAT="json",
                     SCHEDULE_CRON="0 0 1 1 *", REPORT_CRON="* * * * * *")
    daemon = DaemonProcess(env, tmp_path / "daemon.log")
    try:
        wait_for(lambda: "report.daily" in daemon.logs(), timeout=30)
    finally:
        assert daemon.stop() == 0
    record = next(json.loads(line)["record"] for line in daemon.logs().splitlines()
                  if line.startswith("{") and '"report.daily"' in line)
    assert record["extra"]["report"].splitlines()[0] == f"{record['extra']['day']} (UTC): no publications"
