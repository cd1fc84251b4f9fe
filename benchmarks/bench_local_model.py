"""Benchmark 6: whole runs against the embedded local model: seconds per run, tokens/s, share outside the model.

Runs only when OPENAI_BASE_URL is unset (otherwise it says so and exits 0): the runtime then starts
llama-server itself from the model cache (~/.cache/factline). Every chat-completions request of a run
is timed at the openai client, and its tokens are counted; the rest of the run's wall time is
factline's (loop, gateway, ledger, guard, capabilities). 3 runs by default; --short only starts the
model and times one short completion.

    python -m benchmarks.bench_local_model [--short] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Stats, progress, save, table


class ModelClock:
    """Wraps ``client.chat.completions.create``: requests, seconds spent in them and their tokens.

    ``decode_ms``/``decoded`` come from llama-server's own ``timings`` in each response (generation only,
    without prompt processing), when the server sends them.
    """

    def __init__(self, client: Any) -> None:
        self.requests, self.seconds, self.tokens, self.prompt_tokens = 0, 0.0, 0, 0
        self.decode_ms, self.decoded = 0.0, 0
        completions = client.chat.completions
        plain = completions.create

        def create(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                response = plain(*args, **kwargs)
            finally:
                self.requests += 1
                self.seconds += time.perf_counter() - started
            if response.usage:
                self.tokens += response.usage.completion_tokens
                self.prompt_tokens += response.usage.prompt_tokens
            timings = (response.model_extra or {}).get("timings") or {}
            self.decode_ms += timings.get("predicted_ms", 0.0)
            self.decoded += timings.get("predicted_n", 0)
            return response

        completions.create = create

    def snapshot(self) -> dict[str, float]:
        return {"requests": self.requests, "model": self.seconds, "tokens": self.tokens,
                "prompt_tokens": self.prompt_tokens, "decode_ms": self.decode_ms, "decoded": self.decoded}


def skip_reason() -> str | None:
    if os.environ.get("OPENAI_BASE_URL"):
        return "OPENAI_BASE_URL is set: this benchmark measures the embedded local model only"
    return None


def smoke(rt: Any, clock: ModelClock) -> int:
    """One short completion through the runtime's client: the model starts and answers (a whole run takes minutes)."""
    rt.openai_client.chat.completions.create(model=rt.endpoint.model, max_tokens=16,
                                             messages=[{"role": "user", "content": "Say OK."}])
    tokens_per_s = f"{clock.tokens / clock.seconds:.1f}" if clock.seconds else "-"
    print(f"smoke: {rt.endpoint.model} answered {clock.tokens} tokens in {clock.seconds:.1f} s ({tokens_per_s} tokens/s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true",
                        help="start the local model and time one short completion instead of whole runs (CI)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    if reason := skip_reason():
        print(f"skipped: {reason}")
        return 0
    from benchmarks.common import production_logs_to_devnull
    from config import load_settings
    from pipeline.runner import run_once
    from pipeline.runtime import open_runtime

    runs = args.runs
    rows, samples = [], []
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(database_url=f"sqlite:///{folder}/ledger.db", local_site_dir=Path(folder) / "site",
                                 local_site_port=0)
        production_logs_to_devnull()
        progress("starting the local model")
        with open_runtime(settings) as rt:
            clock = ModelClock(rt.openai_client)
            if args.short:
                return smoke(rt, clock)
            for i in range(runs):
                progress(f"run {i + 1} of {runs}")
                before = clock.snapshot()
                started = time.perf_counter()
                result = run_once(rt, topic=f"Benchmark topic {i}")
                wall = time.perf_counter() - started
                after = clock.snapshot()
                sample = {key: after[key] - before[key] for key in after}
                sample.update(wall=wall, verdict=result.verdict)
                samples.append(sample)
                model, tokens = sample["model"], sample["tokens"]
                decode = f"{1e3 * sample['decoded'] / sample['decode_ms']:.1f}" if sample["decode_ms"] else "-"
                rows.append([i + 1, result.verdict, f"{wall:.1f}", sample["requests"], f"{model:.1f}",
                             f"{sample['prompt_tokens']:,}", tokens, f"{tokens / model:.1f}" if model else "-",
                             decode, f"{(wall - model) / wall:.1%}"])
            name = rt.endpoint.model
    print(f"model: {name}\n")
    print(table(["run", "verdict", "wall s", "requests", "model s", "prompt tokens", "completion tokens",
                 "completion tokens/s of model time", "decode tokens/s (server)", "share outside the model"], rows))
    wall = Stats.of([s["wall"] for s in samples])
    outside = Stats.of([(s["wall"] - s["model"]) / s["wall"] for s in samples]).scaled(100)
    print(f"\nseconds per run: {wall.fmt(1)}; share of wall time outside the model: {outside.fmt(1)} %")
    save("local_model", {"model": name, "runs": samples, "wall_s": wall, "outside_pct": outside})
    return 0


if __name__ == "__main__":
    sys.exit(main())
