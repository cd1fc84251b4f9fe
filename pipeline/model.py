"""The OpenAI-compatible client: one agent turn at a time, in one of two tool-call modes.

- native: ``tools`` with strict schemas and tool_choice auto; calls come back as ``tool_calls``.
- constrained: the catalog compiled into a strict ``json_schema`` response format, so a name outside
  the catalog cannot be generated at all; the JSON object is turned into the same ToolCallRequest.

Both produce the same ``Turn`` (pipeline.turns); the gateway and the ledger see no difference. Plain
completions (``complete``: write_draft, humanize) are streamed, so LLM_TIMEOUT_SECONDS bounds a silence
between two pieces of a long draft rather than the whole of it (``collect_stream``). The
SDK's own retries are off: this module classifies every endpoint error and retries through
pipeline.retry. ``make_client`` and ``make_chat_model`` are the one place the SDK client and a
ChatModel are built (the run loop and the probe suite both use them).

Exceptions (one tree, under pipeline.outcome.StopRun: each carries the verdict the run ends with):
    LLMError
    ├── LLMAuthFailed    401/403 from the endpoint: auth_failed (exit 6)
    ├── LLMUnavailable   retryable errors past the attempt cap: unavailable (exit 4)
    └── LLMRequestFailed any other refusal (400, 404, 422), or an answer that is not a chat completion
                         (truncated JSON, ``null``, HTML, no choices): error (exit 1), one line, no traceback
A request cut off by the run's deadline (pipeline.http) stops the run as ``budget`` (max_seconds), or as
``interrupted`` when the daemon was asked to stop; usage that is negative or absurd is replaced by an
estimate (``llm.usage_clamped``), so the token budget always applies.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import openai
from loguru import logger
from openai.types.chat import ChatCompletion

from capabilities.errors import AuthFailed, Retryable, ToolFailed
from capabilities.httperrors import is_retryable_status, parse_retry_after
from config import Settings
from pipeline.http import RunDeadline, http_client
from pipeline.outcome import StopRun, Verdict
from pipeline.retry import OnRetry, RetryExhausted, RetryPolicy, call_with_retries
from pipeline.tracing import NO_TRACING, Span, Tracing
from pipeline.turns import ToolCallRequest, Turn

FINISH = "finish"


def visible(text: str) -> str:
    """``text`` with lone surrogates (valid JSON escapes, invalid Unicode) escaped as ``\\ud800``.

    A model can send them; no database stores them and the SDK cannot send them back in the next
    request, so an agent turn carries them visibly escaped. (Plain completions are left as they are:
    write_draft refuses such an article instead of altering it.)
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class LLMError(StopRun):
    """Base of the endpoint's errors."""


class LLMAuthFailed(LLMError):
    def __init__(self, detail: str) -> None:
        super().__init__(Verdict.auth_failed, "llm_auth", detail)


class LLMUnavailable(LLMError):
    def __init__(self, detail: str) -> None:
        super().__init__(Verdict.unavailable, "llm_unavailable", detail)


class LLMRequestFailed(LLMError):
    def __init__(self, detail: str) -> None:
        super().__init__(Verdict.error, "llm_request", detail)


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    mode: str  # native | constrained (auto already resolved)


def make_client(settings: Settings, endpoint: Endpoint, deadline: RunDeadline) -> openai.OpenAI:
    """The SDK client of ``endpoint``: its own retries off (ours classify and count), LLM_TIMEOUT_SECONDS
    between two pieces of an answer, and the run's deadline over the whole of it (pipeline.http)."""
    return openai.OpenAI(base_url=endpoint.base_url, api_key=settings.openai_api_key.get_secret_value(),
                         max_retries=0, timeout=settings.llm_timeout_seconds,
                         http_client=http_client(settings, deadline, settings.llm_timeout_seconds))


def make_chat_model(
    client: openai.OpenAI,
    endpoint: Endpoint,
    settings: Settings,
    *,
    sleep: Callable[[float], None],
    on_retry: OnRetry,
    on_tokens: Callable[[int], None] = lambda n: None,
    deadline: RunDeadline,
    tracing: Tracing = NO_TRACING,
) -> ChatModel:
    """A ChatModel on ``client`` with the settings' retry policy, temperature and token caps, under ``deadline``."""
    return ChatModel(client, endpoint.model, endpoint.mode, RetryPolicy.from_settings(settings),
                     temperature=settings.llm_temperature, max_tokens_turn=settings.llm_max_tokens_turn,
                     max_tokens_text=settings.llm_max_tokens_text, sleep=sleep, on_retry=on_retry,
                     on_tokens=on_tokens, deadline=deadline, tracing=tracing)


