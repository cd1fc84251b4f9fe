"""Alembic environment: imports only the ledger's Base and the deployment's settings (DATABASE_URL)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine

from config import ConfigError
from config.deployment import load_deployment
from pipeline.ledger.models import Base

target_metadata = Base.metadata


def run_migrations() -> None:
    engine: Engine | None = context.config.attributes.get("engine")
    if engine is None:
        from pipeline.ledger.db import make_engine

        deployment, problems = load_deployment()
        if problems:
            raise ConfigError(*problems)
        engine = make_engine(deployment.ledger.url)
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:  # batch migrations recreate tables that other rows reference; checked again after
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=sqlite,
        )
        with context.begin_transaction():
            context.run_migrations()
            if sqlite and (broken := connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()):
                raise RuntimeError(f"migration left rows with dangling foreign keys: {broken[:5]}")
        connection.commit()
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")


run_migrations()
