"""Secrets never leave: planted secrets, every failure path, then a grep of everything factline wrote or showed.

Planted: OPENAI_API_KEY, the password in DATABASE_URL (PostgreSQL's trust auth accepts any), a WordPress
application password and WEB_TOKEN. Failure paths, each a real process: an endpoint whose 400 echoes the
request's Authorization header (the key); a WordPress whose 400 echoes the Basic credentials; an unreachable
ledger; a crash; in text logs at INFO and JSON logs at DEBUG (variables dumped). Then grepped: every row of
the ledger, stderr and stdout of each command, `factline runs --json`, `factline diff`, scripts/ledger_diff.py,
the daemon's /metrics and the alert webhook's bodies.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, inspect, text

from testkit.daemon_process import DaemonProcess, daemon_env, wait_for
from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import ROOT, factline, user_env
from tests.local_http import LocalHTTP

KEY = "sk-planted-KEY-9f8e7d6c5b4a"
DB_PASSWORD = "planted-DB-pw-31337"
WP_PASSWORD = "abcd EFGH ijkl MNOP qrst UVWX"
WEB_TOKEN = "planted-web-token-0123456789"
WP_USER = "editor"
SECRETS = [KEY, DB_PASSWORD, WP_PASSWORD, WP_PASSWORD.replace(" ", ""), WEB_TOKEN,
           base64.b64encode(f"{WP_USER}:{WP_PASSWORD}".encode()).decode()]


class Echo(BaseHTTPRequestHandler):
    """Answers every request 400 with a JSON error quoting the request's Authorization header (decoded when Basic)."""

    def _echo(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        auth = self.headers.get("Authorization", "")
        decoded = base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else ""
        body = json.dumps({"error": {"message": f"bad request from {auth} ({decoded})", "code": "rest_invalid"},
                           "code": "rest_invalid", "message": f"invalid: {auth} {decoded}"}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_HEAD = _echo

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture
def echo() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()  # closes in <= 50 ms
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def with_password(pg_url: str) -> str:
    user_part, rest = pg_url.split("://", 1)[1].split("@", 1)
    return f"postgresql+psycopg://{user_part}:{DB_PASSWORD}@{rest}"


def secret_env(db_url: str, base_url: str, tmp_path: Path, **values: str) -> dict[str, str]:
    return user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=base_url, OPENAI_API_KEY=KEY, FACTLINE_MODEL="scripted",
                    LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT="0", RETRY_BASE_DELAY="0.01",
                    RETRY_MAX_ATTEMPTS="2", WORDPRESS_USER=WP_USER, WORDPRESS_APP_PASSWORD=WP_PASSWORD,
                    WEB_TOKEN=WEB_TOKEN, **values)


def ledger_text(db_url: str) -> str:
    """Every row of every ledger table, as one text."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return "\n".join(str(tuple(row)) for table in inspect(conn).get_table_names()
                             for row in conn.execute(text(f'SELECT * FROM "{table}"')))
    finally:
        engine.dispose()


def leaks(where: str, output: str) -> list[str]:
    return [f"{where}: {secret[:12]}..." for secret in SECRETS if secret in output]


@pytest.mark.slow  # every command and a daemon as processes
def test_no_planted_secret_reaches_the_ledger_logs_commands_metrics_or_webhooks(
        pg_url: str, echo: str, model: ScriptedModel, tmp_path: Path) -> None:
    """Every failure path with planted secrets; the secrets appear nowhere, and each path really failed."""
    db_url = with_password(pg_url)
    found: list[str] = []
    outputs: dict[str, subprocess.CompletedProcess[str]] = {}
    # the endpoint's 400 quotes the key; text logs at INFO, JSON logs at DEBUG (diagnose: variables dumped)
    for fmt, level in (("text", "INFO"), ("json", "DEBUG")):
        outputs[f"endpoint-{fmt}"] = factline(secret_env(db_url, f"{echo}/v1", tmp_path, LOG_FORMAT=fmt,
                                                         LOG_LEVEL=level), "run", cwd=tmp_path)
    # WordPress answers 400 quoting the Basic credentials; the model is the scripted one
    outputs["wordpress"] = factline(secret_env(db_url, model.base_url, tmp_path, PUBLISH_TARGET="wordpress",
                                               WORDPRESS_URL=echo, LOG_FORMAT="json", LOG_LEVEL="DEBUG"),
                                    "run", cwd=tmp_path)
    # the ledger's server cannot be reached
    unreachable = db_url.replace("@127.0.0.1:5432/", "@127.0.0.1:1/")
    outputs["unreachable"] = factline(secret_env(unreachable, model.base_url, tmp_path), "run", cwd=tmp_path)
    outputs["unreachable-runs"] = factline(secret_env(unreachable, model.base_url, tmp_path), "runs", cwd=tmp_path)
    # a crash (a capability raising) with variables dumped at DEBUG
    outputs["crash"] = subprocess.run(
        [sys.executable, "-c", CRASH], env=secret_env(db_url, model.base_url, tmp_path, LOG_LEVEL="DEBUG"),
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    env = secret_env(db_url, model.base_url, tmp_path)
    for name, args in {"runs-json": ("runs", "--json"), "runs-detail": ("runs", "--run", "1", "--json"),
                       "diff": ("diff", "--last", "5"), "diff-json": ("diff", "--last", "5", "--json")}.items():
        outputs[name] = factline(env, *args, cwd=tmp_path)
    outputs["ledger_diff"] = subprocess.run([sys.executable, "scripts/ledger_diff.py", "--last", "5"], env=env,
                                            cwd=ROOT, capture_output=True, text=True, timeout=180)
    for name, done in outputs.items():
        found += leaks(f"{name} stdout", done.stdout) + leaks(f"{name} stderr", done.stderr)
        assert "Traceback" not in done.stderr or name == "crash", (name, done.stderr[-2000:])
    # the daemon: the same 400, an alert to the webhook, /metrics
    with LocalHTTP() as hook:
        daemon = DaemonProcess(daemon_env(db_url, f"{echo}/v1", tmp_path, OPENAI_API_KEY=KEY,
                                          ALERT_WEBHOOK_URL=hook.url("/hook"), RETRY_MAX_ATTEMPTS="1",
                                          WEB_TOKEN=WEB_TOKEN, LOG_FORMAT="json"), tmp_path / "daemon.log")
        try:
            wait_for(lambda: any(path == "/hook" for path in hook.paths()), timeout=60)
            metrics = httpx.get(daemon.metrics_url, timeout=10).text
        finally:
            daemon.stop()
        bodies = "\n".join(body.decode() for _, path, body in hook.requests if path == "/hook")
    found += leaks("webhook", bodies) + leaks("metrics", metrics) + leaks("daemon log", daemon.logs())
    ledger = ledger_text(pg_url)
    found += leaks("ledger", ledger)
    assert found == []
    # each path failed as it should, and its trace reached the ledger (so the grep above looked at something)
    assert outputs["endpoint-text"].returncode == 1 and "HTTP 400" in ledger and "[redacted]" in ledger
    assert outputs["wordpress"].returncode != 0 and "publish" in ledger
    assert outputs["unreachable"].returncode == 1 and "failed: OperationalError" in outputs["unreachable"].stderr
    assert outputs["crash"].stdout.startswith("error pick_topic raised RuntimeError: crashed holding "
                                              "postgresql+psycopg://postgres:[redacted]@")
    assert "crashed holding" in ledger
    assert '"verdict":"error"' in bodies and "factline_" in metrics


CRASH = """
import sys
from capabilities.pick_topic import PickTopic
from config import load_settings
from pipeline.runtime import open_runtime
from pipeline.runner import run_once
from pipeline import logs
from config.secrets import Redactor

def broken(self, ctx, prepared):
    secret_in_a_local = ctx.settings.openai_api_key.get_secret_value()
    raise RuntimeError("crashed holding " + ctx.settings.deployment().ledger.url)

PickTopic.execute = broken
settings = load_settings()
logs.configure(settings.deployment().logs, Redactor.of(settings.deployment(), settings))
with open_runtime(settings) as rt:
    result = run_once(rt)
print(result.verdict, result.error)
"""
