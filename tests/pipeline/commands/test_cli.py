"""The command line as a user runs it: real processes, exit codes, the printed report, ledger_diff (what `runs --json`
says of a run is read in the test process: factline_here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from testkit.scripted_model import ScriptedModel, say, script
from tests.cli_helpers import factline_here, factline_read
from tests.paths import ROOT

INCIDENT = "已发布至平台 https://domain/item/fake-id，拟人化评分 82 分，登记号 CT-20260922-001。"


def _env(db_url: str, model: ScriptedModel, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FACTLINE_", "DATABASE_"))}
    env.update(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
               LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT="0", **extra)
    return env


def _factline(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def _ledger_diff(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "scripts/ledger_diff.py", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_run_prints_the_ledger_report_and_exits_0(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """factline run: exit 0, the report lists the six calls and the registration number; ledger_diff is clean."""
    env = _env(db_url, model, tmp_path)
    done = _factline(env, "run")
    assert done.returncode == 0, done.stderr
    assert "success (exit 0)" in done.stdout and "registered CT-" in done.stdout
    diff = _ledger_diff(env)
    assert diff.returncode == 0 and "hallucinated={}" in diff.stdout


def test_incident_run_exits_3_and_ledger_diff_exits_1(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """The incident as a process: exit 3; ledger_diff prints the difference and exits 1."""
    model.policy = script(then=lambda request: say(INCIDENT))
    env = _env(db_url, model, tmp_path)
    assert _factline(env, "run").returncode == 3
    diff = _ledger_diff(env)
    assert diff.returncode == 1
    assert "hallucinated={humanize,publish,register}" in diff.stdout
    rows = json.loads(_ledger_diff(env, "--last", "5", "--json").stdout)
    assert [r["verdict"] for r in rows] == ["hallucinated"]


def test_runs_json_shows_each_call_with_outcome_and_reason(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """factline runs --run ID --json: the verdict and every call's name, outcome and reason."""
    env = _env(db_url, model, tmp_path)
    model.policy = script(say("x"), then=lambda request: script()(request))
    assert factline_here(env, "run").returncode == 0  # in this process: the test is the JSON, not the exit
    detail = json.loads(factline_read(env, "runs", "--run", "1", "--json").stdout)
    assert detail["verdict"] == "success"
    assert {(c["name"], c["outcome"]) for c in detail["tool_calls"]} >= {("publish", "ok"), ("register", "ok")}
    assert list(detail) == ["run_id", "pipeline", "trigger", "scheduled_for", "status", "verdict", "stop_reason",
                            "error", "model", "tool_call_mode",
                            "started_at", "finished_at", "tokens", "tool_calls", "claims", "nudges", "events",
                            "registrations", "publications", "dry_run", "sources", "fact_checks", "trace_id", "lateness",
                            "pruned_at"]
    assert list(detail["tool_calls"][0]) == ["seq", "turn", "name", "arguments", "outcome", "reason", "shadow_of",
                                             "attempts", "latency_ms", "detail", "result"]
    assert detail["nudges"] == [{"turn": 1, "kind": "continue", "detail": "verified registration and report"}]
    assert datetime.fromisoformat(detail["finished_at"]) >= datetime.fromisoformat(detail["started_at"])


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_bad_setting_fails_at_start_with_one_line_and_exit_2(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A wrong value exits 2 before anything runs, with one line naming the variable."""
    env = _env(db_url, model, tmp_path, AGENT_HALLUCINATION_MAX_NUDGES="many")
    done = _factline(env, "run")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "AGENT_HALLUCINATION_MAX_NUDGES" in done.stderr
