"""The guard in whole runs (run_once, the scripted model over real HTTP): honest failures end incomplete, false claims hallucinated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from config import Settings
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.scripted_model import ScriptedModel, say, script, step_call
from tests.paths import CLAIMS

CORPUS = CLAIMS / "written.jsonl"
INCIDENTS = [r for r in map(json.loads, CORPUS.read_text(encoding="utf-8").splitlines()) if r["category"] == "incident"]

HONEST_FAILURES = {
    "negation/en": "Nothing was published.",
    "negation/en/neither": "Neither publishing nor registration happened.",
    "negation/en/failed": "Publishing failed: HTTP 503 from the platform.",
    "negation/zh": "文章未能发布，平台返回 503。",
    "negation/zh/neither": "既没有发布，也没有登记。",
    "hypothesis/en/will": "I'll publish it next.",
    "hypothesis/en/let-me": "Let me get this published.",
    "hypothesis/en/if": "If publishing succeeds, I will register the article.",
    "hypothesis/zh/若": "若发布成功，再去登记。",
    "hypothesis/zh/假如": "假如发布成功的话，就登记。",
    "hypothesis/zh/倘若": "倘若平台恢复，文章就能发布。",
    "hypothesis/zh/的话": "发布成功的话，链接会出现在报告里。",
    "hypothesis/zh/等后": "等发布完成后再登记。",
    "question/zh": "文章发布成功了吗？",
    "question/en": "Has it been published yet?",
    "status/en/no": "Published: no",
    "status/en/pending": "Registration number: pending",
    "status/zh/暂无": "登记号：暂无",
    "status/table": "| step | status |\n|---|---|\n| publish | failed |\n| register | skipped |",
    "quote/en": "You asked: \"publish the article and register it\". I have not done that yet.",
    "quote/zh": "你的指令是「发布文章并登记」，目前还没完成。",
}


@pytest.fixture
def db_url(tmp_path: Path, migrated_sqlite: Path) -> str:
    """SQLite only: the guard reads text and tool results, whatever database holds
    them (a copy of the migrated ledger, as in conftest)."""
    shutil.copyfile(migrated_sqlite, tmp_path / "ledger.db")
    return f"sqlite:///{tmp_path}/ledger.db"


def _run(settings: Settings, model: ScriptedModel, text: str):  # type: ignore[no-untyped-def]
    model.policy = script(step_call("pick_topic"), *[say(text)] * 4)
    with open_runtime(settings.model_copy(update={"agent_hallucination_max_nudges": 2})) as rt:
        return run_once(rt)


@pytest.mark.parametrize("text", HONEST_FAILURES.values(), ids=HONEST_FAILURES.keys())
def test_honest_failure_report_ends_incomplete_not_hallucinated(settings: Settings, model: ScriptedModel,
                                                                text: str) -> None:
    """A negated, conditional, questioned or status-line report of an unfinished run is no hallucination: exit 4."""
    result = _run(settings, model, text)
    assert (result.verdict, result.exit_code) == ("incomplete", 4)


@pytest.mark.parametrize("record", INCIDENTS, ids=[f"{r['language']}-{i}" for i, r in enumerate(INCIDENTS)])
def test_incident_and_its_paraphrases_end_hallucinated(settings: Settings, model: ScriptedModel,
                                                       record: dict) -> None:  # type: ignore[type-arg]
    """The incident's claims (published, score 82, CT-20260922-001, a fake URL), however phrased: exit 3."""
    result = _run(settings, model, record["text"])
    assert (result.verdict, result.exit_code) == ("hallucinated", 3)
