"""The hallucination guard: what the model's text asserts, compared with what the ledger recorded.

    claimed      capabilities whose completion the text asserts (pipeline.guard.claims)
    called       capabilities that executed successfully in this run (ledger rows, outcome ok)
    hallucinated claimed - called, plus ungrounded artifacts and tool calls written as prose

Exceptions: AgentHallucinationError (the nudge limit is spent) is the only one; it is a StopRun with
the verdict ``hallucinated``. Findings are pipeline.outcome.Finding (the ledger records them as they are).
"""

from __future__ import annotations

from pipeline.guard.artifacts import ungrounded
from pipeline.guard.claims import find_claims
from pipeline.guard.prose_calls import prose_calls
from pipeline.outcome import Finding, FindingKind, StopRun, Verdict

HALLUCINATION_NUDGE = (
    "检测到你声称已完成操作但系统未记录到对应的真实工具调用。请勿用自然语言描述执行结果，必须通过标准 tool_call 实际调用对应能力。\n"
    "The system recorded no successful tool call for what you claimed: {items}. Do not describe results in "
    "prose and do not write tool calls as text; call the tools through real tool calls."
)
CONTINUE_NUDGE = (
    "The job is not done: the ledger has no {missing} yet. Continue by calling the next tool. "
    "Only tool calls count; text is not evidence."
)


class AgentHallucinationError(StopRun):
    """The model kept claiming what the ledger does not show after the allowed nudges."""

    def __init__(self, claimed: set[str], called: set[str], findings: list[Finding]) -> None:
        self.claimed, self.called, self.findings = claimed, called, findings
        unbacked = sorted({f.capability or f.span for f in findings if not f.backed})
        super().__init__(Verdict.hallucinated, "nudges_exhausted",
                         f"claimed but not executed: {unbacked}; called: {sorted(called)}")


def inspect(text: str, called: set[str], evidence: str, catalog: set[str]) -> list[Finding]:
    """Every claim, artifact and prose call in ``text``; ``backed`` tells whether the ledger supports it."""
    findings = [Finding(FindingKind.claim, c.capability, c.span, c.capability in called) for c in find_claims(text)]
    findings += [Finding(FindingKind.ungrounded, None, a, False) for a in ungrounded(text, evidence)]
    findings += [Finding(FindingKind.prose_call, name, name, False) for name in prose_calls(text, catalog)]
    return findings


def nudge_text(findings: list[Finding]) -> str:
    items = ", ".join(sorted({f"{f.kind}:{f.capability or f.span}" for f in findings if not f.backed}))
    return HALLUCINATION_NUDGE.format(items=items)


__all__ = ["AgentHallucinationError", "CONTINUE_NUDGE", "Finding", "inspect", "nudge_text"]
