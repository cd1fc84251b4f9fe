"""Dates and times of day in English and Chinese text (the rules: capabilities.factcheck's docstring)."""

from __future__ import annotations

import re

from capabilities.factcheck.reading import MONTH_RE, MONTHS, ZH_NUM, Scan, as_int
from capabilities.factcheck.types import FactKind


# days with a fixed date, a date in other words: "New Year's Eve 2020" is 2020-12-31
HOLIDAYS = {"new year's eve": (12, 31), "new year's day": (1, 1), "christmas eve": (12, 24), "christmas day": (12, 25),
            "boxing day": (12, 26), "halloween": (10, 31), "valentine's day": (2, 14)}
_HOLIDAY = "|".join(h.replace("'", "['’]").replace(" ", r"\s+") for h in HOLIDAYS)


def _holiday(name: str) -> tuple[str, str]:
    month, day = HOLIDAYS[" ".join(name.lower().replace("’", "'").split())]
    return str(month), str(day)


# the same year or month as the date before it (同年3月28日, 同月20日, 当年11月): a careful reader carries it over
_ZH_RELATIVE = re.compile(rf"(同年|当年)\s*(\d{{1,2}}|{ZH_NUM})\s*月(?:\s*(\d{{1,2}}|{ZH_NUM})\s*[日号])?(?!\s*\d)|"
                          rf"(同月|当月)\s*(\d{{1,2}}|{ZH_NUM})\s*[日号]")
_ZH_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)\s*年")


def scan_dates(scan: Scan, source: bool = False) -> None:
    anchors = _scan_numeric_dates(scan, source)
    anchors += _scan_date_patterns(scan, _FULL_DATES)
    _scan_zh_relative_dates(scan, anchors)
    _scan_date_patterns(scan, _PARTIAL_DATES)
    for m in _ZH_MONTH.finditer(scan.masked):
        if (month := as_int(m.group(1))) is not None and 1 <= month <= 12:
            scan.take(m, FactKind.date, f"{month:02d}")


# a month alone (于8月发布, 三月份), as "in August" is: found in a source's date of that month; not 三个月 (a duration)
_ZH_MONTH = re.compile(r"(?<![\d年])(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月份?(?!\s*(?:\d|[一二三四五六七八九十]+\s*[日号]))")


def _scan_zh_relative_dates(scan: Scan, anchors: list[tuple[int, str]]) -> None:
    """同年12月1日 after 2020年5月17日 is 2020-12-01; 同月20日 after 2020年1月3日 is 2020-01-20. Without a date
    before it, 同年12月1日 is a month and a day, as 12月1日 would be."""
    anchors += [(m.start(), m.group(1)) for m in _ZH_YEAR.finditer(scan.text)]
    for m in list(_ZH_RELATIVE.finditer(scan.masked)):
        month, day = (m.group(2), m.group(3)) if m.group(1) else (None, m.group(5))
        before = [key for at, key in sorted(anchors) if at < m.start() and len(key) >= (4 if month else 7)]
        mo, d = as_int(month) if month else None, as_int(day) if day else None
        if mo is None and not before:
            continue
        mo = mo if mo is not None else int(before[-1][5:7])
        if not 1 <= mo <= 12 or (d is not None and not 1 <= d <= 31):
            continue
        key = (before[-1][:4] + "-" if before else "") + f"{mo:02d}" + (f"-{d:02d}" if d else "")
        if len(key) > 2:  # 同年12月 with no year before it says nothing checkable
            anchors.append((m.start(), key))
            scan.take(m, FactKind.date, key)


def _scan_date_patterns(scan: Scan, patterns: tuple[tuple[str, object], ...]) -> list[tuple[int, str]]:
    """Take each date the patterns find; where each one starts and its key (the anchors of relative dates)."""
    taken = []
    for pattern, order in patterns:
        for m in re.finditer(pattern, scan.masked, flags=re.I):
            year, month, day = order(m.groups())
            y, mo = as_int(year) if year else None, MONTHS.get(month.lower().rstrip(".")) if month[0].isascii() and month[0].isalpha() else as_int(month)  # 十月 is a numeral
            d = as_int(day) if day else None
            if (y is None and (year or d is None)) or mo is None or not 1 <= mo <= 12 or (d is not None and not 1 <= d <= 31):
                continue
            key = (f"{y:04d}-" if y is not None else "") + f"{mo:02d}" + (f"-{d:02d}" if d else "")
            taken.append((m.start(), key))
            scan.take(m, FactKind.date, key)
    return taken


