"""The review gate against the real test WordPress: what an anonymous reader can see after each decision.

Each test names its own topics (a fresh uuid), so a post left by an earlier test is never taken for its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import httpx
from sqlalchemy import select

from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Publication, PublicationIntent, Registration, Run
from testkit.scripted_model import ScriptedModel
from testkit.wordpress import WordPress
from tests.cli_helpers import FACTLINE, ROOT, factline, user_env


def wp_env(db_url: str, model: ScriptedModel, wp: WordPress, tmp_path: Path, topics: int = 2) -> dict[str, str]:
    source = tmp_path / "topics.txt"
    source.write_text("".join(f"Review topic {uuid.uuid4().hex[:12]}\n" for _ in range(topics)))
    return user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                    PUBLISH_TARGET="wordpress", WORDPRESS_URL=wp.url, WORDPRESS_USER=wp.user,
                    WORDPRESS_APP_PASSWORD=wp.app_password, TOPICS_SOURCE=str(source), RETRY_BASE_DELAY="0.01",
                    HTTP_TIMEOUT_SECONDS="5", PREVIEW_DIR=str(tmp_path / "preview"), REVIEW_MODE="required")


def held_run(env: dict[str, str]) -> int:
    done = factline(env, "run")
    assert done.returncode == 0 and "awaits review" in done.stdout, done.stdout + done.stderr
    return int(done.stdout.split("run ", 1)[1].split(":", 1)[0])


def run_key(db_url: str, run_id: int) -> str:
    """The publication key the run's topic has on WordPress (content pipeline)."""
    from capabilities.publish import publication_key
    from capabilities.records import TopicRecord
    from pipeline.ledger.models import Topic

    with open_ledger(db_url)() as s:
        topic = s.get_one(Topic, s.get_one(Run, run_id).topic_id)
        return publication_key("wordpress", TopicRecord(topic.id, topic.title))


def public(url: str) -> int:
    """The status an anonymous reader gets for ``url``."""
    return httpx.get(url, follow_redirects=True, timeout=10).status_code


def test_approve_makes_one_public_post_and_reject_none(
        pg_url: str, model: ScriptedModel, wp: WordPress, tmp_path: Path) -> None:
    """approve -> one post, public to an anonymous reader; approve again -> still one; reject -> no post."""
    env = wp_env(pg_url, model, wp, tmp_path)
    approved, rejected = held_run(env), held_run(env)
    assert wp.posts(key=run_key(pg_url, approved)) == []
    done = factline(env, "review", "approve", str(approved), "--by", "alice")
    assert done.returncode == 0, done.stdout + done.stderr
    again = factline(env, "review", "approve", str(approved), "--by", "alice")
    assert again.returncode == 1
    posts = wp.posts(key=run_key(pg_url, approved))
    assert [p["status"] for p in posts] == ["publish"]
    assert public(posts[0]["link"]) == 200
    assert factline(env, "review", "reject", str(rejected), "--reason", "off topic").returncode == 0
    assert wp.posts(key=run_key(pg_url, rejected)) == []


