"""Round 12: dates a source writes in a form of its own are read as dates (capabilities/factcheck/dates.py), and a
wrong date is still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts

BOOK = """Complete documentation is excerpted with permission from the book "Linux Application Development"
(available from Addison Wesley in May, 1998)."""


@pytest.mark.parametrize(("article", "found"), [
    ("The book came out from Addison Wesley in May 1998.", True),
    ("该书由Addison Wesley于1998年5月推出。", True),
    ("The book came out from Addison Wesley in May, 1998.", True),
    ("The book came out from Addison Wesley in June 1998.", False),
    ("该书由Addison Wesley于1999年5月推出。", False),
])
def test_a_month_and_year_with_a_comma_between_is_a_date(article: str, found: bool) -> None:
    """"May, 1998" is May 1998: 1998年5月 is found in it; another month or year is caught."""
    assert check_facts(article, [(1, BOOK)]).passed is found
