"""The publication idempotency key names the topic itself, not only a ledger's row id."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from pipeline.ledger.models import Publication
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from tests.conftest import make_settings
from testkit.scripted_model import ScriptedModel


def test_a_fresh_ledger_does_not_take_another_topics_post(model: ScriptedModel, tmp_path: Path) -> None:
    """Two ledgers sharing one site, each with its topic 1 under a different title, publish two articles."""
    pages = []
    for name in ("alpha", "beta"):
        topics = tmp_path / f"{name}.txt"
        topics.write_text(f"Topic {name}\n", encoding="utf-8")
        settings = make_settings(f"sqlite:///{tmp_path}/{name}.db", model.base_url, tmp_path, topics_source=str(topics))
        with open_runtime(settings) as runtime:
            assert run_once(runtime).verdict == "success"
            with runtime.sessions() as s:
                publication = s.scalars(select(Publication)).one()
                assert publication.topic_id == 1
                pages.append(publication.url.rsplit("/", 1)[1])  # the port differs per runtime
    assert pages[0] != pages[1]
    assert all((tmp_path / "site" / page).exists() for page in pages)
