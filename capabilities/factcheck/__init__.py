"""The fact check: is every checkable fact of an article found in its sources or its brief? Pure functions.

    check_facts(text, sources, brief) -> FactReport
        ``sources`` are (number, text) pairs as the ledger numbers them; the brief counts as source 0.

What is a checkable fact (extract_facts), in English and Chinese text:
    url        an http(s) address
    date       May 1, 2024 / 1 May 2024 / 2024-05-01 / 2024年5月1日 (and month + year: May 2024, 2024年5月), a date
               relative to the one before it (同年3月28日, 同月20日), a fixed-date holiday (New Year's Eve 2020)
               and a changelog's 2022.07.12, 11-December-2022, 03-10-2022, 26.12.2022 (dates.py: which order)
    time       22:14:33 / 3 p.m. / 下午3点半 (a part of the day or minutes needed), as 24-hour times
    money      $1,200 / €3.5 million / 1,200 dollars / 100元 / 3亿元
    percent    12% / 12 percent / 12 per cent / 百分之十二
    number     a number and its unit if it has one: 1,200 / 1.2 million / 30 seconds / 5 MB / 3次 / 1.2万,
               and the period of a rate: 250,000 items a year / 每年外借25万件
    year       a four-digit number from 1800 to 2100 standing alone
    quote      text in quotation marks, at least 3 words (or 4 Chinese characters)
    title      a 《》 title
    name       a run of capitalised words or identifiers (Jane Smith, Héctor Orón, PUBLISH_DOMAIN_WHITELIST,
               CVE-2023-27534), not a lone capitalised word at the start of a sentence, nor sentence-starting
               function words, nor a lone letter, nor a source tree's document (NEWS, README.Debian)

How a fact is found (never by substring): the sources are read with the same extractor into values -
numbers as exact decimals (1,200 = 1200, 1.2 million = 1200000, 1.2万 = 12000, three = 3 in a source),
percentages as values (12% = 12 percent = 百分之十二), dates as ISO dates (May 1, 2024 = 2024-05-01) -
and a fact is supported when a source holds the same value: a number with a unit needs the same unit
where the source gives one (30 MB is not 30 seconds), a year is found as a year or in a date, "12" is
never found inside "2012" (2012 is one number); a release series ("gawk 5.2", "the 252 branch") is found in
a source's version of it (5.2.1, 252.38) when the sources name the product. Quotations, names and titles
are matched as whole runs of normalised words (NFKC, case-folded, accents and clitics dropped, punctuation
dropped; Chinese per character): "Smith" is not found in "Smithson", "Hector Oron" is in "Héctor Orón". What is not checked: a paraphrase that changes the meaning without changing a
number, a date, a name or a quotation passes; so does a true number put in the wrong place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from decimal import Decimal, InvalidOperation

from capabilities.factcheck.extract import ADDRESS, QUOTE_PARTS, around_taken_addresses, extract_facts
from capabilities.factcheck import counts
from capabilities.factcheck.counted_nouns import noun_counts
from capabilities.factcheck.durations import between_dates, word_spans
from capabilities.factcheck.labelled import debian_release, glued_release, path_version, source_facts
from capabilities.factcheck.name_forms import other_form
from capabilities.factcheck.reading import has_run, words, zh_number
from capabilities.factcheck.troff import rendered, without_font_changes
from capabilities.factcheck.types import CheckedFact, Fact, FactKind, FactReport

@dataclass(frozen=True)
class _Evidence:
    number: int
    facts: list[Fact]
    words: list[str]
    text: str

    @cached_property
    def sentences(self) -> list[tuple[str, list[str]]]:
        """Each sentence with its words, read once: the passage of every name or quotation found is looked up here."""
        return [(sentence, words(sentence)) for sentence in re.split(r"(?<=[.!?。！？])\s*|\n", self.text)]

    @cached_property
    def words_without_addresses(self) -> list[str]:
        """The source's words with its addresses left out, as a quotation that holds an address is read (round 14)."""
        return words(ADDRESS.sub(" ", self.text))

    @cached_property
    def names(self) -> list[Fact]:
        """The source's names of two words or more (the full names a shorter one may be found in)."""
        return [f for f in self.facts if f.kind == FactKind.name and " " in f.key]


