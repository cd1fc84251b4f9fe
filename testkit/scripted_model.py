"""A scripted model served over the real OpenAI chat-completions protocol on 127.0.0.1.

Tests (and benchmarks) point the real openai SDK at it, so the whole client path runs for real.
A *policy* decides each answer from the request alone (stateless, so several runs and processes
can share one server):

- ``happy_path`` calls the next pipeline step with the ids from earlier tool results, then finishes;
  ``pipeline_path(catalog)`` does the same for any catalog: the steps are the catalog's order, each
  argument taken from the earlier result its capability's ``inputs`` names;
- ``script(step, step, ...)`` answers turn N (the number of assistant messages so far) with step N.

Requests without tools or response_format are plain completions (write_draft, humanize): ``writer``
answers them with a deterministic article. In constrained mode a call is rendered as the JSON object
the json_schema response format asks for. A request with ``"stream": true`` is answered as server-sent
events, the text in pieces of a few words (``chat.completion.chunk``s, the usage in a last chunk when
``stream_options.include_usage`` asks, then ``[DONE]``), as llama-server and OpenAI do; ``text_silence``
(seconds before a plain completion's first byte) and ``text_gap`` (seconds between two pieces) make a
silent or a slow-but-alive writer; ``streams=False`` answers a stream request with one JSON completion.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from capabilities import CATALOG
from capabilities.base import Capability


@dataclass
class Request:
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def constrained(self) -> bool:
        return "response_format" in self.body

    @property
    def turn(self) -> int:
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    def results(self) -> dict[str, dict[str, Any]]:
        """The latest successful result of each tool, parsed from the conversation."""
        names: dict[str, str] = {}
        found: dict[str, dict[str, Any]] = {}
        for m in self.messages:
            for c in m.get("tool_calls") or []:
                names[c["id"]] = c["function"]["name"]
            content = m.get("content") or ""
            name, payload = None, None
            if m.get("role") == "tool":
                name, payload = names.get(m.get("tool_call_id", "")), content
            elif m.get("role") == "user" and (hit := re.match(r"Result of (\w+): (.*)", content, re.S)):
                name, payload = hit.group(1), hit.group(2)
            if name and payload:
                data = json.loads(payload)
                if "error" not in data:
                    found[name] = data
        return found

    def last_user(self) -> str:
        return next((m.get("content") or "" for m in reversed(self.messages) if m.get("role") == "user"), "")


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any] | str | Callable[[dict[str, dict[str, Any]]], dict[str, Any]]


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: tuple[Call, ...] = ()
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def say(text: str) -> Reply:
    return Reply(text=text)


def call(name: str, arguments: Any = None, text: str = "") -> Reply:
    return Reply(text=text, calls=(Call(name, {} if arguments is None else arguments),))


def calls(*items: Call, text: str = "") -> Reply:
    return Reply(text=text, calls=items)


def fail(status: int, retry_after: str | None = None) -> Reply:
    return Reply(status=status, headers={"Retry-After": retry_after} if retry_after else {})


Policy = Callable[[Request], Reply]


def failing(times: int, failure: Reply, then: Policy) -> Policy:
    """Answer the first ``times`` agent requests with ``failure`` (a stateful step, for retry tests)."""
    left = [times]

    def policy(request: Request) -> Reply:
        if left[0] > 0:
            left[0] -= 1
            return failure
        return then(request)

    return policy


def arguments_for(capability: Capability[Any, Any], results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The call's arguments as its ``inputs`` say: each from the named field of an earlier result, or null."""
    values = {}
    for argument, source in capability.inputs.items():
        tool, _, field_name = (source or "").partition(".")
        values[argument] = results[tool][field_name] if source else None
    return values


def pipeline_path(catalog: Mapping[str, Capability[Any, Any]] = CATALOG) -> Policy:
    """Call the first step of ``catalog`` without a successful result yet; finish after the last one."""

    def policy(request: Request) -> Reply:
        results = request.results()
        for name, capability in catalog.items():
            if name not in results:
                return call(name, arguments_for(capability, results))
        return say("Done. The report is in the ledger.")

    return policy


happy_path = pipeline_path()


def step_call(step: str) -> Reply:
    """A reply that calls ``step`` with the ids taken from the conversation at answer time."""
    return Reply(calls=(Call(step, lambda results: arguments_for(CATALOG[step], results)),))


