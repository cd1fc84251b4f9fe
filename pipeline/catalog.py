"""The catalog as the model sees it: the tool schemas, the system prompt, and the versions that name them.

Runs record PROMPT_VERSION and CATALOG_VERSION; the probe suite keys its runs by CATALOG_VERSION, so
both read them from here (neither imports the agent loop for them).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from capabilities import CATALOG

SYSTEM_PROMPT = """You are factline's pipeline agent. Every step is a tool call; text does nothing.
Make exactly these calls, one per answer, in this order:
1. pick_topic()
2. write_draft(topic_id from the pick_topic result, angle null)
3. humanize(draft_id from the write_draft result)
4. publish(version_id from the humanize result)
5. register(publication_id from the publish result)
6. report()
Use only ids that tool results gave you. Never state a result that a tool has not returned.
Only after report has returned, answer with one short sentence and call no more tools."""
USER_PROMPT = "Run today's pipeline, starting with step 1."


def version_of(value: Any) -> str:
    """A short, stable hash of any JSON-able value (sorted keys)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


TOOLS: list[dict[str, Any]] = [capability.tool_schema() for capability in CATALOG.values()]
PROMPT_VERSION = version_of(SYSTEM_PROMPT)
CATALOG_VERSION = version_of(TOOLS)
