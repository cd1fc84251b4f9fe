"""Live checks against the real llama-server and Qwen weights; skipped unless both are in the cache.

Warm the cache with ``factline model build`` and ``factline model fetch``
(cache: $MODEL_CACHE_DIR or ~/.cache/factline).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.localmodel import LocalModelServer, is_server_built, model_path, server_binary_path, verify_weights

CACHE = Path(os.environ.get("MODEL_CACHE_DIR", Path.home() / ".cache" / "factline"))

pytestmark = [pytest.mark.external, pytest.mark.skipif(
    not (is_server_built(CACHE) and verify_weights(CACHE)),
    reason=f"llama-server or verified weights not in {CACHE}",
)]

STEP_SCHEMA = {
    "type": "object",
    "anyOf": [
        {"type": "object",
         "properties": {"tool": {"const": "web_search"},
                        "arguments": {"type": "object", "properties": {"query": {"type": "string"}},
                                      "required": ["query"], "additionalProperties": False}},
         "required": ["tool", "arguments"], "additionalProperties": False},
        {"type": "object",
         "properties": {"tool": {"const": "read_file"},
                        "arguments": {"type": "object", "properties": {"path": {"type": "string"}},
                                      "required": ["path"], "additionalProperties": False}},
         "required": ["tool", "arguments"], "additionalProperties": False},
    ],
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModelServer]:
    """One real server for the module, torn down after it."""
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with LocalModelServer(server_binary_path(CACHE), model_path(CACHE), log, ctx_size=4096) as running:
        yield running


def test_plain_chat_completion_answers(server: LocalModelServer) -> None:
    """The OpenAI SDK gets a non-empty answer from the local model."""
    from openai import OpenAI

    client = OpenAI(base_url=server.base_url, api_key="local")
    reply = client.chat.completions.create(
        model=server.model_name, max_tokens=16, temperature=0,
        messages=[{"role": "user", "content": "Say the word: ready"}])
    assert reply.choices[0].message.content.strip()


def test_strict_json_schema_step_names_a_catalog_tool(server: LocalModelServer) -> None:
    """A strict json_schema response is JSON with a catalog tool and exactly its arguments."""
    from openai import OpenAI

    client = OpenAI(base_url=server.base_url, api_key="local")
    reply = client.chat.completions.create(
        model=server.model_name, max_tokens=120, temperature=0,
        messages=[{"role": "system", "content": "Pick one tool: web_search(query) or read_file(path)."},
                  {"role": "user", "content": "Open the file README.md"}],
        response_format={"type": "json_schema",
                         "json_schema": {"name": "step", "strict": True, "schema": STEP_SCHEMA}})
    call = json.loads(reply.choices[0].message.content)
    assert call["tool"] in {"web_search", "read_file"}
    expected_key = "query" if call["tool"] == "web_search" else "path"
    assert set(call) == {"tool", "arguments"} and set(call["arguments"]) == {expected_key}
