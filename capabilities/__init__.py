"""The tools the model may call: one module each, one shape (capabilities.base.Capability).

CHAIN's order is the pipeline's order: the system prompt numbers the steps in it, the scripted test
model walks it, a dry run takes the steps before the first with a side effect, and a step that takes a
version (publish) takes the one the nearest step before it made. A new capability is a module here and
its place in the tuple below.
"""

from collections.abc import Iterable
from types import ModuleType
from typing import Any

from capabilities import fact_check, humanize, pick_topic, publish, register, report, write_draft
from capabilities.base import Capability, CapabilityContext, ToolResult

CHAIN: tuple[ModuleType, ...] = (pick_topic, write_draft, humanize, fact_check, publish, register, report)


def catalog_of(modules: Iterable[ModuleType]) -> dict[str, Capability[Any, Any]]:
    """The catalog of a chain, by name in chain order; each step that takes a version bound to its maker."""
    catalog: dict[str, Capability[Any, Any]] = {}
    maker: Capability[Any, Any] | None = None  # the nearest step so far whose result names a version
    for module in modules:
        capability: Capability[Any, Any] = module.CAPABILITY
        if capability.takes_version:
            if maker is None:
                raise ValueError(f"{capability.name} takes a version, but no step before it makes one")
            capability = capability.taking_from(maker)
        if capability.result_kind() is not None:
            maker = capability
        catalog[capability.name] = capability
    return catalog


CATALOG = catalog_of(CHAIN)

__all__ = ["CATALOG", "CHAIN", "Capability", "CapabilityContext", "ToolResult", "catalog_of"]
