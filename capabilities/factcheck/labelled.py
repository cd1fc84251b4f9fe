"""Facts a source gives under a label or in a notation of its own (round 11), read as the values a reader takes from
them. Only sources are read this way (extract_facts reads the article as before); each reading gives a value the
source states, letter for letter, so a fabricated value is not found by it.

    copyright line   "Copyright (C) 1989,1991-2018", "(c)2004-2016": every year written there is a year
    day/month/year   "25/3/2003": a date (day first when the day is over 12, both readings when nothing tells)
    timestamp        "Mon Feb  7 17:37:31 CET 2011", as date(1) and ctime write it (round 13): the date 2011-02-07
    address label    "bugreport.cgi?bug=76868": the number of the label (bug 76868); and a number an address's path
                     labels (round 13): ".../pull/105" (pull request 105, "(105)"), ".../issues/42", ".../rfc5890"
                     (RFC 5890): a reader takes the number from the address as the source's own; a number opening
                     a file's name in a path, "d/patches/0005-CVE-2021-3520.patch" (patch 0005; heldout11)
    version label    "compat v13", "v2": a version number the letter v marks
    Debian revision  "devmapper (2:1.02.27-3) unstable; urgency=low": the upload's revision 3
    number list      "4,5" (a man page's return values 4 and 5), numbers a comma joins without a space, none of three
                     digits after it (1,200 is a thousands group): each number (round 13)
    multiple         "2-6x as fast", "3× faster": 6 (and 2), as 六倍, "six times"
    thousands        "10K records", "500k tests": 10000 (一万条), 500000 (50万次), never 10K bytes or blocks of 1 KiB
    path version     ".../copyright-format/1.0/": the version 1.0, as written, that an address's path gives as a
                     segment of its own (path_version; "1" is not found there)
    Debian release   "krb5 (1.20.1-2+deb12u3) bookworm": an upload for Debian 12 ("Debian 12", the series of the
                     release the +debNuM suffix of a stable update names; debian_release)
    glued release    "a perl5 module", python3, openjdk-17: the release series Perl 5, Python 3, OpenJDK 17 (round 12;
                     glued_release)
    call argument    "sleep(2) called": the number 2, as a doctest prints it (read as a manual's section in an article)
    scale word       "a thousand times easier": 1000 (一千倍; heldout13)
    clause count     "BSD-3-clause": 3 (三条款; heldout14)
"""

from __future__ import annotations

import re
from decimal import Decimal

from capabilities.factcheck.extract import WORD_SCALES
from capabilities.factcheck.reading import MONTH_RE, MONTHS, sentence_at
from capabilities.factcheck.types import Fact, FactKind

_COPYRIGHT = re.compile(r"(?:copyright|\(c\)|©)[\s:]*(?:\(c\)|©)?\s*((?:(?:18|19|20)\d\d\s*(?:[,–-]\s*|\s+))*"
                        r"(?:18|19|20)\d\d)(?!\d)", re.I)
_SLASH_DATE = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
# a weekday, a month, a day, a time, a zone maybe, a year: date(1)'s and ctime's "Mon Feb  7 17:37:31 CET 2011"
_TIMESTAMP = re.compile(rf"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[ \t]+({MONTH_RE})[ \t]+(\d{{1,2}})[ \t]+\d\d?:\d\d(?::\d\d)?"
                        r"(?:[ \t]+[A-Z]{2,5}|[ \t]+[+-]\d{4})?[ \t]+((?:18|19|20)\d\d)(?!\d)")
_ADDRESS_LABEL = re.compile(r"[?&;][A-Za-z_]+=(\d+)(?![\w.])")
# a number an address's path labels: a pull request's, an issue's, a bug's, an RFC's (.../pull/105, /rfc5890), also
# after GitLab's "/-/" (.../libxcb/-/issues/53, .../-/merge_requests/3773: heldout11)
_PATH_LABEL = re.compile(r"(?<=[\w.-])/(?:pulls?|issues?|merge_requests|bugs?|tickets?|rfc)/?(\d+)(?![\w-]|\.\d)", re.I)
# a number opening a file's name in a path, a patch's series number: d/patches/0005-CVE-2021-3520.patch (heldout11)
_FILE_NUMBER = re.compile(r"(?<=/)(\d{1,5})(?=[-_][A-Za-z])")
# a licence's clause count inside its name, "BSD-3-clause" (三条款 BSD, heldout14)
_CLAUSES = re.compile(r"(?<=-)(\d)(?=-clause\b)", re.I)
# a call's number argument a source prints, "sleep(2) called" (heldout13); in an article, groupadd(8) is a manual's section
_CALL_ARGUMENT = re.compile(r"(?<=[A-Za-z0-9_])\((\d{1,6})\)")
# a scale word after "a" or "one": "a thousand times easier" (heldout13)
_A_SCALE = re.compile(r"\b(?:a|one)\s+(hundred|thousand|million|billion)\b(?!\s+(?:and|[a-z]+-))", re.I)
_V_NUMBER = re.compile(r"(?<![\w.-])[vV](\d{1,4})(?!\w|\.\d)")
_DEBIAN_HEADER = re.compile(r"^[a-z0-9][a-z0-9+.-]* \((?:\d+:)?[^)\s]*-(\d+)\) [^;\n]*;", re.M)
_NUMBER_LIST = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{1,2})+(?![\w,]|\.\d)")
_MULTIPLE = re.compile(r"(?<![\w.])(?:(\d+(?:\.\d+)?)\s*[-–]\s*)?(\d+(?:\.\d+)?)\s*[x×](?![\w])")
_THOUSANDS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[Kk]\s+(?!i?B\b|bytes?\b|blocks?\b|[A-Z])(?=[a-z])")  # 500k tests too



