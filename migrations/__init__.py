"""Alembic migrations of the ledger (see pipeline.ledger.db.upgrade)."""
