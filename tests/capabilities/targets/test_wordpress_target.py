"""WordPressTarget against a real WordPress 6.1 (scripts/wordpress/wp-up.sh), faults included."""

from __future__ import annotations

import html
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from loguru import logger

from capabilities.errors import AuthFailed, Retryable, ToolFailed
from capabilities.records import Article
from capabilities.targets import open_target
from capabilities.targets.wordpress import WordPressTarget, slug_for
from testkit.wordpress import WordPress

SHORT_TIMEOUT = 2.0
LIVE = {"publish", "future", "draft", "pending", "private"}


def new_key() -> str:
    return f"publish:wordpress:test-{uuid.uuid4()}"


def live_posts(site: WordPress, key: str) -> list[dict]:
    return [p for p in site.posts(key=key) if p["status"] in LIVE]


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30.0) as client:
        yield client


@pytest.fixture
def short_http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=SHORT_TIMEOUT) as client:
        yield client


def test_open_target_yields_the_wordpress_target(wordpress: WordPress, http: httpx.Client) -> None:
    """open_target with PUBLISH_TARGET=wordpress yields a WordPressTarget named 'wordpress'."""
    settings = wordpress.settings()
    with open_target(settings.deployment().site, settings, http) as target:
        assert isinstance(target, WordPressTarget)
        assert target.name == "wordpress"


def test_publish_creates_exactly_one_post_whose_link_answers_head_200(wp: WordPress, http: httpx.Client) -> None:
    """One publish makes one published post with the key's slug, and its link answers HEAD 200."""
    key = new_key()
    item = wp.target(http).publish(Article("A plain title", "# Heading\n\nFirst paragraph.", key))
    posts = wp.posts(key=key)
    assert [(str(p["id"]), p["status"], p["slug"]) for p in posts] == [(item.external_id, "publish", slug_for(key))]
    assert item.url == posts[0]["link"]
    assert http.head(item.url).status_code == 200
    assert posts[0]["content"]["raw"] == "<h2>Heading</h2>\n<p>First paragraph.</p>\n"


def test_lookup_finds_the_post_by_its_key(wp: WordPress, http: httpx.Client) -> None:
    """lookup returns the post publish made, and None for a key never published."""
    target = wp.target(http)
    key = new_key()
    assert target.lookup(key) is None
    item = target.publish(Article("Looked up", "Body.", key))
    assert target.lookup(key) == item
    assert target.lookup(new_key()) is None


def test_lookup_then_publish_twice_leaves_one_post(wp: WordPress, http: httpx.Client) -> None:
    """The publish capability's lookup-or-publish, run twice with one key, leaves exactly one post."""
    target = wp.target(http)
    key = new_key()
    article = Article("Only once", "Body.", key)
    first = target.lookup(key) or target.publish(article)
    second = target.lookup(key) or target.publish(article)
    assert first == second
    assert len(live_posts(wp, key)) == 1


def test_lookup_finds_a_draft_with_the_key(wp: WordPress, http: httpx.Client) -> None:
    """A post left as a draft under the key's slug is found, so it is not posted a second time."""
    key = new_key()
    with wp.client() as admin:
        r = admin.post(f"{wp.url}/wp-json/wp/v2/posts", json={"title": "d", "status": "draft", "slug": slug_for(key)})
        r.raise_for_status()
    found = wp.target(http).lookup(key)
    assert found is not None and found.external_id == str(r.json()["id"])


def test_trashed_post_is_not_found_and_its_link_answers_404(wp: WordPress, http: httpx.Client) -> None:
    """After a post is trashed, lookup no longer finds it and its link answers HEAD 404."""
    target = wp.target(http)
    key = new_key()
    item = target.publish(Article("To be trashed", "Body.", key))
    wp.trash(item.external_id)
    assert target.lookup(key) is None
    assert http.head(item.url).status_code == 404


