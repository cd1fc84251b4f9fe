"""Forms of the thirteenth held-out set (written blind from README.Debian files, X specifications, copyright files,
npm READMEs, manual pages and METADATA): each accepted where a source states the fact, and a fabrication of its class
still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts


def _flagged(article: str, source: str) -> list[str]:
    return [f.fact.text for f in check_facts(article, [(1, source)]).unsupported]


RETRY = "    >>> fake_sleep(0)\n    sleep(0) called\n    sleep(2) called\n    sleep(8) called\nIt fails six times.\n"


@pytest.mark.parametrize(("article", "flagged"), [
    ("sleep() is called with 0, 2 and 8.", []),
    ("sleep() is called with 0, 2 and 9.", ["9"]),
    ("When the application fails eight times, it stops.", ["eight times"]),  # an argument counts no times
])
def test_a_number_a_source_passes_to_a_call_is_a_bare_number(article: str, flagged: list[str]) -> None:
    assert _flagged(article, RETRY) == flagged


DES = "Timings:\n  30us per encryption\n  275us to set a new key (uses 1k of key tables)\n"


@pytest.mark.parametrize(("article", "flagged"), [
    ("Encryption takes 30 microseconds, and a new key 275 µs.", []),
    ("Encryption takes 30 milliseconds.", ["30 milliseconds"]),
    ("A new key takes 257 microseconds.", ["257 microseconds"]),
])
def test_microseconds_glued_as_us_are_a_unit(article: str, flagged: list[str]) -> None:
    assert _flagged(article, DES) == flagged


JDK = "Reason: '/usr/share/doc/openjdk-17-jre-headless//test-amd64/jtreport-hotspot.tar.gz' does not exist."


@pytest.mark.parametrize(("article", "flagged"), [
    ("The OpenJDK 17 test summary lists no report.", []),
    ("The OpenJDK 18 test summary lists no report.", ["18"]),
])
def test_a_release_glued_to_its_product_with_a_hyphen_is_found(article: str, flagged: list[str]) -> None:
    assert _flagged(article, JDK) == flagged


XKB = "Thanks to them the library specification is a work of art and a thousand times easier to use."


@pytest.mark.parametrize(("article", "flagged"), [
    ("规范比原本好用一千倍。", []),
    ("规范比原本好用一万倍。", ["一万"]),
])
def test_a_thousand_in_words_is_a_number_of_the_source(article: str, flagged: list[str]) -> None:
    assert _flagged(article, XKB) == flagged


JSONPATH = "It supports arithmetic and binary comparison operators. A ticket costs 30 yuan."


@pytest.mark.parametrize(("article", "flagged"), [
    ("它支持算术运算符和二元比较运算符。", []),
    ("票价三十元。", []),
    ("票价四十元。", ["四十元"]),
])
def test_the_yuan_of_a_word_is_no_money(article: str, flagged: list[str]) -> None:
    assert _flagged(article, JSONPATH) == flagged


AMQP = "py-amqp is maintained by the Celery project. It is a Python AMQP 0.9.1 client. Add an Ubuntu Cloud Archive."


@pytest.mark.parametrize(("article", "flagged"), [
    ("py-amqp is a Celery-maintained AMQP client.", []),
    ("py-amqp is a Google-maintained AMQP client.", ["Google-maintained AMQP"]),
    ("py-amqp is a Celery-maintained AMQQ client.", ["Celery-maintained AMQQ"]),
])
def test_a_name_a_compound_adjective_runs_through_is_found_part_by_part(article: str, flagged: list[str]) -> None:
    assert _flagged(article, AMQP) == flagged


@pytest.mark.parametrize(("article", "flagged"), [
    ("It adds Ubuntu Cloud Archives and supports newer Pythons.", []),
    ("It adds Ubuntu Cloud Archivers.", ["Ubuntu Cloud Archivers"]),
    ("It supports newer Rubies.", ["Rubies"]),
])
def test_a_name_in_the_plural_is_found_in_the_singular(article: str, flagged: list[str]) -> None:
    assert _flagged(article, AMQP) == flagged
