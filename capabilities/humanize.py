"""humanize: the LLM rewrites the draft; code scores the rewrite 0-100 (capabilities.textscore)."""

from __future__ import annotations

from pydantic import Field

from capabilities.base import Capability, CapabilityContext, StrictArgs, ToolResult, in_language
from capabilities.errors import ToolRejected
from capabilities.textscore import SCORER, score_text
from capabilities.write_draft import split_title

SYSTEM = (
    "Rewrite the article so it reads like a person wrote it: vary sentence length, cut filler and stock "
    "phrases, keep every fact. Keep the format: '# ' title line, blank line, markdown body. No preamble."
)


class HumanizeArgs(StrictArgs):
    draft_id: int = Field(ge=1)


class Humanize(Capability[HumanizeArgs]):
    name = "humanize"
    description = "Rewrite the latest version of a draft of this run and score it 0-100. Returns version_id and score."
    Args = HumanizeArgs

    def validate(self, ctx: CapabilityContext, args: HumanizeArgs) -> None:
        latest = ctx.store.latest_version(args.draft_id)
        if latest is None:
            raise ToolRejected(f"draft {args.draft_id} does not exist", hallucinated_argument=True)
        if latest.run_id != ctx.run_id:
            raise ToolRejected(f"draft {args.draft_id} belongs to another run", hallucinated_argument=True)

    def execute(self, ctx: CapabilityContext, args: HumanizeArgs) -> ToolResult:
        latest = ctx.store.latest_version(args.draft_id)
        assert latest is not None
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
