"""The humanize score claim rule: the written forms of a score it recognises."""

from __future__ import annotations

import pytest

from pipeline.guard.claims import find_claims


@pytest.mark.parametrize("text", ["score of 8", "Score: 8", "score=8", "the score is 8", "score 8", "score  :  8"])
def test_score_forms_are_humanize_claims(text: str) -> None:
    """Each usual way of stating a score counts as a humanize claim."""
    assert [c.capability for c in find_claims(text)] == ["humanize"]


def test_score_followed_by_blank_space_and_no_digit_is_no_claim() -> None:
    """A long run of spaces after "score" without a digit is no claim."""
    assert find_claims("score" + " " * 5000 + "pending") == []
