"""A span between two dates the article gives (round 11): "Less than three weeks later, on September 14, 2019",
"十七天后的 11 月 25 日".

The writer counted the days between two dates of the sources; the span is in no source sentence, so it was flagged.
It is found when the article's own dates on either side of it (the last date before the span and the date right after
"later" / 后) are that far apart: days exactly, weeks to within three days, and a hedged span ("less than three
weeks", 不到两周) within its bound. Both dates are facts of the article checked on their own, so a span is only as
good as the dates that back it; a span the dates contradict ("a week later" for dates a day apart) is still flagged.
"""

from __future__ import annotations

import datetime as dt
import re

from capabilities.factcheck.types import Fact, FactKind

_DAYS = {"day": 1, "week": 7}
_LATER = re.compile(r"\s*(?:later|afterwards|after that|后|之后|以后)\W{0,3}(?:on\s+|的\s*|，\s*即\s*|即\s*)?", re.I)
_LESS_THAN = re.compile(r"(?:less than|under|not even|within|不到|不足|未满)\s*$", re.I)
_ABOUT = re.compile(r"(?:about|around|roughly|nearly|almost|some|约|大约|近|将近)\s*$", re.I)


def _dates(text: str, facts: list[Fact]) -> list[tuple[int, int, str]]:
    """The article's dates of a day, each with where it starts and ends, in the order of the text."""
    found = set()
    for fact in facts:
        # a year of this world (a version such as 9.1.0764 read as a date is none)
        if fact.kind == FactKind.date and re.fullmatch(r"(?:(?:18|19|20)\d\d-)?\d\d-\d\d", fact.key):
            for m in re.finditer(re.escape(fact.text), text):
                found.add((m.start(), m.end(), fact.key))
    return sorted(found)


def _day(key: str, year: int | None) -> dt.date | None:
    parts = [int(p) for p in key.split("-")]
    if len(parts) == 2:
        if year is None:
            return None
        parts = [year, *parts]
    try:
        return dt.date(*parts)
    except ValueError:
        return None


def between_dates(fact: Fact, text: str, facts: list[Fact]) -> tuple[str, str] | None:
    """The keys of the article's two dates around the span ``fact`` (a number of days or weeks) when they are that far
    apart, or None. The caller still needs both dates found in the sources."""
    if fact.kind != FactKind.number or fact.unit not in _DAYS or not re.fullmatch(r"\d+", fact.key):
        return None
    span, unit = int(fact.key), _DAYS[fact.unit]
    dates = _dates(text, facts)
    for m in re.finditer(re.escape(fact.text), text):
        later = _LATER.match(text, m.end())
        after = next((d for d in dates if later and d[0] == later.end()), None)
        before = [d for d in dates if d[1] <= m.start()]
        if after is None or not before:
            continue
        years = [int(d[2][:4]) for d in dates if len(d[2]) == 10 and d[0] <= after[0]]
        year = years[-1] if years else None
        start, end = _day(before[-1][2], year), _day(after[2], year)
        if start is None or end is None or end <= start:
            continue
        days, lead = (end - start).days, text[max(0, m.start() - 20):m.start()]
        if _LESS_THAN.search(lead):
            ok = (span - 1) * unit < days < span * unit
        elif _ABOUT.search(lead) or unit > 1:
            ok = abs(days - span * unit) <= 3 * (unit > 1)
        else:
            ok = days == span
        if ok:
            return before[-1][2], after[2]
    return None


# "a week later, on November 23", "一天后的 11 月 23 日": a span of one or two units in words, which is no number fact
# (a lone "a", "one", "two", 一 is not checked), checked against the article's dates around it all the same, so a
# wrong unit ("a month later" for dates a week apart) is caught
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365, "天": 1, "日": 1, "周": 7, "星期": 7, "个月": 30, "年": 365}
_SLACK = {1: 0, 7: 3, 30: 10, 365: 60}
_EN_SPAN = re.compile(r"\b(a|an|one|two)\s+(day|week|month|year)s?\s+(?:later|afterwards)\b", re.I)
_ZH_SPAN = re.compile(r"(?<![\d一二两三四五六七八九十])(一|两|二)?(天|日|周|星期|个月|年)(?:之|以)?后")
_WORD_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "一": 1, "两": 2, "二": 2, None: 1}


def word_spans(text: str, facts: list[Fact]) -> list[tuple[Fact, tuple[str, str], bool]]:
    """Each span of one or two units in words right before a date ("a week later, on ...", "一天后的 ..."): the span
    as a fact (its unit the span's), the keys of the dates around it, and whether they are that far apart."""
    dates, found = _dates(text, facts), []
    for m in (*_EN_SPAN.finditer(text), *_ZH_SPAN.finditer(text)):
        count = _WORD_COUNT[m.group(1).lower() if m.group(1) else None]
        unit = _UNIT_DAYS[m.group(2).lower()]
        on = re.match(r"\W{0,3}(?:on\s+|in\s+|的\s*|即\s*)?", text[m.end():])
        after = next((d for d in dates if d[0] == m.end() + on.end()), None)
        before = [d for d in dates if d[1] <= m.start()]
        if after is None or not before:
            continue
        years = [int(d[2][:4]) for d in dates if len(d[2]) == 10 and d[0] <= after[0]]
        start, end = _day(before[-1][2], years[-1] if years else None), _day(after[2], years[-1] if years else None)
        if start is None or end is None:
            continue
        days = (end - start).days
        name = {1: "day", 7: "week", 30: "month", 365: "year"}[unit]
        fact = Fact(FactKind.number, m.group(), str(count), "", unit=name)
        lead = text[max(0, m.start() - 20):m.start()]
        if _LESS_THAN.search(lead):  # "less than a month later", 不到一周后
            agrees = 0 < days < count * unit + _SLACK[unit]
        elif re.search(r"(?:more than|over|超过|多于)\s*$", lead, flags=re.I):
            agrees = days > count * unit - _SLACK[unit]
        else:
            agrees = abs(days - count * unit) <= (2 if _ABOUT.search(lead) else 1) * _SLACK[unit]
        found.append((fact, (before[-1][2], after[2]), agrees))
    return found
