"""Round 14: a manual page's troff escapes are read as the text they render, in a source only
(capabilities/factcheck/troff.py); a fabrication of the same class is still caught."""

from __future__ import annotations

import time

import pytest

from capabilities.factcheck import check_facts
from capabilities.factcheck.troff import rendered


def supported(article: str, source: str) -> bool:
    return check_facts(article, [(1, source)]).passed


LSOF = (".SH DISTRIBUTION\nThe latest distribution of\n.I lsof\nis available at\n.IP\n"
        "https://github.com/lsof\\-org/lsof/releases")
OPENSSL = (".SH \"HISTORY\"\nThe default digest was changed from \\s-1MD5\\s0 to \\s-1SHA256\\s0 in OpenSSL 1.1.0.\n"
           ".PP\nSo if you want to use \\s-1RC2\\s0 with a\n76 bit key you can't use this program.")
INFOCMP = ".PP\nFor a complete list, see the \\fIEXTENSIONS\\fP section.\nThomas Dickey added the \\fB\\-x\\fP option."


@pytest.mark.parametrize(("article", "source", "found"), [
    # \- in an address is the address's hyphen
    ("It is at https://github.com/lsof-org/lsof/releases.", LSOF, True),
    ("It is at https://github.com/lsof-team/lsof/releases.", LSOF, False),
    # a size change around a name: \s-1RC2\s0 is RC2
    ("默认摘要算法在 OpenSSL 1.1.0 中由 MD5 改为 SHA256。", OPENSSL, True),
    ("默认摘要算法在 OpenSSL 1.1.0 中由 MD4 改为 SHA512。", OPENSSL, False),
    ("You cannot use RC2 with a 76 bit key.", OPENSSL, True),
    ("You cannot use RC5 with a 76 bit key.", OPENSSL, False),
    # a font change around a name: \fIEXTENSIONS\fP is EXTENSIONS
    ("For the complete list, see its EXTENSIONS section.", INFOCMP, True),
    ("For the complete list, see its EXTENDED section.", INFOCMP, False),
])
def test_a_man_pages_escapes_are_read_as_rendered(article: str, source: str, found: bool) -> None:
    assert supported(article, source) is found


def test_escapes_are_rendered_and_an_unknown_one_left_as_written() -> None:
    page = ".TH X 1\n\\fBfoo\\fR \\(em \\*(L\"bar\\*(R\" \\(zz A.\\&B \\e"
    assert rendered(page) == ".TH X 1\nfoo \u2014 \u201cbar\u201d \\(zz A.B \\"


def test_a_source_that_is_no_man_page_is_read_as_written() -> None:
    # no request line, no font or size escape: a regular expression's \- or a C string's \e stays
    for text in ('pattern = r"[a-z\\-]+"', 'printf("\\e[0m")', "a\\-b without any request line"):
        assert rendered(text) == text


def test_the_article_is_not_rendered() -> None:
    # the article's own escapes are not read away: an article writing lsof\-org is not the source's lsof-org
    assert not supported("It is at https://github.com/lsof\\-org/lsof/releases.",
                         ".SH X\nhttps://github.com/lsof-org/lsof/releases")


def test_a_long_man_page_is_read_in_linear_time() -> None:
    for page in (".SH X\n" + "\\" * 200_000, ".SH X\n" + "\\s" * 100_000, ".SH X\n" + "\\f[" * 70_000,
                 ".SH X\n" + "\\*(" * 70_000, ".SH X\n" + "\\(e" * 70_000, ".SH X\n" + "\\s-1RC2\\s0 " * 20_000):
        started = time.monotonic()
        rendered(page)
        assert time.monotonic() - started < 1


def test_an_articles_copied_font_changes_name_nothing() -> None:
    """The embedded model writing from infocmp(1)'s history copied its font changes: "\\fBinfocmp\\fP" is infocmp."""
    source = ".SH HISTORY\nAlthough System V Release 2 provided a terminfo library, it had no documented tool for\n" \
             "decompiling the terminal descriptions.\nTony Hansen (AT&T) wrote the first \\fBinfocmp\\fP in early 1984."
    assert supported("Tony Hansen (AT&T) wrote the first \\fBinfocmp\\fP in early 1984.", source)
    assert not supported("Tom Hansen (AT&T) wrote the first \\fBinfocmp\\fP in early 1984.", source)
    assert not supported("Tony Hansen (AT&T) wrote the first \\fBinfocmp\\fP in early 1985.", source)
