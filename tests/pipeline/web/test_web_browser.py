"""The dashboard in a real browser: Debian's chromium, headless, driven by Playwright, against uvicorn on
127.0.0.1 and a ledger written by scripted runs (SQLite; tests/pipeline/web/test_web.py covers both backends over HTTP).

Every page is watched for dialogs, console errors and page errors; each must stay empty."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.web import WebServer, build_app, read_only_ledger
from testkit.web_ledger import HOSTILE, WebLedger, web_ledger
from tests.deployments import redeploy
from tests.paths import ROOT

TOKEN = "browser-token-0123456789abcdef"


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebLedger]:
    folder = tmp_path_factory.mktemp("browser")
    with web_ledger(f"sqlite:///{folder}/ledger.db", folder, log_level="WARNING") as built:
        yield built


@pytest.fixture(scope="module")
def site(ledger: WebLedger) -> Iterator[str]:
    with WebServer(build_app(ledger.settings.deployment(), ledger.settings, read_only_ledger(ledger.settings.deployment().ledger.url)), "127.0.0.1", 0) as web:
        yield web.url


class Watched:
    """A page whose dialogs, console errors and uncaught errors are recorded."""

    def __init__(self, page: Any) -> None:
        self.page, self.dialogs, self.errors = page, [], []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def clean(self) -> bool:
        return not self.dialogs and not self.errors


@pytest.fixture
def tab(browser: Any) -> Iterator[Watched]:
    context = browser.new_context()
    yield Watched(context.new_page())
    context.close()


def test_every_page_loads_with_the_ledger_and_no_error(tab: Watched, site: str, ledger: WebLedger) -> None:
    """Today, a run, Publications and Probes render their rows, with no dialog and no console error."""
    page = tab.page
    page.goto(site + "/")
    assert page.locator("table.runs tbody tr").count() == 4
    assert page.locator(".total h2").all_inner_texts() == ["content", "digest"]
    page.click(f"tr[data-run='{ledger.detours}'] a")
    page.wait_for_url(f"**/runs/{ledger.detours}")
    assert page.locator("pre.diffline").inner_text().startswith(f"run {ledger.detours} verdict=success")
    assert page.locator(".call.o-dedup").count() == 1 and page.locator(".call .shadow").count() == 1
    page.click("nav >> text=Publications")
    page.wait_for_url("**/publications")
    assert page.locator("table.publications tbody tr").count() == 3
    assert page.locator("a.published").first.get_attribute("href").startswith("http://127.0.0.1:")
    page.click("nav >> text=Probes")
    page.wait_for_url("**/probes")
    assert page.locator("svg.chart").count() == 1 and page.locator("table.probe-runs tbody tr").count() == 2
    assert tab.clean(), (tab.dialogs, tab.errors)


def test_filter_form_and_day_links_narrow_the_list(tab: Watched, site: str, ledger: WebLedger) -> None:
    """Choosing a verdict, a model or a pipeline and submitting shows only those runs; the previous day is empty."""
    page = tab.page
    page.goto(site + "/")
    page.select_option("select[name=verdict]", "hallucinated")
    page.click("form.filters button")
    page.wait_for_url("**verdict=hallucinated**")
    assert page.locator("table.runs tbody tr").evaluate_all("rows => rows.map(r => r.dataset.run)") == [
        str(ledger.hostile)]
    page.click("form.filters >> text=clear")
    page.wait_for_url(site + "/")
    page.select_option("select[name=model]", "scripted-b")
    page.click("form.filters button")
    page.wait_for_url("**model=scripted-b**")
    assert page.locator("table.runs tbody tr").evaluate_all("rows => rows.map(r => r.dataset.run)") == [
        str(ledger.detours)]
    page.goto(site + "/")
    page.select_option("select[name=pipeline]", "digest")
    page.click("form.filters button")
    page.wait_for_url("**pipeline=digest**")
    assert page.locator(".total h2").all_inner_texts() == ["digest"]
    page.click("a[rel=prev]")
    page.wait_for_url("**day=**")
    assert "No runs started" in page.locator("section.totals").inner_text()
    assert tab.clean(), (tab.dialogs, tab.errors)


def test_hostile_model_text_executes_nothing_and_stays_text(tab: Watched, site: str, ledger: WebLedger) -> None:
    """<script>, javascript: links, <img onerror>, <svg onload> and Markdown in the model's text stay inert text."""
    page = tab.page
    page.goto(f"{site}/runs/{ledger.hostile}")
    page.wait_for_timeout(300)  # give any onerror/onload a chance to fire
    text = page.locator(".model-text").first
    assert text.inner_text() == HOSTILE
    assert page.locator("script").count() == 0
    assert page.locator(".model-text img, .model-text svg, .model-text a, .model-text strong, .model-text em, "
                        ".model-text h1").count() == 0
    assert page.locator("a[href^='javascript']").count() == 0
    handlers = page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(
        el => [...el.attributes].filter(a => a.name.startsWith('on')).map(a => el.tagName + ' ' + a.name))""")
    assert handlers == []
    assert page.locator(".model-text mark.unbacked").first.inner_text() == "Published"
    assert tab.clean(), (tab.dialogs, tab.errors)


def test_token_guards_pages_and_api_in_the_browser(browser: Any, ledger: WebLedger) -> None:
    """With WEB_TOKEN a page leads to the login form; a wrong token is refused, the right one opens the page;
    the API refuses a request without the token."""
    settings = redeploy(ledger.settings, web_token=TOKEN)
    with WebServer(build_app(settings.deployment(), settings, read_only_ledger(settings.deployment().ledger.url)), "127.0.0.1", 0) as web:
        context = browser.new_context()
        tab = Watched(context.new_page())
        page = tab.page
        assert context.request.get(web.url + "/api/today").status == 401
        page.goto(web.url + "/publications")
        page.wait_for_url("**/login?next=%2Fpublications")
        page.fill("input[name=token]", "not-the-token")
        page.click("form.login button")
        assert page.locator("[role=alert]").inner_text() == "That is not the token."
        page.fill("input[name=token]", TOKEN)
        page.click("form.login button")
        page.wait_for_url(web.url + "/publications")
        assert page.locator("table.publications tbody tr").count() == 3
        assert context.request.get(web.url + "/api/today").status == 200  # the cookie now
        context.close()
    tab.errors = [e for e in tab.errors if "401" not in e]  # the refused login answers 401, which chromium logs
    assert tab.clean(), (tab.dialogs, tab.errors)


def test_screenshots_script_writes_the_four_pages(tmp_path: Path, browser: Any) -> None:
    """scripts/dashboard_screenshots.py (its own process: one Playwright per process) writes a PNG of each page."""
    script = ROOT / "scripts" / "dashboard_screenshots.py"
    done = subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ("today", "run", "publications", "probes"):
        assert (tmp_path / f"dashboard_{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
