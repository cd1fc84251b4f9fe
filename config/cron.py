"""Cron expressions as the daemon reads them: crontab in, APScheduler 3 CronTrigger out.

Standard 5-field crontab (minute hour day month weekday) with crontab weekday numbers
(0 and 7 are Sunday), or 6 fields with a leading seconds field for fast schedules and tests.
APScheduler 3 counts weekdays from Monday, so numeric weekdays are rewritten as names first.
One difference stays: when both day and weekday are restricted, APScheduler requires both
(crontab fires on either).
A bad expression or time zone is a ``ConfigError`` naming the variable in one line; so is an
expression that never fires (``0 0 31 2 *``, February 31st), which APScheduler accepts silently.
It lives in config/ because Settings checks SCHEDULE_CRON, REPORT_CRON and SCHEDULE_TIMEZONE at start,
with every other setting; the daemon builds its triggers from the same functions.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

from config.errors import ConfigError

WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun"]
FIELDS = ("second", "minute", "hour", "day", "month", "day_of_week")


def parse_time_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name``; ValueError (the reason, for a settings line) if unknown."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (use an IANA name like 'UTC' or 'Asia/Shanghai')") from None


def time_zone(name: str, variable: str = "SCHEDULE_TIMEZONE") -> ZoneInfo:
    """The IANA time zone ``name``, or a ConfigError naming ``variable``."""
    try:
        return parse_time_zone(name)
    except ValueError as exc:
        raise ConfigError(f"invalid setting {variable}: {exc}") from None


def crontab_weekdays(field: str) -> str:
    """Rewrite numeric crontab weekdays (ranges and steps included) as a list of day names."""
    names: list[str] = []
    for part in field.split(","):
        hit = re.fullmatch(r"(\*|(\d)(?:-(\d))?)(?:/(\d+))?", part)
        if hit is None:  # names (mon-fri) mean the same in both; anything else APScheduler judges
            names.append(part)
            continue
        star, first, last, step = hit.groups()
        if star == "*" and step is None:
            names.append("*")
            continue
        low, high = (0, 6) if star == "*" else (int(first), int(last or first))
        if step is not None and last is None and star != "*":
            high = 7
        if not 0 <= low <= high <= 7:
            raise ValueError(f"weekday {part!r} is out of range 0-7")
        names += [WEEKDAYS[day] for day in range(low, high + 1, int(step or 1))]
    return ",".join(dict.fromkeys(names))


def parse_cron(expr: str, tz: ZoneInfo) -> CronTrigger:
    """A CronTrigger for a 5-field crontab or a 6-field one with leading seconds; ValueError (the reason) if bad."""
    values = expr.split()
    if len(values) not in (5, 6):
        raise ValueError(f"{expr!r} has {len(values)} fields; expected 5 (minute hour day month weekday) "
                         "or 6 (with leading seconds)")
    if len(values) == 5:
        values.insert(0, "0")
    try:
        values[5] = crontab_weekdays(values[5])
        trigger = CronTrigger(timezone=tz, **dict(zip(FIELDS, values)))
    except ValueError as exc:
        raise ValueError(f"{expr!r}: {exc}") from None
    if trigger.get_next_fire_time(None, datetime.now(tz)) is None:
        raise ValueError(f"{expr!r} never fires (no such date in any year)")
    return trigger


def cron_trigger(expr: str, tz: ZoneInfo, variable: str) -> CronTrigger:
    """``parse_cron``, with a ConfigError naming ``variable`` when the expression is bad."""
    try:
        return parse_cron(expr, tz)
    except ValueError as exc:
        raise ConfigError(f"invalid setting {variable}: {exc}") from None


def tick_time(fire_time: datetime) -> datetime:
    """A scheduled fire time as the ledger stores it: UTC, no microseconds, identical on every replica."""
    return fire_time.astimezone(timezone.utc).replace(microsecond=0)
