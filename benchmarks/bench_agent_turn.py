"""Benchmark 2: per-turn overhead of factline's loop vs the OpenAI Agents SDK and Pydantic AI.

All talk to one scripted OpenAI-compatible chat-completions server (testkit/scripted_model.py,
``happy_path``: six tool calls, then a final message), hosted by this parent process. Each
contender runs in its own child process. Overhead per run = the child's wall time for the run
minus the time the server spent in its handlers (measured inside the server); per turn = that / the
model requests of the run. CPU per turn = the child's CPU time for the run (every thread of it; the server
is the parent's) / its model requests: on a loaded machine it moves much less than wall time does.

Contenders:
    factline          run_once with the six no-op capabilities (benchmarks.noop), SQLite ledger
    factline-real     run_once with the real capabilities (drafts, local publish + HEAD check, registry)
    factline-traced   factline with OpenTelemetry traces on (docs/tracing.md): every span built and batched, the
                      exporter sending to 127.0.0.1:9, where nothing listens (a dead collector: no network time)
    openai-agents     Agent + OpenAIChatCompletionsModel, six no-op function tools
    pydantic-ai       Agent + OpenAIChatModel, six no-op tools

    python -m benchmarks.bench_agent_turn [--short]
    python -m benchmarks.bench_agent_turn --calls    factline's Python function calls per turn (cProfile), tracing
                                                     off and on: a figure other processes on the machine cannot disturb
    python -m benchmarks.bench_agent_turn --rounds 5 --runs 10 --baseline ../before
                                                     five interleaved rounds, with the factline contenders of an
                                                     earlier checkout (git worktree add --detach ../before REV)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import json
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import ROOT, Stats, progress, save, table
from benchmarks.noop import PAYLOADS
from benchmarks.timed_server import SERVER_TIME_PATH, TimedScriptedModel

CONTENDERS = ("factline", "factline-traced", "factline-real", "openai-agents", "pydantic-ai")
DEAD_COLLECTOR = "http://127.0.0.1:9"


def pick_topic() -> str:
    """Choose the next topic."""
    return json.dumps(PAYLOADS["pick_topic"])


def write_draft(topic_id: int, angle: str | None) -> str:
    """Write a draft for a topic."""
    return json.dumps(PAYLOADS["write_draft"])


def humanize(draft_id: int) -> str:
    """Rewrite a draft so it reads naturally."""
    return json.dumps(PAYLOADS["humanize"])


def fact_check(version_id: int) -> str:
    """Check the version's facts against the run's sources."""
    return json.dumps(PAYLOADS["fact_check"])


def publish(version_id: int) -> str:
    """Publish a draft version."""
    return json.dumps(PAYLOADS["publish"])


def register(publication_id: int) -> str:
    """Register a publication."""
    return json.dumps(PAYLOADS["register"])


def report() -> str:
    """Report on the run."""
    return json.dumps(PAYLOADS["report"])


TOOLS: list[Callable[..., str]] = [pick_topic, write_draft, humanize, fact_check, publish, register, report]


def server_time(root_url: str) -> tuple[float, int]:
    data = httpx.get(root_url + SERVER_TIME_PATH).json()
    return data["seconds"], data["requests"]


class Sampler:
    """Wall time and server time of each run; the first ``warmup`` runs are dropped."""

    def __init__(self, root_url: str, warmup: int) -> None:
        self.root_url, self.warmup, self.samples = root_url, warmup, []

    def around(self, run: Callable[[], Any]) -> None:
        server_before, requests_before = server_time(self.root_url)
        started, cpu_started = time.perf_counter(), time.process_time()
        run()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        server_after, requests_after = server_time(self.root_url)
        if self.warmup:
            self.warmup -= 1
            return
        self.samples.append({"wall": wall, "server": server_after - server_before,
                             "requests": requests_after - requests_before, "cpu": cpu})


class CallCounter(Sampler):
    """Function calls of each run (cProfile, this process only: the server is the parent's) and its requests."""

    def around(self, run: Callable[[], Any]) -> None:
        _, requests_before = server_time(self.root_url)
        profile = cProfile.Profile()
        profile.runcall(run)
        _, requests_after = server_time(self.root_url)
        if self.warmup:
            self.warmup -= 1
            return
        self.samples.append({"calls": pstats.Stats(profile).total_calls, "requests": requests_after - requests_before})


def run_factline(base_url: str, sampler: Sampler, runs: int, real: bool, traced: bool = False) -> None:
    from benchmarks.common import production_logs_to_devnull
    from benchmarks.noop import noop_catalog
    from config import load_settings
    from pipeline import runner
    from pipeline.runtime import open_runtime

    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(database_url=f"sqlite:///{folder}/ledger.db", openai_base_url=base_url,
                                 factline_model="scripted", local_site_dir=Path(folder) / "site", local_site_port=0,
                                 agent_max_continue_prompts=0 if not real else 2,
                                 otel_exporter_otlp_endpoint=DEAD_COLLECTOR if traced else None,
                                 otel_bsp_schedule_delay=100)
        production_logs_to_devnull()
        with open_runtime(settings) as rt:
            if not real:  # same names and Args: the schemas sent are unchanged
                rt = dataclasses.replace(rt, catalog=noop_catalog())
            for i in range(runs):
                sampler.around(lambda: runner.run_once(rt, topic=f"Benchmark topic {i}"))


def run_openai_agents(base_url: str, sampler: Sampler, runs: int) -> None:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
    from openai import AsyncOpenAI

    from pipeline.catalog import SYSTEM_PROMPT, USER_PROMPT

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=base_url, api_key="not-needed", max_retries=0)
    agent = Agent(name="factline", instructions=SYSTEM_PROMPT, tools=[function_tool(t) for t in TOOLS],
                  model=OpenAIChatCompletionsModel(model="scripted", openai_client=client))
    loop = asyncio.new_event_loop()
    for _ in range(runs):
        sampler.around(lambda: loop.run_until_complete(Runner.run(agent, USER_PROMPT)))