def _supports(fact: Fact, evidence: _Evidence, everything: str) -> str | None:
    """The passage of ``evidence`` that holds ``fact``, or None (``everything``: all the sources' text)."""
    if fact.kind == FactKind.quote and QUOTE_PARTS in fact.key:
        return _elided_quote(fact.key.split(QUOTE_PARTS), evidence)
    if fact.kind in (FactKind.quote, FactKind.title, FactKind.name):
        # a name with its version or edition (CC0 1.0 Universal, Ubuntu 26.04 LTS) is found with its numbers too
        written = " ".join(words(fact.text)) if fact.kind == FactKind.name else None
        for key in (fact.key, fact.short_key, *_acronym_numbers(fact), written, *_name_forms(fact)):
            if key and has_run(evidence.words, key.split()) >= 0:
                return _passage_of_words(evidence, key)
        if _holds_address(fact) and has_run(evidence.words_without_addresses, fact.key.split()) >= 0:
            # a quotation holding an address ("conda install -c https://conda.anaconda.org/conda-forge pkg"): its
            # words are read without the address, which is checked as an address of its own, so the source's words
            # around its address are the quotation's (round 14)
            return _passage_of_words(evidence, fact.key.split()[0])
        if fact.opening and (passage := _ordinary_opening(fact, evidence)):
            return passage
        if fact.kind == FactKind.name and (parts := _described_parts(fact)) \
                and all(has_run(evidence.words, part) >= 0 for part in parts):
            return _passage_of_words(evidence, " ".join(parts[0]))
        if fact.kind == FactKind.name and (passage := _fuller_name(fact.key.split(), evidence)):
            return passage
        if fact.kind == FactKind.name and (at := other_form(fact.text, fact.key, fact.sentence, evidence.text)) is not None:
            # the name in another form a reader accepts (name_forms.py): FSF for the source's Free Software
            # Foundation, readthedocs, pypi, a badge's address, RFC8878, sqlite3, two names glued by extraction
            return _sentence_around(evidence.text, at)
        return None
    for found in evidence.facts:
        if _same_value(fact, found) and not _unit_said_beside(fact, found, evidence.facts):
            return found.sentence
    if fact.kind == FactKind.date and (passage := _surname_and_year(fact, evidence)):
        return passage
    if fact.series is not None and (passage := _series_in(fact, evidence, everything)):
        return passage
    if (at := debian_release(fact, evidence.text)) is not None:  # Debian 12 in +deb12u3 (labelled.py)
        return _sentence_around(evidence.text, at)
    if (at := path_version(fact, evidence.text)) is not None:  # copyright-format 1.0 in .../copyright-format/1.0/
        return _sentence_around(evidence.text, at)
    if (at := glued_release(fact, evidence.text)) is not None:  # Perl 5 in perl5, Python 3 in python3 (labelled.py)
        return _sentence_around(evidence.text, at)
    if counts.is_count(fact) and ((at := counts.listed(fact, evidence.text)) is not None
                                  or (at := counts.spanned(fact, evidence.text)) is not None
                                  or (at := counts.numbered(fact, evidence.text)) is not None
                                  or (at := counts.released(fact, evidence.text)) is not None):
        # a count in words the source shows as a list of exactly that many items (counts.py): "three fixes"
        return _sentence_around(evidence.text, at)
    if fact.kind == FactKind.number and fact.unit is None and re.fullmatch(r"[1-9]\d\d", fact.key):
        # a class of codes the source names: "every 5xx status" holds "503" given as an example of it
        if hit := re.search(rf"(?<![A-Za-z0-9.]){fact.key[0]}xx(?![A-Za-z0-9])", evidence.text, flags=re.I):
            return _sentence_around(evidence.text, hit.start())
    return None


