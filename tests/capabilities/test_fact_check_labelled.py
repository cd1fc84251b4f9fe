"""Round 11: values a source gives under a label or in a notation of its own (capabilities/factcheck/labelled.py, and
a release series under a label or glued to its product) are found; another value is still caught."""

from __future__ import annotations

import time

import pytest

from capabilities.factcheck import Fact, FactKind
from capabilities.factcheck.counts import released
from capabilities.factcheck.labelled import source_facts
from tests.capabilities.facts import supported


@pytest.mark.parametrize(("article", "source", "found"), [
    # the years of a copyright line
    ("版权年份为 1989 年以及 1991 至 2018 年。", "Copyright (C) 1989,1991-2018 Free Software Foundation, Inc.", True),
    ("版权年份为 1989 年以及 1992 至 2018 年。", "Copyright (C) 1989,1991-2018 Free Software Foundation, Inc.", False),
    ("The team holds it from 2004 to 2016.", "DejaVu fonts 2.37 (c)2004-2016 DejaVu fonts team", True),
    ("The team holds it from 2005 to 2016.", "DejaVu fonts 2.37 (c)2004-2016 DejaVu fonts team", False),
    # a Chinese range of years in a source's dates of those years (round 13)
    ("2.4 系列在 2002 至 2003 年间发布。", "February 10th 2002 version 2.4f\n\nApril 30th 2003 version 2.4h", True),
    ("2.4 系列在 2001 至 2003 年间发布。", "February 10th 2002 version 2.4f\n\nApril 30th 2003 version 2.4h", False),
    # a day/month/year date
    ("The note is dated March 25, 2003.", "Robie Basak, 25/3/2003.", True),
    ("The note is dated March 26, 2003.", "Robie Basak, 25/3/2003.", False),
    # a timestamp as date(1) writes it (round 13)
    ("lzf 的 3.6 版本发布于 2011 年 2 月 7 日。", "3.6  Mon Feb  7 17:37:31 CET 2011\n\t- fixed hash calculation", True),
    ("lzf 的 3.6 版本发布于 2011 年 2 月 8 日。", "3.6  Mon Feb  7 17:37:31 CET 2011\n\t- fixed hash calculation", False),
    ("Version 3.1 came out on November 30, 2007.", "3.1  Fri Nov 30 11:33:04 CET 2007", True),
    ("Version 3.1 came out on November 30, 2008.", "3.1  Fri Nov 30 11:33:04 CET 2007", False),
    # a number under an address's label
    ("Debian bug 76868 tracks it.", "See http://bugs.debian.org/cgi-bin/bugreport.cgi?bug=76868", True),
    ("Debian bug 76869 tracks it.", "See http://bugs.debian.org/cgi-bin/bugreport.cgi?bug=76868", False),
    # a number an address's path labels (round 13): a pull request's, an RFC's
    ("Question marks are allowed in flow collections (pull request 105).",
     "https://github.com/yaml/libyaml/pull/105\nAllow question marks in plain scalars in flow collections", True),
    ("Question marks are allowed in flow collections (pull request 106).",
     "https://github.com/yaml/libyaml/pull/105\nAllow question marks in plain scalars in flow collections", False),
    ("参考文档包括 RFC 5890 至 5893。", " * [Framework](https://tools.ietf.org/html/rfc5890)\n"
     " * [Bidi rule](https://tools.ietf.org/html/rfc5893)", True),
    ("参考文档包括 RFC 5890 至 5894。", " * [Framework](https://tools.ietf.org/html/rfc5890)\n"
     " * [Bidi rule](https://tools.ietf.org/html/rfc5893)", False),
    ("The fix is commit 105.", "https://github.com/yaml/libyaml/commit/105abc", False),
    # a version the letter v marks
    ("It moved to debhelper compat level 13.", "  * Update to debhelper compat v13.", True),
    ("It moved to debhelper compat level 12.", "  * Update to debhelper compat v13.", False),
    # a Debian revision in a changelog header
    ("A day later, revision 3 fixed the rules.", "devmapper (2:1.02.27-3) unstable; urgency=low\n\n  * Fix rules.", True),
    ("A day later, revision 5 fixed the rules.", "devmapper (2:1.02.27-3) unstable; urgency=low\n\n  * Fix rules.", False),
    # numbers a comma joins without a space (round 13): each number; a thousands group is none of them
    ("It returns 4 or 5 when the desired seek position is unreachable.",
     ".TP\n4,5\ndesired seek position is unreachable.", True),
    ("It returns 4 or 6 when the desired seek position is unreachable.",
     ".TP\n4,5\ndesired seek position is unreachable.", False),
    ("The archive holds 200 files.", "The archive holds 1,200 files.", False),
    # a multiple, and thousands with K
    ("它的速度通常是 libjpeg 的二至六倍。", "libjpeg-turbo is generally 2-6x as fast as libjpeg.", True),
    ("它的速度通常是 libjpeg 的二至八倍。", "libjpeg-turbo is generally 2-6x as fast as libjpeg.", False),
    ("样本集包含一万条记录。", "It consists of roughly 10K records weighing about 1KB each.", True),
    ("样本集包含两万条记录。", "It consists of roughly 10K records weighing about 1KB each.", False),
    ("The block is 10000 bytes.", "Use a 10K block.", False),
])
def test_a_labelled_value_is_found_and_another_is_not(article: str, source: str, found: bool) -> None:
    assert supported(article, source) is found


