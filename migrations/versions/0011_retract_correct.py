"""retract and correct: what an editor did to a publication after it went out (issue #23)

publication_changes records each retraction and correction; publications.retracted_at and
registrations.retracted_at / corrections mark them, so a registration keeps its number.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 20:10:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "publication_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("publication_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("editor", sa.String(length=200), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["publication_id"], ["publications.id"],
                                name=op.f("fk_publication_changes_publication_id_publications")),
        sa.ForeignKeyConstraint(["version_id"], ["draft_versions.id"],
                                name=op.f("fk_publication_changes_version_id_draft_versions")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_publication_changes")),
    )
    op.create_index(op.f("ix_publication_changes_publication_id"), "publication_changes", ["publication_id"])
    with op.batch_alter_table("publications") as batch:
        batch.add_column(sa.Column("retracted_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("registrations") as batch:
        batch.add_column(sa.Column("retracted_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("corrections", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("registrations") as batch:
        batch.drop_column("corrections")
        batch.drop_column("retracted_at")
    with op.batch_alter_table("publications") as batch:
        batch.drop_column("retracted_at")
    op.drop_index(op.f("ix_publication_changes_publication_id"), table_name="publication_changes")
    op.drop_table("publication_changes")
