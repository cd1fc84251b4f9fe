"""The catalog as the model sees it, derived from capabilities.CATALOG (its order is the pipeline's order).

    tool_schemas(catalog)   the OpenAI function tools sent with every agent turn
    system_prompt(catalog, language)  the numbered list of calls, one line per capability (Capability.prompt_step),
                            and the language of the closing sentence (the pipeline's ``language``)
    probe_tasks, lookalikes what the probe suite asks of each tool and the decoy name it offers beside it
    prompt_version(catalog, language), catalog_version(catalog)  what a run records it was given
    preview_steps(catalog)  what a dry run offers: the steps before the first with a side effect (publish), up to
                            the last of them that writes a version (humanize); preview_kind: the kind it writes

The module constants are these for CATALOG. Runs record their prompt's version (PROMPT_VERSIONS[language];
PROMPT_VERSION is English's) and CATALOG_VERSION; the probe suite keys its runs by CATALOG_VERSION, so both
read them from here (neither imports the agent loop). The steps stay in English whatever the language: tool
names and ids are English, and the one text the agent itself writes is its closing sentence.
A new capability is one module in capabilities/ listed in capabilities.CATALOG: everything here follows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from capabilities import CATALOG
from capabilities.base import Capability

Catalog = Mapping[str, Capability[Any, Any]]

PROMPT_HEAD = """You are factline's pipeline agent. Every step is a tool call; text does nothing.
Make exactly these calls, one per answer, in this order:"""
PROMPT_TAIL = """Use only ids that tool results gave you. Never state a result that a tool has not returned.
Only after {last} has returned, answer with one short sentence and call no more tools."""
USER_PROMPT = "Run today's pipeline, starting with step 1."
CLOSING_LANGUAGE = {"en": "", "zh": "Write that sentence in Simplified Chinese (简体中文)."}  # en: unchanged since v1


def version_of(value: Any) -> str:
    """A short, stable hash of any JSON-able value (sorted keys)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


def tool_schemas(catalog: Catalog) -> list[dict[str, Any]]:
    return [capability.tool_schema() for capability in catalog.values()]


def system_prompt(catalog: Catalog, language: str = "en") -> str:
    """The agent's instructions: every capability's call in pipeline order, each argument with its source."""
    steps = [f"{number}. {capability.prompt_step()}" for number, capability in enumerate(catalog.values(), 1)]
    closing = [CLOSING_LANGUAGE[language]] if CLOSING_LANGUAGE[language] else []
    return "\n".join([PROMPT_HEAD, *steps, PROMPT_TAIL.format(last=list(catalog)[-1]), *closing])


def prompt_version(catalog: Catalog, language: str) -> str:
    return version_of(system_prompt(catalog, language))


def catalog_version(catalog: Catalog) -> str:
    return version_of(tool_schemas(catalog))


def preview_steps(catalog: Catalog) -> dict[str, Capability[Any, Any]]:
    """The steps of a dry run, in order: before the first with a side effect, up to the last that writes a version.

    A step that only passes a version on (fact_check) after the last writer is left out: the preview is the
    writer's version, as it was before the fact check existed."""
    before: list[tuple[str, Capability[Any, Any]]] = []
    for name, capability in catalog.items():
        if capability.side_effect:
            break
        before.append((name, capability))
    last = max((i for i, (_, c) in enumerate(before) if c.version_kind is not None), default=None)
    if last is None:
        raise ValueError("no step before the first side effect writes a version: a dry run has nothing to preview")
    return dict(before[:last + 1])


def preview_kind(catalog: Catalog) -> str:
    """The kind of draft version a dry run renders: the one the last of its steps writes."""
    kind = list(preview_steps(catalog).values())[-1].version_kind
    assert kind is not None
    return kind


def probe_tasks(catalog: Catalog) -> dict[str, str]:
    return {name: capability.probe_task for name, capability in catalog.items()}


def lookalikes(catalog: Catalog) -> dict[str, str]:
    return {name: capability.lookalike for name, capability in catalog.items()}


TOOLS = tool_schemas(CATALOG)
SYSTEM_PROMPTS = {language: system_prompt(CATALOG, language) for language in CLOSING_LANGUAGE}
SYSTEM_PROMPT = SYSTEM_PROMPTS["en"]
PROMPT_VERSIONS = {language: prompt_version(CATALOG, language) for language in CLOSING_LANGUAGE}
PROMPT_VERSION = PROMPT_VERSIONS["en"]
CATALOG_VERSION = catalog_version(CATALOG)
PROBE_TASKS = probe_tasks(CATALOG)
LOOKALIKES = lookalikes(CATALOG)
