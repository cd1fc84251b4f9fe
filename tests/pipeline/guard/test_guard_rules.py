"""The guard's reader, form by form: claims and their polarity, artifacts by exact token and source, prose calls."""

from __future__ import annotations

import pytest

from capabilities import CATALOG
from pipeline.guard import Evidence, inspect
from pipeline.guard.artifacts import extract
from pipeline.guard.prose_calls import prose_calls

NAMES = set(CATALOG)
URL = "http://127.0.0.1:8080/?p=57"
RESULTS = [
    ("pick_topic", {"topic_id": 7, "title": "登记号 CT-20200101-999 的由来"}),
    ("humanize", {"draft_id": 3, "version_id": 5, "score": 74}),
    ("publish", {"publication_id": 9, "url": URL, "online": True}),
    ("register", {"registration_number": "CT-20260922-002", "publication_id": 9}),
]
RUN = Evidence.from_results({"pick_topic", "write_draft", "humanize", "publish", "register"}, RESULTS, CATALOG)
NOTHING = Evidence()


def unbacked(text: str, evidence: Evidence = NOTHING) -> list[str]:
    return sorted({f"{f.kind}:{f.capability if f.kind != 'ungrounded' else f.span}"
                   for f in inspect(text, evidence, NAMES) if not f.backed})


@pytest.mark.parametrize(("text", "expected"), [
    ("文章已发布到平台", ["publish"]),
    ("发表成功，请查收。", ["publish"]),
    ("文章已经发布到平台上了", ["publish"]),
    ("已完成登记", ["register"]),
    ("我已将文章发布", ["publish"]),
    ("草稿写好了，也改写并发布了。", ["humanize", "publish", "write_draft"]),
    ("日报已生成", ["report"]),
    ("The article has been pushed to the site.", ["publish"]),
    ("It's live: readers can open it now.", ["publish"]),
    ("Publishing succeeded.", ["publish"]),
    ("Registration complete.", ["register"]),
    ("I've logged the publication in the ledger.", ["register"]),
    ("Report generated.", ["report"]),
    ("publish 成功，已 register。", ["publish", "register"]),
])
def test_completion_claims_are_found_in_either_language(text: str, expected: list[str]) -> None:
    """Each way of saying a step completed names its capability."""
    assert unbacked(text) == [f"claim:{c}" for c in expected]


@pytest.mark.parametrize("text", [
    "Nothing was published.", "Nothing was published, registered or reported today.",
    "The article was neither published nor registered.", "I couldn't get it published.", "Publishing failed: HTTP 503.",
    "未发布", "文章尚未发布", "发布失败，未登记。", "既没有发布，也没有登记。", "文章并未上线。",
])
def test_negated_claims_are_no_claims(text: str) -> None:
    """A negated or failed step is not claimed."""
    assert unbacked(text) == []


@pytest.mark.parametrize("text", [
    "I'll publish it next.", "Let me get this published.", "If publishing succeeds, I will register the article.",
    "Once it is published, it can be registered.", "若发布成功，再去登记。", "假如发布成功的话，就登记。",
    "倘若平台恢复，文章就能发布。", "等发布完成后再登记。", "发布成功的话，链接会出现在报告里。",
])
def test_conditional_and_future_claims_are_no_claims(text: str) -> None:
    """A condition, a plan or an intention claims nothing."""
    assert unbacked(text) == []


@pytest.mark.parametrize("text", [
    "文章发布成功了吗？", "Has it been published yet?", "是否已登记？请确认。", "Whether it was published is unknown.",
])
def test_questions_are_no_claims(text: str) -> None:
    """A question about a step is not a claim that it happened."""
    assert unbacked(text) == []


@pytest.mark.parametrize("text", [
    "Published: no", "登记号：暂无", "Registration number: pending", "发布：失败\n登记：未执行",
    "| step | status |\n|---|---|\n| publish | failed |", "发布 ❌  登记 ❌", "是否发布：否",
])
def test_status_lines_with_negative_values_are_no_claims(text: str) -> None:
    """A status line or table row is read by its value: no, failed, pending, 暂无, ❌ claim nothing."""
    assert unbacked(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("| publish | done |", ["claim:publish"]),
    ("发布：成功\n登记：完成", ["claim:publish", "claim:register"]),
    ("Publish: ✅", ["claim:publish"]),
    ("是否发布：是", ["claim:publish"]),
])
def test_status_lines_with_affirmative_values_are_claims(text: str, expected: list[str]) -> None:
    """done, 成功, ✅, 是 in a status line or a table with no verb claim the step."""
    assert unbacked(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("No errors: the article was published.", ["claim:publish"]),
    ("After the check passed, I published the article.", ["claim:publish"]),
    ("没有报错，文章已发布。", ["claim:publish"]),
    ("未登记，但文章已发布。", ["claim:publish"]),
])
def test_pseudo_triggers_and_terminators_leave_claims_standing(text: str, expected: list[str]) -> None:
    """'no errors', 'after the check passed', 没有报错 negate nothing; 'but'/但 ends a negation's scope."""
    assert unbacked(text) == expected


@pytest.mark.parametrize("text", [
    "You asked: \"publish the article and register it\". I have not done that yet.",
    "你的指令是「发布文章并登记」，目前还没完成。",
])
def test_quoted_instructions_are_no_claims(text: str) -> None:
    """Text between quotation marks is reported speech, not the model's assertion."""
    assert unbacked(text) == []


