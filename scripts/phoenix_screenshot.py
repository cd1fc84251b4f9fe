"""A factline run as Arize Phoenix shows it: docs/img/phoenix-trace.png.

    .venv/bin/python -m scripts.phoenix_screenshot [--out docs/img/phoenix-trace.png]

Starts ``phoenix serve`` (testkit.phoenix; ``make phoenix``) and the scripted model on 127.0.0.1, runs the
pipeline once traced into Phoenix (a false "published" first, nudged, then the six calls), opens the trace in
Phoenix's UI with Debian's chromium (headless, testkit.browser) and saves the page.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import httpx

from capabilities import CATALOG
from config import load_settings
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.browser import launch
from testkit.phoenix import Phoenix
from testkit.scripted_model import Reply, ScriptedModel, say, script, step_call

PROJECT = "factline"
STEPS = tuple(CATALOG)[:-1]  # the pipeline but its report, which comes with the final words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img/phoenix-trace.png"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Phoenix(Path(tmp)) as phoenix, ScriptedModel() as model:
        model.policy = script(say("The article is already published."), *[step_call(s) for s in STEPS],
                              Reply(text="Published and registered; the report is done.",
                                    calls=step_call("report").calls))
        settings = load_settings(database_url=f"sqlite:///{tmp}/ledger.db", openai_base_url=model.base_url,
                                 factline_model="scripted", local_site_dir=Path(tmp) / "site", local_site_port=0,
                                 otel_exporter_otlp_endpoint=phoenix.otlp_endpoint,
                                 otel_resource_attributes=f"openinference.project.name={PROJECT}")
        with open_runtime(settings) as rt:
            result = run_once(rt)
            rt.tracing.flush(10)
            with rt.sessions() as s:
                from pipeline.ledger.detail import run_detail
                trace_id = run_detail(s, result.run_id).trace_id
        assert trace_id, "the run has no trace id"
        phoenix.spans(trace_id, PROJECT, until=lambda spans: any(s["parent_id"] is None for s in spans))
        project_id = next(p["id"] for p in httpx.get(f"{phoenix.url}/v1/projects").json()["data"]
                          if p["name"] == PROJECT)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(f"{phoenix.url}/projects/{project_id}/traces/{trace_id}", wait_until="networkidle")
            page.get_by_text("invoke_agent content").first.click()  # the root's attributes and events
            page.wait_for_load_state("networkidle")
            time.sleep(3)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
        print(f"run {result.run_id} ({result.verdict}), trace {trace_id}: {args.out}")


if __name__ == "__main__":
    main()
