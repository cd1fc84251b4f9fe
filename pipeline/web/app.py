"""The dashboard's routes: four pages, each with a JSON twin under /api/, a login form, the stylesheet.

    /                  /api/today           the day's runs per pipeline, failures first, totals
    /runs/{id}         /api/runs/{id}       one run, turn by turn
    /publications      /api/publications    URL, verification, registration
    /probes            /api/probes          the three probe rates over time, per (model, mode, source)
    /review            /api/review          articles awaiting an editor; POST /review/{id}/approve|reject
                                            (the only writes, with WEB_TOKEN and a CSRF token: pipeline.web.review)

Query parameters (list pages): day=YYYY-MM-DD (in SCHEDULE_TIMEZONE), pipeline, verdict, model, page.
A bad value answers 400 naming it. Handlers are plain functions (Starlette runs them in its thread pool),
each opening one read-only session.

Every answer carries a Content-Security-Policy without any script source (the pages have no script),
``nosniff``, ``no-referrer``, ``frame-ancestors 'none'`` and ``no-store``. Templates autoescape; the
model's text is only ever inserted as escaped text.
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo

from jinja2 import Environment, PackageLoader
from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from capabilities.targets.httpserver import BodyLimit, SecurityHeaders, ServerErrors
from config import Deployment, Settings
from config.cron import time_zone
from pipeline.outcome import Verdict
import pipeline.web.review as review
from pipeline.web.auth import COOKIE, LoginLimiter, TokenMiddleware, cookie_value, local_path, login_attempt
from pipeline.web.charts import COLOURS, series_chart
from pipeline.web.data import Filters, publications_page, today_page
from pipeline.web.probes import GATED, probe_models, probe_series
from pipeline.web.story import pretty, run_story

__all__ = ["CSP", "build_app"]

CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
       "base-uri 'none'")
STATIC = Path(__file__).resolve().parent / "static"
MAX_FILTER = 200
FIRST_DAY, LAST_DAY = date(1970, 1, 2), date(9999, 12, 30)  # a day's bounds in any time zone stay representable
MAX_RUN_ID = 2**63 - 1  # BIGINT; a larger id names no run


def jsonable(value: Any) -> Any:
    """Dataclasses, dates and containers as JSON values (times in ISO 8601)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def web_link(url: str | None) -> str | None:
    """The URL if a browser may follow it from here (http or https), else None: shown as text."""
    return url if url and urlsplit(url).scheme in ("http", "https") else None


def parse_filters(request: Request) -> Filters:
    """The list filters from the query string; 400 naming the parameter when one is malformed."""
    params = request.query_params
    try:
        day = date.fromisoformat(params["day"]) if params.get("day") else None
    except ValueError:
        raise HTTPException(400, "day must be a date as YYYY-MM-DD") from None
    if day is not None and not FIRST_DAY <= day <= LAST_DAY:
        raise HTTPException(400, f"day must be between {FIRST_DAY} and {LAST_DAY}")
    try:
        page = int(params.get("page") or 1)
    except ValueError:
        raise HTTPException(400, "page must be a whole number") from None
    if page < 1 or page > 100_000:
        raise HTTPException(400, "page must be between 1 and 100000")
    text = {}
    for name in ("pipeline", "verdict", "model"):
        value = params.get(name) or None
        if value is not None and len(value) > MAX_FILTER:
            raise HTTPException(400, f"{name} is longer than {MAX_FILTER} characters")
        text[name] = value
    return Filters(day=day, page=page, **text)


