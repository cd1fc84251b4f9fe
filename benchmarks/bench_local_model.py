"""Benchmark 6: whole runs against the embedded local model: seconds per run, tokens/s, share outside the model.

Runs only when OPENAI_BASE_URL is unset and ``pipeline.localmodel`` exists; otherwise it says why
and exits 0. Every chat-completions request of a run is timed at the openai client, and its
completion tokens are counted; the rest of the run's wall time is factline's (loop, gateway,
ledger, guard, capabilities).

    python -m benchmarks.bench_local_model [--short]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Stats, progress, save, table


class ModelClock:
    """Wraps ``client.chat.completions.create``: seconds spent in it and completion tokens it returned."""

    def __init__(self, client: Any) -> None:
        self.seconds, self.tokens = 0.0, 0
        completions = client.chat.completions
        plain = completions.create

        def create(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                response = plain(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
            self.tokens += response.usage.completion_tokens if response.usage else 0
            return response

        completions.create = create


def skip_reason() -> str | None:
    if os.environ.get("OPENAI_BASE_URL"):
        return "OPENAI_BASE_URL is set: this benchmark measures the embedded local model only"
    if importlib.util.find_spec("pipeline.localmodel") is None:
        return "pipeline.localmodel is not in this tree yet: nothing to measure"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="one run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    if reason := skip_reason():
        print(f"skipped: {reason}")
        return 0
    from benchmarks.common import production_logs_to_devnull
    from config import load_settings
    from pipeline.runner import run_once
    from pipeline.runtime import open_runtime

    runs = 1 if args.short else args.runs
    rows, samples = [], []
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(database_url=f"sqlite:///{folder}/ledger.db", local_site_dir=Path(folder) / "site",
                                 local_site_port=0)
        production_logs_to_devnull()
        progress("starting the local model")
        with open_runtime(settings) as rt:
            clock = ModelClock(rt.openai_client)
            for i in range(runs):
                progress(f"run {i + 1} of {runs}")
                seconds_before, tokens_before = clock.seconds, clock.tokens
                started = time.perf_counter()
                result = run_once(rt, topic=f"Benchmark topic {i}")
                wall = time.perf_counter() - started
                model, tokens = clock.seconds - seconds_before, clock.tokens - tokens_before
                samples.append({"wall": wall, "model": model, "tokens": tokens, "verdict": result.verdict})
                rows.append([i + 1, result.verdict, f"{wall:.1f}", f"{model:.1f}", tokens,
                             f"{tokens / model:.1f}" if model else "-", f"{(wall - model) / wall:.1%}"])
            name = rt.endpoint.model
    print(f"model: {name}\n")
    print(table(["run", "verdict", "wall s", "model s", "completion tokens", "tokens/s", "share outside the model"],
                rows))
    wall = Stats.of([s["wall"] for s in samples])
    print(f"\nseconds per run: {wall.fmt(1)}")
    save("local_model", {"model": name, "runs": samples, "wall_s": wall})
    return 0


if __name__ == "__main__":
    sys.exit(main())
