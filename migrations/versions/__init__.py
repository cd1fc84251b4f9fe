"""Alembic revision files (a package, so the wheel ships it as one; Alembic skips this file)."""