def test_wrong_application_password_is_auth_failed_on_the_first_request(wp: WordPress) -> None:
    """A wrong application password raises AuthFailed after one request, without the password in the message."""
    requests: list[httpx.Request] = []
    wrong = "abcd efgh ijkl mnop qrst uvwx"
    with httpx.Client(timeout=30.0, event_hooks={"request": [requests.append]}) as client:
        target = wp.target(client, wordpress_app_password=wrong)
        key = new_key()
        with pytest.raises(AuthFailed) as lookup_err:
            target.lookup(key)
        assert len(requests) == 1
        with pytest.raises(AuthFailed) as publish_err:
            target.publish(Article("Never", "Body.", key))
        assert len(requests) == 2
    for err in (lookup_err.value, publish_err.value):
        assert "401" in str(err) and wrong not in str(err) and wp.app_password not in str(err)
    assert wp.posts(key=key) == []


def test_the_application_password_never_reaches_the_logs(wp: WordPress, http: httpx.Client) -> None:
    """Neither a successful publish nor a refused one logs the application password."""
    lines: list[str] = []
    sink = logger.add(lines.append, level="DEBUG", format="{message} {extra}")
    try:
        key = new_key()
        wp.target(http).publish(Article("Logged", "Body.", key))
        with pytest.raises(AuthFailed):
            wp.target(http, wordpress_app_password="wrong wrong wrong").publish(Article("x", "y", new_key()))
    finally:
        logger.remove(sink)
    assert lines, "the target logs nothing: this test would prove nothing"
    assert not any(wp.app_password in line for line in lines)
    assert wp.app_password not in repr(wp.target(http))


def test_rest_503_fault_is_retryable_with_retry_after_30(wp: WordPress, http: httpx.Client) -> None:
    """The fault 'rest 503' makes lookup and publish raise Retryable with retry_after 30, and posts nothing."""
    target = wp.target(http)
    key = new_key()
    wp.set_fault("rest", "503")
    with pytest.raises(Retryable) as lookup_err:
        target.lookup(key)
    with pytest.raises(Retryable) as publish_err:
        target.publish(Article("Refused", "Body.", key))
    wp.clear_fault()
    for err in (lookup_err.value, publish_err.value):
        assert err.retry_after == 30.0 and "503" in err.detail
    assert wp.posts(key=key) == []


def test_killed_php_fpm_is_retryable_502(wp: WordPress, http: httpx.Client) -> None:
    """With php-fpm SIGKILLed nginx answers 502: Retryable, no post; after a restart the publish succeeds."""
    target = wp.target(http)
    key = new_key()
    wp.fpm("kill")
    with pytest.raises(Retryable) as err:
        target.publish(Article("While killed", "Body.", key))
    assert "HTTP 502" in err.value.detail and err.value.retry_after is None
    wp.fpm("restart")
    wp.wait_healthy()
    assert wp.posts(key=key) == []
    assert target.lookup(key) is None
    target.publish(Article("After restart", "Body.", key))
    assert len(live_posts(wp, key)) == 1


def test_stopped_php_fpm_times_out_as_retryable_and_a_retry_posts_once(wp: WordPress, short_http: httpx.Client) -> None:
    """With php-fpm SIGSTOPped publish raises Retryable (timeout) within the client timeout; lookup-then-publish after SIGCONT leaves one post."""
    target = wp.target(short_http)
    key = new_key()
    article = Article("Unknown outcome", "Body.", key)
    wp.fpm("stop")
    try:
        started = time.monotonic()
        with pytest.raises(Retryable) as err:
            target.publish(article)
        elapsed = time.monotonic() - started
    finally:
        wp.fpm("cont")
    assert "timed out" in err.value.detail
    assert SHORT_TIMEOUT * 0.9 <= elapsed < SHORT_TIMEOUT * 2, elapsed
    wp.wait_healthy()
    # The POST sat in php-fpm's socket backlog; once resumed, WordPress may still save it.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not live_posts(wp, key):
        time.sleep(0.25)
    saved_late = bool(live_posts(wp, key))
    print(f"php-fpm SIGSTOP: the timed-out POST was {'' if saved_late else 'not '}saved after SIGCONT")
    item = target.lookup(key) or target.publish(article)
    posts = live_posts(wp, key)
    assert [str(p["id"]) for p in posts] == [item.external_id], f"saved after the timeout: {saved_late}"


