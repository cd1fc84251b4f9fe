"""The morning dashboard: a read-only web view of the ledger (``factline web``; ``factline daemon`` with WEB_PORT).

    data.py     Today and Publications: one page of rows in a fixed number of queries, filters, totals
    story.py    one run turn by turn: the model's text with its claims marked, calls, waits, nudges, verdict
    probes.py   probe runs as series per (model, mode, source), rated as `factline probe` rates them
    charts.py   inline SVG drawn on the server
    review.py   the Review page's forms: CSRF tokens, the decision, the publish of an approval
    app.py      Starlette routes: each page and its JSON twin under /api/, security headers
    auth.py     WEB_TOKEN as a bearer token or the login form's cookie
    server.py   uvicorn in a thread on a socket bound first; the exposure and ledger checks
(`factline web` is pipeline/commands/web.py.)

Decisions (docs/dashboard.md says them for users):
- Server-rendered Jinja2 with autoescape, no JavaScript at all: the CSP has no script source. The model's
  text is inserted only as escaped text in a pre-wrapped block, never rendered as Markdown or HTML.
- GET only, except the login form's POST and the Review page's Approve/Reject forms (review.py: WEB_TOKEN and a
  CSRF token per form, the decision taken by pipeline.review.decide). Binds 127.0.0.1 by default; another address needs WEB_TOKEN.
- Read only: the ledger is opened without migrating; the web package imports the ledger, never the reverse.
"""

from pipeline.web.app import build_app
from pipeline.web.server import WebServer, check_exposure, read_only_ledger

__all__ = ["WebServer", "build_app", "check_exposure", "read_only_ledger"]
