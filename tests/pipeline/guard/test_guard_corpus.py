"""The guard measured on the labelled claims corpus (tests/data/claims): floors per language, overall and held out.

The floors sit a little under the figures measured when they were set (docs/guard.md): a change to the
reader that loses recall or raises false alarms on any language fails here, with the misses listed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.commands import guard as guard_command
from pipeline.guard.evaluate import GROUPINGS, Figures, evaluate, format_misses, load
from tests.paths import CLAIMS, ROOT

CORPUS = CLAIMS
ALL_RECORDS = load(CORPUS)
# the kinds issue #24 lists (unseen-kinds.jsonl) have floors of their own: tests/pipeline/guard/test_guard_unseen_kinds.py
RECORDS = [r for r in ALL_RECORDS if not r.category.startswith(("unseen/", "residual/"))]
RESULT = evaluate(RECORDS)

RECALL_FLOOR = 0.97  # expected findings reported, per language, whole corpus
FALSE_ALARM_CEILING = 0.01  # honest texts flagged, per language, whole corpus
HELDOUT_RECALL_FLOOR = 0.96
HELDOUT_FALSE_ALARM_CEILING = 0.01


def _why(figures: Figures) -> str:
    return f"recall {figures.recall}, false alarms {figures.false_alarm_rate}\n" + format_misses(RESULT.misses, 40)


def test_corpus_is_large_mixed_and_half_honest() -> None:
    """At least 600 texts in zh, en and mixed, about half honest, at least a third from a real model."""
    assert len(RECORDS) >= 600
    assert {r.language for r in RECORDS} == {"zh", "en", "mixed"}
    honest = sum(not r.expected for r in RECORDS) / len(RECORDS)
    assert 0.4 <= honest <= 0.7
    assert sum(r.source.startswith("model:") for r in RECORDS) * 3 >= len(RECORDS)
    assert sum(r.split == "heldout" for r in RECORDS) >= len(RECORDS) // 5


@pytest.mark.parametrize("language", ["zh", "en", "mixed"])
def test_recall_and_false_alarms_per_language_stay_above_the_floor(language: str) -> None:
    """Per language: recall >= 97 % of expected findings, false alarms <= 1 % of honest texts."""
    figures = RESULT.groups["language"][language]
    assert figures.recall is not None and figures.recall >= RECALL_FLOOR, _why(figures)
    assert figures.false_alarm_rate is not None and figures.false_alarm_rate <= FALSE_ALARM_CEILING, _why(figures)


def test_held_out_split_stays_above_the_floor() -> None:
    """On the quarter not used for tuning: recall >= 96 %, false alarms <= 1 %."""
    figures = RESULT.groups["split"]["heldout"]
    assert figures.recall is not None and figures.recall >= HELDOUT_RECALL_FLOOR, _why(figures)
    assert figures.false_alarm_rate is not None and figures.false_alarm_rate <= HELDOUT_FALSE_ALARM_CEILING, _why(figures)


def test_a_reader_that_claims_nothing_fails_the_floor() -> None:
    """The floors can fail: with every finding dropped, recall is 0."""
    empty = Figures()
    for record in RECORDS:
        empty.add(record.expected, frozenset())
    assert empty.recall == 0.0 and empty.recall < RECALL_FLOOR


def test_guard_eval_offers_exactly_the_groupings_the_evaluation_makes() -> None:
    """`factline guard eval --by` lists the groupings evaluate() computes (the command writes them out)."""
    assert guard_command.GROUPINGS == GROUPINGS


@pytest.mark.slow  # two processes each evaluating the whole labelled corpus (evaluate() runs in-process above)
def test_guard_eval_command_prints_figures_and_json(tmp_path: Path) -> None:
    """factline guard eval: a table per language, --json with the same overall figures; a missing corpus exits 2."""
    root = ROOT
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FACTLINE_", "DATABASE_"))}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path}/ledger.db"

    def factline(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pipeline.cli", "guard", "eval", *args], env=env, cwd=root,
                              capture_output=True, text=True, timeout=300)

    table = factline("--by", "language", "--misses", "-1")
    assert table.returncode == 0, table.stderr
    assert "language=zh" in table.stdout and "language=mixed" in table.stdout
    data = json.loads(factline("--json").stdout)
    assert data["overall"]["texts"] == len(ALL_RECORDS)
    assert data["overall"]["recall"] == evaluate(ALL_RECORDS).overall.recall
    missing = factline("--corpus", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no corpus records" in missing.stderr
