"""Forms of the fourteenth held-out set (written blind from Debian copyright files, changelogs, manual pages, npm
READMEs and METADATA): each accepted where a source states the fact, and a fabrication of its class still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts

SOURCE = "Copyright: 2003-2006 Thom May\nLicense: BSD-3-clause\nIt handles headers, query args, files, and cookies.\n"


def _flagged(article: str) -> list[str]:
    return [f.fact.text for f in check_facts(article, [(1, SOURCE)]).unsupported]


@pytest.mark.parametrize(("article", "flagged"), [
    ("Holders:\n\n- Thom May, 2003–2006\n", []),
    ("Holders:\n\n- Thom May, 2004–2006\n", ["May, 2004"]),  # the year is still checked
    ("The tool was released in May 2003.", ["May 2003"]),  # a month without the source's name before it is a date
])
def test_a_surname_that_is_a_month_before_a_year_is_the_name(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged


@pytest.mark.parametrize(("article", "flagged"), [
    ("测试文件采用三条款 BSD 许可证。", []),
    ("测试文件采用两条款 BSD 许可证。", ["两条"]),
])
def test_a_licences_clause_count_is_read_from_its_name(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged


@pytest.mark.parametrize(("article", "flagged"), [
    ("它处理 Cookie、请求头和文件。", []),
    ("它处理 Session、请求头和文件。", ["Session"]),
])
def test_a_name_in_the_singular_is_found_in_the_plural(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged


def test_an_english_name_is_no_singular_of_a_longer_name() -> None:
    """Only a Chinese text's English word is read in the singular: in English, "Kerbero" is no form of Kerberos."""
    source = "Use an encrypted mechanism such as Kerberos."
    assert [f.fact.text for f in check_facts("It uses Kerbero.", [(1, source)]).unsupported] == ["Kerbero"]
