"""Tool calls written as text: a JSON, XML or function-call form naming a catalog tool in the message content.

Such a call is never executed from the text; it is its own hallucination kind, ``prose_call``.
"""

from __future__ import annotations

import re

_JSON_NAME = re.compile(r"[{,]\s*\"(?:name|tool|function|tool_name)\"\s*:\s*\"([A-Za-z_][\w.\-]{0,63})\"")
_TOOL_CALL_TAG = re.compile(r"<(?:tool_call|function_call|function)\b[^>]{0,200}>")
_CALL_SYNTAX = re.compile(r"\b([a-z_][a-z0-9_]{1,63})\s*\(\s*(?:\{|\)|[a-z_]\w*\s*=)")


def written_calls(text: str) -> list[str]:
    """Any tool name a JSON or XML call in ``text`` names, catalog or not (for scoring raw probe replies)."""
    names: dict[str, None] = {m.group(1): None for m in _JSON_NAME.finditer(text)}
    if not names and _TOOL_CALL_TAG.search(text):
        names["<tool_call>"] = None
    return list(names)


def prose_calls(text: str, catalog: set[str]) -> list[str]:
    """Catalog tool names that ``text`` calls in writing, in order, unique."""
    names: dict[str, None] = {}
    for match in _JSON_NAME.finditer(text):
        if match.group(1) in catalog:
            names.setdefault(match.group(1), None)
    if _TOOL_CALL_TAG.search(text):
        for name in catalog:
            if re.search(rf"\b{re.escape(name)}\b", text):
                names.setdefault(name, None)
    for match in _CALL_SYNTAX.finditer(text):
        if match.group(1) in catalog:
            names.setdefault(match.group(1), None)
    return list(names)