def test_mariadb_down_is_retryable_500_and_posts_nothing(wp: WordPress, http: httpx.Client) -> None:
    """With MariaDB stopped WordPress answers 500: lookup and publish raise Retryable, and no post appears."""
    target = wp.target(http)
    key = new_key()
    wp.db("stop")
    try:
        with pytest.raises(Retryable) as lookup_err:
            target.lookup(key)
        with pytest.raises(Retryable) as publish_err:
            target.publish(Article("No database", "Body.", key))
    finally:
        wp.db("start")
    assert "HTTP 500" in lookup_err.value.detail and "HTTP 500" in publish_err.value.detail
    wp.wait_healthy()
    assert wp.posts(key=key) == []


def test_db_stop_finds_a_server_whose_pid_file_was_lost(wp: WordPress, http: httpx.Client) -> None:
    """Two wp-up.sh runs at once can leave MariaDB running without its pid file: `db stop` still stops it (the
    REST API answers 500) and `db start` brings it back, instead of leaving an orphan no script can stop."""
    (wp.base / "run" / "mysqld.pid").unlink()
    assert "mysqld up" in wp.ctl("status")
    wp.db("stop")
    try:
        assert "mysqld down" in wp.ctl("status")
        with pytest.raises(Retryable):
            wp.target(http).lookup(new_key())
    finally:
        wp.db("start")
    wp.wait_healthy()
    assert (wp.base / "run" / "mysqld.pid").is_file()


def test_markup_in_title_and_body_is_escaped(wp: WordPress, http: httpx.Client) -> None:
    """HTML and <script> in title and body are stored and served escaped: no live <script> from the article."""
    key = new_key()
    title = 'Hi <script>alert("t")</script> & <b>bold</b>'
    body = "# <img src=x onerror=alert(1)>\n\nText <script>alert('b')</script> & more."
    item = wp.target(http).publish(Article(title, body, key))
    post = wp.post(item.external_id)
    stored = post["title"]["raw"] + post["content"]["raw"]
    assert "<script" not in stored and "<img" not in stored and "<b>" not in stored
    assert post["title"]["raw"] == html.escape(title, quote=False)
    assert "&lt;script&gt;alert('b')&lt;/script&gt;" in post["content"]["raw"]
    page = http.get(item.url)
    assert page.status_code == 200
    assert "<script>alert(" not in page.text and "onerror=alert" not in page.text.replace("&lt;img src=x onerror=alert", "")


def test_emoji_and_cjk_are_published_faithfully(wp: WordPress, http: httpx.Client) -> None:
    """Emoji and CJK text come back unchanged in the stored title and content and on the page."""
    key = new_key()
    title = "Tea 🍵 and 漢字 — ça va"
    body = "日本語の段落です。🙂👍🏽\n\n한국어 문단 and 中文段落 ✅"
    item = wp.target(http).publish(Article(title, body, key))
    post = wp.post(item.external_id)
    assert post["title"]["raw"] == title
    assert post["content"]["raw"] == "<p>日本語の段落です。🙂👍🏽</p>\n<p>한국어 문단 and 中文段落 ✅</p>\n"
    page = http.get(item.url).text
    assert "漢字" in page and "日本語の段落です。🙂👍🏽" in page


def test_a_one_megabyte_body_is_published_whole(wp: WordPress, http: httpx.Client) -> None:
    """A ~1 MB body is accepted (nginx allows 8 MB here) and stored whole; its link answers HEAD 200."""
    key = new_key()
    paragraph = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20  # ~1.1 KB
    body = "\n\n".join(f"{i} {paragraph}" for i in range(900))
    assert 1_000_000 < len(body.encode()) < 1_100_000
    item = wp.target(http).publish(Article("A long one", body, key))
    post = wp.post(item.external_id)
    assert len(post["content"]["raw"]) == len("".join(f"<p>{i} {paragraph.strip()}</p>\n" for i in range(900)))
    assert http.head(item.url).status_code == 200


def test_a_body_over_the_server_limit_is_refused_cleanly(wp: WordPress, http: httpx.Client) -> None:
    """A body above nginx's client_max_body_size (8 MB) is answered 413: ToolFailed (no retry), no post."""
    key = new_key()
    body = "x" * (9 * 1024 * 1024)
    with pytest.raises(ToolFailed) as err:
        wp.target(http).publish(Article("Too long", body, key))
    assert "HTTP 413" in err.value.detail
    assert wp.posts(key=key) == []
