"""pipelines: every business row keyed by pipeline; per-day registration counters; celery tick columns

Existing rows belong to the one pipeline there was, ``content``. Topic titles become unique per
pipeline. The registration counter of each day starts at the highest number already given out that
day, compared as numbers (the old allocator compared strings, so ``-1000`` sorted below ``-999``).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 14:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None



def pipeline_column() -> sa.Column:
    return sa.Column("pipeline", sa.String(length=64), nullable=False, server_default="content")


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("topics") as batch:
        batch.add_column(pipeline_column())
        batch.drop_constraint("uq_topics_title", type_="unique")
        batch.create_unique_constraint("uq_topics_pipeline_title", ["pipeline", "title"])
    for table in ("publications", "registrations"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(pipeline_column())
            batch.create_index(f"ix_{table}_pipeline", ["pipeline"], unique=False)
    counters = op.create_table(
        "registration_counters",
        sa.Column("day", sa.String(length=8), nullable=False),
        sa.Column("last", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("day", name=op.f("pk_registration_counters")),
    )
    last: dict[str, int] = {}
    for (number,) in op.get_bind().execute(sa.text("SELECT number FROM registrations")):
        _, day, seq = number.split("-", 2)  # CT-YYYYMMDD-NNN
        last[day] = max(last.get(day, 0), int(seq))
    if last:
        op.bulk_insert(counters, [{"day": day, "last": n} for day, n in sorted(last.items())])


def downgrade() -> None:
    op.drop_table("registration_counters")
    for table in ("registrations", "publications"):
        with op.batch_alter_table(table) as batch:
            batch.drop_index(f"ix_{table}_pipeline")
            batch.drop_column("pipeline")
    with op.batch_alter_table("topics") as batch:
        batch.drop_constraint("uq_topics_pipeline_title", type_="unique")
        batch.create_unique_constraint("uq_topics_title", ["title"])
        batch.drop_column("pipeline")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("sent_at")