class Dashboard:
    """The pages over one ledger; ``sessions`` is read only."""

    def __init__(self, deployment: Deployment, settings: Settings, sessions: sessionmaker[Session]) -> None:
        self.deployment, self.web, self.settings, self.sessions = deployment, deployment.web, settings, sessions
        self.logins = LoginLimiter()
        self.tz: ZoneInfo = time_zone(settings.schedule_timezone)
        self.env = Environment(loader=PackageLoader("pipeline.web", "templates"), autoescape=True,
                               trim_blocks=True, lstrip_blocks=True)
        self.env.globals.update(tz=str(self.tz), gated=GATED, colours=COLOURS, chart=series_chart,
                                verdicts=[v.value for v in Verdict], web_link=web_link)
        self.env.filters.update(when=self._when, seconds=_seconds, query=_query, pretty=pretty)

    def _when(self, value: datetime | None, fmt: str = "%Y-%m-%d %H:%M:%S") -> str:
        return value.astimezone(self.tz).strftime(fmt) if value else "-"

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.env.get_template(name).render(**context), status_code=status)

    def today_data(self, request: Request) -> Any:
        filters = parse_filters(request)
        day = filters.day or datetime.now(self.tz).date()
        with self.sessions() as s:
            return today_page(s, filters, day, self.tz)

    def today(self, request: Request) -> Response:
        return self.page("today.html", view=self.today_data(request))

    def api_today(self, request: Request) -> Response:
        return JSONResponse(jsonable(self.today_data(request)))

    def run_data(self, request: Request) -> Any:
        run_id = request.path_params["run_id"]
        with self.sessions() as s:
            story = run_story(s, run_id) if run_id <= MAX_RUN_ID else None
        if story is None:
            raise HTTPException(404, f"no run {request.path_params['run_id']} in the ledger")
        return story

    def run(self, request: Request) -> Response:
        return self.page("run.html", run=self.run_data(request))

    def api_run(self, request: Request) -> Response:
        return JSONResponse(jsonable(self.run_data(request)))

    def publications_data(self, request: Request) -> Any:
        filters = parse_filters(request)
        with self.sessions() as s:
            return publications_page(s, filters, self.tz)

    def publications(self, request: Request) -> Response:
        return self.page("publications.html", view=self.publications_data(request))

    def api_publications(self, request: Request) -> Response:
        return JSONResponse(jsonable(self.publications_data(request)))

    def probes(self, request: Request) -> Response:
        model = parse_filters(request).model
        with self.sessions() as s:
            series, models = probe_series(s, model), probe_models(s)
        return self.page("probes.html", series=series, model=model, models=models)

    def api_probes(self, request: Request) -> Response:
        with self.sessions() as s:
            return JSONResponse(jsonable(probe_series(s, parse_filters(request).model)))

    def review_data(self) -> list[Any]:
        with self.sessions() as s:
            return review.waiting(s)

    def review_page(self, request: Request, message: str = "", ok: bool = True, status: int = 200) -> Response:
        items = self.review_data()
        with self.sessions() as s:
            bodies = {i.run_id: review.body(s, i.version_id) for i in items}
        token = self.web.token
        return self.page("review.html", status=status, items=items, bodies=bodies, writable=token is not None,
                         message=message, ok=ok,
                         csrf=(lambda run_id, action: review.csrf_token(token, run_id, action)) if token else None)

    def api_review(self, request: Request) -> Response:
        return JSONResponse(jsonable(self.review_data()))

    async def decide(self, request: Request) -> Response:
        """An editor's POST: refused without WEB_TOKEN or a valid CSRF token; else the CLI's exactly-once path."""
        token = self.web.token
        if token is None:
            return self.review_page(request, "read-only: this dashboard has no WEB_TOKEN; nothing was decided",
                                    ok=False, status=403)
        run_id, action = request.path_params["run_id"], request.path_params["action"]
        form = review.parse_form(await request.body())
        if action not in ("approve", "reject") or not review.csrf_valid(token, run_id, action, form.get("csrf", "")):
            return self.review_page(request, "refused: the form's CSRF token is missing or not this form's; "
                                             "nothing was decided", ok=False, status=403)
        editor = form.get("editor", "").strip()[:200]
        reason = form.get("reason", "").strip()
        if not editor or (action == "reject" and not reason):
            return self.review_page(request, "an editor's name (and for a rejection, a reason) is required",
                                    ok=False, status=400)
        line, ok = await run_in_threadpool(review.carry_out_decision, self.deployment, self.settings, self.sessions, run_id, action,
                                           editor, reason, form.get("requeue") == "1")
        return self.review_page(request, line, ok=ok, status=200 if ok else 409)

    def login_form(self, request: Request) -> Response:
        return self.page("login.html", next=local_path(request.query_params.get("next")), failed=False)

    async def login(self, request: Request) -> Response:
        client = request.client.host if request.client else "?"
        if wait := self.logins.wait(client):
            return PlainTextResponse("too many failed logins; try again later\n", 429,
                                     headers={"Retry-After": str(int(wait) + 1)})
        ok, target = await login_attempt(request, self.web.token)
        if not ok:
            self.logins.failed(client)
            return self.page("login.html", status=401, next=target, failed=True)
        response = RedirectResponse(target, status_code=303)
        if self.web.token is not None:
            lifetime = self.web.session_hours * 3600
            response.set_cookie(COOKIE, cookie_value(self.web.token, lifetime), httponly=True,
                                samesite="strict", path="/", max_age=int(lifetime), secure=self._over_tls(request))
        return response

    def _over_tls(self, request: Request) -> bool:
        forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        return request.url.scheme == "https" or (self.web.trust_forwarded_proto and forwarded == "https")

    def error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return self.page("error.html", status=exc.status_code, status_code=exc.status_code, detail=exc.detail)


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


def _query(filters: Filters, **changes: Any) -> str:
    return "?" + urlencode(filters.query(**changes))


def build_app(deployment: Deployment, settings: Settings, sessions: sessionmaker[Session]) -> Starlette:
    """The ASGI app of the dashboard over the ledger that ``sessions`` reads."""
    d = Dashboard(deployment, settings, sessions)
    routes = [
        Route("/", d.today, methods=["GET"]),
        Route("/api/today", d.api_today, methods=["GET"]),
        Route("/runs/{run_id:int}", d.run, methods=["GET"]),
        Route("/api/runs/{run_id:int}", d.api_run, methods=["GET"]),
        Route("/publications", d.publications, methods=["GET"]),
        Route("/api/publications", d.api_publications, methods=["GET"]),
        Route("/probes", d.probes, methods=["GET"]),
        Route("/api/probes", d.api_probes, methods=["GET"]),
        Route("/review", d.review_page, methods=["GET"]),
        Route("/api/review", d.api_review, methods=["GET"]),
        Route("/review/{run_id:int}/{action}", d.decide, methods=["POST"]),
        Route("/login", d.login_form, methods=["GET"]),
        Route("/login", d.login, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(ServerErrors), Middleware(SecurityHeaders, csp=CSP), Middleware(BodyLimit)]
    if deployment.web.token is not None:
        middleware.append(Middleware(TokenMiddleware, token=deployment.web.token))
    return Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: d.error})
