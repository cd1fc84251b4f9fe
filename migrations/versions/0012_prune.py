"""retention: runs.pruned_at, and the indexes prune reads versions by (issue #25)

`factline db prune` sets runs.pruned_at when it clears a run's bulky texts (pipeline.ledger.prune). It keeps
every version a publication, publication change, outbox intent or review names, asking each table by
version id: those four columns get an index (without them each batch would read the whole tables).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 17:40:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VERSION_COLUMNS = (("publications", "draft_version_id"), ("publication_intents", "draft_version_id"),
                   ("publication_changes", "version_id"), ("reviews", "version_id"))


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:  # a nullable column: ALTER TABLE ADD COLUMN, no table copy
        batch.add_column(sa.Column("pruned_at", sa.DateTime(timezone=True), nullable=True))
    for table, column in VERSION_COLUMNS:
        op.create_index(op.f(f"ix_{table}_{column}"), table, [column])


def downgrade() -> None:
    for table, column in VERSION_COLUMNS:
        op.drop_index(op.f(f"ix_{table}_{column}"), table_name=table)
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("pruned_at")
