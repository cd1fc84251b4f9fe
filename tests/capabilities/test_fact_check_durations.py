"""Round 11: a span of days or weeks between two of the article's dates (capabilities/factcheck/durations.py) is found
when the dates, found in the sources, are that far apart; a span they contradict is still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts

SOURCE = """build-essential (12.8) unstable; urgency=high

  * Stop building crossbuild-essential-mips{,64}el.

 -- Matthias Klose <doko@debian.org>  Sat, 14 Sep 2019 10:00:00 +0200

build-essential (12.7) unstable; urgency=medium

  * Bump gcc to 9.2.

 -- Matthias Klose <doko@debian.org>  Mon, 26 Aug 2019 10:00:00 +0200
"""


def supported(article: str) -> bool:
    return check_facts(article, [(1, SOURCE)]).passed


@pytest.mark.parametrize(("article", "found"), [
    ("Version 12.7 is dated August 26, 2019. Less than three weeks later, on September 14, 2019, 12.8 followed.", True),
    ("Version 12.7 is dated August 26, 2019. Less than four weeks later, on September 14, 2019, 12.8 followed.", False),
    ("Version 12.7 is dated August 26, 2019. Nineteen days later, on September 14, 2019, 12.8 followed.", True),
    ("Version 12.7 is dated August 26, 2019. Twenty days later, on September 14, 2019, 12.8 followed.", False),
    ("2019 年 8 月 26 日发布了 12.7 版。不到三周后，即 2019 年 9 月 14 日，12.8 版发布。", True),
    ("2019 年 8 月 26 日发布了 12.7 版。十九天后的 9 月 14 日，12.8 版发布。", True),
    ("2019 年 8 月 26 日发布了 12.7 版。十七天后的 9 月 14 日，12.8 版发布。", False),
])
def test_a_span_between_two_dates_is_found_when_the_dates_are_that_far_apart(article: str, found: bool) -> None:
    assert supported(article) is found


def test_a_span_between_dates_the_sources_do_not_hold_is_not_found() -> None:
    """The dates back the span only when they are the sources': invented dates 19 days apart back nothing."""
    assert not supported("It began on August 1, 2019. Nineteen days later, on August 20, 2019, it ended.")


@pytest.mark.parametrize(("article", "found"), [
    ("Version 12.7 is dated August 26, 2019. Less than a month later, on September 14, 2019, 12.8 followed.", True),
    ("Version 12.7 is dated August 26, 2019. A day later, on September 14, 2019, 12.8 followed.", False),
    ("Version 12.7 is dated August 26, 2019. A year later, on September 14, 2019, 12.8 followed.", False),
    ("2019 年 8 月 26 日发布了 12.7 版。不到一个月后的 9 月 14 日，12.8 版发布。", True),
    ("2019 年 8 月 26 日发布了 12.7 版。一天后的 9 月 14 日，12.8 版发布。", False),
    ("2019 年 8 月 26 日发布了 12.7 版。一年后的 9 月 14 日，12.8 版发布。", False),
])
def test_a_span_of_a_unit_in_words_is_checked_against_the_dates_around_it(article: str, found: bool) -> None:
    """"a day later", 一天后 is no number fact (a lone "a" or 一 is not checked), but before a date it is checked
    against the article's dates: a wrong unit ("a year later" for 19 days) is caught."""
    assert supported(article) is found


def test_a_version_read_as_a_date_backs_no_span() -> None:
    """9.1.0764 is no date of the year 764: a span after it is measured from the last real date."""
    article = ("Patch 9.1.0764 fixed it on January 23, 2025. Less than a month later, on February 16, 2025, it "
               "followed up.")
    source = "Fixed on Thu, 23 Jan 2025 10:00:00 +0100. Follow-up on Sun, 16 Feb 2025 10:00:00 +0100. 9.1.0764"
    assert check_facts(article, [(1, source)]).passed
