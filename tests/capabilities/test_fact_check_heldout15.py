"""Forms of the fifteenth held-out set (written blind from READMEs, an HTML reference, manual pages, Perl POD, npm READMEs
and METADATA): each accepted where a source states the fact, and a fabrication of its class still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts

SOURCE = """The grammar does not allow brackets in the query component, but Section 3.4 does say how delimiters are read.
wayland (1.19.0-1) unstable; urgency=high
Some <a href="https://en.wikipedia.org/wiki/DITA">DITA</a> 1.3 payloads are known to break.
### Unixes
                                 2001 April 2                      VIMTUTOR(1)
"""


def _flagged(article: str) -> list[str]:
    return [f.fact.text for f in check_facts(article, [(1, SOURCE)]).unsupported]


@pytest.mark.parametrize(("article", "flagged"), [
    ("其第 3.4 节说明了分隔符的处理方式。", []),
    ("其第 3.5 节说明了分隔符的处理方式。", ["3.5"]),
])
def test_a_sources_section_number_with_its_subsection_is_read_whole(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged


@pytest.mark.parametrize(("article", "flagged"), [
    ("wayland 打包日志：1.19", []),
    ("wayland 打包日志：1.20", ["1.20"]),
    ("wayland 1.19.1 was uploaded.", ["1.19.1"]),
])
def test_a_release_written_without_its_patch_zero_is_found(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged


@pytest.mark.parametrize(("article", "flagged"), [
    ("The manual page is dated 2 April 2001.", []),
    ("The manual page is dated 3 April 2001.", ["3 April 2001"]),
])
def test_a_date_written_year_month_day_is_a_date(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged


@pytest.mark.parametrize(("article", "flagged"), [
    ('It warns that "DITA 1.3 payloads are known to break".', []),
    ('It warns that "DITA 1.4 payloads are known to break".', ['DITA 1.4 payloads are known to break']),
])
def test_a_quotation_of_an_html_source_is_read_without_its_tags(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged


@pytest.mark.parametrize(("article", "flagged"), [
    ("示例支持类 Unix 系统。", []),
    ("示例支持类 Linux 系统。", ["Linux"]),
])
def test_an_english_word_in_a_chinese_sentence_is_found_in_its_es_plural(article: str, flagged: list[str]) -> None:
    assert _flagged(article) == flagged