def _holds_address(fact: Fact) -> bool:
    """A quotation whose text held an address where the extractor took it (its span is left blank in the quotation):
    the sentence holds the quotation's words around an address."""
    if fact.kind != FactKind.quote or "://" not in fact.sentence:
        return False
    parts = around_taken_addresses(fact.text)
    if len(parts) < 2 or len(parts) > 4:
        return False
    return re.search(r"\s*https?://\S+\s*".join(map(re.escape, parts)), fact.sentence) is not None


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _name_forms(fact: Fact) -> tuple[str, ...]:
    """Other ways a source writes a name: a weekday as its abbreviation (Tuesday, Tue), a name glued to the
    article's next short word (IBM i, ibmi; RISC OS, riscos), a name in the plural (Pythons), a name with its version
    glued to a v (Framework V1.6.0)."""
    if fact.kind != FactKind.name:
        return ()
    if fact.key in _WEEKDAYS:
        return fact.key[:3], fact.key[:4]
    if " " not in fact.key and (hit := re.search(rf"(?<!\w){re.escape(fact.text)}\s+([A-Za-z]{{1,2}})\b", fact.sentence)):
        return (fact.key + hit.group(1).lower(),)  # RISC OS, riscos (round 13: a short word in capitals too)
    last = fact.key.split()[-1]
    if len(last) >= 5 and last.endswith("s") and not last.endswith("ss") and fact.text[-1:] == "s":
        # a name in the plural, "Pythons", "Ubuntu Cloud Archives": the source's Python, Cloud Archive (heldout10, 13)
        return (fact.key[:-1],)
    if len(last) >= 4 and last.isalpha() and not last.endswith("s") and re.search(r"[\u3400-\u9fff]", fact.sentence):
        # and a Chinese text's English word in the singular: Cookie for the source's cookies (heldout14); only there,
        # where every Latin word reads as a name: in English, "Kerbero" is no form of Kerberos
        return fact.key + "s", fact.key + "es"  # 类 Unix 系统 for the source's Unixes (heldout15)
    glued_version = rf"(?<!\w){re.escape(fact.text)}(\d+(?:\.\d+){{0,3}})(?![\w.]\d)"
    if re.search(r"\s[Vv]$", fact.text) and (hit := re.search(glued_version, fact.sentence)):
        # a name with its version glued to a v (round 14): "Prototype JavaScript Framework V1.6.0" is read with its
        # version, so the source's name and that same version are found, "V1.7.0" is not
        return (" ".join(words(fact.text + hit.group(1))),)
    return ()


def _surname_and_year(fact: Fact, evidence: _Evidence) -> str | None:
    """A month and year that are a surname and a year ("- Thom May, 2003-2006" for the source's "Copyright: 2003-2006
    Thom May", heldout14): found where one line of the source holds the name with the word before it and the year."""
    if fact.kind != FactKind.date or len(fact.key) != 7:
        return None
    hit = re.search(rf"\b([A-Z][a-z]+)\s+{re.escape(fact.text)}", fact.sentence)
    if not hit:
        return None
    name, year = words(f"{hit.group(1)} {fact.text.split()[0]}"), fact.key[:4]
    return next((sentence for sentence, found in evidence.sentences if year in found and has_run(found, name) >= 0),
                None)


def _described_parts(fact: Fact) -> list[list[str]]:
    """A name a compound adjective runs through, "a Celery-maintained AMQP client" (heldout13): the name before the
    lower-case part (Celery) and the name after it (AMQP), each to be found; [] for any other name."""
    hit = re.search(r"(?<![\w-])([A-Z][\w.]*)-[a-z]+(?:-[a-z]+)*(?![\w-])", fact.text)
    if not hit:
        return []
    return [part for part in (words(fact.text[:hit.start()] + hit.group(1)), words(fact.text[hit.end():])) if part]


def _elided_quote(parts: list[str], evidence: _Evidence) -> str | None:
    """A quotation cut short or with the writer's words in brackets: each part a whole run of the source, in order.
    A lone word could be anywhere, so it must run on into the part beside it ("We [the city] will not...")."""
    runs: list[list[str]] = []
    for part in parts:
        if runs and (len(part.split()) == 1 or len(runs[-1]) == 1):
            runs[-1] += part.split()
        else:
            runs.append(part.split())
    at = 0
    for needle in runs:
        if (found := has_run(evidence.words[at:], needle)) < 0:
            return None
        at += found + len(needle)
    return _passage_of_words(evidence, " ".join(runs[0]))


