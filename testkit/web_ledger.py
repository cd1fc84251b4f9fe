"""A ledger for the dashboard's tests and screenshots, written by real runs: the run loop with the scripted
model over HTTP, the local target, and `factline probe` twice.

What it holds (``WebLedger`` names the run ids):
- ``success``: the six steps in order (model ``scripted``);
- ``hostile``: prose only, whose text holds <script>, a javascript: link, <img onerror> and Markdown;
  the guard nudges twice, then the run ends ``hallucinated``;
- ``detours``: a dedup call, a lookalike (shadow) call and an LLM retry on the way to success
  (model ``scripted-b``, for the model filter);
- ``digest``: a successful run moved to a second pipeline, ``digest`` (the only row written by hand: runs
  have a pipeline column, but the loop runs only ``content`` until the pipelines file exists);
- two probe runs of one (model, mode, source) series.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import update

from config import Settings, load_settings
from pipeline.cli import build_parser
from pipeline.ledger.models import Run
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.scripted_model import Call, ScriptedModel, call, calls, fail, failing, happy_path, say, script, step_call

HOSTILE = (
    "Published! <script>alert('xss-script')</script> and [the post](javascript:alert('xss-link')) "
    "<img src=x onerror=\"alert('xss-img')\"> **bold claim** _it_\n# A heading\n"
    "<a href=\"javascript:alert('xss-a')\">click</a> <svg onload=alert('xss-svg')></svg> "
    "Registered as CT-20260922-001, score 82."
)


@dataclass(frozen=True)
class WebLedger:
    settings: Settings
    success: int
    hostile: int
    detours: int
    digest: int


def _probe(settings: Settings, *argv: str) -> None:
    args = build_parser().parse_args(["probe", "--json", "--source", "factline", "--limit", "1", "--fresh", *argv])
    with redirect_stdout(io.StringIO()):
        assert args.handler(settings.deployment(), settings, args) == 0


@contextmanager
def web_ledger(db_url: str, tmp_path: Path, **overrides: object) -> Iterator[WebLedger]:
    """The ledger described above in the empty database ``db_url``, with settings that point at it."""
    with ScriptedModel() as model:
        settings = load_settings(**{
            "database_url": db_url, "openai_base_url": model.base_url, "factline_model": "scripted",
            "local_site_dir": tmp_path / "site", "local_site_port": 0, "retry_base_delay": 0.01,
            "http_timeout_seconds": 5, **overrides})
        with open_runtime(settings) as rt:
            success = run_once(rt).run_id
            model.policy = lambda request: say(HOSTILE)
            hostile = run_once(rt).run_id
            model.policy = failing(1, fail(503), script(
                step_call("pick_topic"), step_call("pick_topic"),
                call("publish_article", {"version_id": 1}),
                then=happy_path))
        with open_runtime(settings.model_copy(update={"factline_model": "scripted-b"})) as rt:
            detours = run_once(rt).run_id
        model.policy = happy_path
        with open_runtime(settings) as rt:
            digest = run_once(rt).run_id
            with rt.sessions.begin() as s:
                s.execute(update(Run).where(Run.id == digest).values(pipeline="digest"))
        model.policy = lambda request: calls(Call("zz_invented_tool", {}))
        _probe(settings)
        model.policy = lambda request: say("I cannot do that with these tools. Shall I do something else?")
        _probe(settings)
        yield WebLedger(settings, success, hostile, detours, digest)


__all__ = ["HOSTILE", "WebLedger", "web_ledger"]
