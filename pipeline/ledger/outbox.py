"""Settling the publication outbox at a run's start: pending intents whose run is gone, found on the target.

A pending intent (pipeline.ledger.models.PublicationIntent) whose run is no longer `running` means a
process died between writing it down and recording the target's answer. The target's lookup by
idempotency key decides: found -> its publications row is written now (belonging to the run that
posted it); not found -> it stays pending, and the next run on its topic publishes it (the topic
claim takes such topics first). A lookup that fails leaves it for the next start.
"""

from __future__ import annotations

from loguru import logger
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from capabilities.base import PublishTarget
from capabilities.errors import CapabilityError
from pipeline.ledger.models import PublicationIntent, Run
from pipeline.ledger.store import complete_intent
from pipeline.outcome import IntentStatus, RunStatus


def orphaned_intents(s: Session, pipeline: str, target: str) -> list[str]:
    """Keys of the pipeline's pending intents on ``target`` whose run is not running."""
    return list(s.scalars(
        select(PublicationIntent.idempotency_key).join(Run, Run.id == PublicationIntent.run_id).where(
            PublicationIntent.pipeline == pipeline, PublicationIntent.target == target,
            PublicationIntent.status == IntentStatus.pending, Run.status != RunStatus.running)
        .order_by(PublicationIntent.id)))


def settle_outbox(sessions: sessionmaker[Session], target: PublishTarget, pipeline: str) -> int:
    """Record the publications the target holds for orphaned pending intents; how many were recorded."""
    with sessions() as s:
        keys = orphaned_intents(s, pipeline, target.name)
    settled = 0
    for key in keys:
        try:
            item = target.lookup(key)
        except CapabilityError as exc:
            logger.warning("outbox.lookup_failed", key=key, detail=exc.detail)
            continue
        if item is None:
            logger.info("outbox.not_on_target", key=key)
            continue
        publication = complete_intent(sessions, key, item.external_id, item.url)
        logger.warning("outbox.settled", key=key, publication_id=publication.id, url=publication.url)
        settled += 1
    return settled