def constrained_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """One object per tool ({"tool": const name, "arguments": its schema}) plus a ``finish`` with a message."""
    options = [
        {
            "type": "object",
            "properties": {"tool": {"const": t["function"]["name"]}, "arguments": t["function"]["parameters"]},
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    finish_args = {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
        "additionalProperties": False,
    }
    options.append({
        "type": "object",
        "properties": {"tool": {"const": FINISH}, "arguments": finish_args},
        "required": ["tool", "arguments"],
        "additionalProperties": False,
    })
    return {"anyOf": options}


def catalog_prompt(tools: list[dict[str, Any]]) -> str:
    """The tool list as text: a constrained response format carries no descriptions, so the prompt must."""
    lines = ["Answer with one JSON object: {\"tool\": name, \"arguments\": {...}}; use tool \"finish\" with "
             "{\"message\": text} when you are done. Tools:"]
    for tool in tools:
        fn = tool["function"]
        params = ", ".join(fn["parameters"].get("properties", {}))
        lines.append(f"- {fn['name']}({params}): {fn['description']}")
    return "\n".join(lines)


def _classify(exc: openai.OpenAIError) -> Exception:
    if isinstance(exc, openai.APITimeoutError):
        return Retryable("LLM request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return Retryable(f"LLM connection failed: {exc.__class__.__name__}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in (401, 403):
            return LLMAuthFailed(f"LLM endpoint refused the credentials: HTTP {status}")
        if is_retryable_status(status):
            return Retryable(f"LLM endpoint: HTTP {status}",
                             retry_after=parse_retry_after(exc.response.headers.get("retry-after")))
        return LLMRequestFailed(f"LLM endpoint: HTTP {status}: {str(exc)[:300]}")
    return LLMRequestFailed(f"LLM error: {exc}")


MAX_TOKENS_PER_ANSWER = 10_000_000  # more than any context window: a usage above it is not believed


def completion_message(response: Any) -> Any:
    """The first choice's message of a chat completion, or None when ``response`` is not one (the SDK hands
    back whatever JSON the endpoint sent: ``null``, a list, a string of HTML, an object without choices)."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        return None
    message = getattr(choices[0], "message", None)
    return message if message is not None and hasattr(message, "content") else None


def usage_tokens(usage: Any) -> tuple[int, bool]:
    """(total tokens, whether the reported usage is sane): whole numbers from 0 to MAX_TOKENS_PER_ANSWER."""
    parts = [getattr(usage, name, None) for name in ("prompt_tokens", "completion_tokens", "total_tokens")]
    if not all(isinstance(p, int) and 0 <= p <= MAX_TOKENS_PER_ANSWER for p in parts):
        return 0, False
    return max(parts[2], parts[0] + parts[1]), True


def estimate_tokens(text: str) -> int:
    """About four characters a token: what is charged when the endpoint's usage cannot be believed."""
    return max(1, len(text) // 4)


def response_attributes(response: Any) -> dict[str, Any]:
    """The gen_ai.* attributes of a chat completion: model, id, finish reasons, and the tokens when they are sane."""
    choices = getattr(response, "choices", None)
    reasons = [str(getattr(c, "finish_reason", None)) for c in choices if getattr(c, "finish_reason", None)] \
        if isinstance(choices, list) else []
    attributes: dict[str, Any] = {"gen_ai.response.finish_reasons": reasons or None}
    for key, name in (("gen_ai.response.model", "model"), ("gen_ai.response.id", "id")):
        value = getattr(response, name, None)
        attributes[key] = value if isinstance(value, str) else None
    usage = getattr(response, "usage", None)
    if usage_tokens(usage)[1]:
        attributes["gen_ai.usage.input_tokens"] = usage.prompt_tokens
        attributes["gen_ai.usage.output_tokens"] = usage.completion_tokens
    return attributes


def _output_message(message: Any) -> dict[str, Any]:
    """The answer as a gen_ai.output.messages item (captured only with content capture on)."""
    calls = getattr(message, "tool_calls", None)
    return {"role": "assistant", "content": getattr(message, "content", None) if message is not None else None,
            "tool_calls": [{"id": str(c.id), "name": str(c.function.name), "arguments": _arguments(c.function.arguments)}
                           for c in calls if getattr(c, "function", None) is not None]
            if isinstance(calls, list) else None}


def _shape(value: Any) -> str:
    """What a value is, for a one-line error, without quoting it (it may be a page of HTML)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"text of {len(value)} characters, starting {value[:40]!r}"
    return type(value).__name__


def _arguments(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, default=str)


def collect_stream(stream: Any) -> Any:
    """A streamed chat completion put together as one: the pieces' text joined, the last finish reason, the usage
    of the chunk that carries it. A body that is not server-sent events (an endpoint that ignored ``stream``) is
    parsed as one completion; a stream without a single chunk is returned as None (not a chat completion)."""
    response = getattr(stream, "response", None)
    if response is not None and not response.headers.get("content-type", "").startswith("text/event-stream"):
        data = json.loads(response.read())
        stream.close()
        return ChatCompletion.construct(**data) if isinstance(data, dict) else data
    text: list[str] = []
    seen, finish, usage, ident, model = False, None, None, None, None
    for chunk in stream:
        seen = True
        ident, model = getattr(chunk, "id", ident), getattr(chunk, "model", model)
        usage = getattr(chunk, "usage", None) or usage
        choices = getattr(chunk, "choices", None)
        for choice in choices if isinstance(choices, list) else []:
            piece = getattr(getattr(choice, "delta", None), "content", None)
            if isinstance(piece, str):
                text.append(piece)
            finish = getattr(choice, "finish_reason", None) or finish
    if not seen:
        return None
    message = SimpleNamespace(role="assistant", content="".join(text), tool_calls=None)
    return SimpleNamespace(id=ident, model=model, usage=usage,
                           choices=[SimpleNamespace(index=0, message=message, finish_reason=finish)])


class ChatModel:
    """A chat-completions endpoint in one tool-call mode. Also the TextModel of write_draft/humanize."""

    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        mode: str,
        policy: RetryPolicy,
        *,
        temperature: float = 0.0,
        max_tokens_turn: int = 512,
        max_tokens_text: int = 1024,
        sleep: Callable[[float], None],
        on_retry: OnRetry,
        on_tokens: Callable[[int], None] = lambda n: None,
        deadline: RunDeadline,
        tracing: Tracing = NO_TRACING,
    ) -> None:
        if mode not in ("native", "constrained"):
            raise ValueError(f"tool-call mode must be native or constrained, not {mode!r}")
        self.client, self.model, self.mode, self.policy = client, model, mode, policy
        self.temperature, self.sleep, self.on_retry, self.on_tokens = temperature, sleep, on_retry, on_tokens
        self.max_tokens_turn, self.max_tokens_text = max_tokens_turn, max_tokens_text
        self.deadline, self.tracing = deadline, tracing
        self._calls = 0

    def _create(self, **kwargs: Any) -> Any:
        """One chat request under the retry state machine, as one chat span (its retries an attribute)."""
        request = {"gen_ai.request.temperature": self.temperature, "gen_ai.request.max_tokens": kwargs.get("max_tokens")}
        with self.tracing.chat(self.model, request) as span:
            span.content({"gen_ai.input.messages": kwargs.get("messages", [])})
            message, tokens = self._create_in(span, **kwargs)
            span.content({"gen_ai.output.messages": [_output_message(message)]})
            return message, tokens

    def _create_in(self, span: Span, **kwargs: Any) -> Any:
        attempts = 0

        def attempt() -> Any:
            nonlocal attempts
            attempts += 1
            try:
                return self.client.chat.completions.create(model=self.model, temperature=self.temperature, **kwargs)
            except openai.OpenAIError as exc:
                if self.deadline.expired():
                    raise self.deadline.stop_run("a model turn") from exc
                raise _classify(exc) from exc
            except ValueError as exc:  # the SDK's json.loads on a body cut short
                raise LLMRequestFailed(f"LLM endpoint answered invalid JSON ({type(exc).__name__})") from exc

        try:
            response, _ = call_with_retries(attempt, self.policy, self.sleep, self.on_retry)
        except RetryExhausted as exc:
            raise LLMUnavailable(str(exc)) from exc
        finally:
            span.set({"factline.retries": max(0, attempts - 1)})
        message = completion_message(response)
        span.set(response_attributes(response))
        tokens = self._count(response, kwargs.get("messages", []), message)
        if message is None:
            raise LLMRequestFailed(f"LLM endpoint answered something that is not a chat completion "
                                   f"({_shape(response)})")
        return message, tokens

    def _count(self, response: Any, messages: list[dict[str, Any]], message: Any) -> int:
        """The tokens to charge to the run: the answer's usage when it is sane, else an estimate (RunUsage
        must always move: an endpoint that reports negative or absurd usage would never meet the budget)."""
        usage = getattr(response, "usage", None)
        tokens, sane = usage_tokens(usage)
        if not sane:
            answer = (getattr(message, "content", None) or "") if message is not None else ""
            tokens = estimate_tokens(json.dumps(messages, ensure_ascii=False, default=str) + str(answer))
            if usage is not None:  # no usage at all is common (some servers never send it); a wrong one is not
                logger.warning("llm.usage_clamped", reported=str(usage)[:200], counted=tokens)
        self.on_tokens(tokens)
        return tokens

    def complete(self, system: str, prompt: str) -> str:
        """A plain completion for a capability: one attempt, errors in the capability tree.

        The gateway's state machine retries the capability that asked, so this does not retry itself.
        """
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        request = {"gen_ai.request.temperature": self.temperature, "gen_ai.request.max_tokens": self.max_tokens_text}
        with self.tracing.chat(self.model, request) as span:
            span.content({"gen_ai.input.messages": messages})
            content = self._complete_in(span, messages)
            span.content({"gen_ai.output.messages": [{"role": "assistant", "content": content}]})
            return content

    def _complete_in(self, span: Span, messages: list[dict[str, Any]]) -> str:
        """The completion streamed: LLM_TIMEOUT_SECONDS bounds each silence between two pieces of the answer, not
        the whole of it, so a slow model that keeps writing is not cut off while a silent one still is (the run's
        deadline bounds the whole, pipeline.http). An endpoint that ignores ``stream`` and answers one JSON
        completion is read as one."""
        try:
            stream = self.client.chat.completions.create(
                model=self.model, temperature=self.temperature, max_tokens=self.max_tokens_text, messages=messages,
                stream=True, stream_options={"include_usage": True})
            response = collect_stream(stream)
        except openai.OpenAIError as exc:
            if self.deadline.expired():
                raise self.deadline.stop_run("a completion") from exc
            error = _classify(exc)
            if isinstance(error, LLMAuthFailed):
                raise AuthFailed(error.detail) from exc
            if isinstance(error, LLMRequestFailed):
                raise ToolFailed(error.detail) from exc
            raise error from exc
        except ValueError as exc:
            raise ToolFailed(f"LLM endpoint answered invalid JSON ({type(exc).__name__})") from exc
        message = completion_message(response)
        span.set(response_attributes(response))
        self._count(response, messages, message)
        if message is None:
            raise ToolFailed(f"LLM endpoint answered something that is not a chat completion ({_shape(response)})")
        content = message.content
        return content if isinstance(content, str) else ""

    def next_turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
        if self.mode == "native":
            message, tokens = self._create(messages=messages, tools=tools, tool_choice="auto",
                                           max_tokens=self.max_tokens_turn)
            return self._native_turn(message, tokens)
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": "tool_call", "strict": True, "schema": constrained_schema(tools)},
        }
        system = {"role": "system", "content": f"{messages[0]['content']}\n\n{catalog_prompt(tools)}"}
        message, tokens = self._create(messages=[system, *messages[1:]], response_format=response_format,
                                       max_tokens=self.max_tokens_turn)
        return self._constrained_turn(message.content if isinstance(message.content, str) else "", tokens)

    def _native_turn(self, message: Any, tokens: int) -> Turn:
        calls = [
            ToolCallRequest(str(c.id), visible(str(c.function.name)), visible(_arguments(c.function.arguments)))
            for c in (message.tool_calls if isinstance(message.tool_calls, list) else [])
            if getattr(c, "function", None) is not None
        ]
        text = visible(message.content if isinstance(message.content, str) else "")
        history: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            history["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
            ]
        return Turn(text, calls, tokens, history)

    def _constrained_turn(self, content: str, tokens: int) -> Turn:
        content = visible(content)
        history = {"role": "assistant", "content": content}
        try:
            data = json.loads(content)
            name, arguments = data["tool"], data["arguments"]
        except (ValueError, KeyError, TypeError):
            return Turn(content, [], tokens, history)  # not a call: the guard reads it as text
        if name == FINISH:
            message = arguments.get("message", "") if isinstance(arguments, dict) else str(arguments)
            return Turn(visible(str(message)), [], tokens, history)
        self._calls += 1
        call = ToolCallRequest(f"call_{self._calls}", visible(str(name)),
                               visible(json.dumps(arguments, ensure_ascii=False)))
        return Turn("", [call], tokens, history)

    def tool_result_message(self, call: ToolCallRequest, content: str) -> dict[str, Any]:
        if self.mode == "native":
            return {"role": "tool", "tool_call_id": call.id, "content": content}
        return {"role": "user", "content": f"Result of {call.name}: {content}"}