def _fuller_name(name: list[str], evidence: _Evidence) -> str | None:
    """A name given without its middle names ("Carlos Melara" for the source's Carlos Henrique Lima Melara): a name
    of the source with the same first and last word and the others among its own, in order."""
    if len(name) < 2:
        return None
    for found in evidence.names:
        full = found.key.split()
        if len(full) > len(name) and full[0] == name[0] and full[-1] == name[-1]:
            rest = iter(full[1:-1])
            if all(word in rest for word in name[1:-1]):  # a subsequence: each found after the one before
                return found.sentence
    return None


def _ordinary_opening(fact: Fact, evidence: _Evidence) -> str | None:
    """A name whose first word is capitalised only because it opens the sentence ("Upstream GnuPG now defaults",
    "Maintainers note that"), when the source writes that word in lower case: the rest of the run is the name."""
    first, _, rest = fact.key.partition(" ")
    if not re.search(rf"(?<![\w'’-]){re.escape(first)}(?![\w'’-])", evidence.text):  # case-sensitive: in lower case
        return None
    if not rest:
        return _passage_of_words(evidence, first)
    return _passage_of_words(evidence, rest) if has_run(evidence.words, rest.split()) >= 0 else None


def _series_in(fact: Fact, evidence: _Evidence, everything: str) -> str | None:
    """The source's version of the series ``fact`` names ("gawk 5.2": 5.2.1; "systemd 252": 252.38), where the
    product it names is the sources': named anywhere in them for a two-part series (a NEWS file's 5.2.1 with its
    README naming libgcrypt), right before the version for a bare major number (systemd (252.38), as "added 3
    options" must not be found in a 3.0.19)."""
    series = fact.text
    for found in evidence.facts:
        written = re.match(r"\d+(?:\.\d+)*", found.text)
        if found.kind != FactKind.number or found.unit is not None or not written:
            continue
        if not written.group().startswith(series + "."):
            continue
        product = fact.series
        if not product:
            return found.sentence
        # the product right before the version, or with its series glued to it (a Debian source package's
        # "boost1.37 (1.37.0-1)"), or the version under a label whose product the sources name ("## v0.9.0",
        # "## [1.12.2]", "Version: 1.9.6": a change log or a control file of that product)
        named_before = re.search(rf"(?<![\w.-]){re.escape(product)}(?:{re.escape(series)})?\W{{0,3}}"
                                 rf"{re.escape(written.group())}", evidence.text, flags=re.I) or (
            (re.search(rf"^[ \t]*(?:#+[ \t]*\[?v?|version:?[ \t]*v?){re.escape(written.group())}(?![\w.])",
                       evidence.text, flags=re.I | re.M) or _titled(written.group(), evidence.text))
            and re.search(rf"(?<![\w.-]){re.escape(product)}(?![\w])", everything, flags=re.I))
        if not re.search(rf"(?<![\w.-]){re.escape(product)}\W{{0,3}}{re.escape(series)}(?![\d.])", fact.sentence,
                         flags=re.I):
            named = named_before  # a range's version ("dconf, from 0.36 to 0.40"): the product right before it there
        else:
            named = named_before or ("." in series and re.search(  # python in python3.11 too
                rf"(?<![\w.-]){re.escape(product)}(?:\d|(?![\w-]))", everything, flags=re.I))
        if named:
            return found.sentence
    return None


def _titled(version: str, text: str) -> re.Match[str] | None:
    """A version that is a section's title, underlined (reStructuredText, setext Markdown): "38.0.4 - 2022-11-27" over
    "~~~~": a change log's release heading, as "## [0.11.0]" is."""
    return re.search(rf"^[ \t]*v?{re.escape(version)}(?![\w.])[^\n]*\n[ \t]*([-=~^*#])\1{{2,}}[ \t]*$", text,
                     flags=re.I | re.M)


