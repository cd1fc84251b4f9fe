"""Manual smoke check of the embedded local model through the OpenAI SDK.

Starts llama-server from the cache (building/fetching first if needed), then
checks (a) a plain chat completion and (b) strict ``json_schema`` tool-call
steps against an anyOf-of-tools schema, printing latency and llama-server's
own token rates. Needs ``openai`` and ``jsonschema``; not part of the test suite.

    python scripts/local_model_smoke.py [CACHE_DIR]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import jsonschema
from openai import OpenAI

from pipeline.localmodel import LocalModelServer, ensure_local_model

TOOLS: dict[str, dict] = {
    "web_search": {"query": {"type": "string"}},
    "read_file": {"path": {"type": "string"}},
    "write_note": {"title": {"type": "string"}, "body": {"type": "string"}},
}
PURPOSE = {
    "web_search": "search the internet for news or facts",
    "read_file": "open and show the contents of a local file by its path",
    "write_note": "save a note with a title and body",
}

TASKS = [
    ("Find recent news about the Rust 2024 edition.", "web_search"),
    ("Open the file config/settings.toml and show it.", "read_file"),
    ("Save a note titled 'standup' saying the deploy moved to Friday.", "write_note"),
    ("Look up who won the 2022 football World Cup.", "web_search"),
    ("Show me what is in README.md.", "read_file"),
]


def step_schema() -> dict:
    """One tool call: {"tool": NAME, "arguments": {...}} for exactly one catalog entry."""
    return {
        "type": "object",
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "tool": {"const": name},
                    "arguments": {"type": "object", "properties": props,
                                  "required": list(props), "additionalProperties": False},
                },
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
            for name, props in TOOLS.items()
        ],
    }


def rates(response) -> str:
    timings = (response.model_extra or {}).get("timings") or {}
    return (f"prompt {timings.get('prompt_n')} tok @ {timings.get('prompt_per_second', 0):.0f} tok/s, "
            f"gen {timings.get('predicted_n')} tok @ {timings.get('predicted_per_second', 0):.1f} tok/s")


def main() -> int:
    cache = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.home() / ".cache" / "factline"
    binary, model = ensure_local_model(cache, lambda m: print(m, file=sys.stderr))
    started = time.monotonic()
    with LocalModelServer(binary, model, cache / "logs" / "llama-server.log") as server:
        print(f"server healthy after {time.monotonic() - started:.2f}s at {server.base_url}")
        client = OpenAI(base_url=server.base_url, api_key="local")

        t0 = time.monotonic()
        chat = client.chat.completions.create(
            model=server.model_name, max_tokens=64,
            messages=[{"role": "user", "content": "In one sentence, what is a Python context manager?"}])
        print(f"(a) chat {time.monotonic() - t0:.2f}s [{rates(chat)}]: {chat.choices[0].message.content!r}")

        schema = step_schema()
        system = "You choose exactly one tool for the user's request. Tools:\n" + "\n".join(
        f"- {name}({', '.join(props)}): {PURPOSE[name]}" for name, props in TOOLS.items())
        ok = 0
        for task, expected in TASKS:
            t0 = time.monotonic()
            step = client.chat.completions.create(
                model=server.model_name, max_tokens=200, temperature=0,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": task}],
                response_format={"type": "json_schema",
                                 "json_schema": {"name": "tool_step", "strict": True, "schema": schema}})
            elapsed = time.monotonic() - t0
            call = json.loads(step.choices[0].message.content)
            jsonschema.validate(call, schema)
            ok += call["tool"] == expected
            print(f"(b) {elapsed:.2f}s [{rates(step)}] expected {expected}: {json.dumps(call)}")
        print(f"(b) schema-valid {len(TASKS)}/{len(TASKS)}, expected tool chosen {ok}/{len(TASKS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
