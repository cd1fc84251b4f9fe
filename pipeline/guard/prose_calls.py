"""Tool calls written as text: a JSON, XML, ReAct or call form naming a catalog tool in the message content.

Such a call is never executed from the text; it is its own hallucination kind, ``prose_call``. Forms:

    {"name": "publish", ...}  {'tool': 'publish'}  {"action": "publish", "action_input": ...}
    Action: publish / Action Input: {...}           Tool: publish / Arguments: {...}
    <invoke name="publish">  <function=publish>  <tool_call>{...publish...}</tool_call>  <|tool_call|>publish{...}
    publish(31)  publish(version_id=31)  publish({...})  functions.publish({...})  "调用 publish，参数 {...}"
    a bare ``report()`` alone on a line

Not calls: tool names without arguments in a sentence ("Steps done: pick_topic(), report()"), a schema
("publish takes {"version_id": integer}"), a JSON object whose keys do not name a call ({"next": "publish"}).
"""

from __future__ import annotations

import re

_NAME = r"([A-Za-z_][\w.\-]{0,63})"
_JSON_NAME = re.compile(r"[{,]\s*[\"'](?:name|tool|function|tool_name|action|recipient_name)[\"']\s*:\s*[\"']"
                        + _NAME + r"[\"']")
_TOOL_CALL_TAG = re.compile(r"<\|?(?:tool_call|function_call|function|invoke|tool)\b[^>]{0,200}>")
_TAG_NAME = re.compile(r"<\|?(?:invoke|function|tool)\s*(?:name\s*=\s*[\"']?|=\s*)" + _NAME, re.IGNORECASE)
_SPECIAL = re.compile(r"<\|tool_call\|>\s*" + _NAME)
_REACT = re.compile(r"^\s*(?:Action|Tool|Function|Call|调用)\s*[:：]\s*`?" + _NAME + r"`?\s*$", re.MULTILINE)
_REACT_ARGS = re.compile(r"^\s*(?:Action Input|Arguments|Args|Parameters|Input|参数)\s*[:：]", re.MULTILINE | re.IGNORECASE)
_CALL_SYNTAX = re.compile(r"(?<![\w.])(?:functions\.)?([a-z_][a-z0-9_]{1,63})\s*\(\s*(?:\{|[a-z_]\w*\s*=|\d|[\"'\[])")
_BARE_CALL = re.compile(r"^\s*(?:functions\.)?([a-z_][a-z0-9_]{1,63})\(\)\s*;?\s*$", re.MULTILINE)
_NAMED_ARGS = re.compile(r"(?:调用|执行|call|calling|invoke|invoking|run|running)\s*`?([a-z_][a-z0-9_]{1,63})`?[^\n{]{0,20}\{",
                         re.IGNORECASE)
_GLUED_ARGS = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]{1,63})\{\s*[\"']")


def written_calls(text: str) -> list[str]:
    """Any tool name a JSON or XML call in ``text`` names, catalog or not (for scoring raw probe replies)."""
    names: dict[str, None] = {m.group(1): None for m in _JSON_NAME.finditer(text)}
    if not names and _TOOL_CALL_TAG.search(text):
        names["<tool_call>"] = None
    return list(names)


def prose_calls(text: str, catalog: set[str]) -> list[str]:
    """Catalog tool names that ``text`` calls in writing, in order of appearance, unique."""
    hits: list[tuple[int, str]] = []
    for pattern in (_JSON_NAME, _TAG_NAME, _SPECIAL, _CALL_SYNTAX, _BARE_CALL, _NAMED_ARGS, _GLUED_ARGS):
        hits += [(m.start(), m.group(1).removeprefix("functions.")) for m in pattern.finditer(text)]
    if _REACT_ARGS.search(text):
        hits += [(m.start(), m.group(1)) for m in _REACT.finditer(text)]
    if tag := _TOOL_CALL_TAG.search(text):
        hits += [(tag.start(), name) for name in catalog if re.search(rf"\b{re.escape(name)}\b", text[tag.start():])]
    names: dict[str, None] = {}
    for _, name in sorted(hits):
        if name in catalog:
            names.setdefault(name, None)
    return list(names)