def run_pydantic_ai(base_url: str, sampler: Sampler, runs: int) -> None:
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from pipeline.catalog import SYSTEM_PROMPT, USER_PROMPT

    client = AsyncOpenAI(base_url=base_url, api_key="not-needed", max_retries=0)
    model = OpenAIChatModel("scripted", provider=OpenAIProvider(openai_client=client))
    agent = Agent(model, instructions=SYSTEM_PROMPT, tools=TOOLS)
    loop = asyncio.new_event_loop()
    for _ in range(runs):
        sampler.around(lambda: loop.run_until_complete(agent.run(USER_PROMPT)))


def child(contender: str, base_url: str, runs: int, warmup: int, calls: bool = False) -> None:
    """Run one contender ``warmup + runs`` times; print the samples as JSON on stdout."""
    sampler = (CallCounter if calls else Sampler)(base_url.removesuffix("/v1"), warmup)
    total = runs + warmup
    if contender in ("factline", "factline-real", "factline-traced"):
        run_factline(base_url, sampler, total, real=contender == "factline-real", traced=contender == "factline-traced")
    elif contender == "openai-agents":
        run_openai_agents(base_url, sampler, total)
    else:
        run_pydantic_ai(base_url, sampler, total)
    print(json.dumps(sampler.samples))


def spawn(contender: str, base_url: str, runs: int, warmup: int, root: Path = ROOT) -> dict[str, Any]:
    """One contender in its own process (its code from ``root``): its samples, or the error that kept it from running."""
    progress(f"{contender}: {warmup} warm-up + {runs} runs in a child process" + ("" if root == ROOT else f" ({root})"))
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_agent_turn", "--child", contender,
                           "--base-url", base_url, "--runs", str(runs), "--warmup", str(warmup)],
                          cwd=root, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return {"samples": json.loads(proc.stdout.strip().splitlines()[-1])}


def summary(samples: list[dict[str, float]]) -> dict[str, Any]:
    overhead = [s["wall"] - s["server"] for s in samples]
    per_turn = [(s["wall"] - s["server"]) / s["requests"] for s in samples]
    cpu = [s["cpu"] / s["requests"] for s in samples if "cpu" in s]  # a baseline checkout may not record it
    return {"samples": samples, "wall_ms": Stats.of([s["wall"] for s in samples]).scaled(1e3),
            "cpu_per_turn_ms": Stats.of(cpu).scaled(1e3) if cpu else None,
            "server_ms": Stats.of([s["server"] for s in samples]).scaled(1e3),
            "overhead_ms": Stats.of(overhead).scaled(1e3), "per_turn_ms": Stats.of(per_turn).scaled(1e3),
            "requests": samples[0]["requests"]}


