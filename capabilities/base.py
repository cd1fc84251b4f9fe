"""The one shape every capability has, and the context it runs in.

A capability is one module declaring everything about one tool:

    name, description, Args        the tool the model sees (Args: a pydantic model, sent as a strict JSON Schema)
    inputs                         where each argument comes from in the pipeline ("pick_topic.topic_id", or
                                   None for an explicit null): the system prompt's step line is written from it,
                                   and the scripted test model fills arguments from it
    probe_task, lookalike          the probe suite's task for this tool and the lookalike decoy name set beside it
    claims                         its claim vocabulary (Claims): zh and en words of text asserting it completed
    evidence                       the fields of its result that ground what the model may say (EvidenceFields):
                                   URLs, registration numbers, scores, titles it may quote; the guard reads no other
    version_kind                   the kind of draft version it writes ("draft", "humanized"), or None
    takes_version                  its ``version_id`` argument is the version the nearest step before it made
                                   (catalog_of binds it: the argument's source and the kind prepare accepts);
                                   ``also_takes`` names other kinds it accepts (publish: an editor's "edited").
                                   One that writes no kind of its own (fact_check) passes the version on: its
                                   result's ``version_id`` is of the kind it took (``result_kind``)
    side_effect                    it changes what others see (a post, a registration): a dry run stops before the first
    prepare(ctx, args) -> Prepared business validation, the idempotency key, the records it needs: read once,
                                   no side effect and no network; raises ToolRejected
    execute(ctx, prepared)         the work; raises from capabilities.errors (the gateway retries Retryable)

pipeline.catalog derives the system prompt, the tool schemas and their versions from CATALOG; the
probe suite derives its factline probes from it; the guard its claim rules and its evidence; the dry run
its steps.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict

from capabilities.errors import ToolRejected
from capabilities.records import Article, DraftVersionRecord, PublishedItem
from capabilities.store import Store
from config import Settings


class StrictArgs(BaseModel):
    """Base of every Args model: extra keys are an error, every field is required (None must be explicit)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


A = TypeVar("A", bound=StrictArgs)
R = TypeVar("R")


class TextModel(Protocol):
    """A plain completion (no tools): used by write_draft and humanize."""

    def complete(self, system: str, prompt: str) -> str: ...


class PublishTarget(Protocol):
    """Where articles go. ``lookup`` finds an item already published under an idempotency key."""

    name: str

    def publish(self, article: Article) -> PublishedItem: ...
    def lookup(self, idempotency_key: str) -> PublishedItem | None: ...
    def retract(self, external_id: str, notice: str) -> None: ...  # no longer public (the ledger keeps it)
    def update(self, external_id: str, article: Article) -> PublishedItem: ...  # the same URL, corrected


@dataclass
class CapabilityContext:
    """Everything a capability may use. Built by the pipeline for one run."""

    run_id: int
    settings: Settings
    store: Store
    http: httpx.Client
    text_model: TextModel
    target: PublishTarget
    forced_topic: str | None = None
    page_http: httpx.Client | None = None  # the page check's client, never through a proxy (None: ``http`` is)


LANGUAGE_INSTRUCTION = {"en": "Write in English.", "zh": "Write in Simplified Chinese (简体中文)."}


def in_language(system: str, settings: Settings) -> str:
    """A text prompt with the pipeline's article language (the ``language`` setting) appended."""
    return f"{system} {LANGUAGE_INSTRUCTION[settings.language]}"


@dataclass(frozen=True)
class ToolResult:
    """What execute() returns: a JSON-able payload for the model and the ledger, and a one-line summary."""

    payload: dict[str, Any]
    summary: str


@dataclass(frozen=True, kw_only=True)
class Prepared(Generic[A]):
    """What prepare() checked and read, handed to execute() (and to each of its retries) unchanged.

    ``key`` is the business identity of the call's side effect (its idempotency key, recorded in the
    ledger); None for capabilities without one. Subclasses add the records prepare() read.
    """

    args: A
    key: str | None = None


P = TypeVar("P", bound=Prepared[Any])


@dataclass(frozen=True)
class Claims:
    """A capability's claim vocabulary: how text says that it completed, in Chinese and English (plain data).

    Each entry is a regular-expression fragment, a plain word or alternation without nested quantifiers
    (so a scan stays linear, benchmarks/bench_claim_scan.py). The guard supplies the grammar that combines
    them - completion markers (已/成功/了, "succeeded"), negation, condition, question, status lines - and
    treats the capability's own name as a word for it in both languages (pipeline.guard.claims).

        zh_verbs  a verb that claims with a completion marker: 已发布, 发布成功, 成功发布, 发布到平台上了
        zh_nouns  a noun that claims with 已 and a generic verb, or with a completive one: 草稿已写好, 日报已生成
        en_done   a form that claims by itself: published, went live, is live
        en_nouns  a noun that claims with a predicate: "publishing succeeded", "the report was generated"
        keys      a status-line or table key whose value says yes or no: "Published: no", "| 发布 | 完成 |"
    """

    zh_verbs: tuple[str, ...] = ()
    zh_nouns: tuple[str, ...] = ()
    en_done: tuple[str, ...] = ()
    en_nouns: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvidenceFields:
    """Where a capability's result holds evidence, as field paths: ``url``, or ``publications[].url`` (each item
    of the list ``publications``). The guard grounds an artifact in the model's text only by a value at one of
    these paths (pipeline.guard.evidence): a field not declared here grounds nothing, whatever its name.

        urls           page addresses the model may cite (publish's ``url``)
        registrations  registration numbers (register's ``registration_number``)
        scores         scores the model may state (humanize's ``score``)
        quotes         text the model may repeat verbatim without claiming anything (a topic's ``title``)
    """

    urls: tuple[str, ...] = ()
    registrations: tuple[str, ...] = ()
    scores: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()


