"""The embedded model on the default grounded topics: N runs of `factline run`, each on a fresh ledger.

    python scripts/grounded_trial.py [--runs 10] [--out var/grounded-trial] [--language zh]

Each run is a `factline run --topic TITLE` process (cycling through config/topics.jsonl) with no
OPENAI_BASE_URL, so the embedded model writes, rewrites and answers the fact check's corrective messages;
each has its own SQLite ledger and local site under --out. Prints one line per run (verdict, reason, the
fact checks' statuses, the facts the last check did not find) and a summary; docs/fact-check.md quotes it.
``--language zh`` has the same English sources written up in Chinese (FACTLINE_LANGUAGE=zh).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from config.settings import DEFAULT_TOPICS  # noqa: E402
from config.topics import read_jsonl_topics  # noqa: E402


def one_run(work: Path, title: str, language: str) -> dict[str, object]:
    work.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FACTLINE_", "DATABASE_"))}
    env.update(DATABASE_URL=f"sqlite:///{work}/ledger.db", LOCAL_SITE_DIR=str(work / "site"), LOCAL_SITE_PORT="0",
               PREVIEW_DIR=str(work / "preview"), LOG_FORMAT="json", FACTLINE_LANGUAGE=language)
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", "--topic", title], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - started
    (work / "stderr.log").write_text(run.stderr)
    shown = subprocess.run([sys.executable, "-m", "pipeline.cli", "runs", "--run", "1", "--json"], env=env, cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    detail = json.loads(shown.stdout) if shown.returncode == 0 else {}
    checks = detail.get("fact_checks", [])
    missing = [f["fact"] for f in checks[-1]["facts"] if not f["supported"]] if checks else []
    caught = sorted({f["fact"] for c in checks for f in c["facts"] if not f["supported"]})
    return {"title": title, "exit": run.returncode, "verdict": detail.get("verdict"), "reason": detail.get("stop_reason"),
            "error": detail.get("error"), "checks": [c["status"] for c in checks], "missing": missing,
            "caught": caught, "facts": len(checks[-1]["facts"]) if checks else 0,
            "calls": [c["name"] for c in detail.get("tool_calls", [])], "seconds": round(seconds, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "grounded-trial")
    parser.add_argument("--language", choices=("en", "zh"), default="en", help="the articles' language")
    args = parser.parse_args()
    titles = [spec.title for spec in read_jsonl_topics(DEFAULT_TOPICS)]
    results = []
    for i in range(args.runs):
        result = one_run(args.out / f"run-{i + 1:02d}", titles[i % len(titles)], args.language)
        results.append(result)
        print(json.dumps(result, ensure_ascii=False), flush=True)
    success = sum(r["verdict"] == "success" for r in results)
    stopped = sum(r["reason"] == "fact_check" for r in results)
    revised = sum(len(r["checks"]) > 1 for r in results)  # type: ignore[arg-type]
    print(f"success {success}/{len(results)}; stopped by the fact check {stopped}; revised at least once {revised}; "
          f"median {sorted(r['seconds'] for r in results)[len(results) // 2]} s a run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
