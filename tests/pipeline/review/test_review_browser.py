"""The dashboard's Review page in Debian's chromium: approve and reject through the forms, a POST without its
CSRF token refused, the page read-only without WEB_TOKEN. Runs held by real `factline run` processes (SQLite)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from config import load_settings
from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Publication, Review, Run
from pipeline.web import WebServer, build_app, read_only_ledger
from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import factline, user_env
from tests.paths import ROOT

TOKEN = "review-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], list[int]]]:
    folder = tmp_path_factory.mktemp("review")
    with ScriptedModel() as model:
        env = user_env(DATABASE_URL=f"sqlite:///{folder}/ledger.db", OPENAI_BASE_URL=model.base_url,
                       FACTLINE_MODEL="scripted", LOCAL_SITE_DIR=str(folder / "site"), LOCAL_SITE_PORT=str(free_port()),
                       RETRY_BASE_DELAY="0.01", PREVIEW_DIR=str(folder / "preview"), REVIEW_MODE="required")
        runs = []
        for _ in range(3):
            done = factline(env, "run")
            assert done.returncode == 0 and "awaits review" in done.stdout, done.stdout + done.stderr
            runs.append(int(done.stdout.split("run ", 1)[1].split(":", 1)[0]))
        yield env, runs


def dashboard(env: dict[str, str], token: str | None) -> WebServer:
    settings = load_settings(database_url=env["DATABASE_URL"], local_site_dir=Path(env["LOCAL_SITE_DIR"]),
                             local_site_port=int(env["LOCAL_SITE_PORT"]), web_token=token,
                             openai_base_url=env["OPENAI_BASE_URL"])
    return WebServer(build_app(settings.deployment(), settings, read_only_ledger(settings.deployment().ledger.url)), "127.0.0.1", 0)


def test_editors_approve_and_reject_through_the_forms(browser: Any, held: tuple[dict[str, str], list[int]]) -> None:
    """Logged in: Approve publishes the first (one page, success), Reject closes the second; a screenshot."""
    env, (first, second, _) = held
    with dashboard(env, TOKEN) as web:
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(web.url + "/review")
        page.fill("input[name=token]", TOKEN)
        page.click("button[type=submit]")
        page.wait_for_url("**/review")
        assert page.locator("section.review").count() == 3
        page.screenshot(path=str(ROOT / "docs" / "img" / "dashboard_review.png"), full_page=False)
        approve = page.locator(f"form[action='/review/{first}/approve']")
        approve.locator("input[name=editor]").fill("alice")
        approve.locator("button").click()
        page.wait_for_load_state()
        assert f"run {first} ended success" in page.content()
        reject = page.locator(f"form[action='/review/{second}/reject']")
        reject.locator("input[name=editor]").fill("bob")
        reject.locator("input[name=reason]").fill("off topic")
        reject.locator("button").click()
        page.wait_for_load_state()
        assert f"run {second} rejected by bob" in page.content()
        assert page.locator("section.review").count() == 1
        context.close()
        assert errors == []
    with open_ledger(env["DATABASE_URL"])() as s:
        assert s.get_one(Run, first).verdict == "success" and s.get_one(Run, second).verdict == "rejected"
        assert len(s.scalars(select(Publication)).all()) == 1
        editors = [(r.action, r.editor) for r in s.scalars(select(Review).where(Review.accepted.is_(True)))]
    assert ("approve", "alice") in editors and ("reject", "bob") in editors


@pytest.mark.slow  # its module's three held runs are three `factline run` processes (its siblings need chromium)
def test_a_post_without_its_csrf_token_is_refused(held: tuple[dict[str, str], list[int]]) -> None:
    """With the bearer token but no (or another form's) CSRF token: 403, nothing decided."""
    env, (_, _, third) = held
    with dashboard(env, TOKEN) as web:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        bare = httpx.post(f"{web.url}/review/{third}/approve", data={"editor": "eve"}, headers=auth)
        page = httpx.get(f"{web.url}/review", headers=auth).text
        other = page.split(f"/review/{third}/reject", 1)[1].split('name="csrf" value="', 1)[1].split('"', 1)[0]
        swapped = httpx.post(f"{web.url}/review/{third}/approve", data={"editor": "eve", "csrf": other}, headers=auth)
    assert bare.status_code == 403 and swapped.status_code == 403 and "CSRF" in bare.text
    with open_ledger(env["DATABASE_URL"])() as s:
        assert s.get_one(Run, third).status == "awaiting_review"


def test_without_web_token_the_page_is_read_only(browser: Any, held: tuple[dict[str, str], list[int]]) -> None:
    """No WEB_TOKEN: the page lists what waits, says read-only, has no form; a POST answers 403."""
    env, (_, _, third) = held
    with dashboard(env, None) as web:
        context = browser.new_context()
        page = context.new_page()
        page.goto(web.url + "/review")
        assert "Read-only" in page.content() and page.locator("form").count() == 0
        assert page.locator("section.review").count() >= 1
        context.close()
        posted = httpx.post(f"{web.url}/review/{third}/approve", data={"editor": "eve"})
    assert posted.status_code == 403
    with open_ledger(env["DATABASE_URL"])() as s:
        assert s.get_one(Run, third).status == "awaiting_review"