def script(*steps: Reply | Policy, then: Policy = happy_path) -> Policy:
    """Answer turn N with steps[N] (a Reply or a policy); after the last step, follow ``then``."""

    def policy(request: Request) -> Reply:
        if request.turn < len(steps):
            step = steps[request.turn]
            return step(request) if callable(step) else step
        return then(request)

    return policy


def default_writer(request: Request) -> str:
    """A deterministic article; a rewrite (prompt starting with '# ') varies sentence length more."""
    prompt = request.last_user()
    topic = prompt.removeprefix("Topic: ").splitlines()[0].lstrip("# ").strip()
    if prompt.startswith("# "):
        return (f"# {topic}\n\nShort start. Then a much longer sentence follows, one that takes its time to explain "
                f"why {topic.lower()} matters to a team that runs agents every night. Facts first. Every claim "
                "in a report should point at a row that a machine wrote, not at a paragraph a model produced. "
                "Check the ledger. Trust rows, verify links, and register only what is online. " * 2)
    return (f"# {topic}\n\nThis article explains {topic.lower()}. It is important to note that agents "
            "need evidence. The ledger records what ran. The report reads the ledger. " * 3)


@dataclass
class ScriptedModel:
    policy: Policy = happy_path
    writer: Callable[[Request], str] = default_writer
    requests: list[dict[str, Any]] = field(default_factory=list)
    text_silence: float = 0.0
    text_gap: float = 0.0
    piece_words: int = 4  # words in one streamed piece of a plain completion
    streams: bool = True  # False: a stream request is answered with one JSON completion, as some servers do
    _server: ThreadingHTTPServer | None = None
    _ids: int = 0

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedModel:
        model = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # else Nagle + delayed ACK add ~40 ms to every answer

            def log_message(self, *args: Any) -> None:
                return None

            def do_GET(self) -> None:  # /v1/models
                self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                model.requests.append(body)
                reply = model.answer(Request(body))
                plain = "tools" not in body and "response_format" not in body
                delay = reply.delay + (model.text_silence if plain else 0.0)
                if delay:
                    time.sleep(delay)
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": f"scripted {reply.status}"}}, reply.headers)
                    return
                rendered = model.render(Request(body), reply)
                if body.get("stream") and model.streams:
                    self._stream(rendered, bool((body.get("stream_options") or {}).get("include_usage")))
                else:
                    self._send(200, rendered)

            def _stream(self, completion: dict[str, Any], include_usage: bool) -> None:
                """The completion as server-sent chunks: its text a few words a piece, ``text_gap`` apart."""
                choice = completion["choices"][0]
                text = choice["message"].get("content") or ""
                pieces = re.findall(rf"\S+(?:\s+\S+){{0,{model.piece_words - 1}}}\s*|\s+", text) or [""]
                base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
                chunks = [base | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                               "finish_reason": None}]}]
                chunks += [base | {"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
                           for p in pieces]
                chunks.append(base | {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
                if include_usage:
                    chunks.append(base | {"choices": [], "usage": completion["usage"]})
                try:
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("cache-control", "no-cache")
                    self.end_headers()
                    for i, chunk in enumerate(chunks):
                        if model.text_gap and 1 < i < len(chunks) - 1:
                            time.sleep(model.text_gap)
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    return

            def _send(self, status: int, data: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                raw = json.dumps(data).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(raw)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client went away (a test killed it): nobody to answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # polls for shutdown every 50 ms: with the default 0.5 s each close waited up to half a second (every test)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def answer(self, request: Request) -> Reply:
        if "tools" not in request.body and not request.constrained:
            return say(self.writer(request))
        return self.policy(request)

    def render(self, request: Request, reply: Reply) -> dict[str, Any]:
        results = request.results()
        resolved = [(c.name, c.arguments(results) if callable(c.arguments) else c.arguments) for c in reply.calls]
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if request.constrained:
            if resolved:
                name, args = resolved[0]
                message["content"] = json.dumps({"tool": name, "arguments": args})
            else:
                message["content"] = json.dumps({"tool": "finish", "arguments": {"message": reply.text}})
        elif resolved:
            tool_calls = []
            for name, args in resolved:
                self._ids += 1
                raw = args if isinstance(args, str) else json.dumps(args)
                tool_calls.append({"id": f"call_{self._ids}", "type": "function",
                                   "function": {"name": name, "arguments": raw}})
            message["tool_calls"] = tool_calls
        return {
            "id": f"chatcmpl-{self._ids}", "object": "chat.completion", "created": int(time.time()),
            "model": request.body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if resolved else "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
        }
