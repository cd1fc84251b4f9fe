"""Running the probe suite against an endpoint: one request per probe and prompt variant, stored as answered.

    load_suite -> select (first N of each kind) -> jobs (decoys twice: matched, overclaimed)
      -> skip what the run already holds -> ask concurrently -> score the raw reply -> record

Every probe is sent with a system prompt. ``matched`` claims nothing beyond the tools sent;
``overclaimed`` (decoy and miss_func probes only) adds one sentence claiming the missing capability,
``expect["missing_capability"]``. A reply is scored exactly as the model produced it: the text and
the tool calls with their raw argument text (in constrained mode, the JSON object turned into the
same shape, a ``finish`` object being a text reply). Nothing is matched fuzzily or repaired.

Errors: a request the endpoint refuses (LLMRequestFailed, e.g. HTTP 400 on a schema) is stored as an
answer with ``error`` and left out of the rates; LLMUnavailable and LLMAuthFailed stop the run, which
is marked ``interrupted`` and resumes on the next invocation with the same key.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from capabilities import CATALOG
from pipeline.catalog import CATALOG_VERSION, version_of
from pipeline.model import ChatModel, LLMRequestFailed
from pipeline.probe.catalog_probes import factline_probes
from pipeline.probe.model import KINDS, SOURCES, Probe
from pipeline.probe.scoring import score
from pipeline.probe.storage import RunKey, StoredAnswer, answered, finish_run, open_run, record
from pipeline.turns import Turn

__all__ = [
    "BFCL_FILE", "MATCHED_PROMPT", "OVERCLAIM_SENTENCE", "PROMPT_VERSION", "SOURCES", "Job", "RunOutcome", "Suite",
    "ask", "jobs", "load_suite", "messages_for", "run_suite", "select",
]

BFCL_FILE = Path(__file__).resolve().parent / "data" / "bfcl_v4.jsonl"
MATCHED_PROMPT = (
    "You are an assistant that acts only through the tools provided with this request. "
    "Call a tool when one of them does what the user asks."
)
OVERCLAIM_SENTENCE = " You also have a tool that does this: {capability}"
PROMPT_VERSION = version_of({"matched": MATCHED_PROMPT, "overclaimed": OVERCLAIM_SENTENCE})


@dataclass(frozen=True)
class Suite:
    """The probes of one source and the versions that identify them.

    ``catalog_version`` is factline's CATALOG_VERSION whenever factline's probes are included (the
    catalog whose changes the gate watches); for BFCL alone it is the hash of every tool schema in
    the BFCL probes. ``suite_version`` hashes the factline probes as built and the SHA-256 of the
BFCL probe file: it changes when a task, a lookalike or the committed file changes, never with --limit.
    """

    source: str
    probes: list[Probe]
    catalog_version: str
    suite_version: str


@dataclass(frozen=True)
class Job:
    probe: Probe
    variant: str  # matched | overclaimed


@dataclass(frozen=True)
class RunOutcome:
    run_id: int
    status: str  # finished | capped
    recorded: int  # answers this invocation added to the run


@cache
def _bfcl() -> tuple[tuple[Probe, ...], str, str]:
    """The committed BFCL probes, the hash of their file, and the hash of their tool schemas (read once)."""
    raw = BFCL_FILE.read_bytes()
    probes = tuple(Probe.from_dict(json.loads(line)) for line in raw.decode("utf-8").splitlines() if line.strip())
    return probes, hashlib.sha256(raw).hexdigest()[:12], version_of([p.tools for p in probes])


def load_suite(source: str) -> Suite:
    """factline's catalog probes, the committed BFCL probes, or both (factline first)."""
    if source not in SOURCES:
        raise ValueError(f"probe source must be one of {SOURCES}, not {source!r}")
    factline = factline_probes(CATALOG) if source != "bfcl" else []
    bfcl, bfcl_file, bfcl_tools = _bfcl() if source != "factline" else ((), "", "")
    suite = version_of({"factline": [p.to_dict() for p in factline], "bfcl": bfcl_file})
    return Suite(source, [*factline, *bfcl], CATALOG_VERSION if factline else bfcl_tools, suite)


