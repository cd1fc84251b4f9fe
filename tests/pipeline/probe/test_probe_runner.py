"""factline probe end to end: scripted models of known behaviour over the real OpenAI protocol, the real ledger."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import openai
import pytest

from config import Settings
from pipeline.cli import build_parser, run_command
from pipeline.http import RunDeadline
from pipeline.retry import RetryPolicy
from pipeline.model import ChatModel
from pipeline.catalog import LOOKALIKES, TOOLS
from pipeline.probe.runner import PROMPT_VERSION, jobs, load_suite, run_suite, select
from pipeline.probe.storage import RunKey, latest_runs, stored
from pipeline.ledger.db import open_ledger
from tests.conftest import make_settings
from tests.deployments import redeploy
from testkit.scripted_model import Call, Reply, Request, ScriptedModel, call, calls, fail, say

INVENTED = "zz_invented_tool"


def invents(request: Request) -> Reply:
    """Always calls a tool that is in no catalog."""
    return call(INVENTED, {})


def refuses(request: Request) -> Reply:
    """Never calls a tool and asks nothing."""
    return say("I cannot do that with the tools I have.")


def picks_lookalike(request: Request) -> Reply:
    """Calls the lookalike decoy whenever the catalog holds one, else refuses."""
    names = [t["function"]["name"] for t in request.body.get("tools", [])]
    decoy = next((n for n in names if n in LOOKALIKES.values()), None)
    return call(decoy, {}) if decoy else refuses(request)


def fills_everything(request: Request) -> Reply:
    """Calls every listed tool with a made-up value in every parameter, optional or not."""
    return calls(*(
        Call(t["function"]["name"], {p: "zz-made-up" for p in t["function"]["parameters"].get("properties", {})})
        for t in request.body["tools"]
    ))


def invents_when_told(request: Request) -> Reply:
    """Invents a tool only when the system prompt claims a capability the catalog lacks."""
    return invents(request) if "You also have a tool" in request.messages[0]["content"] else refuses(request)


def run_probe(settings: Settings, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    args = build_parser().parse_args(["probe", "--json", *argv])
    code = run_command(settings.deployment(), settings, args)
    out = capsys.readouterr().out.strip()
    return code, (json.loads(out) if out else {})


@pytest.fixture
def probe_settings(db_url: str, model: ScriptedModel, tmp_path: Path) -> Settings:
    """Settings over SQLite and PostgreSQL: for the tests of what the ledger stores and resumes."""
    return make_settings(db_url, model.base_url, tmp_path, retry_max_attempts=1)


@pytest.fixture
def sqlite_settings(model: ScriptedModel, tmp_path: Path) -> Settings:
    """Settings over SQLite only: for the tests of what the rates are."""
    return make_settings(f"sqlite:///{tmp_path}/ledger.db", model.base_url, tmp_path, retry_max_attempts=1)


def test_inventing_model_has_unknown_tool_rate_one(sqlite_settings, model, capsys):
    """A model that always invents a tool scores unknown_tool 1.0 on every probe and 'invented' on every decoy."""
    model.policy = invents
    code, result = run_probe(sqlite_settings, capsys, "--limit", "2")
    unknown = result["rates"]["unknown_tool"]
    assert code == 0 and result["probes"] == 10
    assert (unknown["rate"], unknown["count"], unknown["total"]) == (1.0, 10, 10)
    assert result["decoy_outcomes"]["invented"]["count"] == result["decoy_outcomes"]["invented"]["total"] == 4
    assert result["rates"]["shadow_call"]["count"] == result["rates"]["hallucinated_argument"]["count"] == 0


def test_refusing_model_has_every_rate_zero(sqlite_settings, model, capsys):
    """A model that never calls a tool scores 0 on all three rates and 'refused' on every decoy."""
    model.policy = refuses
    code, result = run_probe(sqlite_settings, capsys, "--limit", "2")
    assert code == 0
    assert [result["rates"][n]["count"] for n in ("unknown_tool", "shadow_call", "hallucinated_argument")] == [0, 0, 0]
    assert result["rates"]["unknown_tool"]["total"] == 10
    assert result["decoy_outcomes"]["refused"]["rate"] == 1.0
    assert result["overclaim_delta"] == 0.0


def writes_calls_as_text(request: Request) -> Reply:
    """Answers every probe with a fenced JSON tool call in its text, as the local model does in native mode."""
    name = request.body["tools"][0]["function"]["name"]
    return say(f'```json\n{{"name": "{name}", "arguments": {{}}}}\n```')


def test_model_writing_calls_as_text_has_prose_call_rate_one(sqlite_settings, model, capsys):
    """Tool calls written in the text are counted as prose calls (and still scored as text, never executed)."""
    model.policy = writes_calls_as_text
    code, result = run_probe(sqlite_settings, capsys, "--limit", "2")
    prose = result["rates"]["prose_call"]
    assert code == 0 and (prose["count"], prose["total"]) == (10, 10)
    assert result["rates"]["unknown_tool"]["count"] == 0


def test_lookalike_picking_model_has_shadow_call_rate_one(sqlite_settings, model, capsys):
    """A model that calls the lookalike on each of factline's shadow probes (one a tool) scores shadow_call 1.0."""
    model.policy = picks_lookalike
    code, result = run_probe(sqlite_settings, capsys, "--source", "factline")
    shadow = result["rates"]["shadow_call"]
    assert code == 0 and (shadow["rate"], shadow["count"], shadow["total"]) == (1.0, len(LOOKALIKES), len(LOOKALIKES))
    assert result["rates"]["unknown_tool"]["count"] == 0


