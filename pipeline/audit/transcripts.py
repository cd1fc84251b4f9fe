"""Agent transcripts from files, streamed: OpenAI chat format, JSON Lines, tau-bench and tau2-bench trajectories.

    [{"role": ...}, ...]                        one transcript: a list of OpenAI chat messages
    {"messages": [...], "tools": [...]}         one transcript, with the tool definitions
    [{"traj": [...], "task_id": ...}, ...]      tau-bench: many trajectories in one list
    {"simulations": [{"messages": [...]}, ...]} tau2-bench results: many simulations in one object
    JSON Lines (.jsonl, or a file whose first line is a whole JSON value): one of the above per line,
                                                or one message per line (the whole file is one transcript)

A JSON file is read with ijson (events, one trajectory built at a time), a JSON Lines file line by line,
so memory holds one transcript, not the file (benchmarks/bench_audit.py measures it).

Message shapes are normalised to ``Message``: OpenAI's ``tool_calls`` ({id, function: {name, arguments:
"<JSON>"}}) and tau2's ({id, name, arguments: {...}}); a tool message's call id from ``tool_call_id``
(OpenAI) or ``id`` (tau2); a tool message is an error when it is marked so (``error: true``,
``is_error``, ``status: "error"``) or its content starts with ``Error:`` (tau-bench).

Errors: TranscriptError, one line naming the file and what is wrong; transcripts read before it stay read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import ijson


class TranscriptError(ValueError):
    """A file that is not a transcript (or stops being one); the message is one line."""


@dataclass(frozen=True)
class ToolCall:
    id: str | None
    name: str
    arguments: Any  # the parsed arguments, or the raw text when they are not JSON


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    error: bool = False


@dataclass(frozen=True)
class Transcript:
    source: str  # file, and where in it: "runs.json#3", "task 12 trial 0"
    messages: tuple[Message, ...]
    tools: tuple[tuple[str, str], ...] = field(default=())  # (name, description) of the declared tools


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        return "\n".join(p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _call(raw: Mapping[str, Any]) -> ToolCall:
    function = raw.get("function")
    if isinstance(function, Mapping):
        return ToolCall(raw.get("id"), str(function.get("name", "")), _arguments(function.get("arguments")))
    return ToolCall(raw.get("id"), str(raw.get("name", "")), _arguments(raw.get("arguments")))


def _is_error(raw: Mapping[str, Any], content: str) -> bool:
    if raw.get("error") is True or raw.get("is_error") is True or raw.get("status") == "error":
        return True
    return content.lstrip().startswith("Error:")


def message(raw: Any) -> Message:
    """One message in any of the shapes above."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("role"), str):
        raise TranscriptError("a message without a role")
    content = _text(raw.get("content"))
    role = raw["role"]
    calls = tuple(_call(c) for c in raw.get("tool_calls") or () if isinstance(c, Mapping))
    if role == "tool":
        return Message(role, content, (), raw.get("tool_call_id") or raw.get("id"), raw.get("name"), _is_error(raw, content))
    return Message(role, content, calls, name=raw.get("name"))


def _tools(raw: Any) -> tuple[tuple[str, str], ...]:
    found = []
    for tool in raw or ():
        if isinstance(tool, Mapping):
            spec = tool.get("function") if isinstance(tool.get("function"), Mapping) else tool
            if isinstance(spec.get("name"), str):
                found.append((spec["name"], str(spec.get("description") or "")))
    return tuple(found)


def _transcript(value: Any, source: str) -> Transcript:
    """A transcript from one trajectory-shaped value (an object with messages/traj, or a message list)."""
    if isinstance(value, list):
        return Transcript(source, tuple(message(m) for m in value))
    if isinstance(value, Mapping):
        messages = value.get("messages", value.get("traj"))
        if isinstance(messages, list):
            where = source
            if "task_id" in value:
                where = f"{source} task {value['task_id']}" + (f" trial {value['trial']}" if "trial" in value else "")
            return Transcript(where, tuple(message(m) for m in messages), _tools(value.get("tools")))
    raise TranscriptError(f"{source}: neither a message list nor an object with messages (or traj)")


def _is_message(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("role"), str) and "messages" not in value


