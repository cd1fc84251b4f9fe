"""Convert Berkeley Function Calling Leaderboard v4 data into factline probes (JSON Lines).

Source: ShishirPatil/gorilla at commit 6ea57973c7a6097fd7c5915698c54c17c5b1b6c8, folder
berkeley-function-call-leaderboard/bfcl_eval/data (Apache-2.0). Selection, per the data
README:

* ``decoy``: every BFCL_v4_irrelevance entry, plus a deterministic sample of
  BFCL_v4_live_irrelevance (lowest SHA-256 of the id, written in source order).
* ``shadow``: BFCL_v4_live_multiple entries whose ground-truth tool has a sibling in the
  same catalog with ``difflib.SequenceMatcher(None, right, sibling).ratio() >= 0.8`` on
  the mapped names.
* ``optional_arg``: BFCL_v4_simple_python and BFCL_v4_live_simple entries with at least
  one parameter that is not required and whose allowed ground-truth values include ""
  (the user never gave it).
* ``miss_func`` / ``miss_param``: multi-turn entries whose withheld tool or missing value
  falls in the first turn, so the probe is exactly the conversation BFCL sends at that
  point (no earlier tool results to replay); a deterministic sample keeps the file small.

BFCL function docs become OpenAI function tools: names map '.' -> '_', types map
dict -> object, float -> number, tuple -> array, any -> no type constraint. Output is
byte-identical for the same input.

Run: ``python -m pipeline.probe.bfcl --source /work/shared/bfcl --out pipeline/probe/data/bfcl_v4.jsonl``
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pipeline.probe.model import Probe

__all__ = [
    "LIVE_IRRELEVANCE_SAMPLE",
    "LOOKALIKE_RATIO",
    "MULTI_TURN_SAMPLE",
    "build_probes",
    "decoy_probes",
    "main",
    "map_name",
    "map_schema",
    "miss_func_probes",
    "miss_param_probes",
    "optional_arg_probes",
    "shadow_probes",
    "to_tool",
    "write_probes",
]

LIVE_IRRELEVANCE_SAMPLE = 200
MULTI_TURN_SAMPLE = 30
LOOKALIKE_RATIO = 0.8

_TYPES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "string": "string",
    "integer": "integer",
    "boolean": "boolean",
    "array": "array",
    "any": None,
}
# JSON Schema keywords copied as they are; BFCL's non-standard "optional" flag is dropped
# ("required" already says it).
_KEPT_KEYS = ("description", "enum", "default", "format", "minItems", "maxItems", "maximum")
_DROPPED_KEYS = ("optional",)

# multi-turn class name -> function doc file in multi_turn_func_doc/
_CLASS_DOCS = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "TwitterAPI": "posting_api.json",
    "VehicleControlAPI": "vehicle_control.json",
}
_CALL_NAME = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\(")
_CAPABILITY_CHARS = 200


def map_name(name: str) -> str:
    """Map a BFCL function name to a tool-API-safe name ('.' -> '_')."""
    return name.replace(".", "_")


def map_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Map one BFCL parameter schema (recursively) to JSON Schema; unknown keys raise."""
    unknown = set(schema) - {"type", "properties", "required", "items", *_KEPT_KEYS, *_DROPPED_KEYS}
    if unknown:
        raise ValueError(f"unmapped schema keys {sorted(unknown)}")
    out: dict[str, Any] = {}
    if "type" in schema:
        if schema["type"] not in _TYPES:
            raise ValueError(f"unmapped schema type {schema['type']!r}")
        if _TYPES[schema["type"]] is not None:
            out["type"] = _TYPES[schema["type"]]
    for key in _KEPT_KEYS:
        if key in schema:
            out[key] = schema[key]
    if "properties" in schema:
        out["properties"] = {name: map_schema(sub) for name, sub in schema["properties"].items()}
    if "required" in schema:
        out["required"] = list(schema["required"])
    if "items" in schema:
        out["items"] = map_schema(schema["items"])
    return out


