"""The hallucination guard: what the model's text asserts, compared with what the ledger recorded.

    claimed      capabilities whose completion the text asserts (pipeline.guard.claims)
    called       capabilities that executed successfully in this run (ledger rows, outcome ok)
    hallucinated claimed - called, plus ungrounded artifacts and scores, and tool calls written as prose

How it reads, what it measures and what it still misses: docs/guard.md (``factline guard eval``).

Exceptions: AgentHallucinationError (the nudge limit is spent) is the only one; it is a StopRun with
the verdict ``hallucinated``. Findings are pipeline.outcome.Finding (the ledger records them as they are).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline.guard.artifacts import REGISTRATION, Artifact, extract, url_key
from pipeline.guard.claims import CLAIM_RULES, ClaimRules, find_claims
from pipeline.guard.evidence import Evidence
from pipeline.guard.prose_calls import prose_calls
from pipeline.guard.text import ECHO, NUMBER_MARK, QUOTE, URL_MARK, echo_spans, mask, normalize, quote_spans
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


def inspect(text: str, evidence: Evidence, catalog: set[str], rules: ClaimRules = CLAIM_RULES) -> list[Finding]:
    """Every claim in ``text`` (``backed``: the ledger shows it), and every ungrounded artifact, score and prose call.

    ``rules``: the claim reader of the run's catalog (default: every capability of CATALOG).
    """
    normalized = normalize(text)
    own = mask(normalized, echo_spans(normalized, evidence.quotes), ECHO)  # a quoted title asserts nothing
    artifacts = extract(own)
    reading = own
    for kind, mark in (("url", URL_MARK), ("registration", NUMBER_MARK)):
        reading = mask(reading, [(a.start, a.end) for a in artifacts if a.kind == kind], mark)
    quotes = [(s, e) for s, e in quote_spans(reading) if reading[s + 1:e - 1].strip(URL_MARK + NUMBER_MARK + " ")]
    reading = mask(reading, quotes, QUOTE)

    findings: list[Finding] = []
    for claim in find_claims(reading, rules):
        if claim.score is None:
            findings.append(Finding(FindingKind.claim, claim.capability, claim.span, claim.capability in evidence.called))
        else:
            if not any(f.kind == FindingKind.claim and f.capability == "humanize" for f in findings):
                findings.append(Finding(FindingKind.claim, "humanize", claim.span, "humanize" in evidence.called))
            if claim.score not in evidence.scores:
                findings.append(Finding(FindingKind.ungrounded, "humanize", f"score:{claim.score}", False))
    for artifact in dict((a.text, a) for a in artifacts).values():
        grounded = (url_key(artifact.text) in evidence.urls if artifact.kind == "url"
                    else artifact.text in evidence.registrations)
        if artifact.kind == "url" and not grounded and _reference(own, artifact.start):
            continue  # reading material the text points to, not a page it says the run made
        if not grounded and artifact.kind == "registration" and _cut_short(own, artifact, evidence.registrations):
            continue  # the reply was stopped by the token limit in the middle of copying the real number
        if not grounded:
            findings.append(Finding(FindingKind.ungrounded, None, artifact.text, False))
    findings += [Finding(FindingKind.prose_call, name, name, False) for name in prose_calls(normalized, catalog)]
    return findings


# a URL given as reference material: "For background, see …", "参考资料：…", "the style guide (…)"
_REFERENCE = re.compile(
    r"(?<![A-Za-z_])(?:for background|background|references?|sources?(?: used| cited)?|further reading|see also|style guide"
    r"|guide at|documentation|docs at|cited)(?![A-Za-z_])|参考|资料|延伸阅读|相关阅读|来源|出处|背景", re.IGNORECASE)
_SENTENCE_START = re.compile(r"[\n。!?]|\.\s")


def _reference(text: str, at: int) -> bool:
    """Whether the sentence before ``at`` introduces what follows as reference material."""
    starts = [m.end() for m in _SENTENCE_START.finditer(text, 0, at)]
    return bool(_REFERENCE.search(text, starts[-1] if starts else 0, at))


def _cut_short(text: str, artifact: Artifact, issued: Iterable[str]) -> bool:
    """A value at the very end of the reply, not of a number's form, that begins a number this run issued: a copy
    the token limit cut ("CT-2026042"). One of the number's form ("CT-20260922-00") is a near miss."""
    return (not text[artifact.end:].strip(" `*_\n") and not REGISTRATION.fullmatch(artifact.text)
            and any(len(n) > len(artifact.text) and n.startswith(artifact.text) for n in issued))


def nudge_text(findings: list[Finding]) -> str:
    items = ", ".join(sorted({f"{f.kind}:{f.capability or f.span}" for f in findings if not f.backed}))
    return HALLUCINATION_NUDGE.format(items=items)


__all__ = ["AgentHallucinationError", "CONTINUE_NUDGE", "Evidence", "Finding", "inspect", "nudge_text"]