@pytest.mark.parametrize("text", [
    f"已发布：{URL}；请查看。", f"链接 {URL}！", f"文章「{URL}」已上线。", f"发布完成——{URL}——可以访问。",
    f"地址是{URL}…", f"Published: **{URL}**", f"Published: [the post]({URL}).", f"已发布，链接为{URL}请查收",
    f"已发布（{URL}）。", "登记号CT-20260922-002，已入账。", "已登记，登记号为ＣＴ－２０２６０９２２－００２。",
    "Published at 127.0.0.1:8080/?p=57",
])
def test_real_artifacts_are_grounded_whatever_surrounds_them(text: str) -> None:
    """Punctuation, brackets, Markdown and glued CJK text around the real URL or number do not unground it."""
    assert unbacked(text, RUN) == []


@pytest.mark.parametrize(("text", "artifact"), [
    ("Published at http://127.0.0.1:8080/?p=5", "http://127.0.0.1:8080/?p=5"),
    ("Published at http://127.0.0.1:8080/?p=570", "http://127.0.0.1:8080/?p=570"),
    ("Registered as CT-2026-0922-002.", "CT-2026-0922-002"),
    ("Registered as ct-20260922-002.", "ct-20260922-002"),
    ("Registered as CT–20260922–002.", "CT–20260922–002"),
    ("Published at blog.example.com/why-agents-need-a-ledger", "blog.example.com/why-agents-need-a-ledger"),
    ("Registered as CT-20200101-999.", "CT-20200101-999"),
])
def test_near_artifacts_and_artifacts_from_the_wrong_source_are_ungrounded(text: str, artifact: str) -> None:
    """Equality, never substring; near-miss numbers count; a topic title grounds no registration number."""
    assert f"ungrounded:{artifact}" in unbacked(text, RUN)


def test_quoting_the_topic_title_is_no_claim() -> None:
    """A title of this run repeated verbatim (holding CT-20200101-999) is neither a claim nor an artifact."""
    assert unbacked("Today's topic: 登记号 CT-20200101-999 的由来. Publish is next.", RUN) == []


def test_artifact_extraction_stops_at_cjk_punctuation_and_text() -> None:
    """A URL ends before ；！」 and glued Chinese text; a number after 登记号 is found."""
    text = "已发布：https://a.example/p/1；链接https://b.example/x请查收，登记号CT-20260922-003。"
    assert [a.text for a in extract(text)] == ["https://a.example/p/1", "https://b.example/x", "CT-20260922-003"]


@pytest.mark.parametrize(("text", "expected"), [
    ("Humanized; score 82.", ["ungrounded:score:82"]),
    ("拟人化评分 82 分。", ["ungrounded:score:82"]),
    ("Score: 74.", []),
    ("目标分数 80 分，实际得分 74。", []),
    ("Score target is 70; we got 74.", []),
])
def test_a_stated_score_must_be_a_recorded_score(text: str, expected: list[str]) -> None:
    """'score 82' when humanize returned 74 is unbacked; targets and scales are not scores."""
    assert unbacked(text, RUN) == expected


def test_score_followed_by_blank_space_and_no_digit_is_no_claim() -> None:
    """A long run of spaces after "score" without a digit claims nothing."""
    assert unbacked("score" + " " * 5000 + "pending") == []


@pytest.mark.parametrize(("text", "expected"), [
    ('```json\n{"name": "publish", "arguments": {"version_id": 3}}\n```', ["publish"]),
    ("{'name': 'publish', 'arguments': {'version_id': 31}}", ["publish"]),
    ('{"action": "publish", "action_input": {"version_id": 31}}', ["publish"]),
    ('Thought: ready.\nAction: publish\nAction Input: {"version_id": 31}', ["publish"]),
    ("publish(31)", ["publish"]),
    ("Next I call publish(version_id=3).", ["publish"]),
    ('<invoke name="publish">\n<parameter name="version_id">31</parameter>\n</invoke>', ["publish"]),
    ('<function=publish>{"version_id": 31}</function>', ["publish"]),
    ("<tool_call>\n{\"name\": \"humanize\", \"arguments\": {\"draft_id\": 2}}\n</tool_call>", ["humanize"]),
    ('{"name": "delete_all"}', []),
    ("Steps done: pick_topic(), report()", []),
    ("I will publish the article after humanizing it.", []),
    ('{"status": "waiting", "next": "publish"}', []),
])
def test_tool_calls_written_as_text_are_recognised(text: str, expected: list[str]) -> None:
    """JSON, Python-dict, ReAct, XML and call syntax naming a catalog tool are prose calls; bare names are not."""
    assert prose_calls(text, NAMES) == expected


def test_backed_claims_are_marked_backed() -> None:
    """A claim whose capability executed is recorded as backed."""
    [finding] = inspect("Published.", Evidence(called=frozenset({"publish"})), NAMES)
    assert (finding.kind, finding.capability, finding.backed) == ("claim", "publish", True)


def test_only_the_fields_a_capability_declares_ground_an_artifact() -> None:
    """The report's nested publications ground their URL; the same URL under an undeclared key, or from a tool
    outside the catalog, grounds nothing (a payload key renamed from url to link stops grounding, visibly)."""
    text = f"The article is online at {URL}."
    report = Evidence.from_results({"report"}, [("report", {"publications": [{"url": URL}]})], CATALOG)
    renamed = Evidence.from_results({"publish"}, [("publish", {"publication_id": 9, "link": URL})], CATALOG)
    foreign = Evidence.from_results({"publish"}, [("fetch_page", {"url": URL})], CATALOG)
    assert unbacked(text, report) == ["claim:publish"]
    assert unbacked(text, renamed) == unbacked(text, foreign) == [f"ungrounded:{URL}"]
