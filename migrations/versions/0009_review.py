"""review: runs held before publish for an editor (issue #23)

The reviews table records the gate's request and every editor's attempt. The topic claim
(uq_runs_running_topic) now also covers runs awaiting review or approved: a held run keeps its topic
until an editor decides.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 19:50:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RUNNING = sa.text("status = 'running'")
HOLDING = sa.text("status IN ('running', 'awaiting_review', 'approved')")


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("editor", sa.String(length=200), nullable=True),
        sa.Column("version_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("requeue", sa.Boolean(), nullable=False),
        sa.Column("preview", sa.String(length=1000), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_reviews_run_id_runs")),
        sa.ForeignKeyConstraint(["version_id"], ["draft_versions.id"], name=op.f("fk_reviews_version_id_draft_versions")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reviews")),
    )
    op.create_index(op.f("ix_reviews_run_id"), "reviews", ["run_id"], unique=False)
    op.drop_index("uq_runs_running_topic", table_name="runs")
    op.create_index("uq_runs_running_topic", "runs", ["pipeline", "topic_id"], unique=True,
                    postgresql_where=HOLDING, sqlite_where=HOLDING)


def downgrade() -> None:
    op.drop_index("uq_runs_running_topic", table_name="runs")
    op.create_index("uq_runs_running_topic", "runs", ["pipeline", "topic_id"], unique=True,
                    postgresql_where=RUNNING, sqlite_where=RUNNING)
    op.drop_index(op.f("ix_reviews_run_id"), table_name="reviews")
    op.drop_table("reviews")