def test_two_concurrent_approvals_make_one_post(pg_url: str, model: ScriptedModel, wp: WordPress,
                                               tmp_path: Path) -> None:
    """Two approve processes at once on PostgreSQL: exits 0 and 1, one post, one registration."""
    env = wp_env(pg_url, model, wp, tmp_path, topics=1)
    run_id = held_run(env)
    procs = [subprocess.Popen([*FACTLINE, "review", "approve", str(run_id), "--by", name], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("ann", "ben")]
    results = [(p.wait(timeout=180), *p.communicate()) for p in procs]
    assert sorted(code for code, _, _ in results) == [0, 1], results
    assert len(wp.posts(key=run_key(pg_url, run_id))) == 1
    with open_ledger(pg_url)() as s:
        assert len(s.scalars(select(Registration)).all()) == 1


def test_a_kill_between_approval_and_publish_leaves_one_post_after_the_next_start(
        pg_url: str, model: ScriptedModel, wp: WordPress, tmp_path: Path) -> None:
    """php-fpm frozen, the approver SIGKILLed while its POST waits; WordPress then saves it; the next start
    (the editor approving again) finds the post by key: one post, one publication, one registration, success."""
    env = wp_env(pg_url, model, wp, tmp_path, topics=1)
    run_id = held_run(env)
    sessions = open_ledger(pg_url)
    wp.fpm("stop")
    try:
        proc = subprocess.Popen([*FACTLINE, "review", "approve", str(run_id), "--by", "ann"], env=env, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with sessions() as s:
                if s.scalar(select(PublicationIntent.id).where(PublicationIntent.run_id == run_id)):
                    break
            time.sleep(0.05)
        else:
            raise AssertionError("the approver never wrote its publication intent")
        time.sleep(0.5)  # its POST is on the wire, waiting for the frozen php-fpm
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        wp.fpm("cont")
    wp.wait_healthy()
    with sessions() as s:
        assert s.get_one(Run, run_id).status == "running"  # its owner died mid-publish
        assert s.scalar(select(Registration.id)) is None
    done = factline(env, "review", "approve", str(run_id), "--by", "ben")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "publishing it here" in done.stdout
    assert len(wp.posts(key=run_key(pg_url, run_id))) == 1
    with sessions() as s:
        assert s.get_one(Run, run_id).verdict == "success"
        assert len(s.scalars(select(Publication)).all()) == 1
        assert len(s.scalars(select(Registration)).all()) == 1


def test_retract_and_correct_on_wordpress(pg_url: str, model: ScriptedModel, wp: WordPress, tmp_path: Path) -> None:
    """correct -> the same URL shows the new text and verification passes; retract -> an anonymous reader
    no longer gets the post; the registration is kept, marked."""
    env = {**wp_env(pg_url, model, wp, tmp_path, topics=1), "REVIEW_MODE": "none"}
    assert factline(env, "run").returncode == 0
    with open_ledger(pg_url)() as s:
        publication = s.scalars(select(Publication)).one()
    edit = tmp_path / "fixed.md"
    edit.write_text("# Corrected on WordPress\n\nThis corrected paragraph replaced the original text entirely.\n")
    done = factline(env, "correct", str(publication.id), "--edit", str(edit), "--reason", "facts", "--by", "al")
    assert done.returncode == 0, done.stdout + done.stderr
    page = httpx.get(publication.url, follow_redirects=True, timeout=10)
    assert page.status_code == 200 and "This corrected paragraph replaced" in page.text
    with open_ledger(pg_url)() as s:
        row = s.get_one(Publication, publication.id)
        assert row.url == publication.url and row.verified_at is not None
    done = factline(env, "retract", str(publication.id), "--reason", "withdrawn", "--by", "al")
    assert done.returncode == 0, done.stdout + done.stderr
    assert public(publication.url) != 200
    assert [p["status"] for p in wp.posts(slug=wp.post(publication.external_id)["slug"])] == ["draft"]
    with open_ledger(pg_url)() as s:
        registration = s.scalars(select(Registration)).one()
        assert registration.retracted_at is not None and registration.corrections == 1


def test_categories_exist_once_after_two_runs_and_the_excerpt_is_the_first_paragraph(
        pg_url: str, model: ScriptedModel, wp: WordPress, tmp_path: Path) -> None:
    """WORDPRESS_CATEGORIES: looked up by slug, created when missing, once, however many runs name them; each
    post carries them and an excerpt made from the article's first paragraph."""
    names = [f"Heat {uuid.uuid4().hex[:8]}", f"Pumps {uuid.uuid4().hex[:8]}"]
    env = {**wp_env(pg_url, model, wp, tmp_path, topics=2), "REVIEW_MODE": "none",
           "WORDPRESS_CATEGORIES": ",".join(names)}
    for _ in range(2):
        done = factline(env, "run")
        assert done.returncode == 0, done.stdout + done.stderr
    with wp.client() as http:
        terms = [http.get(f"{wp.url}/wp-json/wp/v2/categories", params={"search": name.split()[1]}).json()
                 for name in names]
    assert [len(found) for found in terms] == [1, 1]
    ids = sorted(found[0]["id"] for found in terms)
    with open_ledger(pg_url)() as s:
        posts = [wp.post(p.external_id) for p in s.scalars(select(Publication))]
    assert len(posts) == 2
    for post in posts:
        assert sorted(post["categories"]) == ids
        assert post["excerpt"]["raw"].strip() and post["excerpt"]["raw"].strip() in post["content"]["raw"]


def test_tags_exist_once_after_two_runs_naming_them_and_each_post_carries_them(
        pg_url: str, model: ScriptedModel, wp: WordPress, tmp_path: Path) -> None:
    """A topic's tags (`.jsonl`): looked up by slug at /wp/v2/tags, created only when missing, so two runs whose
    topics name the same tags leave each tag once; both posts carry both tags."""
    import json

    names = [f"Solar {uuid.uuid4().hex[:8]}", f"Roofs {uuid.uuid4().hex[:8]}"]
    topics = tmp_path / "topics.jsonl"
    topics.write_text("".join(json.dumps({"title": f"Tagged topic {uuid.uuid4().hex[:12]}", "tags": names}) + "\n"
                              for _ in range(2)))
    env = {**wp_env(pg_url, model, wp, tmp_path, topics=2), "REVIEW_MODE": "none", "TOPICS_SOURCE": str(topics)}
    for _ in range(2):
        done = factline(env, "run")
        assert done.returncode == 0, done.stdout + done.stderr
    with wp.client() as http:
        terms = [http.get(f"{wp.url}/wp-json/wp/v2/tags", params={"search": name.split()[1]}).json()
                 for name in names]
    assert [[t["name"] for t in found] for found in terms] == [[names[0]], [names[1]]]
    ids = sorted(found[0]["id"] for found in terms)
    with open_ledger(pg_url)() as s:
        posts = [wp.post(p.external_id) for p in s.scalars(select(Publication))]
    assert len(posts) == 2
    assert [sorted(post["tags"]) for post in posts] == [ids, ids]
