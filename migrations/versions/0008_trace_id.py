"""trace id: the OpenTelemetry trace of a run (pipeline.tracing), when traces are on

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 19:50:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("trace_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("trace_id")
