"""The corrective message the writer model gets when facts are missing: each fact, and for a quotation, why."""

from __future__ import annotations

from capabilities.fact_check import correction
from capabilities.factcheck import check_facts
from capabilities.records import DraftVersionRecord

SOURCE = "GNU grep is \"the fastest grep in the west (we hope)\". Release 3.11 came out in May 2023."


def _version(body: str) -> DraftVersionRecord:
    return DraftVersionRecord(id=3, draft_id=1, run_id=1, topic_id=1, version=2, kind="humanized",
                              title="grep 3.11", body=body, score=None)


def test_a_translated_quotation_is_named_with_how_to_quote_a_source() -> None:
    body = "grep 3.11 于 2023 年 5 月发布，号称“西部最快的 grep”。\n"
    report = check_facts(body, [(1, SOURCE)])
    message = correction(_version(body), report, "[1] " + SOURCE)
    assert "'西部最快的 grep' in:" in message
    assert "A quotation must be a source's own words in the source's language" in message


def test_a_missing_number_alone_gets_no_word_on_quotations() -> None:
    body = "Release 3.12 came out in May 2023.\n"
    report = check_facts(body, [(1, SOURCE)])
    message = correction(_version(body), report, "[1] " + SOURCE)
    assert "'3.12' in:" in message
    assert "quotation" not in message
