"""Claim rules in Chinese and English, negations and the future, artifacts and prose calls."""

from __future__ import annotations

import pytest

from pipeline.guard import inspect
from pipeline.guard.artifacts import ungrounded
from pipeline.guard.claims import find_claims
from pipeline.guard.prose_calls import prose_calls

CATALOG = {"pick_topic", "write_draft", "humanize", "publish", "register", "report"}


@pytest.mark.parametrize(("text", "expected"), [
    ("文章已发布到平台", ["publish"]),
    ("发布成功，已上线", ["publish"]),
    ("已写入台账，登记号 CT-20260101-001", ["register"]),
    ("拟人化评分 82 分", ["humanize"]),
    ("评分 7", ["humanize"]),
    ("The article was published and is now live.", ["publish"]),
    ("It is registered; registration number CT-20260101-001.", ["register"]),
    ("Humanized, score: 81.", ["humanize"]),
])
def test_affirmative_claims_are_found(text: str, expected: list[str]) -> None:
    """Completion claims in either language name their capability."""
    assert [c.capability for c in find_claims(text)] == expected


@pytest.mark.parametrize("text", [
    "未发布", "文章尚未发布", "还没有登记", "将发布这篇文章", "发布失败", "如果已发布，再登记",
    "I will publish it next.", "I could not publish the article.", "It has not been published.",
    "Once it is published, I will register it.", "The post was not registered yet.", "I am going to humanize it.",
])
def test_negations_and_future_are_not_claims(text: str) -> None:
    """Negated, conditional and future statements claim nothing."""
    assert find_claims(text) == []


def test_artifacts_must_appear_in_the_evidence() -> None:
    """A URL or registration number counts only if a tool result holds it."""
    evidence = '{"url": "http://127.0.0.1:8765/a-1.html", "registration_number": "CT-20260101-001"}'
    text = "See http://127.0.0.1:8765/a-1.html. Number CT-20260101-001, also https://domain/item/fake-id and CT-20260101-002."
    assert ungrounded(text, evidence) == ["https://domain/item/fake-id", "CT-20260101-002"]


@pytest.mark.parametrize(("text", "expected"), [
    ('```json\n{"name": "publish", "arguments": {"version_id": 3}}\n```', ["publish"]),
    ('{"tool": "register", "arguments": {"publication_id": 1}}', ["register"]),
    ("<tool_call>\n{\"name\": \"humanize\", \"arguments\": {\"draft_id\": 2}}\n</tool_call>", ["humanize"]),
    ("Next I call publish(version_id=3).", ["publish"]),
    ('{"name": "delete_all"}', []),
    ("I will publish the article after humanizing it.", []),
])
def test_tool_calls_written_as_text_are_recognised(text: str, expected: list[str]) -> None:
    """JSON, XML and call syntax naming a catalog tool are prose calls; other text is not."""
    assert prose_calls(text, CATALOG) == expected


def test_backed_claims_are_marked_backed() -> None:
    """A claim whose capability executed is recorded as backed."""
    [finding] = inspect("Published.", {"publish"}, "", CATALOG)
    assert (finding.kind, finding.capability, finding.backed) == ("claim", "publish", True)
