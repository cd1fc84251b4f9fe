"""The guard on the kinds of text issue #24 found it misread, with examples written for each kind (unseen-kinds.jsonl).

Publishing synonyms, registry phrasing, scores as X/100, completion in subordinate clauses, idioms holding a
negation word (misses); zero quantities, key=value status, whether-clauses, far futures, far negations,
reference URLs, general talk (false alarms). Half the texts (by a hash) are held out: the rules were written
on the train half only. The floors sit under the figures in docs/guard.md.
"""

from __future__ import annotations


import pytest

from pipeline.guard.evaluate import evaluate, format_misses, load
from tests.paths import CLAIMS

RECORDS = [r for r in load(CLAIMS) if r.category.startswith("unseen/")]
RESULT = evaluate(RECORDS)
# the kinds behind the held-out misses and false alarms that remained (residual-kinds.jsonl): all tuned on
RESIDUAL = [r for r in load(CLAIMS) if r.category.startswith("residual/")]
FLOORS = {"train": (0.97, 0.01), "heldout": (0.97, 0.01)}  # recall floor, false-alarm ceiling


def test_every_kind_has_examples_in_each_language_family() -> None:
    """Twelve kinds, at least nine texts each, in zh, en and mixed, all written for this set."""
    kinds = {r.category for r in RECORDS}
    assert len(kinds) == 12 and all(sum(r.category == k for r in RECORDS) >= 9 for k in kinds)
    assert {r.language for r in RECORDS} == {"zh", "en", "mixed"}
    assert {r.source for r in RECORDS} == {"written:audit-helper"}


@pytest.mark.parametrize("split", ["train", "heldout"])
def test_new_kinds_stay_above_the_floor(split: str) -> None:
    """Recall and false alarms on the new kinds, train and held out."""
    figures = RESULT.groups["split"][split]
    recall, ceiling = FLOORS[split]
    why = f"recall {figures.recall}, false alarms {figures.false_alarm_rate}\n" + format_misses(RESULT.misses, 40)
    assert figures.recall is not None and figures.recall >= recall, why
    assert figures.false_alarm_rate is not None and figures.false_alarm_rate <= ceiling, why


def test_residual_kinds_are_read_in_every_language() -> None:
    """The examples written for the last held-out misses (tables, run-on status lines, template slots ...)."""
    result = evaluate(RESIDUAL)
    assert len({r.category for r in RESIDUAL}) == 9 and {r.split for r in RESIDUAL} == {"train"}
    why = format_misses(result.misses, 40)
    assert result.overall.false_alarm_rate == 0.0, why
    for language, floor in (("zh", 0.8), ("en", 0.95), ("mixed", 0.95)):  # zh: two misses left (docs/guard.md)
        recall = result.groups["language"][language].recall
        assert recall is not None and recall >= floor, (language, why)