def test_filling_model_has_hallucinated_argument_rate_one(sqlite_settings, model, capsys):
    """A model that fills every optional argument with a made-up value scores hallucinated_argument 1.0."""
    model.policy = fills_everything
    code, result = run_probe(sqlite_settings, capsys, "--limit", "2")
    figure = result["rates"]["hallucinated_argument"]
    assert code == 0 and (figure["rate"], figure["count"], figure["total"]) == (1.0, 4, 4)
    assert result["rates"]["unknown_tool"]["count"] == 0


def test_overclaimed_prompt_delta_is_measured(sqlite_settings, model, capsys):
    """A model that invents only when the prompt overclaims has delta 1.0: matched 0, overclaimed 1."""
    model.policy = invents_when_told
    code, result = run_probe(sqlite_settings, capsys, "--limit", "2")
    assert code == 0 and result["overclaim"]["matched"]["count"] == 0
    assert result["overclaim"]["overclaimed"]["count"] == result["overclaim"]["overclaimed"]["total"] == 4
    assert result["overclaim_delta"] == 1.0
    assert result["rates"]["unknown_tool"]["count"] == 0  # rates come from the matched prompt


def test_gate_fails_above_threshold_and_passes_below(sqlite_settings, model, capsys):
    """--gate exits 3 for the inventing model and 0 for the refusing one."""
    model.policy = invents
    assert run_probe(sqlite_settings, capsys, "--limit", "1", "--gate")[0] == 3
    model.policy = refuses
    assert run_probe(sqlite_settings, capsys, "--limit", "1", "--gate", "--fresh")[0] == 0


def test_interrupted_run_resumes_with_only_the_missing_probes(probe_settings, model, capsys):
    """After an HTTP 500 stops the run at request k+1, the re-run sends only the jobs not yet answered."""
    settings = redeploy(probe_settings, probe_concurrency=1)
    total = len(jobs(select(load_suite("all").probes, 2)))
    k, lock = 5, threading.Lock()

    def fails_after_k(request: Request) -> Reply:
        with lock:
            return refuses(request) if len(model.requests) <= k else fail(500)

    model.policy = fails_after_k
    code, _ = run_probe(settings, capsys, "--limit", "2")
    assert code == 4 and len(model.requests) == k + 1
    model.policy, first = refuses, len(model.requests)
    code, result = run_probe(settings, capsys, "--limit", "2")
    assert code == 0 and len(model.requests) - first == total - k
    assert result["answers"] == total and result["status"] == "finished"
    model.requests.clear()
    assert run_probe(settings, capsys, "--limit", "2")[0] == 0 and model.requests == []


