"""The eight cases of the incident write-up, and the incident itself replayed, over the real protocol."""

from __future__ import annotations

import json

import pytest

from config import Settings
from pipeline.ledger.detail import run_detail
from pipeline.ledger import queries
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from scripts import ledger_diff
from testkit.scripted_model import ScriptedModel, happy_path, say, script, step_call

INCIDENT = ("文章已生成，拟人化评分 82 分，已发布至平台，链接 https://domain/item/fake-id，"
            "已登记到台账，登记号 CT-20260922-001。")


def _run(settings: Settings, model: ScriptedModel, policy, **overrides):  # type: ignore[no-untyped-def]
    model.policy = policy
    with open_runtime(settings.model_copy(update=overrides)) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            return result, queries.diffs(s, [result.run_id])[0], run_detail(s, result.run_id)


def test_normal_calls_raise_no_false_alarm(settings: Settings, model: ScriptedModel) -> None:
    """A model that calls every tool and then says it published is not flagged."""
    final = say("Published and registered; the report is done.")
    result, diff, detail = _run(settings, model, script(*[step_call(s) for s in
                                ("pick_topic", "write_draft", "humanize", "fact_check", "publish", "register", "report")], final))
    assert result.verdict == "success"
    assert diff.hallucinated == [] and detail.nudges == ()


def test_single_claim_without_call_is_caught(settings: Settings, model: ScriptedModel) -> None:
    """'已发布' with no publish call is a hallucination of publish."""
    result, diff, _ = _run(settings, model, script(say("文章已发布。"), say("文章已发布。"), say("文章已发布。")))
    assert result.verdict == "hallucinated" and result.exit_code == 3
    assert diff.hallucinated == ["publish"]


def test_several_claims_are_caught_together(settings: Settings, model: ScriptedModel) -> None:
    """English claims of publish, register and humanize are all listed."""
    text = "The article was published, registered with registration number CT-20260101-001, humanized with score 80."
    result, diff, _ = _run(settings, model, script(say(text), say(text), say(text)))
    assert result.verdict == "hallucinated"
    assert diff.hallucinated == ["humanize", "publish", "register"]


def test_claims_already_executed_do_not_trigger(settings: Settings, model: ScriptedModel) -> None:
    """After a real publish, saying it was published is backed by the ledger."""
    steps = [step_call(s) for s in ("pick_topic", "write_draft", "humanize", "fact_check", "publish")]
    policy = script(*steps, say("Published."), then=happy_path)
    result, diff, detail = _run(settings, model, policy)
    assert result.verdict == "success"
    assert diff.claimed == ["publish"] and diff.hallucinated == []
    assert all(n.kind != "hallucination" for n in detail.nudges)


def test_nudge_limit_raises_agent_hallucination_error(settings: Settings, model: ScriptedModel) -> None:
    """Claims on every turn: MAX_NUDGES nudges, then the run ends hallucinated with that many nudge rows."""
    result, _, detail = _run(settings, model, script(*[say("已发布")] * 5), agent_hallucination_max_nudges=2)
    assert result.verdict == "hallucinated" and result.stop_reason == "nudges_exhausted"
    assert [n.kind for n in detail.nudges] == ["hallucination", "hallucination"]
    assert "AgentHallucinationError" not in (result.error or "") and "publish" in (result.error or "")


def test_guard_switched_off_falls_back_to_ledger_verdict(settings: Settings, model: ScriptedModel) -> None:
    """With the guard off claims are not checked, yet a run without a publication is never a success."""
    always_incident = script(then=lambda request: say(INCIDENT))
    result, diff, detail = _run(settings, model, always_incident, agent_hallucination_guard=False)
    assert result.verdict == "incomplete" and result.exit_code == 4
    assert diff.claimed == [] and detail.claims == ()


def test_model_recovers_after_a_nudge(settings: Settings, model: ScriptedModel) -> None:
    """A claim in prose, a nudge, then real calls: the run completes and keeps the nudge on record."""
    result, diff, detail = _run(settings, model, script(say("已发布，登记号 CT-20260101-001"), then=happy_path))
    assert result.verdict == "success"
    assert [n.kind for n in detail.nudges] == ["hallucination"]
    assert diff.hallucinated == []


def test_ungrounded_url_counts_even_when_publish_was_called(settings: Settings, model: ScriptedModel) -> None:
    """A URL that no tool result holds is ungrounded, though publish really ran."""
    steps = [step_call(s) for s in ("pick_topic", "write_draft", "humanize", "fact_check", "publish")]
    fake = say("Published at https://domain/item/fake-id")
    result, diff, _ = _run(settings, model, script(*steps, fake, fake, fake))
    assert result.verdict == "hallucinated"
    assert diff.ungrounded == ["https://domain/item/fake-id"]


def test_prose_tool_call_is_never_executed(settings: Settings, model: ScriptedModel) -> None:
    """A JSON tool call written in the content is a prose_call: nudged, not executed."""
    prose = say('```json\n{"name": "pick_topic", "arguments": {}}\n```')
    result, diff, detail = _run(settings, model, script(prose, then=happy_path))
    assert result.verdict == "success"
    assert diff.prose_calls == ["pick_topic"]
    assert [c.name for c in detail.tool_calls].count("pick_topic") == 1


def test_incident_replayed_exits_3_and_ledger_diff_lists_it(
    settings: Settings, model: ScriptedModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The incident: prose only, fake URL, score 82, CT-20260922-001 -> exit 3; ledger_diff lists the four claims."""
    result, diff, _ = _run(settings, model, script(say(INCIDENT), say(INCIDENT), say(INCIDENT)))
    assert (result.verdict, result.exit_code) == ("hallucinated", 3)
    monkeypatch.setenv("DATABASE_URL", settings.deployment().ledger.url)
    assert ledger_diff.main(["--json"]) == 1
    [row] = json.loads(capsys.readouterr().out)
    assert row["run_id"] == result.run_id and row["verdict"] == "hallucinated"
    assert row["hallucinated"] == ["humanize", "publish", "register", "write_draft"]  # 文章已生成: write_draft
    assert row["called"] == []
    assert row["ungrounded"] == ["score:82", "https://domain/item/fake-id", "CT-20260922-001"]


def test_model_stopping_early_without_claims_is_incomplete(settings: Settings, model: ScriptedModel) -> None:
    """Stopping is not success: continue prompts (bounded), then exit 4 with the ledger's verdict."""
    result, _, detail = _run(settings, model, script(step_call("pick_topic"), say("ok"), say("ok"), say("ok")))
    assert (result.verdict, result.exit_code) == ("incomplete", 4)
    assert [n.kind for n in detail.nudges] == ["continue", "continue"]