@pytest.mark.parametrize(("article", "found"), [
    ("rabbitmq-c 0.10 and 0.9 changed it.", True),
    ("rabbitmq-c 0.10 and 0.8 changed it.", False),
])
def test_a_release_series_under_a_changelog_label_is_found(article: str, found: bool) -> None:
    source = "## v0.10.0 - 2019-12-01\n- rabbitmq-c now requires Windows Vista\n\n## v0.9.0 - 2018-05-08\n- fixes"
    assert supported(article, source) is found


@pytest.mark.parametrize(("article", "found"), [
    ("Boost 1.37 reshaped the packages.", True),
    ("Boost 1.38 reshaped the packages.", False),
])
def test_a_release_series_glued_to_its_product_is_found(article: str, found: bool) -> None:
    assert supported(article, "boost1.37 (1.37.0-1) unstable; urgency=low\n\n  * The single-threaded variant.") is found


@pytest.mark.parametrize(("article", "found"), [
    ("Kerberos in Debian 12: a string of security fixes.", True),
    ("Kerberos in Debian 11: a string of security fixes.", False),
])
def test_a_debian_release_in_a_stable_update_suffix_is_found(article: str, found: bool) -> None:
    assert supported(article, "krb5 (1.20.1-2+deb12u3) bookworm; urgency=medium\n\n  * Kerberos fixes.") is found


# round 12: a release heading underlined (reStructuredText, setext Markdown); a release glued to its product's name
RST_CHANGELOG = """Changelog
=========

38.0.4 - 2022-11-27
~~~~~~~~~~~~~~~~~~~

* Fixed error when using ``py2app`` to build an application with a ``cryptography`` dependency.
"""


@pytest.mark.parametrize(("article", "found"), [
    ("cryptography 38.0.x: a run of fixes", True),
    ("cryptography 38.0 fixed an error with py2app.", True),
    ("cryptography 39.0.x: a run of fixes", False),
    ("cryptography 38.1 fixed an error with py2app.", False),
])
def test_a_release_series_under_an_underlined_heading_is_found(article: str, found: bool) -> None:
    """A version that is a change log's section title, underlined ("38.0.4 - 2022-11-27" over "~~~~"), is the
    release's label, as "## [0.11.0]" is: its series (38.0, 38.0.x) is found where the sources name the product;
    another series is caught."""
    assert supported(article, RST_CHANGELOG) is found


@pytest.mark.parametrize(("article", "found"), [
    ("Locale::gettext is a Perl 5 module for the C library's functions.", True),
    ("Locale::gettext is a Perl 6 module for the C library's functions.", False),
])
def test_a_release_glued_to_its_product_is_found(article: str, found: bool) -> None:
    """"a perl5 module" is a module for Perl 5: the release series glued to the product's name is that series; another
    release is caught."""
    assert supported(article, "Locale::gettext\n\nThis is a perl5 module quickly written to gain access to the C "
                              "library functions for internatialization.") is found


@pytest.mark.parametrize("source", [
    "1,2" * 30000,  # a comma run: no number list backtracks over it
    "4," * 30000 + "x",
    "Mon Feb " * 20000 + " 7 " * 20000,  # a timestamp's parts without a timestamp
    "https://github.com/a/b/pull/" * 10000,
    "1.2" * 30000 + "\n" + "=" * 50000,  # a version heading's line, far too long to be one
])
def test_round_13_readings_take_no_more_than_their_length(source: str) -> None:
    """Round 13's source readings (a path's number, a timestamp, a number list, a release heading) on 30,000-280,000
    characters of what almost matches them: each is read in one pass, not by a backtracking pattern."""
    count = Fact(FactKind.number, "两次", "2", "从两次更新的内容来看", unit="times")
    started = time.monotonic()
    source_facts(source)
    released(count, source)
    assert time.monotonic() - started < 10