# a day, a month and a year in digits with dashes or dots (03-10-2022, 26.12.2022), as changelogs write them: read
# day first, unless the same text's other dates of this form show month first (one with a month-place value > 12,
# 12-25-2022, and none with a day-place one); where no date of the text tells the order and both readings are
# valid, a source holds either (both are taken), an article's is read day first
_NUMERIC_DMY = re.compile(r"(?<![\d.-])(\d{1,2})([.-])(\d{1,2})\2(\d{4})(?![\d]|[.-]\d)")


def _scan_numeric_dates(scan: Scan, source: bool) -> list[tuple[int, str]]:
    found = [m for m in _NUMERIC_DMY.finditer(scan.masked)]
    day_first = any(int(m.group(1)) > 12 for m in found)
    month_first = not day_first and any(int(m.group(3)) > 12 for m in found)
    taken = []
    for m in found:
        first, second, year = int(m.group(1)), int(m.group(3)), m.group(4)
        readings = [(second, first)] if month_first else [(first, second)]
        if source and not day_first and not month_first and first != second:
            readings.append((second, first))  # 03-10-2022 with nothing telling: 3 October or March 10
        keys = [f"{year}-{mo:02d}-{d:02d}" for d, mo in readings if 1 <= mo <= 12 and 1 <= d <= 31]
        for key in keys:
            taken.append((m.start(), key))
            scan.take(m, FactKind.date, key)
    return taken