def read(path: Path) -> Iterator[Transcript]:
    """Every transcript in ``path``, one at a time. Raises TranscriptError (after those read before the fault)."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise TranscriptError(f"{path}: {exc.strerror or exc}") from exc
    with handle:
        first = handle.read(1)
        while first in (b" ", b"\n", b"\r", b"\t", b"\xef", b"\xbb", b"\xbf"):
            first = handle.read(1)
        if not first:
            raise TranscriptError(f"{path}: empty file")
        handle.seek(0)
        if path.suffix == ".jsonl" or _one_value_per_line(handle):
            yield from _lines(handle, path)
        elif first == b"[":
            yield from _array(handle, path)
        elif first == b"{":
            yield from _object(handle, path)
        else:
            raise TranscriptError(f"{path}: not JSON (starts with {first!r})")


def _one_value_per_line(handle: IO[bytes]) -> bool:
    """True when the first line is a whole JSON value and more lines follow (JSON Lines without the suffix)."""
    line = handle.readline(1 << 20)
    rest = handle.read(64).strip()
    handle.seek(0)
    try:
        json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return bool(rest)


def _lines(handle: IO[bytes], path: Path) -> Iterator[Transcript]:
    messages: list[Message] = []
    for number, line in enumerate(handle, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise TranscriptError(f"{path}:{number}: not JSON ({exc})") from exc
        if _is_message(value):
            messages.append(message(value))
        else:
            try:
                yield _transcript(value, f"{path}:{number}")
            except TranscriptError as exc:
                raise TranscriptError(f"{path}:{number}: {str(exc).split(': ', 1)[-1]}") from exc
    if messages:
        yield Transcript(str(path), tuple(messages))


def _parse_error(path: Path, exc: Exception) -> TranscriptError:
    reason = " ".join(str(exc).split("\n", 1)[0].split())  # yajl's message draws the spot on more lines
    return TranscriptError(f"{path}: not valid JSON ({reason})")


def _array(handle: IO[bytes], path: Path) -> Iterator[Transcript]:
    messages: list[Message] = []
    try:
        for i, value in enumerate(ijson.items(handle, "item", use_float=True)):
            if _is_message(value):
                messages.append(message(value))
            else:
                yield _transcript(value, f"{path}#{i}")
    except ijson.JSONError as exc:
        raise _parse_error(path, exc) from exc
    if messages:
        yield Transcript(str(path), tuple(messages))


def _object(handle: IO[bytes], path: Path) -> Iterator[Transcript]:
    """An object: {messages, tools} (one transcript) or tau2's {simulations: [...]} (many), built by events."""
    parts: dict[str, Any] = {}
    builder: ijson.ObjectBuilder | None = None
    building = ""
    count = 0
    try:
        for prefix, event, value in ijson.parse(handle, use_float=True):
            if builder is not None:
                if prefix == building and event in ("end_map", "end_array"):
                    builder.event(event, value)
                    if building == "simulations.item":
                        yield _transcript(builder.value, f"{path}#{count}")
                        count += 1
                    else:
                        parts[building] = builder.value
                    builder = None
                else:
                    builder.event(event, value)
            elif event in ("start_map", "start_array") and prefix in ("messages", "traj", "tools", "simulations.item"):
                builder, building = ijson.ObjectBuilder(), prefix
                builder.event(event, value)
    except ijson.JSONError as exc:
        raise _parse_error(path, exc) from exc
    if "messages" in parts or "traj" in parts:
        yield _transcript(parts, str(path))
    elif not count:
        raise TranscriptError(f"{path}: an object with neither messages nor simulations")


_NAME_PATHS = ("tool_calls.item.function.name", "tool_calls.item.name", "tools.item.function.name", "tools.item.name")


def tool_names(path: Path) -> list[str]:
    """Every tool a file's transcripts call or declare, in a first streamed pass: the claim vocabulary of a file
    is then the same for all its transcripts, whatever their order. Empty when the file cannot be parsed
    (``read`` then says why)."""
    names: dict[str, None] = {}
    try:
        with path.open("rb") as handle:
            for prefix, event, value in ijson.parse(handle, multiple_values=True):
                if event == "string" and prefix.endswith(_NAME_PATHS):
                    names.setdefault(value, None)
    except (OSError, ijson.JSONError, UnicodeDecodeError):
        return list(names)
    return list(names)