def _acronym_numbers(fact: Fact) -> tuple[str, ...]:
    """A name ending in an acronym in the other number: CVEs for the source's CVE-..., X9.62 OID for its OIDs."""
    if fact.kind != FactKind.name or not (last := re.search(r"\b([A-Z]{2,})(s?)$", fact.text)):
        return ()
    stem = fact.key.rsplit(" ", 1)[0] + " " if " " in fact.key else ""
    return (stem + last.group(1).lower() + ("" if last.group(2) else "s"),)


def _sentence_around(text: str, at: int) -> str:
    start = max(text.rfind(".", 0, at), text.rfind("。", 0, at), text.rfind("\n", 0, at)) + 1
    ends = [i for i in (text.find(". ", at), text.find("。", at), text.find("\n", at)) if i >= 0]
    return " ".join(text[start:min(ends) + 1 if ends else len(text)].split())[:400]


def _same_value(fact: Fact, found: Fact) -> bool:
    if fact.kind == FactKind.year:
        return (found.kind == FactKind.year and found.key == fact.key) or (
            found.kind == FactKind.date and found.key[:4] == fact.key) or (
            found.kind == FactKind.number and found.key == fact.key)
    if fact.kind == FactKind.number and "decade" in (fact.unit, found.unit):  # 九十年代 is in the 1990s, any 90s
        return found.kind == FactKind.number and fact.unit == found.unit and (
            found.key == fact.key or (len(fact.key) == 2 and found.key[-2:] == fact.key))
    if fact.kind == FactKind.number:
        # a Chinese range of years read with its 年 ("1991 至 2018 年": 1991 is a year, no 1991 years)
        year_range = fact.unit == "year_unit" and re.fullmatch(r"(?:18|19|20)\d\d", fact.key)
        if found.kind == FactKind.year:
            return (fact.unit is None or bool(year_range)) and found.key == fact.key
        if found.kind == FactKind.date and year_range:
            # and found, as a year is, in a source's date of that year ("2002 至 2003 年间" in "February 10th 2002")
            return found.key[:4] == fact.key
        if found.kind == FactKind.number and re.fullmatch(r"\d+\.\d+", fact.text) and found.text == fact.text + ".0":
            # a release as X.Y, the source's X.Y.0 of a product the article's sentence names ("wayland 打包日志：1.19"
            # for "wayland (1.19.0-1)", heldout15); not X.Y.1, and not a bare 0.40 in a sentence naming no product
            product = re.search(rf"([A-Za-z][\w+-]*)\W+{re.escape(found.text)}", found.sentence)
            return bool(product) and re.search(rf"(?<![\w-]){re.escape(product.group(1))}(?![\w-])", fact.sentence,
                                               flags=re.I) is not None
        if found.kind != FactKind.number or not _same_number(fact, found):
            return False
        return fact.unit is None or found.unit is None or _same_unit(fact.unit, found.unit)
    if fact.kind == FactKind.url and found.kind == FactKind.url and "?" in found.key:
        # the page of a source's address without its query (a badge's ".../actions?query=workflow%3ACI")
        return found.key == fact.key or found.key.split("?", 1)[0].rstrip("/") == fact.key
    if fact.kind == FactKind.date and found.kind == FactKind.date:
        if re.fullmatch(r"\d\d(?:-\d\d)?", fact.key):  # a month and day without a year (May 1): any year's
            without_year = found.key[5:] if re.match(r"\d{4}-", found.key) else found.key  # a source's 5月1日 too
            return without_year == fact.key if len(fact.key) == 5 else without_year[:2] == fact.key
        return found.key == fact.key or (len(fact.key) == 7 and found.key[:7] == fact.key)
    if fact.kind == FactKind.time and found.kind == FactKind.time:  # 22:14 is in 22:14:33; 03:00|15:00 either
        return any(found.key == key or found.key.startswith(key + ":") for key in fact.key.split("|"))
    if fact.kind in (FactKind.money, FactKind.percent) and found.kind == fact.kind:
        currency, _, value = fact.key.rpartition(":")
        other_currency, _, other = found.key.rpartition(":")
        return currency == other_currency and _same_number(fact, found, value, other)
    return found.kind == fact.kind and found.key == fact.key


