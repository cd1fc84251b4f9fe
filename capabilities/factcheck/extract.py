"""Reading checkable facts out of a text (the kinds and rules: capabilities.factcheck's docstring).

    extract_facts(text, source=False) -> list[Fact]     each span taken once, in the order of the kinds
    words(text)                                         normalised words (NFKC, case-folded; CJK per character)
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from decimal import Decimal

from capabilities.factcheck.types import Fact, FactKind

MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                      "september", "october", "november", "december"), 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
_BARE_NUM = r"(\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?![\d,]|\.\d)|\d+)(?:\.(\d+))?(?![\d])"
_NUM = r"(?<![A-Za-z0-9_.,\-/])" + _BARE_NUM  # a CJK character may touch a number: 安装了1200台
_ZH_DIGITS = "零〇一二两三四五六七八九十百千万亿"
_ZH_NUM = f"[{_ZH_DIGITS}]+"
SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12, "万": 10**4, "亿": 10**8}
UNITS = {
    "%": "percent", "％": "percent", "percent": "percent", "per cent": "percent",
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s", "秒": "s",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min", "分钟": "min",
    "h": "h", "hour": "h", "hours": "h", "小时": "h",
    "day": "day", "days": "day", "天": "day", "week": "week", "weeks": "week", "周": "week",
    "month": "month", "months": "month", "个月": "month", "year": "year_unit", "years": "year_unit", "年": "year_unit",
    "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "byte": "byte", "bytes": "byte",
    "kib": "kib", "mib": "mib", "gib": "gib", "tib": "tib",
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
ZH_COUNTED = ("条", "台", "块", "件", "名", "位", "人", "次", "家", "座", "辆", "天", "年", "个月", "周", "小时", "分钟",
              "秒", "本", "册", "张", "项", "遍", "个字符", "个字节", "字符", "字节", "所", "架", "艘", "套", "倍", "万", "亿", "千", "百", "十")
# what 个 counts when it counts the article's own parts (三个方面, 两个原因): structure, like "three reasons"
ZH_PARTS = "|".join("""方面 原因 问题 步骤 部分 阶段 特点 要点 建议 层面 角度 因素 环节 维度 重点 目标 方向 领域 原则 理由 优点 缺点
好处 教训 启示 关键 途径 办法 方法 类型 种类 层次 场景 例子 案例 选择 结论 想法 观点 主题 章节 小节""".split())
_UNIT_RE = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
MONEY_SUFFIXES = {"k": 1000, "m": 10**6, "bn": 10**9, "b": 10**9}
CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "cny", "￥": "cny"}
CURRENCY_WORDS = {"dollars": "usd", "dollar": "usd", "usd": "usd", "euros": "eur", "euro": "eur", "eur": "eur",
                  "pounds": "gbp", "gbp": "gbp", "yuan": "cny", "rmb": "cny", "元": "cny", "美元": "usd", "欧元": "eur"}
NUMBER_WORDS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                            "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                            "sixteen", "seventeen", "eighteen", "nineteen"))}
NUMBER_WORDS.update({w: 10 * i for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                                                      "eighty", "ninety"), 2)})
WORD_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
# "three hundred", "twenty-six", "forty thousand", "one hundred and five": words, scales, hyphens, "and" inside
_WORDS_NUM = (rf"\b(?:{_NUMBER_WORD})(?:(?:-|\s+|\s+and\s+)(?:{_NUMBER_WORD}|hundred|thousand|million|billion)){{0,6}}\b")
# what only counts the article's own parts: "three reasons", "five key steps" (not facts about the world)
STRUCTURE_NOUNS = re.compile(
    r"\s+(?:(?:key|main|simple|important|common|big|major|basic|core|practical|quick|essential|different|other|"
    r"new|useful|good|great|critical|crucial|best)\s+)?(?:reasons?|ways?|points?|steps?|things?|tips?|questions?|"
    r"ideas?|examples?|parts?|lessons?|rules?|kinds?|types?|stages?|phases?|options?|factors?|areas?|principles?|"
    r"pillars?|benefits?|takeaways?|sections?|categories|components?|layers?|checks?|problems?|challenges?|"
    r"strategies|practices?|aspects?|features?|elements?|approaches|methods?|goals?|advantages?|of\s+(?:them|these|"
    r"those|us|the))\b", re.I)
HEDGES = re.compile(r"(?:\b(?:about|around|roughly|nearly|almost|approximately|some|close\s+to|more\s+than|over|"
                    r"under|less\s+than|just\s+over|just\s+under|upwards\s+of)\s+[$€£¥￥]?|约|大约|近|将近|接近|超过|逾|"
                    r"不到|近乎)$", re.I)
STARTERS = frozenset("""a an the this that these those in on at for by with from and but or if when while after
before as since each every its their our your his her it we they you he she there here what why how who which then
so yet also not no all some many most one two three four five six seven eight nine ten today tomorrow yesterday
first second third next last every both only even still however instead because although though unless until
now once where whose my me us them do does did is are was were be been has have had can could will would should
may might must shall i""".split())
QUOTES = (("\u201c", "\u201d"), ('"', '"'), ("\u300c", "\u300d"), ("\u300e", "\u300f"), ("\u2018", "\u2019"))


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _without_accents(text: str) -> str:
    """Héctor Orón as Hector Oron: an English text often drops the accents its source has."""
    return unicodedata.normalize("NFC", "".join(ch for ch in unicodedata.normalize("NFD", text)
                                               if unicodedata.category(ch) != "Mn"))


# a clitic on a word is not part of it: Debian's, the block was XOR'd, it'll
_CLITIC = re.compile(r"(?<=[^\W_])['’](?:s|d|ll|re|ve)(?![^\W_])")


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


def _key(value: Decimal) -> str:
    """A value as its lookup key: 1200, 3500000, 0.5 (never 1.2E+3)."""
    text = format(value.normalize(), "f") if value else "0"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _decimal(whole: str, fraction: str | None, scale: int = 1) -> Decimal:
    return Decimal(re.sub(r"[,\s\u00a0\u2009\u202f]", "", whole) + (f".{fraction}" if fraction else "")) * scale


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


@dataclass
class _Scan:
    """One text being read: a copy in which every span already taken is blanked, and the sentence bounds."""

    text: str
    masked: str
    facts: list[Fact]

    def take(self, match: re.Match[str], kind: FactKind, key: str, unit: str | None = None, group: int = 0) -> None:
        start, end = match.span(group)
        approx = kind in (FactKind.number, FactKind.money, FactKind.percent) and _hedged(self.masked, start, end)
        series = _series(self.text, start, end) if kind == FactKind.number and unit is None else None
        self.masked = self.masked[:start] + " " * (end - start) + self.masked[end:]
        self.facts.append(Fact(kind, match.group(group).strip(), key, _sentence(self.text, start), unit, approx,
                               series=series))


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
    return product.group(1).lower() if product and product.group(1).lower() not in STARTERS else None


def _hedged(text: str, start: int, end: int) -> bool:
    """Whether a number is given as a round figure: "about 18,000", "nearly 30%", "约46万", "46万左右"."""
    return bool(HEDGES.search(text[max(0, start - 24):start])) or text[end:end + 4].lstrip().startswith("左右")


def words_value(phrase: str) -> Decimal:
    """An English number in words as a value: twenty-six = 26, three hundred = 300, forty thousand = 40000."""
    total, current = 0, 0
    for word in re.findall(r"[a-z]+", phrase.lower()):
        if word in NUMBER_WORDS:
            current += NUMBER_WORDS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in WORD_SCALES:
            total += (current or 1) * WORD_SCALES[word]
            current = 0
    return Decimal(total + current)


@lru_cache(maxsize=16)
def _bounds(text: str) -> tuple[list[int], list[int]]:
    """Where the sentences of ``text`` end: each end mark's start and end (found once per text, not per fact)."""
    marks = list(re.finditer(r"[.!?](?=\s|$)|[。！？\n]", text))
    return [m.start() for m in marks], [m.end() for m in marks]


