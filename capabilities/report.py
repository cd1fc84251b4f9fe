"""report: the run's report, built from ledger rows only (never from what the model said)."""

from __future__ import annotations

from capabilities.base import Capability, CapabilityContext, Claims, EvidenceFields, Prepared, StrictArgs, ToolResult


class ReportArgs(StrictArgs):
    pass


class Report(Capability[ReportArgs, Prepared[ReportArgs]]):
    name = "report"
    description = "Write the run report from the ledger. Call it last, after register."
    Args = ReportArgs
    probe_task = "Report what today's run executed."
    lookalike = "make_report"
    claims = Claims(
        zh_verbs=("生成日报", "生成报告", "出日报"),
        zh_nouns=("日报", "运行报告", "报告"),
        en_done=("reported",),
        en_nouns=("daily report", "run report", "report"),
        keys=("report", "日报", "报告"),
    )
    evidence = EvidenceFields(urls=("publications[].url",), registrations=("publications[].registration_number",),
                              scores=("versions[].score",), quotes=("topic",))

    def prepare(self, ctx: CapabilityContext, args: ReportArgs) -> Prepared[ReportArgs]:
        return Prepared(args=args)

    def execute(self, ctx: CapabilityContext, prepared: Prepared[ReportArgs]) -> ToolResult:
        summary = ctx.store.run_summary()
        return ToolResult(summary, f"report of run {ctx.run_id}: {summary.get('registrations', 0)} registration(s)")


CAPABILITY = Report()
