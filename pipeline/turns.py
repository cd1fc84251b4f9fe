"""One model turn as the pipeline sees it, whatever the tool-call mode: text, tool calls, tokens.

Produced by pipeline.model, consumed by the gateway, the run loop and the probe runner; it sits
below them all so that none of them imports another for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCallRequest:
    id: str
    name: str
    arguments: str  # raw JSON text exactly as the model produced it


@dataclass(frozen=True)
class Turn:
    text: str
    calls: list[ToolCallRequest]
    tokens: int
    message: dict[str, Any] = field(repr=False)  # the assistant message to append to the history