def _number(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def source_facts(text: str) -> list[Fact]:
    """The facts of a source's labels and notations (the module docstring's list), beside its extracted ones."""
    facts: list[Fact] = []

    def add(kind: FactKind, written: str, key: str, at: int, unit: str | None = None) -> None:
        facts.append(Fact(kind, written, key, sentence_at(text, at), unit))

    for m in _COPYRIGHT.finditer(text):
        for year in re.finditer(r"(?:18|19|20)\d\d", m.group(1)):
            add(FactKind.year, year.group(), year.group(), m.start())
    for m in _SLASH_DATE.finditer(text):
        first, second, year = int(m.group(1)), int(m.group(2)), m.group(3)
        readings = [(first, second)] if first > 12 else [(second, first)] if second > 12 else \
            [(first, second), (second, first)]
        for day, month in readings:
            if 1 <= month <= 12 and 1 <= day <= 31:
                add(FactKind.date, m.group(), f"{year}-{month:02d}-{day:02d}", m.start())
    for m in _TIMESTAMP.finditer(text):
        month, day = MONTHS[m.group(1).lower().rstrip(".")], int(m.group(2))
        if 1 <= day <= 31:
            add(FactKind.date, m.group(), f"{m.group(3)}-{month:02d}-{day:02d}", m.start())
    for pattern in (_ADDRESS_LABEL, _PATH_LABEL, _FILE_NUMBER, _CLAUSES, _V_NUMBER, _DEBIAN_HEADER):
        for m in pattern.finditer(text):
            add(FactKind.number, m.group(1), str(int(m.group(1))), m.start())
    for m in _CALL_ARGUMENT.finditer(text):  # a bare argument: it backs "called with 8", not "eight times"
        add(FactKind.number, m.group(1), str(int(m.group(1))), m.start(), unit="argument")
    for m in _NUMBER_LIST.finditer(text):
        for number in m.group().split(","):
            add(FactKind.number, number, str(int(number)), m.start())
    for m in _MULTIPLE.finditer(text):
        for group in (1, 2):
            if m.group(group):
                add(FactKind.number, m.group(group), _number(Decimal(m.group(group))), m.start())
    for m in _A_SCALE.finditer(text):
        add(FactKind.number, m.group(), str(WORD_SCALES[m.group(1).lower()]), m.start())
    for m in _THOUSANDS.finditer(text):
        add(FactKind.number, m.group(1) + "K", _number(Decimal(m.group(1)) * 1000), m.start())
    return facts


def debian_release(fact: Fact, text: str) -> int | None:
    """"Debian 12" (a release series after the product Debian) in a source's stable update version, +deb12u3: Debian's
    own suffix for an upload to that release. Where it stands in ``text``, or None; another release is not found."""
    if fact.kind != FactKind.number or (fact.series or "").casefold() != "debian" or not fact.key.isdigit():
        return None
    hit = re.search(rf"\+deb{fact.key}u\d+", text)
    return hit.start() if hit else None


def glued_release(fact: Fact, text: str) -> int | None:
    """A release series after its product ("a Perl 5 module", "Python 3", "OpenJDK 17") in a source that glues the
    number to the product's name ("a perl5 module", python3, openjdk-17-jre: heldout13): the same release, as one
    word. Where it stands in ``text``, or
    None; another release (perl6) or another product is not found."""
    if fact.kind != FactKind.number or not fact.series or not re.fullmatch(r"\d+(?:\.\d+)?", fact.text):
        return None
    hit = re.search(rf"(?<![\w.-]){re.escape(fact.series)}-?{re.escape(fact.text)}(?![\w]|\.\d)", text, flags=re.I)
    return hit.start() if hit else None


def path_version(fact: Fact, text: str) -> int | None:
    """A version written with its dot ("copyright-format 1.0") that a source's address gives as a whole segment of
    its path (".../copyright-format/1.0/", heldout12), as written: "version 1" is not found in it. Where it stands
    in ``text``, or None."""
    if fact.kind != FactKind.number or not re.fullmatch(r"\d+(?:\.\d+)+", fact.text):
        return None
    hit = re.search(rf"(?<=[\w-]/){re.escape(fact.text)}(?=/|[\s>)\]]|$)", text)
    return hit.start() if hit else None
