"""What every scanner of the fact check shares: a text's normalised words and sentences, the text being read (a
copy in which each span already taken is blanked), numerals, months, units, and the words that open sentences.

    words(text)              normalised words (NFKC, case-folded, accents and clitics dropped; CJK per character)
    has_run(words, needle)   where a run of words starts, or -1
    Scan                     one text being read; take() records a fact and blanks its span
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from capabilities.factcheck.types import Fact, FactKind

MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                      "september", "october", "november", "december"), 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
MONTH_RE = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"

ZH_DIGITS = "零〇一二两三四五六七八九十百千万亿"
ZH_NUM = f"[{ZH_DIGITS}]+"
SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12, "万": 10**4, "亿": 10**8}
UNITS = {
    "%": "percent", "％": "percent", "percent": "percent", "per cent": "percent",
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms", "msec": "ms", "msecs": "ms", "毫秒": "ms",
    # a man page's "every 1000 msec" (heldout11); microseconds and nanoseconds beside them ("275us": heldout13)
    "µs": "us", "μs": "us", "us": "us", "usec": "us", "usecs": "us", "microsecond": "us", "microseconds": "us", "微秒": "us",
    "ns": "ns", "nsec": "ns", "nsecs": "ns", "nanosecond": "ns", "nanoseconds": "ns", "纳秒": "ns",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s", "秒": "s",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min", "分钟": "min",
    "h": "h", "hour": "h", "hours": "h", "小时": "h",
    "day": "day", "days": "day", "天": "day", "week": "week", "weeks": "week", "周": "week",
    "month": "month", "months": "month", "个月": "month", "year": "year_unit", "years": "year_unit", "年": "year_unit",
    "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "byte": "byte", "bytes": "byte",
    "kib": "kib", "mib": "mib", "gib": "gib", "tib": "tib", "pb": "pb", "eb": "eb",
    # the byte units in words: 16 exabytes is not 16 petabytes
    "kilobytes": "kb", "kilobyte": "kb", "megabytes": "mb", "megabyte": "mb", "gigabytes": "gb", "gigabyte": "gb",
    "terabytes": "tb", "terabyte": "tb", "petabytes": "pb", "petabyte": "pb", "exabytes": "eb", "exabyte": "eb",
    "km": "km", "m": "m", "cm": "cm", "mm": "mm", "kg": "kg", "g": "g", "t": "t", "tonnes": "t", "tons": "t",
    "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km", "metres": "m", "meters": "m",
    "metre": "m", "meter": "m", "kilograms": "kg", "kilogram": "kg", "tonne": "t", "ton": "t",
    "公里": "km", "千米": "km", "米": "m", "公斤": "kg", "千克": "kg", "吨": "t",
    "平方公里": "km2", "平方千米": "km2", "km2": "km2", "km²": "km2", "平方米": "m2", "m2": "m2", "m²": "m2",
    "公顷": "ha", "ha": "ha", "hectares": "ha", "hectare": "ha", "亩": "mu",
    "kw": "kw", "kwh": "kwh", "mw": "mw", "mwh": "mwh", "gw": "gw", "gwh": "gwh", "twh": "twh", "w": "w",
    "kilowatts": "kw", "kilowatt": "kw", "megawatts": "mw", "megawatt": "mw", "gigawatts": "gw", "gigawatt": "gw",
    "kilowatt-hours": "kwh", "kilowatt-hour": "kwh", "megawatt-hours": "mwh", "megawatt-hour": "mwh",
    "gigawatt-hours": "gwh", "gigawatt-hour": "gwh", "terawatt-hours": "twh", "terawatt-hour": "twh",
    "hz": "hz", "khz": "khz", "mhz": "mhz", "ghz": "ghz", "mph": "mph", "km/h": "km/h", "°c": "c", "℃": "c",
    "words": "word", "word": "word", "字": "word", "tokens": "token", "token": "token",
    "characters": "char", "character": "char", "chars": "char", "字符": "char", "个字符": "char", "字节": "byte",
    "个字节": "byte",
    "cores": "core", "core": "core", "bits": "bit", "bit": "bit", "次": "times", "遍": "times", "times": "times", "个": None, "名": "person", "人": "person",
    "people": "person", "persons": "person", "位": "person|bit",  # 五位专家, 2048 位的密钥
    # Chinese counters: 120万块 is not 120万吨; a number without a counter (个, or none) matches any
    "块": "块", "台": "台", "件": "件", "辆": "辆", "座": "座", "条": "条", "家": "家", "所": "所", "本": "册",
    "册": "册", "张": "张", "架": "架", "艘": "艘", "套": "套",
}
HEDGES = re.compile(r"(?:\b(?:about|around|roughly|nearly|almost|approximately|some|close\s+to|more\s+than|over|"
                    r"under|less\s+than|just\s+over|just\s+under|upwards\s+of)\s+[$€£¥￥]?|约|大约|近|将近|接近|超过|逾|"
                    r"不到|近乎)$", re.I)
STARTERS = frozenset("""a an the this that these those in on at for by with from and but or if when while after
before as since each every its their our your his her it we they you he she there here what why how who which then
so yet also not no all some many most one two three four five six seven eight nine ten today tomorrow yesterday
first second third next last every both only even still however instead because although though unless until
now once where whose my me us them do does did is are was were be been has have had can could will would should
may might must shall i
otherwise meanwhile moreover furthermore nevertheless nonetheless therefore thus hence consequently accordingly
likewise similarly additionally alternatively besides finally subsequently afterwards later earlier again indeed
under over about across against along among around behind below beneath beside between beyond despite during
except inside into near onto outside through throughout toward towards upon within without via""".split())


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


# the combining marks that accent Latin letters (the Unicode blocks of combining diacritics)
_ACCENTS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _without_accents(text: str) -> str:
    """Héctor Orón as Hector Oron: an English text often drops the accents its source has."""
    if text.isascii():  # most sentences: nothing to drop, and this is called for each sentence of each source
        return text
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFD", text)))


# a clitic on a word is not part of it: Debian's, the block was XOR'd, it'll; and a verb made of a name with an
# apostrophe, XSync'ing, mmap'ed (heldout11)
_CLITIC = re.compile(r"(?<=[^\W_])['’](?:s|d|ll|re|ve|ing|ed)(?![^\W_])")


def words(text: str) -> list[str]:
    """Normalised words: Latin runs and digits as words, each CJK character a word, punctuation dropped; accents
    and clitics ('s, 'd) dropped."""
    return re.findall(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_\u3400-\u9fff\uf900-\ufaff]+(?:['’][^\W_\u3400-\u9fff\uf900-\ufaff]+)?",
                      _CLITIC.sub("", _without_accents(normalise(text))))  # Redis于2022年: 'redis' is a word of its own


def has_run(haystack: list[str], needle: list[str]) -> int:
    """Where ``needle`` starts as a whole run of words in ``haystack``, or -1."""
    if not needle:
        return -1
    first, n = needle[0], len(needle)
    for i, word in enumerate(haystack):
        if word == first and haystack[i:i + n] == needle:
            return i
    return -1


def zh_number(text: str) -> Decimal | None:
    """A Chinese numeral as a value: 十二 = 12, 一千二百 = 1200, 三万 = 30000, 二〇二四 = 2024."""
    digits = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
    if all(ch in digits for ch in text):
        return Decimal("".join(str(digits[ch]) for ch in text)) if len(text) > 1 else Decimal(digits[text])
    total, section, current = 0, 0, 0
    for ch in text:
        if ch in digits:
            current = digits[ch]
        elif ch in "十百千":
            section += (current or 1) * {"十": 10, "百": 100, "千": 1000}[ch]
            current = 0
        elif ch in "万亿":
            total += (section + current) * SCALES[ch]
            section, current = 0, 0
        else:
            return None
    return Decimal(total + section + current)


BLANK = " "  # a taken span is overwritten with one for each character, so offsets in the masked copy stay


@dataclass
class Scan:
    """One text being read: a copy in which every span already taken is blanked, and the sentence bounds."""

    text: str
    masked: str
    facts: list[Fact]
    markdown: str = ""  # the text before its marks were cleaned: where the article's headings are

    def take(self, match: re.Match[str], kind: FactKind, key: str, unit: str | None = None, group: int = 0) -> None:
        start, end = match.span(group)
        approx = kind in (FactKind.number, FactKind.money, FactKind.percent) and _hedged(self.masked, start, end)
        series = _series(self.text, start, end) if kind == FactKind.number and unit is None else None
        self.blank(start, end)
        self.facts.append(Fact(kind, match.group(group).strip(), key, sentence_at(self.text, start), unit, approx,
                               series=series))

    def blank(self, start: int, end: int) -> None:
        """Overwrite the masked copy's span with BLANKs, so that no later pattern reads it."""
        self.masked = self.masked[:start] + BLANK * (end - start) + self.masked[end:]


