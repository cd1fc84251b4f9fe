"""The tools the model may call: one module each, one shape (capabilities.base.Capability).

CATALOG's order is the pipeline's order: the system prompt numbers the steps in it, and the scripted
test model walks it. A new capability is a module here and one entry in the tuple below.
"""

from capabilities import fact_check, humanize, pick_topic, publish, register, report, write_draft
from capabilities.base import Capability, CapabilityContext, ToolResult

CATALOG: dict[str, Capability] = {
    module.CAPABILITY.name: module.CAPABILITY
    for module in (pick_topic, write_draft, humanize, fact_check, publish, register, report)
}

__all__ = ["CATALOG", "Capability", "CapabilityContext", "ToolResult"]