def _unit_said_beside(fact: Fact, found: Fact, facts: list[Fact]) -> bool:
    """Whether a source's number without a unit is the same quantity its sentence gives with another unit than the
    article's: "every 1000 msec: perf stat -I 1000" says what 1000 is, so it backs no "1000 seconds" (heldout11)."""
    if fact.kind != FactKind.number or not fact.unit or found.kind != FactKind.number or found.unit:
        return False
    return any(other.kind == FactKind.number and other.unit and other.key == found.key
               and other.sentence == found.sentence and not _same_unit(fact.unit, other.unit) for other in facts)


def _same_unit(unit: str, other: str) -> bool:
    """The same unit (and period, "person/year"); a word of two senses ("person|bit": 位 counts people and bits)
    agrees with either."""
    (senses, _, period), (other_senses, _, other_period) = unit.partition("/"), other.partition("/")
    return unit == other or (period == other_period and bool(set(senses.split("|")) & set(other_senses.split("|"))))


def _same_number(fact: Fact, found: Fact, value: str | None = None, other: str | None = None) -> bool:
    """The same value; or, for a hedged figure ("about 18,000"), the source's value rounded honestly: within the
    figure's last significant place (18,400 -> about 18,000 or nearly 19,000) and within 5 percent of it."""
    value, other = value or fact.key, other or found.key
    if value == other:
        return True
    if not fact.approx:
        return False
    try:
        said, exact = Decimal(value), Decimal(other)
    except InvalidOperation:  # a three-part version ("1.07.1") is a number fact but no decimal: no rounding
        return False
    if said <= 0 or exact <= 0 or said != said.to_integral_value():
        return False
    digits = str(int(said))
    place = Decimal(10) ** (len(digits) - len(digits.rstrip("0")))
    return place > 1 and abs(said - exact) <= place and abs(said - exact) <= exact * Decimal("0.05")


_LINK_TARGET = re.compile(r"(?<=\])\([^()\s]+\)")


def _source_words(text: str) -> list[str]:
    """A source's words; where it links a word ("a fast [BPE](https://...) tokeniser"), its words as read, without
    the link's address, follow them, so a quotation of the sentence is found. A trademark's marks are read without
    them too (round 13): "Intel(R) Xeon(R) Platinum" is the Intel Xeon Platinum an article names, as a reader drops
    (R), (TM), ® and ™; the words around them stay as they are, so another name is not found."""
    read = _TRADEMARK.sub("", _LINK_TARGET.sub("", text))
    # a compiler or CMake definition (-DCBOR_CUSTOM_ALLOC=ON, -DNDEBUG) defines the identifier after its -D
    read = _DEFINE_FLAG.sub(r"\1 ", read)
    # and an HTML source's words without its tags: '<a href="...">DITA</a> 1.3 payload' is "DITA 1.3 payload" (heldout15)
    read = _HTML_TAG.sub("", read)
    # and a word a rendered man page (or a wrapped text) breaks at the end of a line, "Ker‐\n   beros", whole (heldout12);
    # beside the text as written, so a compound broken at its own hyphen, "user-\nspecific", stays readable. Words
    # only: reading the joined text's facts again doubled the time of a 200,000-character source
    read = _LINE_BREAK_HYPHEN.sub("", read)
    return words(text) + ([""] + words(read) if read != text else [])


_TRADEMARK = re.compile(r"\((?:R|TM|r|tm)\)|[®™]")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[A-Za-z])[-\u2010\u00ad][ \t]*\n[ \t]*(?=[a-z])")
_DEFINE_FLAG = re.compile(r"(?<![\w-])(-D)(?=[A-Za-z_][A-Za-z0-9_]*(?:=|\s|$))")


