"""The tools the model may call: one module each, one shape (capabilities.base.Capability)."""

from capabilities import humanize, pick_topic, publish, register, report, write_draft
from capabilities.base import Capability, CapabilityContext, ToolResult

CATALOG: dict[str, Capability] = {
    module.CAPABILITY.name: module.CAPABILITY
    for module in (pick_topic, write_draft, humanize, publish, register, report)
}

__all__ = ["CATALOG", "Capability", "CapabilityContext", "ToolResult"]
