"""Registration numbers CT-YYYYMMDD-N: the day's counter row, incremented in the registering transaction.

One statement, ``INSERT ... ON CONFLICT (day) DO UPDATE SET last = last + 1 RETURNING last``, takes the
counter row's lock (PostgreSQL) or the database's single writer lock (SQLite) until the registration
commits, so concurrent runs get consecutive numbers and a rolled-back registration gives its number
back. At least three digits; the 1000th of a day is CT-YYYYMMDD-1000 (before this, the next number was
``max()`` over strings plus one, and ``-1000`` sorting below ``-999`` made it collide forever).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from pipeline.ledger.models import RegistrationCounter

PREFIX = "CT"


def next_registration_number(s: Session, now: datetime) -> str:
    """Allocate the next number of ``now``'s UTC day inside the caller's transaction."""
    day = now.strftime("%Y%m%d")
    insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
    stmt = insert(RegistrationCounter).values(day=day, last=1)
    stmt = stmt.on_conflict_do_update(index_elements=["day"], set_={"last": RegistrationCounter.last + 1})
    last = s.scalar(stmt.returning(RegistrationCounter.last))
    return f"{PREFIX}-{day}-{last:03d}"