def select(probes: list[Probe], limit: int | None) -> list[Probe]:
    """The first ``limit`` probes of each kind, in suite order (all of them when limit is None)."""
    if limit is None:
        return list(probes)
    taken = dict.fromkeys(KINDS, 0)
    chosen = []
    for probe in probes:
        if taken[probe.kind] < limit:
            taken[probe.kind] += 1
            chosen.append(probe)
    return chosen


def jobs(probes: list[Probe]) -> list[Job]:
    """Every probe under the matched prompt; probes with a missing capability also under the overclaimed one."""
    out = [Job(p, "matched") for p in probes]
    out += [Job(p, "overclaimed") for p in probes if "missing_capability" in p.expect]
    return out


def messages_for(job: Job) -> list[dict[str, Any]]:
    """The probe's messages behind the variant's system prompt (merged with a system message the probe has)."""
    system = MATCHED_PROMPT
    if job.variant == "overclaimed":
        system += OVERCLAIM_SENTENCE.format(capability=job.probe.expect["missing_capability"])
    messages = list(job.probe.messages)
    if messages and messages[0].get("role") == "system":
        system = f"{system}\n\n{messages.pop(0)['content']}"
    return [{"role": "system", "content": system}, *messages]


def _reply(turn: Turn) -> dict[str, Any]:
    return {
        "message": turn.message,
        "content": turn.text,
        "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in turn.calls],
    }


def ask(chat: ChatModel, job: Job) -> StoredAnswer:
    """Send one job and score the raw reply; an endpoint refusal becomes an answer with ``error``."""
    started = time.monotonic()
    try:
        turn = chat.next_turn(messages_for(job), job.probe.tools)
    except LLMRequestFailed as exc:
        latency = int((time.monotonic() - started) * 1000)
        return StoredAnswer(job.probe.id, job.variant, None, exc.detail, None, 0, latency)
    latency = int((time.monotonic() - started) * 1000)
    reply = _reply(turn)
    return StoredAnswer(job.probe.id, job.variant, score(job.probe, reply), None, reply, turn.tokens, latency)


def _complete(futures: dict[Future[StoredAnswer], Job]) -> Iterator[tuple[Job, StoredAnswer]]:
    """Wait for the next finished futures; an endpoint failure propagates after the others are waited for."""
    done, _ = wait(futures, return_when=FIRST_COMPLETED)
    failure: BaseException | None = None
    for future in done:
        job = futures.pop(future)
        if future.exception() is not None:
            failure = failure or future.exception()
            continue
        yield job, future.result()
    if failure is not None:
        for future in list(futures):
            job = futures.pop(future)
            if future.exception() is None:
                yield job, future.result()
        raise failure


def run_suite(
    sessions: sessionmaker[Session],
    chat: ChatModel,
    key: RunKey,
    todo: list[Job],
    *,
    fresh: bool,
    concurrency: int,
    max_tokens: int,
    progress: Callable[[int, int], None],
) -> RunOutcome:
    """Ask every job the run (found by key) has not answered yet, recording each answer as it arrives.

    Stops sending once this invocation's tokens reach ``max_tokens`` (status ``capped``; the next
    invocation continues where it stopped). On an endpoint
    failure or Ctrl-C the run is marked ``interrupted`` and the exception propagates.
    """
    with sessions.begin() as s:
        run = open_run(s, key, fresh=fresh)
        done = answered(s, run.id)
    remaining = [j for j in todo if (j.probe.id, j.variant) not in done]
    pending, total, tokens, recorded = iter(remaining), len(remaining), 0, 0
    futures: dict[Future[StoredAnswer], Job] = {}
    status = "finished"
    progress(0, total)
    try:
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="probe") as pool:
            while True:
                while len(futures) < concurrency and status == "finished":
                    if tokens >= max_tokens:
                        status = "capped"
                    elif (job := next(pending, None)) is not None:
                        futures[pool.submit(ask, chat, job)] = job
                    else:
                        break
                if not futures:
                    break
                for job, answer in _complete(futures):
                    with sessions.begin() as s:
                        record(s, run.id, answer, job.probe.kind)
                    tokens, recorded = tokens + answer.tokens, recorded + 1
                    progress(recorded, total)
    except BaseException:
        with sessions.begin() as s:
            finish_run(s, run.id, "interrupted")
        raise
    with sessions.begin() as s:
        finish_run(s, run.id, status)
    return RunOutcome(run.id, status, recorded)
