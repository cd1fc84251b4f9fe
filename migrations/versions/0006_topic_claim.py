"""topic claim: one running run per topic of a pipeline (a partial unique index on runs)

Two runs of one pipeline that chose a topic at the same moment could both take it (issue #12: two
live posts, one publication row). The index makes the claim a constraint; pipeline.ledger.store
serializes the choice so that the constraint is not what normally decides. A ledger that already
holds two running runs on one topic keeps the oldest running; the others are closed as interrupted.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 17:40:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RUNNING = sa.text("status = 'running'")


def upgrade() -> None:
    op.execute(sa.text(
        "UPDATE runs SET status = 'interrupted', verdict = 'interrupted', stop_reason = 'topic_taken', "
        "error = 'another running run held its topic (closed by migration 0006)', finished_at = CURRENT_TIMESTAMP "
        "WHERE status = 'running' AND topic_id IS NOT NULL AND EXISTS (SELECT 1 FROM runs older "
        "WHERE older.status = 'running' AND older.pipeline = runs.pipeline AND older.topic_id = runs.topic_id "
        "AND older.id < runs.id)"))
    op.create_index("uq_runs_running_topic", "runs", ["pipeline", "topic_id"], unique=True,
                    postgresql_where=RUNNING, sqlite_where=RUNNING)


def downgrade() -> None:
    op.drop_index("uq_runs_running_topic", table_name="runs")