def field_values(payload: Any, path: str) -> Iterator[Any]:
    """The values at ``path`` in a result (``a.b``, ``items[].url``); nothing where the path does not lead."""
    head, _, rest = path.partition(".")
    name, each = (head[:-2], True) if head.endswith("[]") else (head, False)
    if not isinstance(payload, Mapping) or name not in payload:
        return
    value = payload[name]
    items = value if each and isinstance(value, list) else [value] if not each else []
    for item in items:
        if rest:
            yield from field_values(item, rest)
        else:
            yield item


def require_own(record: R | None, what: str, mine: Callable[[R], bool], foreign: str = "belongs to another run") -> R:
    """The record an argument names, if it exists and ``mine`` accepts it; otherwise the call is rejected.

    Both refusals are hallucinated arguments (an id no tool result of this run gave): the ledger
    records them as such, apart from ordinary validation failures.
    """
    if record is None:
        raise ToolRejected(f"{what} does not exist", hallucinated_argument=True)
    if not mine(record):
        raise ToolRejected(f"{what} {foreign}", hallucinated_argument=True)
    return record


class Capability(ABC, Generic[A, P]):
    """One tool. Subclasses set the class attributes and implement prepare and execute."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[StrictArgs]]
    inputs: ClassVar[Mapping[str, str | None]] = {}
    probe_task: ClassVar[str]
    lookalike: ClassVar[str]
    claims: ClassVar[Claims] = Claims()
    evidence: ClassVar[EvidenceFields] = EvidenceFields()
    version_kind: ClassVar[str | None] = None
    takes_version: ClassVar[bool] = False
    also_takes: ClassVar[tuple[str, ...]] = ()
    side_effect: ClassVar[bool] = False
    source: Capability[Any, Any] | None = None  # for takes_version: the step whose version it takes (catalog_of)

    @abstractmethod
    def prepare(self, ctx: CapabilityContext, args: A) -> P:
        """Check the call against business state and read what execute needs; raise ToolRejected. No side effects."""

    @abstractmethod
    def execute(self, ctx: CapabilityContext, prepared: P) -> ToolResult:
        """Do the work; raise from capabilities.errors on failure. May run more than once (retries)."""

    def result_kind(self) -> str | None:
        """The kind of the version its result's ``version_id`` names: the kind it writes, or the one it passes on."""
        if self.version_kind is not None:
            return self.version_kind
        return self.source.result_kind() if self.source is not None else None

    def taking_from(self, source: Capability[Any, Any]) -> Capability[Any, Any]:
        """A copy of this step bound to the step before it that made the version it takes (catalog_of)."""
        bound = copy.copy(self)
        bound.source = source
        bound.inputs = {**self.inputs, "version_id": f"{source.name}.version_id"}  # type: ignore[misc]
        return bound

    def taken_version(self, ctx: CapabilityContext, version_id: int) -> DraftVersionRecord:
        """The version a step that ``takes_version`` is given: this run's, of the kind its source step makes."""
        source = self.source
        if source is None:
            raise RuntimeError(f"{self.name} takes a version but is not in a catalog (capabilities.catalog_of)")
        version = require_own(ctx.store.draft_version(version_id), f"draft version {version_id}",
                              lambda v: v.run_id == ctx.run_id)
        kind = source.result_kind()
        if version.kind != kind and version.kind not in self.also_takes:
            raise ToolRejected(f"draft version {version_id} is not {kind} yet; call {source.name} first")
        return version

    def prompt_step(self) -> str:
        """This tool's line in the system prompt: its call, each argument saying where its value comes from."""
        sources = (f"{arg} from the {source.split('.')[0]} result" if source else f"{arg} null"
                   for arg, source in self.inputs.items())
        return f"{self.name}({', '.join(sources)})"

    def parameters_schema(self) -> dict[str, Any]:
        return strict_schema(self.Args)

    def tool_schema(self) -> dict[str, Any]:
        """The OpenAI function-tool definition, sent with strict: true."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters_schema(),
                "strict": True,
            },
        }


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema in OpenAI strict form: no titles/defaults, all required, no extra keys."""
    schema = copy.deepcopy(model.model_json_schema())

    def tighten(node: Any) -> None:
        if isinstance(node, dict):
            node.pop("title", None)
            node.pop("default", None)
            if node.get("type") == "object":
                node["additionalProperties"] = False
                node["required"] = list(node.get("properties", {}))
                node.setdefault("properties", {})
            for value in node.values():
                tighten(value)
        elif isinstance(node, list):
            for item in node:
                tighten(item)

    tighten(schema)
    return schema