_SERIES_WORD_BEFORE = re.compile(r"\b(?:versions?|releases?|branch|series)(?:\s+of)?\s+$", re.I)
_SERIES_WORD_AFTER = re.compile(r"\s*(?:branch|series|line|releases?|分支|系列)", re.I)
_PRODUCT_BEFORE = re.compile(r"(?<![\w.-])([A-Za-z][\w+-]*)[ \t]+$")


def _series(text: str, start: int, end: int) -> str | None:
    """Whether a bare number names a release series: "gawk 5.2", "OpenSSL 3.0" (the product before it), "the 252
    branch", "releases of 252" (a version word) - and so is found in a source's 5.2.1 or 252.38."""
    if not re.fullmatch(r"\d+(?:\.\d+)?", text[start:end]):
        return None
    before = text[max(0, start - 40):start]
    if _SERIES_WORD_BEFORE.search(before) or _SERIES_WORD_AFTER.match(text, end):
        return ""
    product = _PRODUCT_BEFORE.search(before)
    if not product or product.group(1).lower() in _RANGE_WORDS:
        # a range of the product's versions ("dconf, from 0.36 to 0.40", "gawk 5.1 and 5.2"): the product before
        # the range names each (found only where a source names it right before its version: _series_in)
        trimmed, connected = before, False
        while hit := _RANGE_BEFORE.search(trimmed):
            connected = connected or bool(hit.group(1))
            trimmed = trimmed[:hit.start()]
        product = _PRODUCT_BEFORE.search(trimmed.rstrip(" \t,") + " ") if connected else None
    return product.group(1).lower() if product and product.group(1).lower() not in STARTERS else None


