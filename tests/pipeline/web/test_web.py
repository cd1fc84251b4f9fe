"""The dashboard over real HTTP (uvicorn on 127.0.0.1, httpx) on a ledger written by scripted runs,
on SQLite and PostgreSQL: what each page and its JSON twin say, the filters, the token, the headers."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from config import ConfigError, load_settings
from pipeline.ledger.daily import day_ledger
from pipeline.ledger.queries import diffs
from pipeline.web import WebServer, build_app, check_exposure, read_only_ledger
from pipeline.web import data as web_data
from pipeline.web.app import CSP
from pipeline.web.auth import cookie_valid, cookie_value
from testkit.scripted_model import ScriptedModel
from testkit.web_ledger import WebLedger, web_ledger
from tests.conftest import BACKENDS, fresh_pg_database
from testkit.daemon_process import DaemonProcess, daemon_env, wait_for
from tests.deployments import redeploy
from tests.pipeline.test_daemon import free_port

TOKEN = "a-dashboard-token-for-tests-0123"


@pytest.fixture(scope="module", params=BACKENDS)
def ledger(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebLedger]:
    """The scripted runs' ledger (testkit.web_ledger), built once per backend for this module."""
    folder = tmp_path_factory.mktemp("web")
    with ExitStack() as stack:
        url = f"sqlite:///{folder}/ledger.db" if request.param == "sqlite" else stack.enter_context(fresh_pg_database())
        yield stack.enter_context(web_ledger(url, folder, log_level="WARNING"))


@pytest.fixture(scope="module")
def web(ledger: WebLedger) -> Iterator[httpx.Client]:
    sessions = read_only_ledger(ledger.settings.deployment().ledger.url)
    with WebServer(build_app(ledger.settings.deployment(), ledger.settings, sessions), "127.0.0.1", 0) as server, \
            httpx.Client(base_url=server.url) as client:
        yield client


@pytest.fixture(scope="module")
def guarded(ledger: WebLedger) -> Iterator[httpx.Client]:
    settings = redeploy(ledger.settings, web_token=TOKEN)
    with WebServer(build_app(settings.deployment(), settings, read_only_ledger(settings.deployment().ledger.url)), "127.0.0.1", 0) as server, \
            httpx.Client(base_url=server.url) as client:
        yield client


