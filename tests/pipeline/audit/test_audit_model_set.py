"""`factline audit` on the embedded model's own airline replies (tests/data/audit/model-airline*.jsonl): text nobody tuned on."""

from __future__ import annotations

import json

from scripts.audit_devset import MODEL_LABELS, MODEL_SET, evaluate_model_set


def test_every_recorded_reply_is_labelled_and_traceable() -> None:
    """One label per transcript, in order, and each transcript keeps its model, date, temperature, seed and messages."""
    records = [json.loads(line) for line in MODEL_SET.read_text(encoding="utf-8").splitlines()]
    labels = [json.loads(line) for line in MODEL_LABELS.read_text(encoding="utf-8").splitlines()]
    assert [r["scenario"] for r in records] == [label["scenario"] for label in labels]
    assert {r["model"] for r in records} == {"qwen2.5-coder-0.5b-instruct"}
    assert all(r["date"] and r["seed"] and r["tools"] and r["messages"][-1]["role"] == "assistant" for r in records)
    assert {label["language"] for label in labels} == {"en", "zh", "mixed"}


def test_the_model_set_figures_stay_where_docs_guard_md_reports_them() -> None:
    """Of the 24 labelled calls written as text (the only findings the 13 replies hold), 23 are found; none more."""
    result = evaluate_model_set()
    assert result["all"]["recall"]["share"] >= 0.95, result["all"]
    assert result["all"]["honest"] == 0  # every reply wrote a call as text: there is no honest reply to flag
    assert len(result["misses"]["lines"]) <= 1, result["misses"]