def count_calls(runs: int, warmup: int, baseline: Path | None = None) -> int:
    """Print factline's (no-op catalog) Python function calls per model request, tracing off and on: the median
    over ``runs``; with ``baseline``, the same for that checkout."""
    roots = [ROOT] + ([baseline.resolve()] if baseline else [])
    with TimedScriptedModel() as server:
        for root in roots:
            for contender in ("factline", "factline-traced"):
                label = contender if root == ROOT else f"{contender} @ {root.name}"
                progress(f"{label}: {warmup} warm-up + {runs} profiled runs in a child process")
                proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_agent_turn", "--child", contender,
                                       "--calls", "--base-url", server.base_url, "--runs", str(runs),
                                       "--warmup", str(warmup)], cwd=root, capture_output=True, text=True,
                                      timeout=600, check=True)
                samples = json.loads(proc.stdout.strip().splitlines()[-1])
                per_turn = statistics.median(s["calls"] / s["requests"] for s in samples)
                print(f"{label}: {per_turn:,.0f} Python function calls per turn (median of {len(samples)} runs)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="one run each, without factline-real: checks that it runs")
    parser.add_argument("--calls", action="store_true", help="count factline's function calls per turn instead")
    parser.add_argument("--child", choices=CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=30, help=argparse.SUPPRESS)
    parser.add_argument("--warmup", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=1, help="run every contender this many times, interleaved "
                        "(each time --runs runs in a fresh child process)")
    parser.add_argument("--baseline", type=Path, help="a checkout of an earlier factline (git worktree add "
                        "--detach DIR REV): its factline contenders run too, interleaved, for a before/after")
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.base_url, args.runs, args.warmup, args.calls)
        return 0
    if args.calls:
        return count_calls(20, 3, args.baseline)
    runs, warmup = (1, 0) if args.short else (args.runs, args.warmup)
    contenders = [(name, name, ROOT) for name in CONTENDERS if not (args.short and name == "factline-real")]
    if args.baseline:  # the same factline contenders from an earlier checkout, interleaved with today's
        contenders += [(f"{name} @ {args.baseline.name}", name, args.baseline.resolve())
                       for name in ("factline", "factline-traced")]
    samples: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in contenders}
    errors: dict[str, dict[str, Any]] = {}
    with TimedScriptedModel() as server:
        for round_no in range(args.rounds):  # round after round: every contender sees the machine's load alike
            if args.rounds > 1:
                progress(f"round {round_no + 1} of {args.rounds}")
            for label, name, root in contenders:
                if label in errors:
                    continue
                got = spawn(name, server.base_url, runs, warmup, root)
                if "error" in got:
                    errors[label] = got
                else:
                    samples[label] += got["samples"]
    results = {label: errors.get(label) or summary(samples[label]) for label, _, _ in contenders}
    rows = []
    for name, r in results.items():
        if "error" in r:
            rows.append([name, "could not run: " + r["error"], "", "", "", "", ""])
            continue
        rows.append([name, r["requests"], r["wall_ms"].fmt(), r["server_ms"].fmt(2), r["overhead_ms"].fmt(),
                     r["per_turn_ms"].fmt(2), r["cpu_per_turn_ms"].fmt(2) if r["cpu_per_turn_ms"] else "-"])
    print(table(["contender", "model requests/run", "wall ms/run", "server ms/run", "overhead ms/run",
                 "overhead ms/turn", "CPU ms/turn"], rows))
    for figure, unit in (("per_turn_ms", "overhead"), ("cpu_per_turn_ms", "CPU")):
        frameworks = [results[n][figure].median for n in ("openai-agents", "pydantic-ai") if "error" not in results[n]]
        for name in ("factline", "factline-traced"):
            if frameworks and "error" not in results.get(name, {"error": ""}):
                mine, lighter = results[name][figure].median, min(frameworks)
                print(f"{name} {mine:.2f} {unit} ms/turn vs the lighter framework {lighter:.2f}: target "
                      f"{'met' if mine <= lighter else 'NOT met'}")
    save("agent_turn", {"runs": runs, "warmup": warmup, "rounds": args.rounds,
                        "results": {n: {k: v for k, v in r.items() if k != "samples"} for n, r in results.items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
