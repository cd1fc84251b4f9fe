"""The probe record shared by the BFCL converter, factline's own catalog probes and scoring.

A probe is one model call: the messages and the tool catalog sent, plus what the right
behaviour is (``expect``). Probes are plain data so they can be written as JSON Lines and
scored later from the model's raw reply without any I/O.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["KINDS", "Probe"]

#: Probe kinds and the meaning of ``expect`` for each:
#:
#: ``decoy``        the needed tool is absent; right move is refuse or ask.
#:                  expect = {"missing_capability": str}
#: ``shadow``       the catalog holds the right tool and >= 1 lookalike.
#:                  expect = {"tool": str, "lookalikes": [str, ...]}
#: ``optional_arg`` the user gave no value for some optional parameters.
#:                  expect = {"tool": str, "optional_not_given": [str, ...],
#:                            "defaults": {name: default or None},
#:                            "accepted": {name: [JSON values the reference answer accepts]}}
#: ``miss_func``    a multi-turn BFCL turn whose needed tool is withheld (scored like decoy).
#:                  expect = {"withheld": [str, ...], "missing_capability": str}
#: ``miss_param``   a multi-turn BFCL turn missing a value a call needs; right move is ask.
#:                  expect = {"tools": [names the reference calls once the value is given],
#:                            "clarification": the user's later turn that supplies it}
KINDS: tuple[str, ...] = ("decoy", "shadow", "optional_arg", "miss_func", "miss_param")
SOURCES: tuple[str, ...] = ("factline", "bfcl", "all")  # which probes a run takes: ours, BFCL's, or both


@dataclass(frozen=True)
class Probe:
    """One probe: messages and OpenAI function tools to send, and the expected behaviour."""

    id: str
    kind: str
    source: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    expect: dict[str, Any]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown probe kind {self.kind!r}")

    def tool_names(self) -> list[str]:
        """Names of the tools in this probe's catalog, in catalog order."""
        return [tool["function"]["name"] for tool in self.tools]

    def to_dict(self) -> dict[str, Any]:
        """The probe as a JSON-ready dict (field order fixed)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Probe:
        """Build a probe from :meth:`to_dict` output (e.g. one JSON Lines record)."""
        return cls(**{name: data[name] for name in ("id", "kind", "source", "messages", "tools", "expect")})