_RANGE_WORDS = frozenset("from between to and through".split())
_RANGE_BEFORE = re.compile(r"(?:,?[ \t]*\b(from|between|to|and|through)|(?<![\w.])\d+(?:\.\d+)+)[ \t]*$", re.I)


def _hedged(text: str, start: int, end: int) -> bool:
    """Whether a number is given as a round figure: "about 18,000", "nearly 30%", "约46万", "46万左右", "100多个"."""
    return bool(HEDGES.search(text[max(0, start - 24):start])) or text[end:end + 4].lstrip().startswith(("左右", "多", "余"))


@lru_cache(maxsize=16)
def _bounds(text: str) -> tuple[list[int], list[int]]:
    """Where the sentences of ``text`` end: each end mark's start and end (found once per text, not per fact)."""
    marks = list(re.finditer(r"[.!?](?=\s|$)|[。！？\n]", text))
    return [m.start() for m in marks], [m.end() for m in marks]


def sentence_at(text: str, at: int) -> str:
    starts, ends = _bounds(text)
    before = bisect.bisect_right(ends, at)
    start = ends[before - 1] if before else 0
    after = bisect.bisect_left(starts, at)
    end = ends[after] if after < len(starts) else len(text)
    return " ".join(text[start:min(end, start + 4000)].split())[:400]  # at most 400 characters are kept


def as_int(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    value = zh_number(text)
    return int(value) if value is not None else None