def test_fresh_starts_a_new_run(probe_settings, model, capsys):
    """--fresh sends every job again into a new run instead of resuming."""
    model.policy = refuses
    _, first = run_probe(probe_settings, capsys, "--limit", "1")
    sent = len(model.requests)
    _, second = run_probe(probe_settings, capsys, "--limit", "1", "--fresh")
    assert second["run_id"] != first["run_id"] and len(model.requests) == 2 * sent


def test_token_cap_stops_the_run_and_the_next_invocation_continues(sqlite_settings, model, capsys):
    """At PROBE_MAX_TOKENS = two answers (70 tokens each) an invocation stops as capped; the next one goes on."""
    settings = redeploy(sqlite_settings, probe_concurrency=1, probe_max_tokens=140)
    model.policy = refuses
    code, result = run_probe(settings, capsys, "--limit", "2")
    assert code == 0 and result["status"] == "capped" and result["answers"] == 2 and len(model.requests) == 2
    _, again = run_probe(settings, capsys, "--limit", "2")
    assert again["run_id"] == result["run_id"] and again["answers"] == 4 and len(model.requests) == 4


def test_constrained_mode_sends_the_strict_schema_and_scores_its_json(model, tmp_path, capsys):
    """In constrained mode the request carries a strict json_schema and no tools; a JSON call is scored as one."""
    settings = make_settings(f"sqlite:///{tmp_path}/ledger.db", model.base_url, tmp_path, tool_call_mode="constrained")
    model.policy = invents
    code, result = run_probe(settings, capsys, "--limit", "1", "--source", "factline")
    body = model.requests[0]
    assert "tools" not in body and body["response_format"]["json_schema"]["strict"] is True
    assert code == 0 and result["mode"] == "constrained" and result["rates"]["unknown_tool"]["rate"] == 1.0


def test_report_writes_self_contained_svg_page(probe_settings, model, capsys, tmp_path):
    """probe report prints the run's rates and writes an HTML page with inline SVG and no script."""
    model.policy = invents
    run_probe(probe_settings, capsys, "--limit", "1")
    args = build_parser().parse_args(["probe", "report", "--out", str(tmp_path / "r.html")])
    assert args.handler(probe_settings.deployment(), probe_settings, args) == 0
    table = capsys.readouterr().out
    page = (tmp_path / "r.html").read_text()
    assert "scripted" in table and "1.000" in table
    assert page.count("<svg") == 3 and "<script" not in page and "http" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_refused_requests_are_stored_as_errors_and_not_resent(sqlite_settings, model, capsys):
    """An HTTP 400 on a probe is kept as an error answer, left out of the rates and not asked again."""
    def rejects_decoys(request: Request) -> Reply:
        return fail(400) if len(request.body["tools"]) == len(TOOLS) - 1 else refuses(request)  # a decoy lacks one tool

    model.policy = rejects_decoys
    code, result = run_probe(sqlite_settings, capsys, "--source", "factline", "--limit", "1")
    assert code == 0 and result["errors"] == 2 and result["rates"]["unknown_tool"]["total"] == 2
    model.requests.clear()
    assert run_probe(sqlite_settings, capsys, "--source", "factline", "--limit", "1")[0] == 0
    assert model.requests == []


def test_ctrl_c_keeps_the_answers_so_far_and_marks_the_run_interrupted(sqlite_settings, model):
    """A KeyboardInterrupt in the main thread after three answers leaves an interrupted run holding those three."""
    def interrupt_at_three(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    model.policy = refuses
    suite = load_suite("factline")
    key = RunKey("scripted", "native", "factline", PROMPT_VERSION, suite.catalog_version, suite.suite_version)
    sessions = open_ledger(sqlite_settings.deployment().ledger.url)
    with openai.OpenAI(base_url=model.base_url, api_key="x", max_retries=0) as client:
        chat = ChatModel(client, "scripted", "native", RetryPolicy(1), sleep=time.sleep, on_retry=lambda *a: None,
                         deadline=RunDeadline())
        with pytest.raises(KeyboardInterrupt):
            run_suite(sessions, chat, key, jobs(suite.probes), fresh=False, concurrency=1, max_tokens=10**6,
                      progress=interrupt_at_three)
    with sessions() as s:
        (run,) = latest_runs(s)
        assert run.status == "interrupted" and len(stored(s, run.id)) == 3
