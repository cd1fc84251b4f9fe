"""content: what a check found on a publication's page, and dry runs

``publications.head_status`` becomes ``http_status`` (the check is a GET now, capabilities.verify);
``content_coverage``, ``content_digest`` and ``content_found`` record what the page held. Rows from
before were checked by HEAD only: their coverage stays NULL. ``runs.dry_run`` marks a preview run
(``factline run --dry-run``); every earlier run was a real one.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 17:40:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("publications") as batch:
        batch.alter_column("head_status", new_column_name="http_status", existing_type=sa.Integer(),
                           existing_nullable=True)
        batch.add_column(sa.Column("content_coverage", sa.Float(), nullable=True))
        batch.add_column(sa.Column("content_digest", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("content_found", sa.String(length=500), nullable=True))
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("dry_run", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("dry_run")
    with op.batch_alter_table("publications") as batch:
        batch.drop_column("content_found")
        batch.drop_column("content_digest")
        batch.drop_column("content_coverage")
        batch.alter_column("http_status", new_column_name="head_status", existing_type=sa.Integer(),
                           existing_nullable=True)
