"""sources and fact checks: a topic's sources and brief, each source as read in a run, each fact check

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 19:50:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("topics") as batch:
        batch.add_column(sa.Column("sources", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("brief", sa.Text(), nullable=True))
        batch.add_column(sa.Column("tags", sa.JSON(), nullable=True))
    op.create_table(
        "sources",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=2000), nullable=False),
        sa.Column("final_url", sa.String(length=2000), nullable=True),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=True),
        sa.Column("digest", sa.String(length=64), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("failure", sa.String(length=500), nullable=True),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_sources_run_id_runs")),
        sa.ForeignKeyConstraint(["topic_id"], ["topics.id"], name=op.f("fk_sources_topic_id_topics")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sources")),
        sa.UniqueConstraint("run_id", "source", name=op.f("uq_sources_run_id")),
    )
    op.create_table(
        "fact_checks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("draft_version_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("facts", sa.Integer(), nullable=False),
        sa.Column("unsupported", sa.Integer(), nullable=False),
        sa.Column("detail", sa.String(length=500), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_fact_checks_run_id_runs")),
        sa.ForeignKeyConstraint(["draft_version_id"], ["draft_versions.id"],
                                name=op.f("fk_fact_checks_draft_version_id_draft_versions")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fact_checks")),
    )
    op.create_index(op.f("ix_fact_checks_run_id"), "fact_checks", ["run_id"])
    op.create_index(op.f("ix_fact_checks_draft_version_id"), "fact_checks", ["draft_version_id"])
    op.create_table(
        "fact_check_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("fact_check_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("fact", sa.Text(), nullable=False),
        sa.Column("sentence", sa.Text(), nullable=False),
        sa.Column("supported", sa.Boolean(), nullable=False),
        sa.Column("source_number", sa.Integer(), nullable=True),
        sa.Column("passage", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["fact_check_id"], ["fact_checks.id"],
                                name=op.f("fk_fact_check_items_fact_check_id_fact_checks")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fact_check_items")),
    )
    op.create_index(op.f("ix_fact_check_items_fact_check_id"), "fact_check_items", ["fact_check_id"])


def downgrade() -> None:
    op.drop_table("fact_check_items")
    op.drop_table("fact_checks")
    op.drop_table("sources")
    with op.batch_alter_table("topics") as batch:
        batch.drop_column("tags")
        batch.drop_column("brief")
        batch.drop_column("sources")