# a day as an ordinal in words ("the twenty-third of December 2012", "December the first, 2012"): a date, whose
# number word is no count of its own
_ORDINALS = {w: i for i, w in enumerate((
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split(), 1)}
_ORDINALS.update({"thirtieth": 30})
_ORDINALS.update({f"{tens}{sep}{w}": base + i for tens, base in (("twenty", 20), ("thirty", 30)) for sep in ("-", " ", "")
                  for w, i in list(_ORDINALS.items()) if i < 10 and base + i <= 31})
_ORDINAL_RE = "|".join(sorted((w.replace(" ", r"\s+") for w in _ORDINALS), key=len, reverse=True))


def _ordinal(word: str) -> str:
    return str(_ORDINALS[" ".join(word.lower().split())])


_FULL_DATES = (
    # year, month and day, as a manual page's footer writes it ("2001 April 2", heldout15)
    (rf"(?<![\w.-])(\d{{4}})\s+({MONTH_RE})\s+(\d{{1,2}})\b(?![.:]\d)", lambda g: (g[0], g[1], g[2])),
    (rf"(?<![\w-])(\d{{1,2}})-({MONTH_RE})-(\d{{4}})\b", lambda g: (g[2], g[1], g[0])),  # 11-December-2022
    (r"(?<![\d.])(\d{4})\.(\d{2})\.(\d{2})(?!\d|\.\d)", lambda g: (g[0], g[1], g[2])),  # 2022.07.12, year first
    (rf"\b({MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", lambda g: (g[2], g[0], g[1])),
    (rf"(?<![\d.,])\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH_RE}),?\s+(\d{{4}})\b", lambda g: (g[2], g[1], g[0])),
    # an ISO date, and the time after its T (2006-08-14T02:34:56-06:00): T02 is no name
    (r"(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?(?![\d-])",
     lambda g: (g[0], g[1], g[2])),
    (r"(?<![\d/])(\d{4})/(\d{1,2})/(\d{1,2})(?![\d/])", lambda g: (g[0], g[1], g[2])),  # 2022/08/24, year first
    (r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", lambda g: (g[0], g[1], g[2])),
    (rf"({ZH_NUM})年({ZH_NUM})月({ZH_NUM})[日号]", lambda g: (g[0], g[1], g[2])),
    (rf"\b(?:the\s+)?({_ORDINAL_RE})\s+(?:of\s+)?({MONTH_RE}),?\s+(\d{{4}})\b", lambda g: (g[2], g[1], _ordinal(g[0]))),
    (rf"\b({MONTH_RE})\s+(?:the\s+)?({_ORDINAL_RE}),?\s+(\d{{4}})\b", lambda g: (g[2], g[0], _ordinal(g[1]))),
    # a month and year, with the comma some write between them ("in May, 1998")
    (rf"\b({MONTH_RE}),?\s+(?:of\s+)?(\d{{4}})\b", lambda g: (g[1], g[0], None)),
    (r"(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d)", lambda g: (g[0], g[1], None)),
    (rf"\b({_HOLIDAY})(?:,?\s+(?:of\s+)?(\d{{4}})\b)?", lambda g: (g[1], *_holiday(g[0]))),
)
# a month that is also an English word, written in lower case, is the word: "vim 2:8.0.0022-1 may notice" is no
# 1 May, "3 march on" no 3 March (round 13); a month without a year is read only where it is written as a month
_NOT_THE_WORD = r"(?!(?-i:may|march)\b)"
_PARTIAL_DATES = (
    # a month and a day without a year (May 1, 1 May, 5月1日): found in a source's full date of that day
    (rf"\b{_NOT_THE_WORD}({MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!,?\s*\d)", lambda g: (None, g[0], g[1])),
    (rf"(?<![\d.,])\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_NOT_THE_WORD}({MONTH_RE})(?![\w.]|\.\w)",
     lambda g: (None, g[1], g[0])),
    (r"(?<![\d年])(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", lambda g: (None, g[0], g[1])),
)


# a time of day is one fact, not numbers: 22:14:33 holds no 33, and 中午12点 is 12:00
# (an ISO timestamp's time too, 2006-08-14T02:34:56-06:00, its zone read with it; a zone alone, -06:00, is none)
_CLOCK = re.compile(r"(?<![\d:.+-])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d+)?)?(?:(?<=T..:..:..)(?:Z|[+-]\d\d:?\d\d))?"
                    r"(?![\d:]|\.\d)(?:\s*([ap])\.?m\b\.?)?", re.I)
_EN_HOUR = re.compile(r"(?<![\d:.])(1[0-2]|0?[1-9])(?:\s*([ap])\.?m\b\.?|\s*o['’]clock\b|\s+(noon)\b)", re.I)
# in a source, the hour in words too ("a new file each day at noon"); in an article a bare "noon" is not checked
_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)
# a Chinese hour needs a part of the day or minutes: 三点 alone may be three points
_ZH_CLOCK = re.compile(rf"(凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里)?(\d{{1,2}}|{ZH_NUM})点(?:(\d{{1,2}}|{ZH_NUM})分|(半)|整)?")
_AFTERNOON = ("下午", "傍晚", "晚上", "夜里", "p", "P")


def scan_times(scan: Scan, source: bool) -> None:
    """22:14:33, 3 p.m., 下午3点半 as 24-hour times (15:30); found in a source's time to the minute."""
    for m in _CLOCK.finditer(scan.masked):
        _take_time(scan, m, int(m.group(1)), int(m.group(2)), m.group(3), m.group(4))
    for m in _EN_HOUR.finditer(scan.masked):
        _take_time(scan, m, int(m.group(1)), 0, None, m.group(2), noon=bool(m.group(3)),
                   either_half=not (m.group(2) or m.group(3)))  # 3 o'clock
    for m in _ZH_CLOCK.finditer(scan.masked):
        if not (m.group(1) or m.group(3) or m.group(4)):
            continue
        hour, minute = as_int(m.group(2)), as_int(m.group(3)) if m.group(3) else (30 if m.group(4) else 0)
        if hour is not None and minute is not None:
            _take_time(scan, m, hour, minute, None, "p" if m.group(1) in _AFTERNOON else None,
                       noon=m.group(1) == "中午", either_half=not m.group(1))  # 3点20分
    for m in _NOON.finditer(scan.masked) if source else ():
        _take_time(scan, m, 0 if m.group(1).lower() == "midnight" else 12, 0, None, None)


def _take_time(scan: Scan, m: re.Match[str], hour: int, minute: int, second: str | None, half: str | None,
               noon: bool = False, either_half: bool = False) -> None:
    """A time's key: 15:30, 22:14:33; an hour that does not say which half of the day ("3 o'clock", 3点20分) is
    either (03:00|15:00)."""
    if half and half in _AFTERNOON and hour < 12 or noon and hour < 6:
        hour += 12  # 3 p.m., 下午3点, 中午1点
    elif half and half.lower() == "a" and hour == 12:
        hour = 0  # 12 a.m.
    if hour > 23 or minute > 59:
        return
    key = f"{hour:02d}:{minute:02d}" + (f":{second}" if second else "")
    if either_half and 1 <= hour < 12:
        key += f"|{hour + 12:02d}:{minute:02d}"
    scan.take(m, FactKind.time, key)
