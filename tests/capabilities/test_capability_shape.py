"""A capability is one file: what it declares reaches the prompt, the tool schemas, the probes, the guard and
the scripted model, with no other file changed; one inserted mid-chain is that module and its place in the
chain; and the derived artefacts of today's catalog are unchanged."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from sqlalchemy import select

from capabilities import CATALOG, CHAIN, catalog_of
from pipeline.catalog import (CATALOG_VERSION, PROMPT_VERSION, SYSTEM_PROMPT, SYSTEM_PROMPTS, catalog_version,
                              preview_kind, preview_steps, system_prompt, tool_schemas)
from pipeline.ledger.detail import run_detail
from pipeline.ledger.models import DraftVersion, Publication, Run
from pipeline.guard.claims import claim_rules, find_claims
from pipeline.probe.catalog_probes import factline_probes
from pipeline.probe.runner import load_suite
from pipeline.runner import run_once
from pipeline.runtime import Runtime
from testkit.scripted_model import Request, ScriptedModel, pipeline_path

SUMMARIZE = '''
"""summarize: a toy capability, written as one module the way every capability is."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from capabilities.base import Capability, CapabilityContext, Claims, Prepared, StrictArgs, ToolResult, require_own
from capabilities.records import DraftVersionRecord


class SummarizeArgs(StrictArgs):
    draft_id: int = Field(ge=1)


@dataclass(frozen=True, kw_only=True)
class SummarizePlan(Prepared[SummarizeArgs]):
    latest: DraftVersionRecord


class Summarize(Capability[SummarizeArgs, SummarizePlan]):
    name = "summarize"
    description = "Summarize the latest version of a draft of this run in one sentence."
    Args = SummarizeArgs
    inputs = {"draft_id": "write_draft.draft_id"}
    probe_task = "Summarize draft 7 in one sentence."
    lookalike = "summarize_text"
    claims = Claims(zh_verbs=("摘要",), en_done=("summari[sz]ed",))

    def prepare(self, ctx: CapabilityContext, args: SummarizeArgs) -> SummarizePlan:
        latest = require_own(ctx.store.latest_version(args.draft_id), f"draft {args.draft_id}",
                             lambda v: v.run_id == ctx.run_id)
        return SummarizePlan(args=args, latest=latest)

    def execute(self, ctx: CapabilityContext, prepared: SummarizePlan) -> ToolResult:
        first = prepared.latest.body.split(".")[0]
        return ToolResult({"summary": first}, f"summary of draft {prepared.latest.draft_id}")


CAPABILITY = Summarize()
'''

POLISH = '''
"""polish: a toy step between humanize and publish: it takes the version before it and writes a polished one."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from capabilities.base import Capability, CapabilityContext, Claims, Prepared, StrictArgs, ToolResult
from capabilities.records import DraftVersionRecord


class PolishArgs(StrictArgs):
    version_id: int = Field(ge=1)


@dataclass(frozen=True, kw_only=True)
class PolishPlan(Prepared[PolishArgs]):
    version: DraftVersionRecord


class Polish(Capability[PolishArgs, PolishPlan]):
    name = "polish"
    description = "Polish a draft version of this run. Returns version_id."
    Args = PolishArgs
    probe_task = "Polish version 9 of the draft."
    lookalike = "polish_text"
    claims = Claims(en_done=("polished",))
    takes_version = True
    version_kind = "polished"

    def prepare(self, ctx: CapabilityContext, args: PolishArgs) -> PolishPlan:
        return PolishPlan(args=args, version=self.taken_version(ctx, args.version_id))

    def execute(self, ctx: CapabilityContext, prepared: PolishPlan) -> ToolResult:
        v = prepared.version
        polished = ctx.store.add_draft_version(topic_id=v.topic_id, draft_id=v.draft_id, kind="polished", title=v.title,
                                               body=v.body + "\\n\\nPolished.", score=None, scorer=None)
        return ToolResult({"draft_id": polished.draft_id, "version_id": polished.id}, f"version {polished.id}")


CAPABILITY = Polish()
'''

OLD_SYSTEM_PROMPT = """You are factline's pipeline agent. Every step is a tool call; text does nothing.
Make exactly these calls, one per answer, in this order:
1. pick_topic()
2. write_draft(topic_id from the pick_topic result, angle null)
3. humanize(draft_id from the write_draft result)
4. fact_check(version_id from the humanize result)
5. publish(version_id from the fact_check result)
6. register(publication_id from the publish result)
7. report()
Use only ids that tool results gave you. Never state a result that a tool has not returned.
Only after report has returned, answer with one short sentence and call no more tools."""


def toy_module(name: str, source: str, folder: Path) -> Iterator[ModuleType]:
    """A toy capability, written to a file of its own and imported from there."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[name]


@pytest.fixture
def summarize(tmp_path: Path) -> Iterator[ModuleType]:
    yield from toy_module("summarize", SUMMARIZE, tmp_path)


@pytest.fixture
def polish(tmp_path: Path) -> Iterator[ModuleType]:
    yield from toy_module("polish", POLISH, tmp_path)


