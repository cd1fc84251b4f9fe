"""Probes built from factline's own tool catalog (passed in as OpenAI function tools).

For each tool of the catalog, with the task and the lookalike name its capability module declares
(``Capability.probe_task``, ``Capability.lookalike``; ``factline_probes(catalog)`` reads them):

* a ``decoy`` probe: the catalog minus that tool, with a user task that needs it;
* a ``shadow`` probe: the full catalog plus a lookalike decoy (same schema, decoy name)
  placed right after the real tool, with the same task;
* an ``optional_arg`` probe for each tool that has optional or nullable parameters: the
  same task, which gives no value for them.

Each task gives exactly the values the tool's required parameters take (topic 3, draft 7,
version 9, publication 12) and nothing else, so a value in an optional parameter is made up;
callers whose schemas need other values can pass their own tasks.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.catalog import LOOKALIKES, PROBE_TASKS, Catalog, lookalikes, probe_tasks, tool_schemas
from pipeline.probe.model import Probe

__all__ = ["build_catalog_probes", "factline_probes"]

_SOURCE = "factline-catalog"


def _name(tool: Mapping[str, Any]) -> str:
    return str(tool["function"]["name"])


def _renamed(tool: Mapping[str, Any], name: str) -> dict[str, Any]:
    clone = copy.deepcopy(dict(tool))
    clone["function"]["name"] = name
    return clone


def _nullable(schema: Mapping[str, Any]) -> bool:
    kinds = schema.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    return any(_nullable(option) for option in schema.get("anyOf", []) + schema.get("oneOf", []))


def _optional_params(tool: Mapping[str, Any]) -> list[str]:
    parameters = tool["function"].get("parameters", {})
    required = set(parameters.get("required", []))
    return [
        name
        for name, schema in parameters.get("properties", {}).items()
        if name not in required or _nullable(schema)
    ]


def factline_probes(catalog: Catalog) -> list[Probe]:
    """The probes of a capability catalog, each tool with its own task and lookalike."""
    return build_catalog_probes(tool_schemas(catalog), probe_tasks(catalog), lookalikes(catalog))


def build_catalog_probes(
    tools: Sequence[Mapping[str, Any]],
    tasks: Mapping[str, str] = PROBE_TASKS,
    decoys: Mapping[str, str] = LOOKALIKES,
) -> list[Probe]:
    """Decoy, lookalike and optional-argument probes for every catalog tool with a task.

    Raises ValueError when a task names a tool the catalog lacks, or when a lookalike name
    is already a real tool (the trap would not be a trap).
    """
    catalog = [copy.deepcopy(dict(tool)) for tool in tools]
    names = [_name(tool) for tool in catalog]
    missing = sorted(set(tasks) - set(names))
    if missing:
        raise ValueError(f"tasks name tools missing from the catalog: {missing}")
    clashes = sorted(set(decoys.values()) & set(names))
    if clashes:
        raise ValueError(f"lookalike names are real tools: {clashes}")

    probes: list[Probe] = []
    for index, tool in enumerate(catalog):
        name = names[index]
        if name not in tasks:
            continue
        messages = [{"role": "user", "content": tasks[name]}]
        probes.append(
            Probe(
                id=f"factline:decoy:{name}",
                kind="decoy",
                source=_SOURCE,
                messages=messages,
                tools=[t for i, t in enumerate(catalog) if i != index],
                expect={"missing_capability": tool["function"].get("description") or tasks[name]},
            )
        )
        if name in decoys:
            decoy = decoys[name]
            probes.append(
                Probe(
                    id=f"factline:shadow:{name}",
                    kind="shadow",
                    source=_SOURCE,
                    messages=messages,
                    tools=[*catalog[: index + 1], _renamed(tool, decoy), *catalog[index + 1 :]],
                    expect={"tool": name, "lookalikes": [decoy]},
                )
            )
        optional = _optional_params(tool)
        if optional:
            properties = tool["function"]["parameters"]["properties"]
            probes.append(
                Probe(
                    id=f"factline:optional_arg:{name}",
                    kind="optional_arg",
                    source=_SOURCE,
                    messages=messages,
                    tools=list(catalog),
                    expect={
                        "tool": name,
                        "optional_not_given": optional,
                        "defaults": {p: properties[p].get("default") for p in optional},
                        "accepted": {p: [] for p in optional},
                    },
                )
            )
    return probes