def _passage_of_words(evidence: _Evidence, key: str) -> str:
    needle = key.split()
    for sentence, sentence_words in evidence.sentences:
        if has_run(sentence_words, needle) >= 0:
            return " ".join(sentence.split())[:400]
    return " ".join(evidence.text.split())[:400]


def _glossed(fact: Fact, text: str) -> str | None:
    """A Chinese term the article quotes as a term (什么是"外部函数接口"？) and itself gives as the translation of an
    English one, "Foreign Function Interface（外部函数接口）" or the other way round: the English term's words, which
    a source must hold for the quoted term to be the sources'."""
    if not re.search(r"[\u4e00-\u9fff]", fact.text):
        return None
    term, english = re.escape(fact.text), r"([A-Za-z][A-Za-z0-9'’ -]*[A-Za-z0-9])"
    hit = re.search(rf"{english}\s*[（(]\s*{term}\s*[)）]", text) or re.search(rf"{term}\s*[（(]\s*{english}\s*[)）]", text)
    return " ".join(words(hit.group(1))) if hit and len(words(hit.group(1))) >= 2 else None


def check_facts(text: str, sources: list[tuple[int, str]], brief: str | None = None) -> FactReport:
    """Each checkable fact of ``text`` with the source (or brief, 0) and passage that holds it, if any."""
    # a man page's troff escapes read as the text they render (troff.py): lsof\\-org is lsof-org, \\s-1RC2\\s0 is RC2
    sources = [(n, rendered(t)) for n, t in sources]
    # and an article that copied a man page's font changes (the embedded model: "the first \\fBinfocmp\\fP") names
    # infocmp, not "fBinfocmp"
    text = without_font_changes(text)
    # a source's labels and notations (labelled.py: a copyright line's years, 25/3/2003, bug=76868, compat v13, a
    # Debian revision, 2-6x, 10K records) are its facts too
    evidence = [_Evidence(n, extract_facts(t, source=True) + source_facts(t), _source_words(t), t) for n, t in sources]
    if brief:
        evidence.append(_Evidence(0, extract_facts(brief, source=True), words(brief), brief))
    everything = "\n".join(e.text for e in evidence)
    checked = []
    facts = extract_facts(text)
    for fact in facts:
        hit = next(((e.number, p) for e in evidence if (p := _supports(fact, e, everything)) is not None), None)
        if hit is None and fact.kind == FactKind.quote and (english := _glossed(fact, text)):
            hit = next(((e.number, _passage_of_words(e, english)) for e in evidence
                        if has_run(e.words, english.split()) >= 0), None)
        checked.append(CheckedFact(fact, hit is not None, hit[0] if hit else None, hit[1] if hit else None))
    for i, item in enumerate(checked):
        # a span of days or weeks between two of the article's dates that the sources hold (durations.py)
        if not item.supported and (around := between_dates(item.fact, text, facts)):
            backing = [c for c in checked if c.supported and c.fact.kind == FactKind.date and c.fact.key in around]
            if {c.fact.key for c in backing} == set(around):
                checked[i] = CheckedFact(item.fact, True, backing[-1].source_number, backing[-1].passage)
    every_source = sources + ([(0, brief)] if brief else [])
    for fact, number, passage in noun_counts(text, every_source):
        # "Three types of HTTP authentication" where a source counts its types itself (counted_nouns.py)
        checked.append(CheckedFact(fact, number is not None, number, passage))
    for span, around, agrees in word_spans(text, facts):
        # "a week later, on November 23": checked against the article's two dates when the sources hold both
        backing = [c for c in checked if c.supported and c.fact.kind == FactKind.date and c.fact.key in around]
        if {c.fact.key for c in backing} == set(around):
            sentence = next((c.fact.sentence for c in backing if c.fact.key == around[1]), "")
            span = Fact(span.kind, span.text, span.key, sentence, unit=span.unit)
            checked.append(CheckedFact(span, agrees, backing[-1].source_number if agrees else None,
                                       backing[-1].passage if agrees else None))
    return FactReport(tuple(checked))

__all__ = ["CheckedFact", "Fact", "FactKind", "FactReport", "check_facts", "extract_facts", "words", "zh_number"]