def test_a_new_capability_module_reaches_prompt_schemas_probes_guard_and_scripted_model(summarize: ModuleType) -> None:
    """Listing one new module in a catalog is all it takes for every derived artefact to carry it."""
    catalog = {**CATALOG, "summarize": summarize.CAPABILITY}

    prompt = system_prompt(catalog)
    assert "8. summarize(draft_id from the write_draft result)" in prompt
    assert prompt.endswith("Only after summarize has returned, answer with one short sentence and call no more tools.")

    schema = next(t for t in tool_schemas(catalog) if t["function"]["name"] == "summarize")
    assert schema["function"]["parameters"]["required"] == ["draft_id"] and schema["function"]["strict"] is True

    probes = {p.id: p for p in factline_probes(catalog)}
    decoy, shadow = probes["factline:decoy:summarize"], probes["factline:shadow:summarize"]
    assert decoy.messages == [{"role": "user", "content": "Summarize draft 7 in one sentence."}]
    assert "summarize" not in decoy.tool_names() and "summarize_text" in shadow.tool_names()

    assert [c.capability for c in find_claims("草稿已摘要。", claim_rules(catalog))] == ["summarize"]
    assert find_claims("I have not summarized it yet.", claim_rules(catalog)) == []

    results = {"pick_topic": {"topic_id": 1}, "write_draft": {"draft_id": 4}, "humanize": {"version_id": 5},
               "fact_check": {"version_id": 5}, "publish": {"publication_id": 6}, "register": {"registration_number": "CT-20260101-001"},
               "report": {"run_id": 1}}
    conversation = [{"role": "user", "content": f"Result of {name}: {json.dumps(r)}"} for name, r in results.items()]
    reply = pipeline_path(catalog)(Request({"messages": conversation, "tools": tool_schemas(catalog)}))
    assert [(c.name, c.arguments) for c in reply.calls] == [("summarize", {"draft_id": 4})]


def test_todays_prompt_versions_and_probe_suite_are_what_the_literals_gave() -> None:
    """Deriving them from the capabilities changed no word: recorded prompt, catalog and suite versions still compare."""
    assert SYSTEM_PROMPT == OLD_SYSTEM_PROMPT
    assert SYSTEM_PROMPTS["zh"] == OLD_SYSTEM_PROMPT + "\nWrite that sentence in Simplified Chinese (简体中文)."
    assert (PROMPT_VERSION, CATALOG_VERSION) == ("2869f4f2854f", "5217699bc9a6")  # fact_check joined (issue #22)
    suite = load_suite("all")
    assert (suite.catalog_version, suite.suite_version, len(suite.probes)) == ("5217699bc9a6", "19949560ca98", 930)


def test_a_step_inserted_between_humanize_and_publish_is_its_module_and_its_place_in_the_chain(
        polish: ModuleType, runtime: Runtime, model: ScriptedModel) -> None:
    """With polish placed after humanize, the fact check takes polish's version and publish the checked one: the
    scripted model walks the eight steps to success, the page is the polished version, a dry run previews it."""
    catalog = catalog_of((*CHAIN[:3], polish, *CHAIN[3:]))
    assert "4. polish(version_id from the humanize result)" in system_prompt(catalog)
    assert "5. fact_check(version_id from the polish result)" in system_prompt(catalog)
    assert "6. publish(version_id from the fact_check result)" in system_prompt(catalog)
    assert (list(preview_steps(catalog)), preview_kind(catalog)) == (
        ["pick_topic", "write_draft", "humanize", "polish"], "polished")
    model.policy = pipeline_path(catalog)
    chained = dataclasses.replace(runtime, catalog=catalog)

    result = run_once(chained)
    assert result.verdict == "success"
    with runtime.sessions() as s:
        detail = run_detail(s, result.run_id)
        published = s.scalar(select(DraftVersion.kind).join(Publication, Publication.draft_version_id == DraftVersion.id))
        stamped = s.scalar(select(Run.catalog_version).where(Run.id == result.run_id))
    assert [c.name for c in detail.tool_calls] == [
        "pick_topic", "write_draft", "humanize", "polish", "fact_check", "publish", "register", "report"]
    assert (published, stamped) == ("polished", catalog_version(catalog))

    preview = run_once(chained, dry_run=True)
    assert preview.verdict == "previewed" and preview.preview is not None
    assert "Polished." in preview.preview.read_text(encoding="utf-8")


def test_a_step_refuses_the_version_of_a_step_earlier_than_the_one_before_it(
        polish: ModuleType, runtime: Runtime, model: ScriptedModel) -> None:
    """A model that skips polish and hands the fact check humanize's version is told to call polish first."""
    model.policy = pipeline_path(CATALOG)  # today's chain: fact_check takes humanize's version
    result = run_once(dataclasses.replace(runtime, catalog=catalog_of((*CHAIN[:3], polish, *CHAIN[3:]))))
    with runtime.sessions() as s:
        checks = [c for c in run_detail(s, result.run_id).tool_calls if c.name == "fact_check"]
    assert checks and checks[0].outcome == "rejected"
    assert "is not polished yet; call polish first" in (checks[0].detail or "")


def test_the_dry_run_takes_the_steps_before_the_first_side_effect() -> None:
    """Today's chain: pick_topic, write_draft, humanize (publish is the first step with a side effect; the fact
    check writes no version of its own)."""
    assert (list(preview_steps(CATALOG)), preview_kind(CATALOG)) == (["pick_topic", "write_draft", "humanize"],
                                                                      "humanized")
