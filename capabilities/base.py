"""The one shape every capability has, and the context it runs in.

A capability is a name, a description, a pydantic ``Args`` model whose strict JSON Schema the
model sees, ``validate()`` (business rules, no side effects) and ``execute()``. Side-effecting
capabilities name an ``idempotency_key()`` derived from business identity (None for the others).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict

from capabilities.records import Article, PublishedItem
from capabilities.store import Store
from config import Settings


class StrictArgs(BaseModel):
    """Base of every Args model: extra keys are an error, every field is required (None must be explicit)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


A = TypeVar("A", bound=StrictArgs)


class TextModel(Protocol):
    """A plain completion (no tools): used by write_draft and humanize."""

    def complete(self, system: str, prompt: str) -> str: ...


class PublishTarget(Protocol):
    """Where articles go. ``lookup`` finds an item already published under an idempotency key."""

    name: str

    def publish(self, article: Article) -> PublishedItem: ...
    def lookup(self, idempotency_key: str) -> PublishedItem | None: ...


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


LANGUAGE_INSTRUCTION = {"en": "Write in English.", "zh": "Write in Simplified Chinese (简体中文)."}


def in_language(system: str, settings: Settings) -> str:
    """A text prompt with the pipeline's article language (the ``language`` setting) appended."""
    return f"{system} {LANGUAGE_INSTRUCTION[settings.language]}"


@dataclass(frozen=True)
class ToolResult:
    """What execute() returns: a JSON-able payload for the model and the ledger, and a one-line summary."""

    payload: dict[str, Any]
    summary: str


class Capability(ABC, Generic[A]):
    """One tool. Subclasses set the class attributes and implement validate/execute."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[StrictArgs]]

    @abstractmethod
    def validate(self, ctx: CapabilityContext, args: A) -> None:
        """Raise ToolRejected when the call is schema-valid but not business-valid."""

    @abstractmethod
    def execute(self, ctx: CapabilityContext, args: A) -> ToolResult:
        """Do the work; raise from capabilities.errors on failure."""

    def idempotency_key(self, ctx: CapabilityContext, args: A) -> str | None:
        """Business identity of a side effect; None for capabilities without one."""
        return None

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