def to_tool(function: dict[str, Any]) -> dict[str, Any]:
    """Map one BFCL function doc to an OpenAI function tool."""
    parameters = map_schema(function["parameters"])
    parameters.setdefault("properties", {})
    return {
        "type": "function",
        "function": {
            "name": map_name(function["name"]),
            "description": function.get("description", ""),
            "parameters": parameters,
        },
    }


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _answers(source: Path, filename: str) -> dict[str, Any]:
    return {row["id"]: row["ground_truth"] for row in _read_jsonl(source / "possible_answer" / filename)}


def _sample(rows: list[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    """The ``size`` rows with the lowest SHA-256 of their id, kept in source order."""
    keep = set(sorted((hashlib.sha256(row["id"].encode()).hexdigest() for row in rows))[:size])
    return [row for row in rows if hashlib.sha256(row["id"].encode()).hexdigest() in keep]


def _single_turn(row: dict[str, Any]) -> list[dict[str, Any]]:
    if len(row["question"]) != 1:
        raise ValueError(f"{row['id']}: expected one turn, got {len(row['question'])}")
    return [dict(message) for message in row["question"][0]]


def _capability(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _CAPABILITY_CHARS else text[: _CAPABILITY_CHARS - 1] + "…"


def decoy_probes(source: Path, filename: str, sample: int | None = None) -> list[Probe]:
    """Irrelevance entries: no listed tool fits, so any call is wrong."""
    rows = _read_jsonl(source / filename)
    if sample is not None:
        rows = _sample(rows, sample)
    probes = []
    for row in rows:
        messages = _single_turn(row)
        request = [m["content"] for m in messages if m["role"] == "user"][-1]
        probes.append(
            Probe(
                id=row["id"],
                kind="decoy",
                source=filename,
                messages=messages,
                tools=[to_tool(fn) for fn in row["function"]],
                expect={"missing_capability": _capability(request)},
            )
        )
    return probes


def _lookalikes(right: str, names: Iterable[str]) -> list[str]:
    return [
        name
        for name in names
        if name != right and difflib.SequenceMatcher(None, right, name).ratio() >= LOOKALIKE_RATIO
    ]


def shadow_probes(source: Path, filename: str = "BFCL_v4_live_multiple.json") -> list[Probe]:
    """Entries whose ground-truth tool has a lookalike sibling (name ratio >= 0.8)."""
    answers = _answers(source, filename)
    probes = []
    for row in _read_jsonl(source / filename):
        truth = answers[row["id"]]
        if len(truth) != 1:
            continue
        tools = [to_tool(fn) for fn in row["function"]]
        names = [tool["function"]["name"] for tool in tools]
        right = map_name(next(iter(truth[0])))
        lookalikes = _lookalikes(right, names)
        if right in names and lookalikes:
            probes.append(
                Probe(
                    id=row["id"],
                    kind="shadow",
                    source=filename,
                    messages=_single_turn(row),
                    tools=tools,
                    expect={"tool": right, "lookalikes": lookalikes},
                )
            )
    return probes


def optional_arg_probes(source: Path, filename: str) -> list[Probe]:
    """Entries with optional parameters the user never gave ("" among allowed values)."""
    answers = _answers(source, filename)
    probes = []
    for row in _read_jsonl(source / filename):
        truth = answers[row["id"]]
        if len(truth) != 1:
            continue
        (bfcl_name, allowed), = truth[0].items()
        function = next(fn for fn in row["function"] if fn["name"] == bfcl_name)
        properties = function["parameters"].get("properties", {})
        required = set(function["parameters"].get("required", []))
        not_given = [p for p in properties if p not in required and "" in allowed.get(p, [])]
        if not not_given:
            continue
        probes.append(
            Probe(
                id=row["id"],
                kind="optional_arg",
                source=filename,
                messages=_single_turn(row),
                tools=[to_tool(fn) for fn in row["function"]],
                expect={
                    "tool": map_name(bfcl_name),
                    "optional_not_given": not_given,
                    "defaults": {p: properties[p].get("default") for p in not_given},
                    "accepted": {p: [v for v in allowed[p] if v != ""] for p in not_given},
                },
            )
        )
    return probes


def _class_functions(source: Path, classes: Sequence[str]) -> list[dict[str, Any]]:
    functions: list[dict[str, Any]] = []
    for name in classes:
        functions.extend(_read_jsonl(source / "multi_turn_func_doc" / _CLASS_DOCS[name]))
    return functions


def _tool_description(function: dict[str, Any]) -> str:
    return function["description"].split("Tool description: ", 1)[-1].strip()


def miss_func_probes(source: Path, sample: int | None = MULTI_TURN_SAMPLE) -> list[Probe]:
    """First-turn requests whose needed tool BFCL withholds (added back only later)."""
    filename = "BFCL_v4_multi_turn_miss_func.json"
    rows = [row for row in _read_jsonl(source / filename) if list(row["missed_function"]) == ["1"]]
    if sample is not None:
        rows = _sample(rows, sample)
    probes = []
    for row in rows:
        withheld = row["missed_function"]["1"]
        functions = _class_functions(source, row["involved_classes"])
        hidden = set(withheld) | set(row.get("excluded_function", []))
        probes.append(
            Probe(
                id=row["id"],
                kind="miss_func",
                source=filename,
                messages=[dict(m) for m in row["question"][0]],
                tools=[to_tool(fn) for fn in functions if fn["name"] not in hidden],
                expect={
                    "withheld": [map_name(name) for name in withheld],
                    "missing_capability": _capability(
                        "; ".join(_tool_description(fn) for fn in functions if fn["name"] in withheld)
                    ),
                },
            )
        )
    return probes


def miss_param_probes(source: Path, sample: int | None = MULTI_TURN_SAMPLE) -> list[Probe]:
    """First-turn requests that lack a value the call needs; the next turn supplies it."""
    filename = "BFCL_v4_multi_turn_miss_param.json"
    answers = _answers(source, filename)
    rows = [
        row
        for row in _read_jsonl(source / filename)
        if answers[row["id"]][0] == [] and answers[row["id"]][1] != [] and row["question"][1]
    ]
    if sample is not None:
        rows = _sample(rows, sample)
    probes = []
    for row in rows:
        calls = answers[row["id"]][1]
        names = sorted({map_name(match.group(1)) for call in calls if (match := _CALL_NAME.match(call))})
        functions = _class_functions(source, row["involved_classes"])
        hidden = set(row.get("excluded_function", []))
        probes.append(
            Probe(
                id=row["id"],
                kind="miss_param",
                source=filename,
                messages=[dict(m) for m in row["question"][0]],
                tools=[to_tool(fn) for fn in functions if fn["name"] not in hidden],
                expect={
                    "tools": names,
                    "clarification": " ".join(m["content"] for m in row["question"][1] if m["role"] == "user"),
                },
            )
        )
    return probes


def build_probes(source: Path) -> list[Probe]:
    """The full committed BFCL probe set, in a fixed order (kind, then source order)."""
    return [
        *decoy_probes(source, "BFCL_v4_irrelevance.json"),
        *decoy_probes(source, "BFCL_v4_live_irrelevance.json", sample=LIVE_IRRELEVANCE_SAMPLE),
        *shadow_probes(source),
        *optional_arg_probes(source, "BFCL_v4_simple_python.json"),
        *optional_arg_probes(source, "BFCL_v4_live_simple.json"),
        *miss_func_probes(source),
        *miss_param_probes(source),
    ]


def write_probes(probes: Iterable[Probe], out: Path) -> None:
    """Write probes as compact UTF-8 JSON Lines with "\\n" line ends."""
    lines = (json.dumps(p.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n" for p in probes)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes("".join(lines).encode("utf-8"))


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: convert ``--source`` (BFCL data folder) into ``--out`` (JSON Lines)."""
    parser = argparse.ArgumentParser(prog="python -m pipeline.probe.bfcl", description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="folder holding the BFCL v4 data files")
    parser.add_argument("--out", type=Path, required=True, help="JSON Lines file to write")
    args = parser.parse_args(argv)
    probes = build_probes(args.source)
    write_probes(probes, args.out)
    counts: dict[str, int] = {}
    for probe in probes:
        counts[probe.kind] = counts.get(probe.kind, 0) + 1
    print(f"wrote {len(probes)} probes to {args.out}: {counts}")


if __name__ == "__main__":
    main()