def _sentence(text: str, at: int) -> str:
    starts, ends = _bounds(text)
    before = bisect.bisect_right(ends, at)
    start = ends[before - 1] if before else 0
    after = bisect.bisect_left(starts, at)
    end = ends[after] if after < len(starts) else len(text)
    return " ".join(text[start:min(end, start + 4000)].split())[:400]  # at most 400 characters are kept


ENUMERATORS = re.compile(r"\b(Fact|Step|Part|Section|Chapter|Tip|Point|Rule|Lesson|Reason|Option|Phase|Stage|Item|"
                         r"Lesson|Question|Example|Figure|Table)\s+(\d{1,2})\b|第\s*\d{1,2}\s*(?=[步部分点条个])|"
                         r"(?:^|(?<=\n))[#>*\-\s]*第\s*\d{1,2}\s*(?=[章节]\s*[：:])", re.M)
# a manual page's section after its name, groupadd(8), ioctl(2), is part of the name, not a number
MAN_SECTION = re.compile(r"(?<=[A-Za-z0-9_])\(\d[a-z]{0,4}\)")


def _clean(markdown: str) -> str:
    """Marks that are not facts: citation markers [1], emphasis, list and heading marks, and the numbers that
    only count the article's own parts ("Fact 2:", "Step 3", 第2步)."""
    text = re.sub(r"\[(\d{1,2})\](?!\()", " ", markdown)
    text = ENUMERATORS.sub(lambda m: (m.group(1) or "第") + " " * (m.end() - m.start() - len(m.group(1) or "第")), text)
    text = MAN_SECTION.sub(lambda m: " " * len(m.group()), text)
    text = re.sub(r"^\s{0,3}(?:#{1,6}|[-*+>]|\d{1,3}[.)])\s+", "\n", text, flags=re.M)
    text = re.sub(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`", "", text)
    return re.sub(r"\[([^\]]*)\]\((https?://[^)\s]+)\)", r"\1 \2", text)


def _scan_urls(scan: _Scan) -> None:
    for m in re.finditer(r"https?://[^\s<>()\"'\u3000-\u303f\uff00-\uffef]*[^\s<>()\"'.,;:!?\u3000-\u303f\uff00-\uffef]",
                         scan.masked):
        scan.take(m, FactKind.url, normalise(m.group()).split("://", 1)[1].rstrip("/"))


# an advisory's identifier is one fact, not a year and a number: CVE-2023-27534, DSA-5123-1, GHSA-...
_IDENTIFIER = re.compile(r"(?<![\w-])[A-Z]{2,5}-\d{4}-\d{3,7}(?:-\d{1,3})?(?![\w])")


def _scan_identifiers(scan: _Scan) -> None:
    """Found as the same run of words in a source (fix-CVE-2023-27534-regression.patch holds CVE-2023-27534)."""
    for m in _IDENTIFIER.finditer(scan.masked):
        scan.take(m, FactKind.name, " ".join(words(m.group())))


# days with a fixed date, a date in other words: "New Year's Eve 2020" is 2020-12-31
HOLIDAYS = {"new year's eve": (12, 31), "new year's day": (1, 1), "christmas eve": (12, 24), "christmas day": (12, 25),
            "boxing day": (12, 26), "halloween": (10, 31), "valentine's day": (2, 14)}
_HOLIDAY = "|".join(h.replace("'", "['’]").replace(" ", r"\s+") for h in HOLIDAYS)


def _holiday(name: str) -> tuple[str, str]:
    month, day = HOLIDAYS[" ".join(name.lower().replace("’", "'").split())]
    return str(month), str(day)


# the same year or month as the date before it (同年3月28日, 同月20日, 当年11月): a careful reader carries it over
_ZH_RELATIVE = re.compile(rf"(同年|当年)\s*(\d{{1,2}}|{_ZH_NUM})\s*月(?:\s*(\d{{1,2}}|{_ZH_NUM})\s*[日号])?(?!\s*\d)|"
                          rf"(同月|当月)\s*(\d{{1,2}}|{_ZH_NUM})\s*[日号]")
_ZH_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)\s*年")


def _scan_dates(scan: _Scan) -> None:
    anchors = _scan_date_patterns(scan, _FULL_DATES)
    _scan_zh_relative_dates(scan, anchors)
    _scan_date_patterns(scan, _PARTIAL_DATES)


def _scan_zh_relative_dates(scan: _Scan, anchors: list[tuple[int, str]]) -> None:
    """同年12月1日 after 2020年5月17日 is 2020-12-01; 同月20日 after 2020年1月3日 is 2020-01-20. Without a date
    before it, 同年12月1日 is a month and a day, as 12月1日 would be."""
    anchors += [(m.start(), m.group(1)) for m in _ZH_YEAR.finditer(scan.text)]
    for m in list(_ZH_RELATIVE.finditer(scan.masked)):
        month, day = (m.group(2), m.group(3)) if m.group(1) else (None, m.group(5))
        before = [key for at, key in sorted(anchors) if at < m.start() and len(key) >= (4 if month else 7)]
        mo, d = _int(month) if month else None, _int(day) if day else None
        if mo is None and not before:
            continue
        mo = mo if mo is not None else int(before[-1][5:7])
        if not 1 <= mo <= 12 or (d is not None and not 1 <= d <= 31):
            continue
        key = (before[-1][:4] + "-" if before else "") + f"{mo:02d}" + (f"-{d:02d}" if d else "")
        if len(key) > 2:  # 同年12月 with no year before it says nothing checkable
            anchors.append((m.start(), key))
            scan.take(m, FactKind.date, key)


def _scan_date_patterns(scan: _Scan, patterns: tuple[tuple[str, object], ...]) -> list[tuple[int, str]]:
    """Take each date the patterns find; where each one starts and its key (the anchors of relative dates)."""
    taken = []
    for pattern, order in patterns:
        for m in re.finditer(pattern, scan.masked, flags=re.I):
            year, month, day = order(m.groups())
            y, mo = _int(year) if year else None, MONTHS.get(month.lower().rstrip(".")) if month[0].isalpha() else _int(month)
            d = _int(day) if day else None
            if (y is None and (year or d is None)) or mo is None or not 1 <= mo <= 12 or (d is not None and not 1 <= d <= 31):
                continue
            key = (f"{y:04d}-" if y is not None else "") + f"{mo:02d}" + (f"-{d:02d}" if d else "")
            taken.append((m.start(), key))
            scan.take(m, FactKind.date, key)
    return taken


_FULL_DATES = (
    (rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", lambda g: (g[2], g[0], g[1])),
    (rf"(?<![\d.,])\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH}),?\s+(\d{{4}})\b", lambda g: (g[2], g[1], g[0])),
    # an ISO date, and the time after its T (2006-08-14T02:34:56-06:00): T02 is no name
    (r"(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?(?![\d-])",
     lambda g: (g[0], g[1], g[2])),
    (r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", lambda g: (g[0], g[1], g[2])),
    (rf"({_ZH_NUM})年({_ZH_NUM})月({_ZH_NUM})[日号]", lambda g: (g[0], g[1], g[2])),
    (rf"\b({_MONTH})\s+(?:of\s+)?(\d{{4}})\b", lambda g: (g[1], g[0], None)),
    (r"(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d)", lambda g: (g[0], g[1], None)),
    (rf"\b({_HOLIDAY})(?:,?\s+(?:of\s+)?(\d{{4}})\b)?", lambda g: (g[1], *_holiday(g[0]))),
)
_PARTIAL_DATES = (
    # a month and a day without a year (May 1, 1 May, 5月1日): found in a source's full date of that day
    (rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!,?\s*\d)", lambda g: (None, g[0], g[1])),
    (rf"(?<![\d.,])\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})(?![\w.]|\.\w)", lambda g: (None, g[1], g[0])),
    (r"(?<![\d年])(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", lambda g: (None, g[0], g[1])),
)


# a time of day is one fact, not numbers: 22:14:33 holds no 33, and 中午12点 is 12:00
# (an ISO timestamp's time too, 2006-08-14T02:34:56-06:00, its zone read with it; a zone alone, -06:00, is none)
_CLOCK = re.compile(r"(?<![\d:.+-])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d+)?)?(?:(?<=T..:..:..)(?:Z|[+-]\d\d:?\d\d))?"
                    r"(?![\d:]|\.\d)(?:\s*([ap])\.?m\b\.?)?", re.I)
_EN_HOUR = re.compile(r"(?<![\d:.])(1[0-2]|0?[1-9])\s*([ap])\.?m\b\.?", re.I)
# a Chinese hour needs a part of the day or minutes: 三点 alone may be three points
_ZH_CLOCK = re.compile(rf"(凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里)?(\d{{1,2}}|{_ZH_NUM})点(?:(\d{{1,2}}|{_ZH_NUM})分|(半)|整)?")
_AFTERNOON = ("下午", "傍晚", "晚上", "夜里", "p", "P")


def _scan_times(scan: _Scan) -> None:
    """22:14:33, 3 p.m., 下午3点半 as 24-hour times (15:30); found in a source's time to the minute."""
    for m in _CLOCK.finditer(scan.masked):
        _take_time(scan, m, int(m.group(1)), int(m.group(2)), m.group(3), m.group(4))
    for m in _EN_HOUR.finditer(scan.masked):
        _take_time(scan, m, int(m.group(1)), 0, None, m.group(2))
    for m in _ZH_CLOCK.finditer(scan.masked):
        if not (m.group(1) or m.group(3) or m.group(4)):
            continue
        hour, minute = _int(m.group(2)), _int(m.group(3)) if m.group(3) else (30 if m.group(4) else 0)
        if hour is not None and minute is not None:
            _take_time(scan, m, hour, minute, None, "p" if m.group(1) in _AFTERNOON else None,
                       noon=m.group(1) == "中午")


def _take_time(scan: _Scan, m: re.Match[str], hour: int, minute: int, second: str | None, half: str | None,
               noon: bool = False) -> None:
    if half and half in _AFTERNOON and hour < 12 or noon and hour < 6:
        hour += 12  # 3 p.m., 下午3点, 中午1点
    elif half and half.lower() == "a" and hour == 12:
        hour = 0  # 12 a.m.
    if hour <= 23 and minute <= 59:
        scan.take(m, FactKind.time, f"{hour:02d}:{minute:02d}" + (f":{second}" if second else ""))


def _int(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    value = zh_number(text)
    return int(value) if value is not None else None


def _scan_money(scan: _Scan) -> None:
    scale_words = r"(?:\s*(thousand|million|billion|trillion|万|亿))?"
    signs = "".join(re.escape(s) for s in CURRENCY_SIGNS)
    for m in re.finditer(rf"([{signs}])\s?{_BARE_NUM}(?:{scale_words[3:-2]}|(k|m|bn|b)(?![A-Za-z]))?", scan.masked,
                         flags=re.I):  # $1.2 million, $310K, €14m, $1.9bn
        factor = SCALES.get((m.group(4) or "").lower()) or MONEY_SUFFIXES.get((m.group(5) or "").lower(), 1)
        value = _decimal(m.group(2), m.group(3), factor)
        scan.take(m, FactKind.money, f"{CURRENCY_SIGNS[m.group(1)]}:{_key(value)}")
    words_re = "|".join(sorted(CURRENCY_WORDS, key=len, reverse=True))
    for m in re.finditer(rf"{_NUM}{scale_words}\s?({words_re})(?![a-z])", scan.masked, flags=re.I):
        value = _decimal(m.group(1), m.group(2), SCALES.get((m.group(3) or "").lower(), 1))
        scan.take(m, FactKind.money, f"{CURRENCY_WORDS[m.group(4).lower()]}:{_key(value)}")
    for m in re.finditer(rf"(?<!第)({_ZH_NUM})(美元|欧元|元)", scan.masked):  # 三十元, 一千四百万欧元
        if (value := zh_number(m.group(1))) is not None:
            scan.take(m, FactKind.money, f"{CURRENCY_WORDS[m.group(2)]}:{_key(value)}")


_RANGE = re.compile(r"(?<![A-Za-z0-9_.,\-/])(?P<a>\d+(?:\.\d+)?)\s?(?:[-–—~～到至]|\s(?:to|and)\s)\s?(?P<b>\d+(?:\.\d+)?)"
                    rf"\s?(?P<u>%|％|percent\b|per cent\b|(?:{_UNIT_RE})(?![a-z]))", re.I)


def _scan_ranges(scan: _Scan) -> None:
    """A range gives its unit to both ends: 60-70% is 60% and 70%, 25-30分钟 is 25 and 30 minutes."""
    for m in list(_RANGE.finditer(scan.masked)):
        unit = m.group("u").lower()
        for end in ("a", "b"):
            key = _key(Decimal(m.group(end)))
            if UNITS.get(unit) == "percent":
                scan.take(m, FactKind.percent, key, group=end)
            else:
                scan.take(m, FactKind.number, key, UNITS.get(unit), group=end)
        start, stop = m.span("u")
        scan.masked = scan.masked[:start] + " " * (stop - start) + scan.masked[stop:]  # MB is no name either


def _scan_percent(scan: _Scan) -> None:
    for m in re.finditer(rf"{_NUM}\s?(%|％|percent\b|per cent\b)", scan.masked, flags=re.I):
        scan.take(m, FactKind.percent, _key(_decimal(m.group(1), m.group(2))))
    for m in re.finditer(rf"({_WORDS_NUM})(?:\s+|-)(?:percent|per\s+cent)\b", scan.masked, flags=re.I):
        scan.take(m, FactKind.percent, _key(words_value(m.group(1))))  # twelve percent
    for m in re.finditer(rf"百分之({_ZH_NUM}|\d+(?:\.\d+)?)", scan.masked):
        value = zh_number(m.group(1)) if not m.group(1)[0].isdigit() else Decimal(m.group(1))
        if value is not None:
            scan.take(m, FactKind.percent, _key(value))


PERIODS = {"year": "year", "month": "month", "week": "week", "day": "day", "hour": "hour",
           "年": "year", "月": "month", "周": "week", "天": "day", "日": "day", "小时": "hour"}
_RATE_EN = re.compile(r"(?:\s+[A-Za-z-]+){0,2}?\s+(?:a|an|per|each|every)\s+(year|month|week|day|hour)\b", re.I)
_RATE_ZH = re.compile(r"每(年|月|周|天|日|小时)[^\d，。,.]{0,3}$")


def _rate(text: str, start: int, end: int) -> str | None:
    """The period of a rate around a number: "250,000 items a year", "每年外借25万件" -> year."""
    if hit := _RATE_EN.match(text, end, min(len(text), end + 40)):
        return PERIODS[hit.group(1).lower()]
    if hit := _RATE_ZH.search(text[max(0, start - 6):start]):
        return PERIODS[hit.group(1)]
    return None


# a version: three or more parts anywhere (2.5.3), or two glued to a word or a v (coreutils-6.7, v5.15)
_VERSION = re.compile(r"(?:(?<![\w.,/-])(?=\d+\.\d+\.\d)|(?<=[A-Za-z]-)|(?<=(?<![\w])[vV]))(\d+(?:\.\d+){1,3})(?![\w]|\.\d)")
# a source names release notes by their files: RelNotes/2.39.3.txt is version 2.39.3
_SOURCE_VERSION = re.compile(r"(?:(?<![\w.,-])(?=\d+\.\d+\.\d)|(?<=[A-Za-z]-)|(?<=(?<![\w])[vV]))(\d+(?:\.\d+){1,3})(?![\w]|\.\d)")


def _scan_versions(scan: _Scan, source: bool) -> None:
    """Versions: 2.5.3 is one fact, kept as written (a changed 2.5.1 is caught); a two-part one glued to a word
    (coreutils-6.7, v5.15) is the number 6.7, as it would be standing alone."""
    for m in (_SOURCE_VERSION if source else _VERSION).finditer(scan.masked):
        version = m.group(1)
        key = version if version.count(".") > 1 else _key(Decimal(version))
        scan.take(m, FactKind.number, key, group=1)


def _scan_numbers(scan: _Scan, number_words: bool) -> None:
    scale = r"(?:\s*(thousand|million|billion|trillion)\b|\s?(万|亿))?"
    unit = rf"(?:\s?-?\s?({_UNIT_RE})(?![a-z]))?"
    # 1-125, 00..59, "1999-2016, 2018"; in a source also the second of two numbers "32/64-bit" gives
    after = r"(?:(?<=\d[-–~～/])|(?<=\d\.\.))" if number_words else r"(?:(?<=\d[-–~～])|(?<=\d\.\.))"
    for m in re.finditer(after + r"(\d+(?:\.\d+)?)(?!\w|[.,-]\d)", scan.masked):
        scan.take(m, FactKind.number, _key(Decimal(m.group(1))))
    for m in re.finditer(rf"{_NUM}{scale}{unit}(?![A-Za-z]|\.\d)", scan.masked, flags=re.I):  # not 5xx, not 0.5B
        factor = SCALES.get((m.group(3) or m.group(4) or "").lower(), 1)
        value = _decimal(m.group(1), m.group(2), factor)
        unit_name = UNITS.get((m.group(5) or "").lower()) if m.group(5) else None
        plain = not m.group(2) and factor == 1 and (unit_name is None or m.group(5) == "年")
        if plain and 1800 <= value <= 2100 and len(m.group(1)) == 4:  # 2024, 2024年
            scan.take(m, FactKind.year, _key(value))
        else:
            rate = _rate(scan.masked, m.start(), m.end())
            scan.take(m, FactKind.number, _key(value), f"{unit_name or ''}/{rate}" if rate else unit_name)
        if number_words and re.search(r"\d\s\d", m.group(1)):  # a source's "status 255 125 if": 255 and 125 too
            sentence = scan.facts[-1].sentence
            scan.facts += [Fact(FactKind.number, part, _key(Decimal(part)), sentence) for part in m.group(1).split()]
    zh_unit = "|".join(sorted((re.escape(u) for u in UNITS if re.match(r"[\u4e00-\u9fff]", u)), key=len, reverse=True))
    pattern = rf"({_ZH_NUM})({zh_unit})?" if number_words else rf"([{_ZH_DIGITS}]*[十百千万亿][{_ZH_DIGITS}]*)({zh_unit})?"
    pattern += rf"(?![{_ZH_DIGITS}]*进制)"  # 十六进制 is hexadecimal, not 16
    for m in re.finditer(pattern, scan.masked):
        if not number_words and (len(m.group(1)) == 1 or m.group(1)[0] in "万亿"):
            continue  # a lone 千, 万, 十 in an article is a word: 千字节 (kilobyte), 万一 (in case), 十分 (very)
        value = zh_number(m.group(1))
        if value is not None:
            scan.take(m, FactKind.number, _key(value), UNITS.get(m.group(2) or ""))
    if not number_words:  # an article: a lone 二..九 is a number only with a counter (两条, 三台; not 三个方面, 第三)
        counters = "|".join(sorted((re.escape(u) for u in ZH_COUNTED), key=len, reverse=True))
        # 个, the counter of anything, only from three on: 两个 is as common as "two", which is not checked either
        for m in re.finditer(rf"(?<![第{_ZH_DIGITS}])(?:([二两三四五六七八九])({counters})|([三四五六七八九])(个)(?!\s*(?:{ZH_PARTS})))",
                             scan.masked):
            digit, counter = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            scan.take(m, FactKind.number, _key(zh_number(digit) or Decimal(0)), UNITS.get(counter))
    for m in re.finditer(rf"({_WORDS_NUM})(?:\s?-?({_UNIT_RE})(?![a-z]))?", scan.masked, flags=re.I):
        value = words_value(m.group(1))
        compound = len(re.findall(r"[a-z]+", m.group(1).lower())) > 1
        if not number_words and ((value < 3 and not compound) or STRUCTURE_NOUNS.match(scan.masked, m.end(1))
                                 or _counts_the_list_after(scan.text, m.end(1), value)):
            continue  # an article's "one of", "two cities", "three reasons" are not checked
        unit_name = UNITS.get((m.group(2) or "").lower()) if m.group(2) else None
        rate = _rate(scan.masked, m.start(), m.end())
        scan.take(m, FactKind.number, _key(value), f"{unit_name or ''}/{rate}" if rate else unit_name)


def _counts_the_list_after(text: str, at: int, value: Decimal) -> bool:
    """"six HTTP codes: 408, 429, 500, 502, 503 and 504" counts the list that follows; it is the article's structure.
    A count the list contradicts ("five codes: 408, 429, 500, 502, 503 and 504") is still a fact and is checked."""
    hit = re.match(r"[^.:;!?\n]{0,40}?:\s*([^.;!?\n]+)", text[at:at + 400])
    if not hit:
        return False
    items = [i for i in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", hit.group(1).strip()) if i.strip()]
    return len(items) == value


# a quotation cut short ("we will ... go back", "it […] was fixed") or with the writer's words in brackets ("it [the
# bug] was fixed"): each part must be in the source, in that order
_ELISION = re.compile(r"\s*(?:\.\.\.|…|\[[^\]]*\])\s*")
QUOTE_PARTS = " | "  # between the parts of a key; never a word


def _quote_key(quoted: str) -> str:
    parts = [" ".join(words(part)) for part in _ELISION.split(quoted)]
    return QUOTE_PARTS.join(part for part in parts if part)


def _scan_quotes(scan: _Scan) -> None:
    for opening, closing in QUOTES:
        # marks pair in order, a short quotation too: in 'refusing "/", which meant "silently..."' the "/" is one
        # quotation and ', which meant ' none
        for m in re.finditer(rf"{re.escape(opening)}([^{re.escape(opening + closing)}\n]*){re.escape(closing)}",
                             scan.masked):
            if not 2 <= len(m.group(1)) <= 400:
                continue
            quoted = words(m.group(1))
            cjk = sum(1 for w in quoted if re.match(r"[\u3400-\u9fff]", w))
            # “分解时间”, a term of 4 or 5 Chinese characters alone, is no quotation; a sentence or a mix still is
            term = cjk == len(quoted) and cjk < 6 and not re.search(r"[，。！？；、,.!?;]", m.group(1))
            if len(quoted) - cjk >= 3 or (cjk >= 4 and not term):
                scan.take(m, FactKind.quote, _quote_key(m.group(1)), group=1)
    for m in re.finditer(r"《([^《》\n]{1,100})》", scan.masked):
        scan.take(m, FactKind.title, " ".join(words(m.group(1))), group=1)


# Latin letters, accented ones too: Héctor Orón Martínez is one name, not H, Or and Mart (held-out set)
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
_TOKEN = re.compile(rf"(?<![{_LATIN}0-9])[{_LATIN}][{_LATIN}0-9]*(?:[-_.'’][{_LATIN}0-9]+)*")  # not the B of 0.5B


def _capitalised(token: str) -> bool:
    return token[0].isupper() or any(ch.isupper() for ch in token[1:]) or any(ch.isdigit() for ch in token)


def _scan_names(scan: _Scan) -> None:
    run: list[re.Match[str]] = []

    def flush() -> None:
        while run and (run[0].group().lower() in STARTERS or (len(run) > 1 and run[0].group() in HONORIFICS)):
            run.pop(0)
        if run and not (len(run) == 1 and _sentence_start(scan.masked, run[0].start())
                        and not _speaker(scan.text, run[0])) \
                and not _title_cased(scan.masked, run[0].start()):
            tokens = [re.sub(r"['’]s$", "", m.group()) for m in run]
            # a lone letter (the C library, plan B) names too little to be checked; in a run it is an initial
            if not (len(tokens) == 1 and (tokens[0].lower() in MONTHS or len(tokens[0]) == 1)):
                start, end = run[0].start(), run[-1].end()
                text = scan.text[start:end]
                scan.masked = scan.masked[:start] + " " * (end - start) + scan.masked[end:]
                first = run[0].group()
                opening = _sentence_start(scan.masked, start) and first[0].isupper() and first[1:].islower()
                scan.facts.append(Fact(FactKind.name, re.sub(r"['’]s$", "", text), " ".join(words(" ".join(tokens))),
                                       _sentence(scan.text, start), opening=opening))
        run.clear()

    previous_end = None
    for m in _TOKEN.finditer(scan.masked):
        gap = scan.masked[previous_end:m.start()] if previous_end is not None else ""
        if run and (gap.strip() not in ("", "-") or "\n" in gap):
            flush()
        if _OPTION.match(scan.masked[max(0, m.start() - 3):m.start()]):  # -M, --maxdays: an option, not a name
            flush()
            previous_end = m.end()
            continue
        if _capitalised(m.group()) and not _document(m.group()) and not _unit_word(m.group()):
            run.append(m)
            if re.search(r"['’]s$", m.group()):
                flush()  # "Debian's Marc Haber": a possessive ends a name
        else:
            flush()
        previous_end = m.end()
    flush()


# a project's own files named in prose ("its NEWS file", "the README", README.Debian): documents, not names; the
# GNU Coding Standards' names and a few more every source tree has
DOCUMENT_NAMES = frozenset("README CHANGELOG ChangeLog CHANGES LICENSE COPYING INSTALL AUTHORS TODO FAQ THANKS "
                           "HACKING CONTRIBUTING NEWS BUGS MAINTAINERS NOTICE SECURITY".split()) | frozenset(
    # and common technical nouns written as acronyms
    "CI CD API APIs CPU CPUs GPU GPUs RAM OS UI CLI URL URLs TTY PDF JSON YAML HTML CSS DNS TCP UDP TLS SSL HTTP HTTPS "
    "IP ID IDs PID SDK IDE".split())


def _document(token: str) -> bool:
    """NEWS, README, and a document named after one: NEWS.Debian, README.python_switch."""
    return token in DOCUMENT_NAMES or token.split(".")[0] in DOCUMENT_NAMES


def _unit_word(token: str) -> bool:
    """A unit named on its own ("默认单位是 KiB", "in MB") is no name; one letter (W, T) may be an initial."""
    return len(token) > 1 and token.lower() in UNITS


_OPTION = re.compile(r"(?:^|.?[^\w-])--?$", re.S)
HONORIFICS = frozenset("Dr Mr Mrs Ms Miss Prof Professor Sir Dame Mx".split())
SPEECH = re.compile(r"\s+(?:said|says|told|added|explained|argued|wrote|writes|noted|notes|stated|recalled|warned|"
                    r"insisted|claimed|claims|believes|thinks|admitted|announced|replied|confirmed)\b")
# capitalised words that open "X said" without being a name
SPEAKER_NOUNS = frozenset("""officials experts researchers critics residents engineers analysts scientists users
developers authorities police staff workers teachers doctors nurses patients parents students people others sources
reports studies everyone someone nobody observers insiders supporters opponents employees managers tenants officers
organisers organizers spokesperson spokesman spokeswoman management customers readers visitors commuters drivers
locals economists historians members leaders owners operators authors editors reviewers investigators witnesses""".split())


def _speaker(text: str, token: re.Match[str]) -> bool:
    """A lone capitalised word opening a sentence is a name when it is the one who speaks: "Berger said ...".
    ``text`` is the text as written (a number between, "Version 2.39 added", is no speaker's name), and a heading
    ("Packaging notes from LLVM"), a line without an end mark, is no sentence with a speaker."""
    line_end = text.find("\n", token.end())
    line = text[text.rfind("\n", 0, token.start()) + 1:line_end if line_end >= 0 else len(text)].rstrip(" *_")
    return bool(SPEECH.match(text, token.end())) and token.group().lower() not in SPEAKER_NOUNS \
        and token.group().lower() not in STARTERS and line.endswith(tuple(".!?:;\"”’)。！？：；」"))


def _title_cased(text: str, at: int) -> bool:
    """Whether ``at`` lies in a Title Case heading or label ("Verification Steps", "Word Count: ..."): the line up
    to its first colon has most of its words capitalised. Such words are headings, not names (embedded trial)."""
    start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at) if text.find("\n", at) >= 0 else len(text)
    colon = text.find(":", at, line_end)
    segment = text[start:colon] if colon >= 0 else text[start:line_end]
    if colon < 0 and segment.rstrip().endswith((".", "!", "?")):
        return False  # a sentence, not a heading or a label
    if re.search(r"[\u3400-\u9fff]{2}", segment):
        return False  # Latin words inside a Chinese sentence: "由 Michael Vogt 于...", a name
    tokens = [t for t in re.findall(r"[A-Za-z][A-Za-z'’-]*", segment) if len(t) > 3]
    return len(tokens) >= 2 and sum(t[0].isupper() for t in tokens) >= 0.75 * len(tokens)


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘(*_#>-")
    return not before or before[-1] in ".!?:|\n。！？：" or before.endswith("\n")  # | opens a table's cell


SURNAMES = ("欧阳 司马 诸葛 上官 东方 令狐 皇甫 尉迟 公孙 慕容 长孙 王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 朱 胡 郭 何 林 罗 郑 梁 谢 "
            "宋 唐 韩 冯 邓 曹 彭 曾 萧 肖 蔡 潘 袁 董 蒋 杜 叶 程 魏 苏 吕 丁 沈 任 姚 卢 姜 崔 钟 谭 陆 汪 范 廖 贾 夏 韦 "
            "傅 邹 孟 熊 秦 邱 江 尹 薛 阎 段 雷 侯 龙 陶 黎 贺 顾 毛 郝 龚 邵 钱 严 覃 武 戴 莫 孔 汤 温 康 施 牛 樊 葛 邢 "
            "齐 易 乔 伍 庞 颜 倪 庄 聂 章 鲁 岳 翟 殷 詹 申 耿 关 兰 焦 俞 左 柳 甘 祝 包 宁 尚 符 舒 阮 柯 纪 梅 童 凌 "
            "毕 单 季 裴 霍 涂 成 苗 谷 盛 曲 翁 冉 骆 蓝 路 游 辛 靳 管 柴 蒙 鲍 华 喻 祁 蒲 房 滕 屈 饶 解 牟 艾 尤 阳 "
            "时 穆 农 司 卓 古 吉 缪 简 车 项 连 芦 麦 褚 娄 窦 戚 岑 景 党 宫 费 卜 冷 晏 席 卫 米 柏 宗 瞿 桂 全 佟 应 "
            "臧 闵 苟 邬 边 卞 姬 师 和 仇 栾 隋 商 刁 沙 荣 巫 寇 桑 郎 甄 丛 仲 虞 敖 巩 明 佘 池 乐 匡 戈 双").split()
TITLES = ("首席执行官 董事长 总经理 园长 店长 组长 厅长 司长 署长 主管 秘书长 发言人 负责人 工程师 研究员 创始人 总裁 主席 总理 总统 总监 主任 经理 馆长 厂长 部长 "
          "院长 校长 市长 局长 县长 省长 区长 镇长 村长 教授 博士 医生 处长 科长 队长 社长 会长 所长 站长 行长 老师 记者 律师 "
          "书记 主编 编辑 董事 委员 代表 专家 先生 女士 管理员 维护者 开发者").split()
ZH_SPEECH = "表示 指出 认为 介绍 强调 宣布 透露 告诉 坦言 回忆 补充 解释 承认 提到 谈到 写道 说 称 问".split()
_NOT_GIVEN = "的了是在也都就不有这那个些们者人多家我你他她它其和与或对向从把被为以于及等年月日时说称表示认为指出介绍"
_HAN = r"[\u4e00-\u9fff]"
_GIVEN = rf"[^\W\d_{_NOT_GIVEN}a-zA-Z]"
_SURNAME = "|".join(sorted(SURNAMES, key=len, reverse=True))
_TITLE = "|".join(sorted(TITLES, key=len, reverse=True))
_ZH_VERB = "|".join(sorted(ZH_SPEECH, key=len, reverse=True))
_ZH_EDGE = r"(?:^|(?<=[。！？；：，、\n“”「」『』（）()《》\s]))"


def _scan_zh_names(scan: _Scan) -> None:
    """Chinese personal names where the text itself says one is there: a transliteration with a middle dot (玛丽·杜邦),
    a title before it (馆长李文华, 部长汤姆表示), a title after it (李文华馆长), or a surname opening a clause and a
    verb of saying after it (张明说, 陈志强表示). A name without such a mark is not checked."""

    def take(start: int, end: int, key_chars: str, short: str | None = None) -> None:
        scan.masked = scan.masked[:start] + " " * (end - start) + scan.masked[end:]
        scan.facts.append(Fact(FactKind.name, scan.text[start:end], " ".join(key_chars), _sentence(scan.text, start),
                               short_key=" ".join(short) if short else None))

    for m in list(re.finditer(rf"({_HAN}{{1,2}})·({_HAN}{{1,2}})", scan.masked)):
        take(m.start(), m.end(), m.group(1) + m.group(2))
    patterns = (  # (pattern, whether the given name's length is known from both ends)
        (rf"(?:{_TITLE})((?:{_SURNAME}){_GIVEN}{{1,2}}|{_GIVEN}{{2,3}})(?={_ZH_VERB})", True),
        (rf"{_ZH_EDGE}((?:{_SURNAME}){_GIVEN}{{1,2}})(?=(?:{_TITLE})|{_ZH_VERB})", True),
        (rf"(?:{_TITLE})((?:{_SURNAME}){_GIVEN}{{2}})", False),
        (rf"(?:{_TITLE})((?:{_SURNAME}){_GIVEN})", True),
    )
    for pattern, exact in patterns:
        for m in re.finditer(pattern, scan.masked):
            name = m.group(1)
            if any(name.startswith(title) for title in TITLES):
                continue  # 管理员说: a title, not 管 and a given name
            take(m.start(1), m.end(1), name, None if exact else name[:-1])


def extract_facts(text: str, *, source: bool = False) -> list[Fact]:
    """The checkable facts of ``text`` in the order of the module docstring's kinds (each span taken once).

    ``source``: the text is evidence, so number words (three = 3) and every Chinese numeral count as numbers too.
    """
    cleaned = _clean(text)
    scan = _Scan(cleaned, cleaned, [])
    _scan_urls(scan)
    if source:  # limit_to_10_MiB.patch: a source's snake_case file name says "limit to 10 MiB"
        scan.masked = re.sub(r"(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])", " ", scan.masked)
    _scan_times(scan)
    _scan_dates(scan)
    _scan_money(scan)
    _scan_ranges(scan)
    _scan_percent(scan)
    _scan_quotes(scan)  # a quotation is matched whole, with the identifiers and numbers inside it
    _scan_identifiers(scan)
    _scan_versions(scan, source)
    _scan_numbers(scan, number_words=source)
    _scan_zh_names(scan)
    _scan_names(scan)
    return scan.facts
