"""humanize: the LLM rewrites the draft; code scores the rewrite 0-100 (capabilities.textscore)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from capabilities.base import (Capability, CapabilityContext, Claims, EvidenceFields, Prepared, StrictArgs, ToolResult,
                               in_language, require_own)
from capabilities.records import DraftVersionRecord
from capabilities.textscore import SCORER, score_text
from capabilities.write_draft import split_title

SYSTEM = (
    "Rewrite the article so it reads like a person wrote it: vary sentence length, cut filler and stock "
    "phrases, keep every fact and its [n] citation, and add no number, date, name or quotation the article "
    "does not already have. Keep the format: '# ' title line, blank line, markdown body. No preamble."
)


class HumanizeArgs(StrictArgs):
    draft_id: int = Field(ge=1)


@dataclass(frozen=True, kw_only=True)
class HumanizePlan(Prepared[HumanizeArgs]):
    latest: DraftVersionRecord


class Humanize(Capability[HumanizeArgs, HumanizePlan]):
    name = "humanize"
    description = "Rewrite the latest version of a draft of this run and score it 0-100. Returns version_id and score."
    Args = HumanizeArgs
    inputs = {"draft_id": "write_draft.draft_id"}
    probe_task = "Humanize draft 7 so it reads less stiffly."
    lookalike = "humanize_text"
    claims = Claims(
        zh_verbs=("拟人化", "人性化改写", "改写", "润色", "打分"),
        zh_nouns=("拟人化处理", "拟人化", "改写", "润色"),
        en_done=("humani[sz]ed", "rewrote", "rewritten"),
        en_nouns=("humani[sz]ation", "humani[sz]e", "rewrite"),
        keys=("humanize score", "humanize", "humanized", "score", "评分", "得分", "分数", "改写", "拟人化评分", "拟人化"),
    )
    evidence = EvidenceFields(scores=("score",))
    version_kind = "humanized"

    def prepare(self, ctx: CapabilityContext, args: HumanizeArgs) -> HumanizePlan:
        latest = require_own(ctx.store.latest_version(args.draft_id), f"draft {args.draft_id}",
                             lambda v: v.run_id == ctx.run_id)
        return HumanizePlan(args=args, latest=latest)

    def execute(self, ctx: CapabilityContext, prepared: HumanizePlan) -> ToolResult:
        latest = prepared.latest
        text = ctx.text_model.complete(in_language(SYSTEM, ctx.settings), f"# {latest.title}\n\n{latest.body}")
        title, body = split_title(text)
        score = score_text(body)
        version = ctx.store.add_draft_version(
            topic_id=latest.topic_id, draft_id=latest.draft_id, kind="humanized", title=title, body=body,
            score=score, scorer=SCORER,
        )
        payload = {"draft_id": version.draft_id, "version_id": version.id, "score": score, "scorer": SCORER}
        return ToolResult(payload, f"draft {version.draft_id} v{version.version} scored {score}")


CAPABILITY = Humanize()
