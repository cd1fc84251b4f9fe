"""write_draft: the LLM writes a title and a markdown body for the run's topic (a plain completion).

A topic with sources is written from them: each source is read once per run (capabilities.sources),
their text goes into the prompt within SOURCE_TOKEN_BUDGET, split fairly (a short source keeps all of
itself, the rest is shared equally by the longer ones), with the brief, and the model is told to use only
those facts and to cite them by number. When every source failed the run stops (StopPipeline,
``sources_failed``): nothing is written from the model's memory, and the topic stays available.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from capabilities.base import (Capability, CapabilityContext, Claims, EvidenceFields, Prepared, StrictArgs, ToolResult,
                               in_language, require_own)
from capabilities.errors import StopPipeline, ToolFailed, ToolRejected
from capabilities.records import SourceText, TopicRecord
from capabilities.sources import read_sources

SYSTEM = (
    "You write short, concrete blog articles in markdown. Answer with the title on the first line "
    "starting with '# ', a blank line, then the body (150-400 words). No preamble."
)
GROUNDED = (
    " Use only facts found in the sources and the brief below: every number, date, name and quotation must "
    "be in them. Put in quotation marks only a source's own words, as the source writes them and in its "
    "language; say anything translated or shortened in your own words, without quotation marks. Cite the source of each fact by its number in square brackets, like [1]. Do not write a "
    "list of sources at the end: it is added for you."
)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: a CJK character is about one token, other text about four characters."""
    cjk = sum(1 for ch in text if "\u3000" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")
    return cjk + (len(text) - cjk + 3) // 4


def fair_shares(sizes: list[int], budget: int) -> list[int]:
    """Split ``budget`` over items of ``sizes``: none gets more than it needs, the rest share equally."""
    shares = [0] * len(sizes)
    pending = sorted(range(len(sizes)), key=lambda i: sizes[i])
    left = budget
    while pending:
        each = left // len(pending)
        smallest = pending[0]
        if sizes[smallest] > each:
            for i in pending:
                shares[i] = each
            break
        shares[smallest] = sizes[smallest]
        left -= sizes[smallest]
        pending.pop(0)
    return shares


def cut_to_tokens(text: str, tokens: int) -> str:
    """``text`` cut to about ``tokens`` tokens, at a sentence or word end where there is one near."""
    if estimate_tokens(text) <= tokens:
        return text
    cut = text[:max(0, int(len(text) * tokens / max(1, estimate_tokens(text))))]
    end = max(cut.rfind(". "), cut.rfind("。"), cut.rfind("\n"))
    return (cut[:end + 1] if end > len(cut) * 0.6 else cut).rstrip() + " …"


def sources_prompt(sources: list[SourceText], brief: str | None, budget: int) -> str:
    """The brief and the readable sources, numbered, within ``budget`` tokens in all."""
    readable = [s for s in sources if s.ok and s.text]
    shares = fair_shares([estimate_tokens(s.text or "") for s in readable], budget)
    parts = [f"Brief: {brief}"] if brief else []
    parts += [f"[{s.number}] {s.title}\n{cut_to_tokens(s.text or '', share)}" for s, share in zip(readable, shares)]
    return "\n\n".join(["Sources:", *parts]) if readable else "\n\n".join(parts)


def _sources_failed(sources: list[SourceText]) -> StopPipeline:
    reasons = "; ".join(f"[{s.number}] {s.source}: {s.failure}" for s in sources)
    return StopPipeline(f"no source of the topic could be read ({reasons})"[:500], verdict="unavailable",
                        reason="sources_failed")


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
        prompt = f"Topic: {topic.title}" + (f"\nAngle: {angle}" if angle else "")
        system = SYSTEM
        if topic.sources:
            sources = read_sources(ctx, topic)
            if not any(s.ok for s in sources):
                raise _sources_failed(sources)
            prompt += "\n\n" + sources_prompt(sources, topic.brief, ctx.settings.source_token_budget)
            system += GROUNDED
        elif topic.brief:
            prompt += f"\n\nBrief: {topic.brief}"
            system += GROUNDED
        text = ctx.text_model.complete(in_language(system, ctx.settings), prompt)
        title, body = split_title(text)
        version = ctx.store.add_draft_version(
            topic_id=topic.id, draft_id=None, kind="draft", title=title, body=body, score=None, scorer=None
        )
        payload = {"draft_id": version.draft_id, "version_id": version.id, "title": title, "words": len(body.split())}
        return ToolResult(payload, f"draft {version.draft_id} v{version.version}: {title}")


CAPABILITY = WriteDraft()
