"""A manual page's troff escapes read as the text they render (round 14): a source only; of the article, only the font
changes it copied from one (the embedded model writing from a man page wrote ``\\fBinfocmp\\fP``).

A man page read with zcat still holds its escapes: ``lsof\\-org`` is the address's ``lsof-org``, ``\\s-1RC2\\s0`` (a
size change) is ``RC2``, ``\\fBinfocmp\\fP`` and ``\\fIEXTENSIONS\\fP`` (a font change) are ``infocmp`` and
``EXTENSIONS``, ``\\(em`` is an em dash. A careful reader of the page sees the rendered words, so the checker reads
those. Only a source that is a man page (a request line such as ``.SH``, a font or size escape) is rendered, and only
the escapes below: an unknown special character is left as it is. One pass of a bounded pattern (no nested
repetition), so a long source is read in linear time.
"""

from __future__ import annotations

import re

# a man page: a request line (.SH NAME, .TH, .PP, .IP, .B word, an mdoc .Sh/.Nm) or a font or size escape
_MAN_PAGE = re.compile(r"^\.(?:SH|SS|TH|PP|LP|P|IP|TP|HP|B|I|BR|IR|RB|RI|BI|IB|RS|RE|nf|fi|br|sp|Vb|Ve|IX|Dd|Dt|Sh|Nm"
                       r"|Nd|Pp|Fl|Ar)(?![^\s\"])|\\f[BIRP1-4]|\\s[-+]?[0-9]", re.M)

_FONT = r"f(?:\[[^\]\n]{0,12}\]|\([A-Za-z0-9]{2}|[BIRPC1-4])"  # a font change: \fB, \fI, \fR, \fP, \f(CW, \f[B]
_ESCAPE = re.compile(
    r"\\(?:"
    rf"{_FONT}"
    r"|s(?:[-+]?\([0-9]{2}|\[[-+]?[0-9]{1,3}\]|[-+][0-9]|[123][0-9]|[0-9])"  # a size change: \s-1, \s0, \s(12, \s10
    r"|\((?P<two>\S\S)|\[(?P<long>[^\]\s]{1,12})\]"                 # a special character: \(em, \[em]
    r"|\*(?:\((?P<stwo>\S\S)|\[(?P<slong>[^\]\s]{1,12})\]|(?P<sone>[^\s(\[]))"  # a predefined string: \*(lq, \*R
    r"|(?P<one>[-e&|^ ~0:%c'`])"                                    # \- \e \& \| \^ \  \~ \0 \: \% \c \' \`
    r")")

_SPECIAL = {
    "em": "\u2014", "en": "\u2013", "hy": "-", "mi": "-", "co": "\u00a9", "rg": "\u00ae", "tm": "\u2122",
    "bu": "\u2022", "aq": "'", "dq": '"', "lq": "\u201c", "rq": "\u201d", "oq": "\u2018", "cq": "\u2019",
    "mu": "\u00d7", "de": "\u00b0", "ti": "~", "ha": "^", "ga": "`", "ba": "|", "bv": "|", "rs": "\\", "sl": "/",
    "<=": "\u2264", ">=": "\u2265", "+-": "\u00b1", "->": "\u2192", "<-": "\u2190", "!=": "\u2260", "Fo": "\u00ab",
    "Fc": "\u00bb", "fo": "\u2039", "fc": "\u203a", "ct": "\u00a2", "Eu": "\u20ac", "eu": "\u20ac", "Po": "\u00a3",
    "ss": "\u00df", "ae": "\u00e6", "AE": "\u00c6", "oe": "\u0153", "OE": "\u0152", "a\"": "\u00e4", "o\"": "\u00f6",
    "u\"": "\u00fc", "A\"": "\u00c4", "O\"": "\u00d6", "U\"": "\u00dc", "e'": "\u00e9", "E'": "\u00c9",
    "e`": "\u00e8", "a`": "\u00e0", "n~": "\u00f1", "c,": "\u00e7", "o/": "\u00f8", "O/": "\u00d8",
}
# predefined strings: man(7)'s \*R, \*(Tm, \*(lq, \*(rq; pod2man's \*(L", \*(R", \*(C+, \*(--
_STRINGS = {"R": "\u00ae", "Tm": "\u2122", "lq": "\u201c", "rq": "\u201d", 'L"': "\u201c", 'R"': "\u201d",
            "C`": "\u201c", "C'": "\u201d", "C+": "C++", "--": "\u2014", "PI": "\u03c0", "Aq": "'"}
_ONE = {"-": "-", "e": "\\", "&": "", "|": "", "^": "", " ": " ", "~": " ", "0": " ", ":": "", "%": "", "c": "",
        "'": "'", "`": "`"}


def _render(hit: re.Match[str]) -> str:
    if (one := hit.group("one")) is not None:
        return _ONE[one]
    if (name := hit.group("two") or hit.group("long")) is not None:
        return _SPECIAL.get(name, hit.group())  # an unknown special character stays as written
    if (name := hit.group("stwo") or hit.group("slong") or hit.group("sone")) is not None:
        return _STRINGS.get(name, hit.group())
    return ""  # a font or size change renders nothing


def without_font_changes(text: str) -> str:
    """``text`` without its troff font changes: formatting that changes no word (``\\fBinfocmp\\fP`` is infocmp). The
    article's other escapes stay as written: an article's ``lsof\\-org`` is not the address lsof-org."""
    return re.sub(rf"\\{_FONT}", "", text) if "\\f" in text else text


def rendered(text: str) -> str:
    """``text`` with its troff escapes read as the text they render, if it is a man page; else ``text`` as it is."""
    if "\\" not in text or not _MAN_PAGE.search(text):
        return text
    return _ESCAPE.sub(_render, text)
