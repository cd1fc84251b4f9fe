"""publication outbox: a publication is written down (pending) before its request reaches the target

A crash between the target's answer and the publications row used to leave a live post without a
row; now the pending intent is committed first, and the next start or the next attempt settles it
by the target's lookup by idempotency key (pipeline.ledger.outbox).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 18:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "publication_intents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pipeline", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("draft_version_id", sa.Integer(), nullable=False),
        sa.Column("target", sa.String(length=32), nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=False),
        sa.Column("content_digest", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("publication_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["draft_version_id"], ["draft_versions.id"],
                                name=op.f("fk_publication_intents_draft_version_id_draft_versions")),
        sa.ForeignKeyConstraint(["publication_id"], ["publications.id"],
                                name=op.f("fk_publication_intents_publication_id_publications")),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_publication_intents_run_id_runs")),
        sa.ForeignKeyConstraint(["topic_id"], ["topics.id"], name=op.f("fk_publication_intents_topic_id_topics")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_publication_intents")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_publication_intents_idempotency_key")),
    )
    with op.batch_alter_table("publication_intents") as batch:
        batch.create_index(batch.f("ix_publication_intents_run_id"), ["run_id"], unique=False)
        batch.create_index(batch.f("ix_publication_intents_status"), ["status"], unique=False)
        batch.create_index(batch.f("ix_publication_intents_topic_id"), ["topic_id"], unique=False)


def downgrade() -> None:
    op.drop_table("publication_intents")
