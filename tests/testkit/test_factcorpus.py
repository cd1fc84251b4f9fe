"""The corpus measure: a flag the adjudicator found beyond the sources is no false alarm; any other flag is one."""

from __future__ import annotations

import json
from pathlib import Path

from testkit.factcorpus import evaluate, table

SOURCE = "Release 2.1 of frob came out on March 3, 2021, with 4 fixes."
ARTICLE = "Frob 2.1 shipped on 3 March 2021 with four fixes, packaged by Debian and tested by Jane Keller."


def _set(tmp_path: Path, verdicts: list[tuple[str, bool]] | None) -> Path:
    tmp_path.mkdir(exist_ok=True)
    corpus = tmp_path / "set.jsonl"
    entry = {"id": "en-frob", "lang": "en", "provenance": "test", "sources": [SOURCE], "honest": [ARTICLE],
             "fabrications": [{"kind": "wrong_year", "from": "2021", "to": "2020"}]}
    corpus.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    if verdicts is not None:
        (tmp_path / "adjudicated").mkdir()
        (tmp_path / "adjudicated" / "set.jsonl").write_text("".join(
            json.dumps({"id": "en-frob", "article": 0, "fact": fact, "in_sources": found, "passage": "", "why": ""})
            + "\n" for fact, found in verdicts), encoding="utf-8")
    return corpus


def test_without_a_sidecar_every_flag_is_a_false_alarm_and_no_adjudicated_line_is_printed(tmp_path: Path) -> None:
    score = evaluate(_set(tmp_path, None))
    assert len(score.alarms) == 1 and sum(score.sourced_alarms.values()) == 1
    assert "adjudicated" not in table(score)


def test_flags_the_adjudicator_put_beyond_the_sources_are_not_false_alarms(tmp_path: Path) -> None:
    score = evaluate(_set(tmp_path, [("Debian", False), ("Jane Keller", False)]))
    assert len(score.alarms) == 1  # the raw count is kept
    assert sum(score.sourced_alarms.values()) == 0
    assert "| false alarms on facts the sources state (adjudicated) | 0/1 | 0/0 | 0/1 |" in table(score)
    assert "beyond the sources (adjudicated, rightly flagged): en-frob: 'Debian'" in table(score)


def test_a_flag_found_in_the_sources_or_not_adjudicated_stays_a_false_alarm(tmp_path: Path) -> None:
    found = evaluate(_set(tmp_path / "a", [("Debian", False), ("Jane Keller", True)]))
    assert sum(found.sourced_alarms.values()) == 1
    unjudged = evaluate(_set(tmp_path / "b", [("Debian", False)]))  # 'Jane Keller' has no verdict
    assert sum(unjudged.sourced_alarms.values()) == 1
