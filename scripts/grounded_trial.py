"""The embedded model on the default grounded topics: N runs of `factline run`, each on a fresh ledger.

    python scripts/grounded_trial.py [--runs 10] [--out var/grounded-trial] [--language zh]
                                     [--from-corpus tests/data/facts/SET.jsonl]

Each run is a `factline run --topic TITLE` process (cycling through config/topics.jsonl) with no
OPENAI_BASE_URL, so the embedded model writes, rewrites and answers the fact check's corrective messages;
each has its own SQLite ledger and local site under --out. Prints one line per run (verdict, reason, the
fact checks' statuses, the facts the last check did not find, and every flag of every check with its
sentence) and a summary; docs/fact-check.md quotes it.
``--language zh`` has the same English sources written up in Chinese (FACTLINE_LANGUAGE=zh).
``--from-corpus`` takes the topics from a fact-check corpus set instead: each entry of that language becomes a
topic whose sources are its excerpts (written as files under --out) and whose title is its honest article's first
line, so the model writes from sources nobody tuned the checker on (the flags are then adjudicated by hand).
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


def corpus_topics(corpus: Path, language: str, out: Path) -> Path:
    """A topics file under ``out`` from the corpus set's entries in ``language``: their excerpts as source files."""
    folder = out / "corpus-sources"
    folder.mkdir(parents=True, exist_ok=True)
    topics = []
    for line in corpus.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["lang"] != language:
            continue
        paths = []
        for n, text in enumerate(entry["sources"], 1):
            path = folder / f"{entry['id']}-{n}.txt"
            path.write_text(text, encoding="utf-8")
            paths.append(str(path))
        title = entry["honest"][0].strip().splitlines()[0].strip("# ").strip()
        topics.append(json.dumps({"title": title, "sources": paths}, ensure_ascii=False))
    path = out / "corpus-topics.jsonl"
    path.write_text("\n".join(topics) + "\n", encoding="utf-8")
    return path


def one_run(work: Path, title: str, language: str, topics: Path) -> dict[str, object]:
    work.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FACTLINE_", "DATABASE_"))}
    env.update(DATABASE_URL=f"sqlite:///{work}/ledger.db", LOCAL_SITE_DIR=str(work / "site"), LOCAL_SITE_PORT="0",
               PREVIEW_DIR=str(work / "preview"), LOG_FORMAT="json", FACTLINE_LANGUAGE=language,
               TOPICS_SOURCE=str(topics))
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
    flags = [{"check": c["round"], "kind": f["kind"], "fact": f["fact"], "sentence": f["sentence"]}
             for c in checks for f in c["facts"] if not f["supported"]]
    return {"title": title, "exit": run.returncode, "verdict": detail.get("verdict"), "reason": detail.get("stop_reason"),
            "error": detail.get("error"), "checks": [c["status"] for c in checks], "missing": missing,
            "caught": caught, "flags": flags, "facts": len(checks[-1]["facts"]) if checks else 0,
            "calls": [c["name"] for c in detail.get("tool_calls", [])], "seconds": round(seconds, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "grounded-trial")
    parser.add_argument("--language", choices=("en", "zh"), default="en", help="the articles' language")
    parser.add_argument("--from-corpus", type=Path, help="a fact-check corpus set whose entries become the topics")
    args = parser.parse_args()
    topics = corpus_topics(args.from_corpus, args.language, args.out) if args.from_corpus else DEFAULT_TOPICS
    titles = [spec.title for spec in read_jsonl_topics(topics)]
    results = []
    for i in range(args.runs):
        result = one_run(args.out / f"run-{i + 1:02d}", titles[i % len(titles)], args.language, topics)
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
