"""Hostile input gets a clear error and loses nothing: endpoint bodies, usage, topic lines, settings, proxies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from loguru import logger
from sqlalchemy import text

from config import Settings
from config.settings import HOUR
from pipeline.http import RunDeadline, http_client
from pipeline.outcome import RunStatus, Verdict
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.daemon_process import LedgerProbe
from tests.cli_helpers import factline, factline_here, user_env
from tests.local_http import LocalHTTP, answer


@pytest.fixture
def server() -> Iterator[LocalHTTP]:
    with LocalHTTP() as s:
        yield s


@pytest.mark.parametrize(("body", "content_type", "error"), [
    (b'{"id": "x", "choices": [{"mess', "application/json", "LLM endpoint answered invalid JSON (JSONDecodeError)"),
    (b"null", "application/json", "not a chat completion (null)"),
    (b"<html><body>Bad gateway</body></html>", "text/html", "not a chat completion (text of 37 characters"),
    (b"{}", "application/json", "not a chat completion (ChatCompletion)"),
    (b"[1, 2]", "application/json", "not a chat completion (list)"),
    (b'{"choices": [{"index": 0}]}', "application/json", "not a chat completion (ChatCompletion)"),
])
def test_an_answer_that_is_not_a_chat_completion_ends_the_run_as_error_in_one_line(
        body: bytes, content_type: str, error: str, settings: Settings, server: LocalHTTP) -> None:
    """Truncated JSON, null, HTML, no choices: verdict error, a one-line reason, the row closed, nothing executed."""
    server.routes["/v1/chat/completions"] = answer(200, body, {"Content-Type": content_type})
    with open_runtime(settings.model_copy(update={"openai_base_url": server.url("/v1")})) as rt:
        result = run_once(rt)
    assert (result.verdict, result.stop_reason) == (Verdict.error, "llm_request")
    assert error in (result.error or "") and "\n" not in (result.error or "")
    probe = LedgerProbe(settings.deployment().ledger.url)
    try:
        assert probe.rows("SELECT status, verdict FROM runs") == [(RunStatus.finished, Verdict.error)]
        assert probe.rows("SELECT count(*) FROM tool_calls") == [(0,)]
    finally:
        probe.close()


def completion(usage: dict[str, object]) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "usage": usage,
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": "Still thinking."}}]}).encode()


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": -100000, "completion_tokens": 3, "total_tokens": -99997},
    {"prompt_tokens": 10**15, "completion_tokens": 3, "total_tokens": -1},
    {"prompt_tokens": "many", "completion_tokens": None, "total_tokens": 7.5},
])
def test_negative_or_absurd_usage_is_clamped_so_the_token_budget_still_applies(
        usage: dict[str, object], settings: Settings, server: LocalHTTP) -> None:
    """Usage the endpoint cannot mean is replaced by an estimate; RUN_MAX_TOKENS stops the run as budget."""
    server.routes["/v1/chat/completions"] = answer(200, completion(usage), {"Content-Type": "application/json"})
    with open_runtime(settings.model_copy(update={"openai_base_url": server.url("/v1"), "run_max_tokens": 300})) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            tokens = s.execute(text("SELECT tokens_used FROM runs")).scalar()
    assert (result.verdict, result.stop_reason) == (Verdict.budget, "max_tokens")
    assert tokens >= 300


def test_bad_topic_lines_are_skipped_with_a_warning_naming_each_and_the_rest_used(
        settings: Settings, tmp_path: Path) -> None:
    """Invalid UTF-8, a NUL, a 600-character title and a 1 MB line are skipped by line number; the next good one runs."""
    topics = tmp_path / "topics.txt"
    topics.write_bytes(b"# hostile topics\n\xff\xfe not utf-8\nNUL \x00 inside\n" + b"x" * 600 + b"\n"
                       + b"y" * 1_000_000 + b"\nA good topic after the bad ones\n")
    warnings: list[str] = []
    sink = logger.add(lambda m: warnings.append(f"{m.record['message']} {m.record['extra']}"), level="WARNING")
    try:
        with open_runtime(settings.model_copy(update={"topics_source": str(topics)})) as rt:
            result = run_once(rt)
            with rt.sessions() as s:
                titles = s.execute(text("SELECT title FROM topics")).scalars().all()
    finally:
        logger.remove(sink)
    assert result.verdict == Verdict.success
    assert titles == ["A good topic after the bad ones"]
    skipped = [w for w in warnings if w.startswith("topics.line_skipped")]
    assert [f"{topics}:{n}" in w for n, w in zip((2, 3, 4, 5), skipped)] == [True] * 4
    assert "not UTF-8" in skipped[0] and "NUL" in skipped[1] and "600 characters" in skipped[2]


def test_every_bad_setting_is_reported_at_once_one_line_each_exit_2(tmp_path: Path) -> None:
    """Whitelist with scheme/port/empty, inf and 1e300 timeouts, in-memory SQLite, a missing TOPICS_SOURCE: exit 2."""
    env = user_env(PUBLISH_DOMAIN_WHITELIST="https://example.com,example.org:8080", HTTP_TIMEOUT_SECONDS="inf",
                   LLM_TIMEOUT_SECONDS="1e300", RUN_MAX_SECONDS="nan", DATABASE_URL="sqlite://",
                   TOPICS_SOURCE=str(tmp_path / "missing.txt"))
    done = factline_here(env, "run", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    named = ["PUBLISH_DOMAIN_WHITELIST", "HTTP_TIMEOUT_SECONDS", "LLM_TIMEOUT_SECONDS", "RUN_MAX_SECONDS",
             "DATABASE_URL", "TOPICS_SOURCE"]
    assert sorted(line.split()[3].rstrip(":") for line in lines) == sorted(named), done.stderr
    assert all(line.startswith("factline: invalid setting ") for line in lines)
    assert not list(tmp_path.glob("*.db"))
    empty = factline_here(user_env(PUBLISH_DOMAIN_WHITELIST=" , "), "run", cwd=tmp_path)
    assert empty.returncode == 2 and "PUBLISH_DOMAIN_WHITELIST: must name at least one host" in empty.stderr


@pytest.mark.parametrize("concurrency", ["0", "-3"])
def test_a_worker_concurrency_below_one_is_a_usage_error_exit_2(concurrency: str, tmp_path: Path) -> None:
    """`factline worker --concurrency 0` is refused like every usage error: one line on stderr, exit 2."""
    done = factline(user_env(EXECUTOR="celery"), "worker", "--concurrency", concurrency, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip().splitlines() == ["factline: worker: --concurrency must be at least 1"]


def test_settings_a_run_cannot_work_with_are_refused_at_start_one_line_each_exit_2(tmp_path: Path) -> None:
    """http:// without a host, an empty FACTLINE_MODEL, 1e23 turns, 1e20 tokens, a ledger and a site folder under
    /proc, a LOCAL_SITE_HOST that is no address: exit 2, one line naming each, nothing created."""
    env = user_env(OPENAI_BASE_URL="http://", FACTLINE_MODEL="", RUN_MAX_TURNS=str(10**23),
                   LLM_MAX_TOKENS_TEXT=str(10**20), DATABASE_URL="sqlite:////proc/factline/ledger.db",
                   LOCAL_SITE_DIR="/proc/factline/site", LOCAL_SITE_HOST="999.1.1.1")
    done = factline_here(env, "run", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    lines = done.stderr.strip().splitlines()
    named = ["OPENAI_BASE_URL", "FACTLINE_MODEL", "RUN_MAX_TURNS", "LLM_MAX_TOKENS_TEXT", "DATABASE_URL",
             "LOCAL_SITE_DIR", "LOCAL_SITE_HOST"]
    assert sorted(line.split()[3].rstrip(":") for line in lines) == sorted(named), done.stderr
    assert all(line.startswith("factline: invalid setting ") for line in lines)
    assert "Traceback" not in done.stderr and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("trust", [False, True])
def test_verification_goes_through_a_proxy_only_when_http_trust_env_says_so(
        trust: bool, settings: Settings, server: LocalHTTP, monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTP_PROXY in the environment: ignored by default (the site is asked directly); used with HTTP_TRUST_ENV=true."""
    with LocalHTTP() as proxy:
        proxy.routes[server.url("/post")] = answer(200, b"via proxy")  # a proxy is asked for the absolute URL
        server.routes["/post"] = answer(200, b"direct")
        monkeypatch.setenv("HTTP_PROXY", proxy.url())
        monkeypatch.setenv("http_proxy", proxy.url())
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        with http_client(settings.model_copy(update={"http_trust_env": trust}), RunDeadline(), HOUR) as client:
            assert client.head(server.url("/post")).status_code == 200
        assert (len(proxy.requests), len(server.requests)) == ((1, 0) if trust else (0, 1))
