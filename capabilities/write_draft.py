"""write_draft: the LLM writes a title and a markdown body for the run's topic (a plain completion)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from capabilities.base import (Capability, CapabilityContext, Claims, EvidenceFields, Prepared, StrictArgs, ToolResult,
                               in_language, require_own)
from capabilities.errors import ToolFailed, ToolRejected
from capabilities.records import TopicRecord

SYSTEM = (
    "You write short, concrete blog articles in markdown. Answer with the title on the first line "
    "starting with '# ', a blank line, then the body (150-400 words). No preamble."
)


class WriteDraftArgs(StrictArgs):
    topic_id: int = Field(ge=1)
    angle: str | None = Field(description="An angle to stress, only if the task names one; otherwise null.")


@dataclass(frozen=True, kw_only=True)
class WriteDraftPlan(Prepared[WriteDraftArgs]):
    topic: TopicRecord


def split_title(text: str) -> tuple[str, str]:
    """First non-empty line (without leading '#') is the title; the rest is the body.

    Text that is not valid Unicode (a lone surrogate from the model's JSON) is refused here, where it
    enters: no ledger or platform can store it.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolFailed(f"the model's text is not valid UTF-8 (lone surrogate at {exc.start}); write it again") from None
    lines = text.strip().splitlines()
    if not lines:
        raise ToolFailed("the model returned an empty draft")
    title = lines[0].lstrip("#").strip().strip('"*')
    body = "\n".join(lines[1:]).strip()
    if not title or not body:
        raise ToolFailed("the model's draft has no title or no body")
    return title[:200], body


class WriteDraft(Capability[WriteDraftArgs, WriteDraftPlan]):
    name = "write_draft"
    description = "Write a draft article for the topic picked in this run. Returns draft_id and version_id."
    Args = WriteDraftArgs
    inputs = {"topic_id": "pick_topic.topic_id", "angle": None}
    probe_task = "Write a draft for topic 3."
    lookalike = "write_article"
    claims = Claims(
        zh_verbs=("写稿", "撰写", "写草稿", "生成草稿", "写好稿", "起草"),
        zh_nouns=("草稿", "正文", "稿件", "初稿", "稿子", "文章"),
        en_done=("drafted", r"wrote (?:a|the) (?:[\w-]+ )?(?:draft|article)"),
        en_nouns=("draft", "article"),
        keys=("write_draft", "draft", "草稿", "写稿", "正文"),
    )
    evidence = EvidenceFields(quotes=("title",))
    version_kind = "draft"

    def prepare(self, ctx: CapabilityContext, args: WriteDraftArgs) -> WriteDraftPlan:
        picked = ctx.store.topic_for_run()
        if picked is None:
            raise ToolRejected("no topic picked in this run yet; call pick_topic first")
        topic = require_own(ctx.store.topic(args.topic_id), f"topic_id {args.topic_id}", lambda t: t.id == picked.id,
                            f"is not this run's topic (topic_id {picked.id})")
        return WriteDraftPlan(args=args, topic=topic)

    def execute(self, ctx: CapabilityContext, prepared: WriteDraftPlan) -> ToolResult:
        topic, angle = prepared.topic, prepared.args.angle
        text = ctx.text_model.complete(in_language(SYSTEM, ctx.settings),
                                       f"Topic: {topic.title}" + (f"\nAngle: {angle}" if angle else ""))
        title, body = split_title(text)
        version = ctx.store.add_draft_version(
            topic_id=topic.id, draft_id=None, kind="draft", title=title, body=body, score=None, scorer=None
        )
        payload = {"draft_id": version.draft_id, "version_id": version.id, "title": title, "words": len(body.split())}
        return ToolResult(payload, f"draft {version.draft_id} v{version.version}: {title}")


CAPABILITY = WriteDraft()
