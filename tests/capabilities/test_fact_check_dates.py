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


VIM = "vim (2:8.0.0022-1) unstable; urgency=medium\n\n  * New upstream release.\n\n -- James McCoy  Sun, 1 May 2016"


@pytest.mark.parametrize(("article", "found"), [
    ("Users upgrading to vim 2:8.0.0022-1 may notice the change.", True),
    ("Users upgrading to vim 2:8.0.0023-1 may notice the change.", False),
    ("The upload came on 1 May.", True),
    ("The upload came on 2 May.", False),
    ("The upload came on May 2.", False),
])
def test_may_in_lower_case_is_the_word_not_the_month(article: str, found: bool) -> None:
    """Round 13: "2:8.0.0022-1 may notice" holds no 1 May: a month that is also a word (may, march), in lower case and
    without a year, is the word; a date written as one ("2 May", "May 2") is still checked."""
    assert check_facts(article, [(1, VIM)]).passed is found
