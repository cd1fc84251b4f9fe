"""The OpenAI-compatible client: one agent turn at a time, in one of two tool-call modes.

- native: ``tools`` with strict schemas and tool_choice auto; calls come back as ``tool_calls``.
- constrained: the catalog compiled into a strict ``json_schema`` response format, so a name outside
  the catalog cannot be generated at all; the JSON object is turned into the same ToolCallRequest.

Both produce the same ``Turn`` (pipeline.turns); the gateway and the ledger see no difference. The
SDK's own retries are off: this module classifies every endpoint error and retries through
pipeline.retry. ``make_client`` and ``make_chat_model`` are the one place the SDK client and a
ChatModel are built (the run loop and the probe suite both use them).

Exceptions (one tree, under pipeline.outcome.StopRun: each carries the verdict the run ends with):
    LLMError
    ├── LLMAuthFailed    401/403 from the endpoint: auth_failed (exit 6)
    ├── LLMUnavailable   retryable errors past the attempt cap: unavailable (exit 4)
    └── LLMRequestFailed any other refusal (400, 404, 422, malformed answer): error (exit 1)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai

from capabilities.errors import AuthFailed, Retryable, ToolFailed
from capabilities.httperrors import is_retryable_status, parse_retry_after
from config import Settings
from pipeline.outcome import StopRun, Verdict
from pipeline.retry import OnRetry, RetryExhausted, RetryPolicy, call_with_retries
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


def make_client(settings: Settings, endpoint: Endpoint) -> openai.OpenAI:
    """The SDK client of ``endpoint``: its own retries off (ours classify and count), LLM_TIMEOUT_SECONDS."""
    return openai.OpenAI(base_url=endpoint.base_url, api_key=settings.openai_api_key.get_secret_value(),
                         max_retries=0, timeout=settings.llm_timeout_seconds)


def make_chat_model(
    client: openai.OpenAI,
    endpoint: Endpoint,
    settings: Settings,
    *,
    sleep: Callable[[float], None],
    on_retry: OnRetry,
    on_tokens: Callable[[int], None] = lambda n: None,
) -> ChatModel:
    """A ChatModel on ``client`` with the settings' retry policy, temperature and token caps."""
    return ChatModel(client, endpoint.model, endpoint.mode, RetryPolicy.from_settings(settings),
                     temperature=settings.llm_temperature, max_tokens_turn=settings.llm_max_tokens_turn,
                     max_tokens_text=settings.llm_max_tokens_text, sleep=sleep, on_retry=on_retry,
                     on_tokens=on_tokens)


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
    ) -> None:
        if mode not in ("native", "constrained"):
            raise ValueError(f"tool-call mode must be native or constrained, not {mode!r}")
        self.client, self.model, self.mode, self.policy = client, model, mode, policy
        self.temperature, self.sleep, self.on_retry, self.on_tokens = temperature, sleep, on_retry, on_tokens
        self.max_tokens_turn, self.max_tokens_text = max_tokens_turn, max_tokens_text
        self._calls = 0

    def _create(self, **kwargs: Any) -> Any:
        def attempt() -> Any:
            try:
                return self.client.chat.completions.create(model=self.model, temperature=self.temperature, **kwargs)
            except openai.OpenAIError as exc:
                raise _classify(exc) from exc

        try:
            response, _ = call_with_retries(attempt, self.policy, self.sleep, self.on_retry)
        except RetryExhausted as exc:
            raise LLMUnavailable(str(exc)) from exc
        tokens = response.usage.total_tokens if response.usage else 0
        self.on_tokens(tokens)
        if not response.choices:
            raise LLMRequestFailed("LLM answered with no choices")
        return response, tokens

    def complete(self, system: str, prompt: str) -> str:
        """A plain completion for a capability: one attempt, errors in the capability tree.

        The gateway's state machine retries the capability that asked, so this does not retry itself.
        """
        try:
            response = self.client.chat.completions.create(
                model=self.model, temperature=self.temperature, max_tokens=self.max_tokens_text,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": prompt}])
        except openai.OpenAIError as exc:
            error = _classify(exc)
            if isinstance(error, LLMAuthFailed):
                raise AuthFailed(error.detail) from exc
            if isinstance(error, LLMRequestFailed):
                raise ToolFailed(error.detail) from exc
            raise error from exc
        self.on_tokens(response.usage.total_tokens if response.usage else 0)
        if not response.choices:
            raise ToolFailed("LLM answered with no choices")
        return response.choices[0].message.content or ""

    def next_turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
        if self.mode == "native":
            response, tokens = self._create(messages=messages, tools=tools, tool_choice="auto",
                                            max_tokens=self.max_tokens_turn)
            return self._native_turn(response.choices[0].message, tokens)
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": "tool_call", "strict": True, "schema": constrained_schema(tools)},
        }
        system = {"role": "system", "content": f"{messages[0]['content']}\n\n{catalog_prompt(tools)}"}
        response, tokens = self._create(messages=[system, *messages[1:]], response_format=response_format,
                                        max_tokens=self.max_tokens_turn)
        return self._constrained_turn(response.choices[0].message.content or "", tokens)

    def _native_turn(self, message: Any, tokens: int) -> Turn:
        calls = [
            ToolCallRequest(c.id, visible(c.function.name), visible(c.function.arguments or ""))
            for c in (message.tool_calls or []) if getattr(c, "function", None) is not None
        ]
        text = visible(message.content or "")
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
