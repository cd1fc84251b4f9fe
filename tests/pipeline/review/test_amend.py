"""factline retract and factline correct on the local site: what a reader gets, what the ledger keeps. The
commands run in the test process (factline_here): these tests are about what they do, not their process."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
from sqlalchemy import select

from capabilities.targets.site import SiteServer
from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Publication, PublicationChange, Registration
from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import factline_here, user_env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def published(db_url: str, model: ScriptedModel, tmp_path: Path) -> tuple[dict[str, str], Publication]:
    """One run published on the local site, on a port both commands use (the page's URL names it)."""
    env = user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                   LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT=str(free_port()), RETRY_BASE_DELAY="0.01")
    done = factline_here(env, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    with open_ledger(db_url)() as s:
        return env, s.scalars(select(Publication)).one()


def test_retract_answers_410_leaves_index_and_feed_and_keeps_the_registration(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """retract: the page answers 410 with the notice, index and feed drop it; rows kept, marked; twice -> exit 1."""
    env, publication = published(db_url, model, tmp_path)
    done = factline_here(env, "retract", str(publication.id), "--reason", "wrong figures", "--by", "alice")
    assert done.returncode == 0, done.stdout + done.stderr
    slug = publication.external_id
    with SiteServer(tmp_path / "site", "127.0.0.1", 0) as site:
        page = httpx.get(f"{site.url}{slug}.html")
        index = httpx.get(site.url).text
        feed = httpx.get(f"{site.url}feed.xml").text
    assert page.status_code == 410 and "wrong figures" in page.text
    assert slug not in index and slug not in feed
    with open_ledger(db_url)() as s:
        assert s.get_one(Publication, publication.id).retracted_at is not None
        registration = s.scalars(select(Registration)).one()
        assert registration.retracted_at is not None and registration.number.startswith("CT-")
        change = s.scalars(select(PublicationChange)).one()
        assert (change.action, change.editor, change.reason) == ("retract", "alice", "wrong figures")
    again = factline_here(env, "retract", str(publication.id), "--reason", "again")
    assert again.returncode == 1 and "already retracted" in again.stderr


def test_correct_updates_the_same_page_verifies_it_and_keeps_the_number(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """correct: same URL, new text, verified again; a version of its own; the registration counts a correction."""
    env, publication = published(db_url, model, tmp_path)
    with open_ledger(db_url)() as s:
        number = s.scalars(select(Registration)).one().number
    edit = tmp_path / "fixed.md"
    edit.write_text("# A corrected title\n\nThe corrected paragraph says the pump runs quietly at night.\n")
    done = factline_here(env, "correct", str(publication.id), "--edit", str(edit), "--reason", "the year", "--by", "bo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified" in done.stdout and number in done.stdout
    with open_ledger(db_url)() as s:
        row = s.get_one(Publication, publication.id)
        assert row.url == publication.url and row.draft_version_id != publication.draft_version_id
        assert row.verified_at is not None and row.content_coverage >= 0.98
        registration = s.scalars(select(Registration)).one()
        assert (registration.number, registration.corrections) == (number, 1)
    with SiteServer(tmp_path / "site", "127.0.0.1", 0) as site:
        page = httpx.get(f"{site.url}{publication.external_id}.html")
    assert page.status_code == 200 and "runs quietly at night" in page.text
    assert "<h2>Sources</h2>" in page.text  # the corrected page keeps the list of the run's sources (issue #22)


def test_a_retracted_publication_is_not_corrected(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """correct after retract: one line, exit 1, the page stays gone."""
    env, publication = published(db_url, model, tmp_path)
    assert factline_here(env, "retract", str(publication.id), "--reason", "x").returncode == 0
    edit = tmp_path / "fixed.md"
    edit.write_text("New text.\n")
    done = factline_here(env, "correct", str(publication.id), "--edit", str(edit), "--reason", "y")
    assert done.returncode == 1 and "retracted" in done.stderr


def test_a_correction_with_a_figure_no_source_holds_is_refused(db_url: str, model: ScriptedModel,
                                                              tmp_path: Path) -> None:
    """correct passes the fact check again: a new figure no source holds is refused (exit 1), the page unchanged."""
    env, publication = published(db_url, model, tmp_path)
    edit = tmp_path / "fixed.md"
    edit.write_text("The pump saves 73% of the energy.\n")
    done = factline_here(env, "correct", str(publication.id), "--edit", str(edit), "--reason", "numbers")
    assert done.returncode == 1 and "73%" in done.stderr and "refused" in done.stderr
    with open_ledger(db_url)() as s:
        assert s.get_one(Publication, publication.id).draft_version_id == publication.draft_version_id
