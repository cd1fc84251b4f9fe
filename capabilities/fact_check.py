"""fact_check: every checkable fact of the humanized version must be in the run's sources or the topic's brief.

The check itself is capabilities.factcheck (pure: ``check_facts(text, sources, brief)``, which an editor's
review can run on any text). This step runs it on the version humanize produced, records each check and
each fact in the ledger (fact_checks, fact_check_items), and, while facts are missing and revisions are
left (FACT_CHECK_MAX_REVISIONS), sends the writer model a corrective message naming each missing fact
with its sentence and checks the revision it writes. Checking the humanized text against the sources is
also what keeps humanize from adding a fact: a number the rewrite invented is in no source.

    FACT_CHECK  strict   publish only a version whose check passed; a check still failing after the
                         revisions stops the run (unverified, ``fact_check``) with one line:
                         "2 facts not in the sources: '73%', 'Jane Smith'"
                warn     record and revise the same way, then let the version through (``warned``)
                off      record that nothing was checked (opinion pipelines)
                auto     strict when the topic has sources or a brief, off when it has neither (the default)

publish refuses a version without a check that passed, warned or was off (PASSING; capabilities.publish).
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from capabilities.base import Capability, CapabilityContext, Claims, Prepared, StrictArgs, ToolResult, in_language
from capabilities.errors import StopPipeline
from capabilities.factcheck import FactKind, FactReport, check_facts
from capabilities.records import DraftVersionRecord, SourceText, TopicRecord
from capabilities.store import Store
from capabilities.textscore import SCORER, score_text
from capabilities.write_draft import GROUNDED, SYSTEM, sources_prompt, split_title
from config import Settings

PASSING = frozenset({"passed", "warned", "off"})  # the fact-check statuses publish accepts


def given(topic: TopicRecord) -> str:
    """What the topic itself says, evidence beside the sources: its title (a title-cased heading that repeats
    it names nothing new) and its brief."""
    return "\n".join(part for part in (topic.title, topic.brief) if part)


def check_version(store: Store, version: DraftVersionRecord, topic: TopicRecord, mode: str) -> FactReport:
    """Check ``version`` against the run's readable sources and the topic's brief, and record the check.

    The one check of a text that is not revised: an editor's edit (pipeline.review) goes through it, in the
    mode the run's own check had; a ``strict`` failure is the caller's to refuse.
    """
    sources = [(s.number, s.text or "") for s in store.run_sources() if s.ok and s.text]
    report = check_facts(f"# {version.title}\n\n{version.body}", sources, given(topic))
    status = "passed" if report.passed else ("warned" if mode == "warn" else "failed")
    store.record_fact_check(draft_version_id=version.id, round=0, mode=mode, status=status, detail=report.summary(),
                            facts=list(report.facts))
    return report


class FactCheckArgs(StrictArgs):
    version_id: int = Field(ge=1)


@dataclass(frozen=True, kw_only=True)
class FactCheckPlan(Prepared[FactCheckArgs]):
    version: DraftVersionRecord
    topic: TopicRecord


def effective_mode(settings: Settings, topic: TopicRecord) -> str:
    """FACT_CHECK for this topic: ``auto`` is strict with sources or a brief, off without either."""
    if settings.fact_check != "auto":
        return settings.fact_check
    return "strict" if topic.sources or topic.brief else "off"


def correction(version: DraftVersionRecord, report: FactReport, material: str) -> str:
    """The corrective message: the article, each fact no source holds with its sentence, and the sources."""
    missing = "\n".join(f"- {f.fact.text!r} in: {f.fact.sentence}" for f in report.unsupported)
    # the checker matches a quotation word for word, so a translated one is never found (docs/fact-check.md)
    quotes = (" A quotation must be a source's own words in the source's language: quote them exactly, or say it "
              "in your own words without quotation marks."
              if any(f.fact.kind == FactKind.quote for f in report.unsupported) else "")
    return (f"Topic: {version.title}\n\nThese facts of the article below are not in the sources or the brief:\n"
            f"{missing}\n\nRewrite the article: correct each of them from the sources, or remove it.{quotes} Change "
            f"nothing else. Keep the format: '# ' title line, blank line, markdown body.\n\n"
            f"# {version.title}\n\n{version.body}\n\n{material}")


class FactCheck(Capability[FactCheckArgs, FactCheckPlan]):
    name = "fact_check"
    description = ("Check every number, date, name and quotation of a humanized version against the topic's "
                   "sources; revises it when some are missing. Returns version_id (the version to publish).")
    Args = FactCheckArgs
    probe_task = "Check the facts of version 9 against its sources."
    lookalike = "check_facts"
    claims = Claims(
        zh_verbs=("核查", "核实", "事实核查", "查证"),
        zh_nouns=("事实核查", "核查"),
        en_done=("fact-checked", r"checked the facts"),
        en_nouns=("fact check", "fact-check"),
        keys=("fact_check", "fact check", "事实核查", "核查"),
    )
    takes_version = True  # humanize's; it writes no kind of its own: its version_id (a revision) is of that kind

    def prepare(self, ctx: CapabilityContext, args: FactCheckArgs) -> FactCheckPlan:
        version = self.taken_version(ctx, args.version_id)  # humanize's
        topic = ctx.store.topic(version.topic_id)
        assert topic is not None  # a draft version always belongs to a topic
        return FactCheckPlan(args=args, version=version, topic=topic)

    def execute(self, ctx: CapabilityContext, prepared: FactCheckPlan) -> ToolResult:
        version, topic = prepared.version, prepared.topic
        mode = effective_mode(ctx.settings, topic)
        if mode == "off":
            ctx.store.record_fact_check(draft_version_id=version.id, round=0, mode=mode, status="off",
                                        detail="FACT_CHECK off: nothing checked", facts=[])
            return ToolResult({"version_id": version.id, "status": "off", "facts": 0, "unsupported": 0},
                              f"version {version.id}: fact check off")
        readable = [s for s in ctx.store.run_sources() if s.ok and s.text]
        sources = [(s.number, s.text or "") for s in readable]
        limit = ctx.settings.fact_check_max_revisions
        for round_ in range(limit + 1):
            report = check_facts(f"# {version.title}\n\n{version.body}", sources, given(topic))
            last = report.passed or round_ == limit
            status = "passed" if report.passed else ("warned" if mode == "warn" and last else "failed")
            ctx.store.record_fact_check(draft_version_id=version.id, round=round_, mode=mode, status=status,
                                        detail=report.summary(), facts=list(report.facts))
            if last:
                break
            version = self._revise(ctx, version, report, readable, topic)
        if status == "failed":
            raise StopPipeline(report.summary(), verdict="unverified", reason="fact_check")
        payload = {"version_id": version.id, "status": status, "facts": len(report.facts),
                   "unsupported": len(report.unsupported), "revisions": round_}
        return ToolResult(payload, f"version {version.id}: {report.summary()}")

    @staticmethod
    def _revise(ctx: CapabilityContext, version: DraftVersionRecord, report: FactReport, readable: list[SourceText],
                topic: TopicRecord) -> DraftVersionRecord:
        material = sources_prompt(readable, topic.brief, ctx.settings.source_token_budget)
        text = ctx.text_model.complete(in_language(SYSTEM + GROUNDED, ctx.settings),
                                       correction(version, report, material))
        title, body = split_title(text)
        return ctx.store.add_draft_version(topic_id=version.topic_id, draft_id=version.draft_id, kind=version.kind,
                                           title=title, body=body, score=score_text(body), scorer=SCORER)


CAPABILITY = FactCheck()
