"""Reading checkable facts out of a text (the kinds and rules: capabilities.factcheck's docstring).

    extract_facts(text, source=False) -> list[Fact]     each span taken once, in the order of the kinds
    words(text)                                         normalised words (NFKC, case-folded; CJK per character)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

from capabilities.factcheck.types import Fact, FactKind

MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                      "september", "october", "november", "december"), 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
_BARE_NUM = r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\d])"
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
    "km": "km", "m": "m", "cm": "cm", "mm": "mm", "kg": "kg", "g": "g", "t": "t", "tonnes": "t", "tons": "t",
    "公里": "km", "米": "m", "公斤": "kg", "千克": "kg", "吨": "t",
    "kw": "kw", "kwh": "kwh", "mw": "mw", "gw": "gw", "w": "w", "°c": "c", "℃": "c",
    "words": "word", "word": "word", "字": "word", "tokens": "token", "token": "token",
    "cores": "core", "core": "core", "次": "times", "times": "times", "个": None, "名": "person", "人": "person",
    "people": "person", "persons": "person",
}
_UNIT_RE = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "cny", "￥": "cny"}
CURRENCY_WORDS = {"dollars": "usd", "dollar": "usd", "usd": "usd", "euros": "eur", "euro": "eur", "eur": "eur",
                  "pounds": "gbp", "gbp": "gbp", "yuan": "cny", "rmb": "cny", "元": "cny", "美元": "usd", "欧元": "eur"}
NUMBER_WORDS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                            "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                            "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))}
STARTERS = frozenset("""a an the this that these those in on at for by with from and but or if when while after
before as since each every its their our your his her it we they you he she there here what why how who which then
so yet also not no all some many most one two three four five six seven eight nine ten today tomorrow yesterday
first second third next last every both only even still however instead because although though unless until
now once where whose my me us them do does did is are was were be been has have had can could will would should
may might must shall i""".split())
QUOTES = (("\u201c", "\u201d"), ('"', '"'), ("\u300c", "\u300d"), ("\u300e", "\u300f"), ("\u2018", "\u2019"))


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """Normalised words: Latin runs and digits as words, each CJK character a word, punctuation dropped."""
    return re.findall(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_]+(?:['’][^\W_]+)?", normalise(text).replace("'s ", " "))


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
    return Decimal(whole.replace(",", "") + (f".{fraction}" if fraction else "")) * scale


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
        self.masked = self.masked[:start] + " " * (end - start) + self.masked[end:]
        self.facts.append(Fact(kind, match.group(group).strip(), key, _sentence(self.text, start), unit))


def _sentence(text: str, at: int) -> str:
    starts = [m.end() for m in re.finditer(r"[.!?。！？](?=\s|$)|[。！？]|\n", text[:at])]
    start = starts[-1] if starts else 0
    end_match = re.compile(r"[.!?](?=\s|$)|[。！？\n]").search(text, at)
    end = end_match.end() if end_match else len(text)
    return " ".join(text[start:end].split())[:400]


ENUMERATORS = re.compile(r"\b(Fact|Step|Part|Section|Chapter|Tip|Point|Rule|Lesson|Reason|Option|Phase|Stage|Item|"
                         r"Lesson|Question|Example|Figure|Table)\s+(\d{1,2})\b|第\s*\d{1,2}\s*(?=[步章节部分点条个])")


def _clean(markdown: str) -> str:
    """Marks that are not facts: citation markers [1], emphasis, list and heading marks, and the numbers that
    only count the article's own parts ("Fact 2:", "Step 3", 第2步)."""
    text = re.sub(r"\[(\d{1,2})\](?!\()", " ", markdown)
    text = ENUMERATORS.sub(lambda m: (m.group(1) or "第") + " " * (m.end() - m.start() - len(m.group(1) or "第")), text)
    text = re.sub(r"^\s{0,3}(?:#{1,6}|[-*+>]|\d{1,3}[.)])\s+", "\n", text, flags=re.M)
    text = re.sub(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`", "", text)
    return re.sub(r"\[([^\]]*)\]\((https?://[^)\s]+)\)", r"\1 \2", text)


def _scan_urls(scan: _Scan) -> None:
    for m in re.finditer(r"https?://[^\s<>()\"'\u3000-\u303f\uff00-\uffef]*[^\s<>()\"'.,;:!?\u3000-\u303f\uff00-\uffef]",
                         scan.masked):
        scan.take(m, FactKind.url, normalise(m.group()).split("://", 1)[1].rstrip("/"))


def _scan_dates(scan: _Scan) -> None:
    patterns = (
        (rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", lambda g: (g[2], g[0], g[1])),
        (rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH}),?\s+(\d{{4}})\b", lambda g: (g[2], g[1], g[0])),
        (r"(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])", lambda g: (g[0], g[1], g[2])),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", lambda g: (g[0], g[1], g[2])),
        (rf"({_ZH_NUM})年({_ZH_NUM})月({_ZH_NUM})[日号]", lambda g: (g[0], g[1], g[2])),
        (rf"\b({_MONTH})\s+(?:of\s+)?(\d{{4}})\b", lambda g: (g[1], g[0], None)),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d)", lambda g: (g[0], g[1], None)),
    )
    for pattern, order in patterns:
        for m in re.finditer(pattern, scan.masked, flags=re.I):
            year, month, day = order(m.groups())
            y, mo = _int(year), MONTHS.get(month.lower().rstrip(".")) if month[0].isalpha() else _int(month)
            d = _int(day) if day else None
            if y is None or mo is None or not 1 <= mo <= 12 or (d is not None and not 1 <= d <= 31):
                continue
            scan.take(m, FactKind.date, f"{y:04d}-{mo:02d}" + (f"-{d:02d}" if d else ""))


def _int(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    value = zh_number(text)
    return int(value) if value is not None else None


def _scan_money(scan: _Scan) -> None:
    scale_words = r"(?:\s*(thousand|million|billion|trillion|万|亿))?"
    signs = "".join(re.escape(s) for s in CURRENCY_SIGNS)
    for m in re.finditer(rf"([{signs}])\s?{_BARE_NUM}{scale_words}", scan.masked, flags=re.I):
        value = _decimal(m.group(2), m.group(3), SCALES.get((m.group(4) or "").lower(), 1))
        scan.take(m, FactKind.money, f"{CURRENCY_SIGNS[m.group(1)]}:{_key(value)}")
    words_re = "|".join(sorted(CURRENCY_WORDS, key=len, reverse=True))
    for m in re.finditer(rf"{_NUM}{scale_words}\s?({words_re})(?![a-z])", scan.masked, flags=re.I):
        value = _decimal(m.group(1), m.group(2), SCALES.get((m.group(3) or "").lower(), 1))
        scan.take(m, FactKind.money, f"{CURRENCY_WORDS[m.group(4).lower()]}:{_key(value)}")


def _scan_percent(scan: _Scan) -> None:
    for m in re.finditer(rf"{_NUM}\s?(%|％|percent\b|per cent\b)", scan.masked, flags=re.I):
        scan.take(m, FactKind.percent, _key(_decimal(m.group(1), m.group(2))))
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


def _scan_numbers(scan: _Scan, number_words: bool) -> None:
    scale = r"(?:\s*(thousand|million|billion|trillion)\b|\s?(万|亿))?"
    unit = rf"(?:\s?-?\s?({_UNIT_RE})(?![a-z]))?"
    for m in re.finditer(rf"{_NUM}{scale}{unit}(?![A-Za-z]|\.\d)", scan.masked, flags=re.I):  # not 5xx, not 0.5B
        factor = SCALES.get((m.group(3) or m.group(4) or "").lower(), 1)
        value = _decimal(m.group(1), m.group(2), factor)
        unit_name = UNITS.get((m.group(5) or "").lower()) if m.group(5) else None
        plain = not m.group(2) and factor == 1 and unit_name is None
        if plain and 1800 <= value <= 2100 and len(m.group(1)) == 4:
            scan.take(m, FactKind.year, _key(value))
        else:
            rate = _rate(scan.masked, m.start(), m.end())
            scan.take(m, FactKind.number, _key(value), f"{unit_name or ''}/{rate}" if rate else unit_name)
    zh_unit = "|".join(sorted((re.escape(u) for u in UNITS if re.match(r"[\u4e00-\u9fff]", u)), key=len, reverse=True))
    pattern = rf"({_ZH_NUM})({zh_unit})?" if number_words else rf"([{_ZH_DIGITS}]*[十百千万亿][{_ZH_DIGITS}]*)({zh_unit})?"
    for m in re.finditer(pattern, scan.masked):
        value = zh_number(m.group(1))
        if value is not None:
            scan.take(m, FactKind.number, _key(value), UNITS.get(m.group(2) or ""))
    if number_words:
        for m in re.finditer(rf"\b({'|'.join(NUMBER_WORDS)})\b(?:\s?-?({_UNIT_RE})(?![a-z]))?", scan.masked, flags=re.I):
            scan.take(m, FactKind.number, str(NUMBER_WORDS[m.group(1).lower()]),
                      UNITS.get((m.group(2) or "").lower()) if m.group(2) else None)


def _scan_quotes(scan: _Scan) -> None:
    for opening, closing in QUOTES:
        for m in re.finditer(rf"{re.escape(opening)}([^{re.escape(opening + closing)}\n]{{2,400}}){re.escape(closing)}",
                             scan.masked):
            quoted = words(m.group(1))
            cjk = sum(1 for w in quoted if re.match(r"[\u3400-\u9fff]", w))
            if len(quoted) - cjk >= 3 or cjk >= 4:
                scan.take(m, FactKind.quote, " ".join(quoted), group=1)
    for m in re.finditer(r"《([^《》\n]{1,100})》", scan.masked):
        scan.take(m, FactKind.title, " ".join(words(m.group(1))), group=1)


_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:[-_.'’][A-Za-z0-9]+)*")  # not the B of 0.5B


def _capitalised(token: str) -> bool:
    return token[0].isupper() or any(ch.isupper() for ch in token[1:]) or any(ch.isdigit() for ch in token)


def _scan_names(scan: _Scan) -> None:
    run: list[re.Match[str]] = []

    def flush() -> None:
        while run and run[0].group().lower() in STARTERS:
            run.pop(0)
        if run and not (len(run) == 1 and _sentence_start(scan.masked, run[0].start())) \
                and not _title_cased(scan.masked, run[0].start()):
            tokens = [re.sub(r"['’]s$", "", m.group()) for m in run]
            if not (len(tokens) == 1 and (tokens[0].lower() in MONTHS or tokens[0] == "I")):
                start, end = run[0].start(), run[-1].end()
                text = scan.text[start:end]
                scan.masked = scan.masked[:start] + " " * (end - start) + scan.masked[end:]
                scan.facts.append(Fact(FactKind.name, re.sub(r"['’]s$", "", text), " ".join(words(" ".join(tokens))),
                                       _sentence(scan.text, start)))
        run.clear()

    previous_end = None
    for m in _TOKEN.finditer(scan.masked):
        gap = scan.masked[previous_end:m.start()] if previous_end is not None else ""
        if run and (gap.strip() not in ("", "-") or "\n" in gap):
            flush()
        if _capitalised(m.group()):
            run.append(m)
        else:
            flush()
        previous_end = m.end()
    flush()


def _title_cased(text: str, at: int) -> bool:
    """Whether ``at`` lies in a Title Case heading or label ("Verification Steps", "Word Count: ..."): the line up
    to its first colon has most of its words capitalised. Such words are headings, not names (embedded trial)."""
    start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at) if text.find("\n", at) >= 0 else len(text)
    colon = text.find(":", at, line_end)
    segment = text[start:colon] if colon >= 0 else text[start:line_end]
    if colon < 0 and segment.rstrip().endswith((".", "!", "?")):
        return False  # a sentence, not a heading or a label
    tokens = [t for t in re.findall(r"[A-Za-z][A-Za-z'’-]*", segment) if len(t) > 3]
    return len(tokens) >= 2 and sum(t[0].isupper() for t in tokens) >= 0.75 * len(tokens)


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘(*_#>-")
    return not before or before[-1] in ".!?:\n。！？：" or before.endswith("\n")


def extract_facts(text: str, *, source: bool = False) -> list[Fact]:
    """The checkable facts of ``text`` in the order of the module docstring's kinds (each span taken once).

    ``source``: the text is evidence, so number words (three = 3) and every Chinese numeral count as numbers too.
    """
    cleaned = _clean(text)
    scan = _Scan(cleaned, cleaned, [])
    _scan_urls(scan)
    _scan_dates(scan)
    _scan_money(scan)
    _scan_percent(scan)
    _scan_quotes(scan)
    _scan_numbers(scan, number_words=source)
    _scan_names(scan)
    return scan.facts
