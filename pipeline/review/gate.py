"""The review gate: publish is held for an editor when the pipeline's REVIEW says so.

    none       nothing is held (the default, as before review existed)
    required   every article waits
    flagged    an article waits when the guard (or, with issue #22, the fact check) flagged something in its run

Held means: the publish call is recorded ``held``, the version's preview page is rendered, the request is
written (pipeline.ledger.reviews), and the run stops with verdict ``awaiting_review``; nothing reaches the
target and the run keeps its topic.
"""

from __future__ import annotations

from typing import Any

from loguru import logger
from sqlalchemy.orm import Session, sessionmaker

from capabilities.base import Prepared
from config import Settings
from pipeline.ledger import reviews
from pipeline.ledger.store import LedgerStore
from pipeline.review.preview import render_preview


class ReviewGate:
    """The gateway's ``hold`` for one run: a reason to stop before publish, or None to go on."""

    def __init__(self, settings: Settings, sessions: sessionmaker[Session], run_id: int) -> None:
        self.settings, self.sessions, self.run_id = settings, sessions, run_id

    def __call__(self, capability: str, prepared: Prepared[Any]) -> str | None:
        if capability != reviews.REVIEWED_STEP or self.settings.review == "none":
            return None
        with self.sessions() as s:
            flags = reviews.run_flags(s, self.run_id)
        if self.settings.review == "flagged" and not flags:
            return None
        version_id: int = prepared.args.version_id
        store = LedgerStore(self.sessions, self.run_id, self.settings.pipeline)
        preview = render_preview(self.settings, store, version_id, f"run-{self.run_id}")
        with self.sessions.begin() as s:
            reviews.request_review(s, self.run_id, version_id, str(preview.resolve()) if preview else None, flags)
        logger.info("review.requested", version_id=version_id, flags=len(flags), preview=str(preview))
        why = f" ({'; '.join(flags)})" if flags else ""
        return f"version {version_id} waits for an editor (REVIEW={self.settings.review}){why}"