def today(web: httpx.Client, **params: Any) -> dict[str, Any]:
    answer = web.get("/api/today", params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_today_lists_failures_first_per_pipeline_with_totals_as_report_counts_them(web, ledger) -> None:
    """Today: runs grouped by pipeline, the failed run first; totals add up to `report --day`'s figures."""
    view = today(web)
    assert [r["id"] for r in view["runs"]] == [ledger.hostile, ledger.detours, ledger.success, ledger.digest]
    assert [r["verdict"] for r in view["runs"]][:2] == ["hallucinated", "success"]
    success = next(r for r in view["runs"] if r["id"] == ledger.success)
    assert success["topic"] and success["seconds"] > 0
    assert success["links"][0]["registration"].startswith("CT-") and success["links"][0]["verified_at"]
    with read_only_ledger(ledger.settings.deployment().ledger.url)() as s:
        report = day_ledger(s, date.fromisoformat(view["day"]), ZoneInfo("UTC"))
    totals = {t["pipeline"]: t for t in view["totals"]}
    assert set(totals) == {"content", "digest"}
    assert sum(t["runs"] for t in totals.values()) == report.runs
    assert sum(t["publications"] for t in totals.values()) == len(report.publications)
    assert sum(t["registered"] for t in totals.values()) == sum(p.registration_number is not None
                                                               for p in report.publications)
    assert sum(t["hallucinations_caught"] for t in totals.values()) == report.hallucinations_caught == 3
    assert totals["content"]["verdicts"] == {"hallucinated": 1, "success": 2}


def test_filters_narrow_the_day_by_verdict_model_pipeline_and_day(web, ledger) -> None:
    """verdict, model, pipeline and day each narrow the list; another day has no runs."""
    assert [r["id"] for r in today(web, verdict="hallucinated")["runs"]] == [ledger.hostile]
    assert [r["id"] for r in today(web, model="scripted-b")["runs"]] == [ledger.detours]
    digest = today(web, pipeline="digest")
    assert [r["id"] for r in digest["runs"]] == [ledger.digest] and [t["pipeline"] for t in digest["totals"]] == ["digest"]
    yesterday = date.fromisoformat(today(web)["day"]) - timedelta(days=1)
    assert today(web, day=yesterday.isoformat())["runs"] == []


def test_pages_follow_each_other_without_repeating_a_run(web, ledger, monkeypatch) -> None:
    """With two runs a page, page 1 and 2 hold the four runs once each; page 1 says a next page exists."""
    monkeypatch.setattr(web_data, "PAGE_SIZE", 2)
    first, second = today(web), today(web, page=2)
    assert first["has_next"] and not second["has_next"]
    assert [r["id"] for r in first["runs"] + second["runs"]] == [ledger.hostile, ledger.detours, ledger.success,
                                                                ledger.digest]


def test_today_costs_the_same_queries_for_one_run_or_many(ledger) -> None:
    """No N+1: the Today page issues as many SQL statements for four runs as for one."""
    sessions = read_only_ledger(ledger.settings.deployment().ledger.url)
    statements: list[str] = []
    event.listen(sessions.kw["bind"], "before_cursor_execute", lambda *a: statements.append(a[2]))
    day = datetime.now(timezone.utc).date()
    counts = []
    for filters in (web_data.Filters(), web_data.Filters(verdict="hallucinated")):
        statements.clear()
        with sessions() as s:
            view = web_data.today_page(s, filters, day, ZoneInfo("UTC"))
        counts.append((len(view.runs), len(statements)))
    assert counts[0][0] == 4 and counts[1][0] == 1
    assert counts[0][1] == counts[1][1]


def test_run_tells_each_turn_with_claims_calls_dedup_shadow_retries_and_the_ledger_diff_line(web, ledger) -> None:
    """A run's JSON: the ledger_diff line, turns with the model's text, a dedup, a shadow call and the LLM retry."""
    run = web.get(f"/api/runs/{ledger.detours}").json()
    with read_only_ledger(ledger.settings.deployment().ledger.url)() as s:
        assert run["diff_line"] == diffs(s, [ledger.detours])[0].line()
    calls = [c for t in run["turns"] for c in t["calls"]]
    assert [c["outcome"] for c in calls[:3]] == ["ok", "dedup", "rejected"]
    assert calls[2]["shadow_of"] == "publish" and calls[2]["name"] == "publish_article"
    assert [e["kind"] for e in run["events"]] == ["llm_retry"]
    assert run["verdict"] == "success" and run["links"][0]["registration"]


def test_hallucinated_run_marks_its_unbacked_claims_in_the_model_text(web, ledger) -> None:
    """The hostile run: every turn's text recorded verbatim, its claims marked unbacked, two nudges, the verdict."""
    run = web.get(f"/api/runs/{ledger.hostile}").json()
    assert run["verdict"] == "hallucinated" and run["stop_reason"] == "nudges_exhausted"
    turn = run["turns"][0]
    assert "".join(seg["text"] for seg in turn["segments"]).startswith("Published! <script>")
    marked = [seg for seg in turn["segments"] if seg["claim"]]
    assert marked and all(not seg["claim"]["backed"] for seg in marked)
    assert sum(len(t["nudges"]) for t in run["turns"]) == 2


def test_publications_show_verification_and_registration(web, ledger) -> None:
    """Publications, newest first: URL, HEAD status, verified time, registration; filtered by the making run."""
    view = web.get("/api/publications").json()
    assert [p["run_id"] for p in view["publications"]] == [ledger.digest, ledger.detours, ledger.success]
    first = view["publications"][0]
    assert first["http_status"] == 200 and first["verified_at"] and first["registration"].startswith("CT-")
    assert [p["run_id"] for p in web.get("/api/publications", params={"model": "scripted-b"}).json()
            ["publications"]] == [ledger.detours]


def test_probe_series_rates_each_run_as_factline_probe_does(web) -> None:
    """Two probe runs of one series: an inventing model (unknown_tool 1.0), then a model that asks (0.0)."""
    series = web.get("/api/probes").json()
    assert [(s["model"], s["mode"], s["source"]) for s in series] == [("scripted", "native", "factline")]
    first, second = series[0]["points"]
    assert first["rates"]["unknown_tool"]["rate"] == 1.0 and second["rates"]["unknown_tool"]["rate"] == 0.0
    assert first["decoy_outcomes"]["invented"]["count"] == 1 and second["decoy_outcomes"]["asked"]["count"] == 1
    assert web.get("/api/probes", params={"model": "nobody"}).json() == []
    page = web.get("/probes").text
    assert page.count("<svg") == 1 and page.count("<circle") == 6  # two runs, three measured rates each


def test_every_page_forbids_script_and_answers_get_only(web, ledger) -> None:
    """Every answer carries a CSP without a script source; a POST to a page is refused."""
    for path in ("/", f"/runs/{ledger.success}", "/publications", "/probes", "/api/today", "/static/style.css"):
        answer = web.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["content-security-policy"] == CSP and "script" not in CSP
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert web.post("/").status_code == 405


def test_bad_query_values_answer_400_and_a_missing_run_404(web) -> None:
    """A malformed day or page names the parameter (400); an unknown run is 404, in JSON under /api/."""
    answer = web.get("/api/today", params={"day": "yesterday-ish"})
    assert answer.status_code == 400 and "day" in answer.json()["error"]
    assert web.get("/", params={"page": "0"}).status_code == 400
    assert web.get("/api/runs/999999").status_code == 404
    assert "no run 999999" in web.get("/runs/999999").text


def test_token_is_required_by_the_api_and_the_pages(guarded) -> None:
    """With WEB_TOKEN: /api/ answers 401 without it or with a wrong one, 200 with the bearer token."""
    assert guarded.get("/api/today").status_code == 401
    assert guarded.get("/api/today", headers={"Authorization": "Bearer wrong-token-0000000000"}).status_code == 401
    assert guarded.get("/api/today", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    page = guarded.get("/publications?page=1")
    assert page.status_code == 303 and page.headers["location"] == "/login?next=%2Fpublications%3Fpage%3D1"


def test_login_form_sets_a_cookie_that_is_not_the_token_and_stays_on_this_site(guarded) -> None:
    """A wrong token is refused (401); the right one sets an HttpOnly cookie and redirects only to a local path."""
    assert guarded.post("/login", data={"token": "nope", "next": "/"}).status_code == 401
    answer = guarded.post("/login", data={"token": TOKEN, "next": "//evil.example/x"})
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    cookie = answer.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower() and TOKEN not in cookie
    assert guarded.get("/probes").status_code == 200  # the client keeps the cookie
    guarded.cookies.clear()
    assert guarded.get("/probes").status_code == 303


def test_a_network_address_without_token_is_refused_at_start(ledger) -> None:
    """Binding 0.0.0.0 without WEB_TOKEN fails with one line naming WEB_TOKEN; loopback or a token is fine."""
    with pytest.raises(ConfigError, match="WEB_TOKEN"):
        check_exposure("0.0.0.0", ledger.settings.deployment().web)
    web = ledger.settings.deployment().web
    check_exposure("127.0.0.1", web)
    check_exposure("::1", web)
    check_exposure("0.0.0.0", web.model_copy(update={"token": load_settings(web_token=TOKEN).deployment().web.token}))


def test_short_web_token_is_a_config_error() -> None:
    """WEB_TOKEN shorter than 16 characters fails at start, naming the variable."""
    with pytest.raises(ConfigError, match="WEB_TOKEN"):
        load_settings(web_token="short")


def test_missing_ledger_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    """factline web on a ledger that does not exist says so and creates no file."""
    with pytest.raises(ConfigError, match="no ledger"):
        read_only_ledger(f"sqlite:///{tmp_path}/absent.db")
    assert not (tmp_path / "absent.db").exists()


def test_factline_web_serves_until_sigterm(tmp_path: Path, model: ScriptedModel) -> None:
    """`factline web --port 0` prints its URL, serves the pages, and exits 0 on SIGTERM."""
    db = f"sqlite:///{tmp_path}/ledger.db"
    env = daemon_env(db, model.base_url, tmp_path)
    subprocess.run([sys.executable, "-m", "pipeline.cli", "db", "upgrade"], env=env, cwd=tmp_path, check=True,
                   capture_output=True)
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "web", "--port", "0"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split("factline web: ", 1)[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        assert "No runs started" in httpx.get(url).text
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0


def test_daemon_serves_the_dashboard_when_web_port_is_set(tmp_path: Path, model: ScriptedModel) -> None:
    """factline daemon with WEB_PORT announces the dashboard and it lists the daemon's runs."""
    port = free_port()
    env = daemon_env(f"sqlite:///{tmp_path}/ledger.db", model.base_url, tmp_path, WEB_PORT=str(port),
                     SCHEDULE_CRON="*/2 * * * * *")
    daemon = DaemonProcess(env, tmp_path / "daemon.log")
    try:
        assert daemon.proc.stdout is not None
        assert f"dashboard at http://127.0.0.1:{port}/" in daemon.proc.stdout.readline().decode()
        runs = wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/api/today").json()["runs"], timeout=60)
        assert runs[0]["trigger"] == "schedule"  # type: ignore[index]
    finally:
        assert daemon.stop() == 0


@pytest.mark.parametrize("path", ["/api/today?day=9999-12-31", "/?day=0001-01-01", "/publications?day=9999-12-31",
                                  "/api/runs/9223372036854775808", "/runs/99999999999999999999999"])
def test_days_and_run_ids_outside_their_real_range_answer_4xx_not_500(web, path: str) -> None:
    """The last and first representable days and a run id above 2^63: 400 or 404 naming the problem, never 500."""
    answer = web.get(path)
    assert answer.status_code in (400, 404), (path, answer.status_code)
    assert "Traceback" not in answer.text


def test_wrong_tokens_are_rate_limited_per_client(ledger) -> None:
    """Five wrong tokens from one client: the sixth attempt answers 429 with Retry-After, even with the right token."""
    settings = redeploy(ledger.settings, web_token=TOKEN)
    with WebServer(build_app(settings.deployment(), settings, read_only_ledger(settings.deployment().ledger.url)), "127.0.0.1", 0) as server, \
            httpx.Client(base_url=server.url) as client:
        for _ in range(5):
            assert client.post("/login", data={"token": "wrong-token-000000", "next": "/"}).status_code == 401
        limited = client.post("/login", data={"token": TOKEN, "next": "/"})
    assert limited.status_code == 429 and 0 < int(limited.headers["retry-after"]) <= 61


def test_the_cookie_is_secure_only_behind_a_trusted_tls_proxy_and_expires(ledger) -> None:
    """X-Forwarded-Proto: https sets Secure only with WEB_TRUST_FORWARDED_PROTO=true; Max-Age is WEB_SESSION_HOURS
    and a cookie past its expiry no longer opens a page."""
    token = load_settings(web_token=TOKEN).deployment().web.token
    for trusted in (False, True):
        settings = redeploy(ledger.settings, web_token=token, web_trust_forwarded_proto=trusted, web_session_hours=2.0)
        with WebServer(build_app(settings.deployment(), settings, read_only_ledger(settings.deployment().ledger.url)), "127.0.0.1", 0) as server, \
                httpx.Client(base_url=server.url) as client:
            answer = client.post("/login", data={"token": TOKEN}, headers={"X-Forwarded-Proto": "https"})
            cookie = answer.headers["set-cookie"].lower()
            assert ("; secure" in cookie) is trusted and "max-age=7200" in cookie
    assert token is not None
    stale = cookie_value(token, 60, now=time.time() - 120)
    fresh = cookie_value(token, 60)
    assert not cookie_valid(token, stale) and cookie_valid(token, fresh)
    expiry, mac = fresh.split(".")
    flipped = ("1" if mac[0] == "0" else "0") + mac[1:]  # always a different MAC (replacing with "0" was a no-op 1 time in 16)
    assert not cookie_valid(token, f"{expiry}.{flipped}")
