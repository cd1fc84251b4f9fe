"""Round 12: a count in words of a noun the source counts itself ("three types", "two ways") is checked against the
source's count (capabilities/factcheck/counted_nouns.py); where no source counts the noun, it is still the article's
own structure and unchecked."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts

SOURCE = """### Authentication

The following three types of HTTP Authentication are
supported. These can be used over both HTTP and HTTPS.

* Digest
* Basic
* WSSE

## Getting latest source
There are two ways of getting the latest source."""


@pytest.mark.parametrize(("article", "found"), [
    ("Three types of HTTP authentication are supported: Digest, Basic and WSSE.", True),
    ("There are two ways to get the latest source.", True),
    ("Four types of HTTP authentication are supported: Digest, Basic and WSSE.", False),
    ("There are three ways to get the latest source.", False),
    ("这里有三个方面值得注意。", True),  # the article's own structure: no source counts it
    ("Here are five reasons to try it.", True),
])
def test_a_count_of_a_noun_the_source_counts_is_checked(article: str, found: bool) -> None:
    """"Four types" where the source says "three types" is caught; the source's own count, or its list of that many,
    is found; a count of a noun no source counts ("five reasons") is the article's structure, as before."""
    assert check_facts(article, [(1, SOURCE)]).passed is found


def test_a_count_of_a_noun_the_source_lists_is_found() -> None:
    """The source counts its types once ("two types" deprecated) and lists the three supported ones: the article's
    count of the supported types is found in the list of its sentence's items; another count is caught."""
    source = "Two types are deprecated.\n\nSupported types:\n\n* Digest\n* Basic\n* WSSE\n"
    assert check_facts("Three types of authentication are supported: Digest, Basic and WSSE.", [(1, source)]).passed
    assert not check_facts("Five types of authentication are supported: Digest, Basic and WSSE.", [(1, source)]).passed
