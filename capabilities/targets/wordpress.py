"""WordPress as a publishing target, through its REST API with an application password.

``publish`` creates a published post whose slug is derived from the idempotency key; ``lookup``
finds a post with that slug in any live status (publish, future, draft, pending, private), so a
retry after an unknown outcome (a timeout after WordPress had already saved the post) finds the
post instead of posting it twice. A trashed post is not found (WordPress renames a trashed post's
slug to ``<slug>__trashed``), so publishing again after a trash creates a new post.

Every HTTP answer and transport error goes through capabilities.httperrors. The application
password is a secret: it is only ever put into the Authorization header of a request, never
logged, never kept outside its SecretStr, never part of an exception message.
"""

from __future__ import annotations

import hashlib
import html
import re
from types import TracebackType
from typing import Any

import httpx
from loguru import logger
from pydantic import SecretStr

from capabilities.errors import AuthFailed, ToolFailed
from capabilities.httperrors import HTTPX_ERRORS, raise_for_status, request_error
from capabilities.records import Article, PublishedItem
from capabilities.render import article_html, render_markdown
from config import Settings

POSTS_PATH = "/wp-json/wp/v2/posts"
CATEGORIES_PATH = "/wp-json/wp/v2/categories"
TAGS_PATH = "/wp-json/wp/v2/tags"
LOOKUP_STATUSES = "publish,future,draft,pending,private"
SLUG_PREFIX = "factline-"


def slug_for(idempotency_key: str) -> str:
    """The post slug that names an idempotency key on WordPress (ASCII, stable, 25 characters)."""
    return SLUG_PREFIX + hashlib.sha256(idempotency_key.encode("utf-8")).hexdigest()[:16]


def render_post(article: Article) -> dict[str, str]:
    """The REST fields of a post: the title escaped, the body rendered by capabilities.render (raw HTML off).

    WordPress does not filter HTML for an administrator (unfiltered_html), so escaping here is the
    only protection against markup in model-written text. Square brackets are sent as character
    references: WordPress runs shortcodes found in post content, so an article that mentions
    ``[gallery]`` or ``[embed]`` would otherwise show a gallery or an embed instead of its words
    (tests/corpus/shortcodes.md). A browser shows ``&#91;`` as ``[``.
    """
    return {
        "title": html.escape(article.title, quote=False),
        "content": _no_shortcodes(article_html(article)),
        "excerpt": _no_shortcodes(render_markdown(first_paragraph(article.body_markdown))),
        "status": "publish",
        "slug": slug_for(article.idempotency_key),
    }


def _no_shortcodes(text: str) -> str:
    return text.replace("[", "&#91;").replace("]", "&#93;")


def first_paragraph(markdown: str) -> str:
    """The article's first paragraph of prose (not a heading, list, quote or code block): the post's excerpt."""
    for block in re.split(r"\n\s*\n", markdown.strip()):
        block = block.strip()
        if block and not block.startswith(("#", "-", "*", ">", "```", "|", "    ")) and not re.match(r"\d+\.", block):
            return block
    return ""


def term_slug(name: str) -> str:
    """A category's or tag's slug as WordPress makes it: lower case, words joined by hyphens."""
    return re.sub(r"[^\w]+", "-", name.lower()).strip("-")


def _refused_as_anonymous(response: httpx.Response) -> bool:
    """A 400 whose parameter errors carry status 401/403 (e.g. rest_forbidden_status): not logged in."""
    try:
        body = response.json()
    except ValueError:
        return False
    details = body.get("data", {}).get("details") if isinstance(body, dict) and isinstance(body.get("data"), dict) else None
    if not isinstance(details, dict):
        return False
    return any(
        isinstance(d, dict) and isinstance(d.get("data"), dict) and d["data"].get("status") in (401, 403)
        for d in details.values()
    )


class WordPressTarget:
    """A PublishTarget on a WordPress site; a context manager (it owns nothing but is used like one)."""

    name = "wordpress"

    def __init__(self, base_url: str, user: str, app_password: SecretStr, http: httpx.Client,
                 categories: tuple[str, ...] = ()) -> None:
        self.base_url = base_url.rstrip("/")
        self.user = user
        self._password = app_password
        self._http = http
        self.categories = categories
        self._category_ids: list[int] | None = None  # looked up (or created) at the first publish
        self._tag_ids: dict[str, int] = {}  # slug -> term id, as looked up (or created) by this target

    @classmethod
    def from_settings(cls, settings: Settings, http: httpx.Client) -> WordPressTarget:
        """Build from WORDPRESS_URL/USER/APP_PASSWORD (checked by Settings); ``http`` carries HTTP_TIMEOUT_SECONDS."""
        return cls(*settings.wordpress_site(), http, tuple(settings.wordpress_categories))

    def __enter__(self) -> WordPressTarget:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def __repr__(self) -> str:
        return f"WordPressTarget({self.base_url!r}, user={self.user!r})"

    def _request(self, method: str, what: str, path: str = "", root: str = POSTS_PATH, **kwargs: Any) -> httpx.Response:
        auth = httpx.BasicAuth(self.user, self._password.get_secret_value())
        try:
            response = self._http.request(method, self.base_url + root + path, auth=auth, **kwargs)
        except HTTPX_ERRORS as exc:
            raise request_error(exc, what) from exc
        if response.status_code == 400 and _refused_as_anonymous(response):
            # A wrong application password does not get a 401 from WordPress 6.1: the request runs as
            # an anonymous visitor, and asking for drafts then fails parameter validation (400) first.
            raise AuthFailed(f"{what}: HTTP 400 with a nested 401: WordPress did not accept the credentials")
        raise_for_status(response, what)
        return response

    @staticmethod
    def _item(post: Any, what: str) -> PublishedItem:
        if not isinstance(post, dict) or not isinstance(post.get("id"), int) or not isinstance(post.get("link"), str):
            raise ToolFailed(f"{what}: the answer is not a WordPress post")
        return PublishedItem(url=post["link"], external_id=str(post["id"]))

    def lookup(self, idempotency_key: str) -> PublishedItem | None:
        slug = slug_for(idempotency_key)
        what = f"WordPress lookup {slug}"
        response = self._request(
            "GET", what,
            params={"slug": slug, "status": LOOKUP_STATUSES, "context": "edit", "_fields": "id,link,slug,status"},
        )
        if response.status_code != 200:
            raise ToolFailed(f"{what}: unexpected HTTP {response.status_code}")
        try:
            posts = response.json()
        except ValueError:
            raise ToolFailed(f"{what}: the answer is not JSON") from None
        if not isinstance(posts, list):
            raise ToolFailed(f"{what}: the answer is not a list of posts")
        matching = [p for p in posts if isinstance(p, dict) and p.get("slug") == slug]
        if not matching:
            return None
        # a published one first, then the oldest: the post an earlier attempt created
        matching.sort(key=lambda p: (p.get("status") != "publish", p.get("id", 0)))
        item = self._item(matching[0], what)
        logger.info("wordpress.lookup_found", slug=slug, post_id=item.external_id, status=matching[0].get("status"))
        return item

    def category_ids(self) -> list[int]:
        """The pipeline's WORDPRESS_CATEGORIES as term ids: each looked up by slug, created only when missing."""
        if self._category_ids is None:
            self._category_ids = [self._term(CATEGORIES_PATH, name) for name in self.categories]
        return self._category_ids

    def tag_ids(self, names: tuple[str, ...]) -> list[int]:
        """An article's tags as term ids: each looked up by slug, created only when missing. A tag whose slug
        would be empty (punctuation only) is left out: a lookup by an empty slug would match every tag."""
        ids: list[int] = []
        for name in names:
            slug = term_slug(name)
            if not slug:
                continue
            if slug not in self._tag_ids:
                self._tag_ids[slug] = self._term(TAGS_PATH, name)
            if self._tag_ids[slug] not in ids:
                ids.append(self._tag_ids[slug])
        return ids

    def _term(self, root: str, name: str) -> int:
        slug = term_slug(name)
        what = f"WordPress term {slug}"
        found = self._request("GET", what, root=root, params={"slug": slug, "_fields": "id,slug"}).json()
        if isinstance(found, list) and found and isinstance(found[0].get("id"), int):
            return int(found[0]["id"])
        response = self._http.request("POST", self.base_url + root, json={"name": name, "slug": slug},
                                      auth=httpx.BasicAuth(self.user, self._password.get_secret_value()))
        body = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
        if response.status_code == 400 and body.get("code") == "term_exists":  # made meanwhile by another run
            return int(body["data"]["term_id"])
        raise_for_status(response, what)
        logger.info("wordpress.term_created", root=root, slug=slug, term_id=body.get("id"))
        return int(body["id"])

    def publish(self, article: Article) -> PublishedItem:
        fields: dict[str, Any] = render_post(article)
        if self.categories:
            fields["categories"] = self.category_ids()
        if tags := self.tag_ids(article.tags):
            fields["tags"] = tags
        what = f"WordPress publish {fields['slug']}"
        response = self._request("POST", what, json=fields)
        if response.status_code not in (200, 201):
            location = response.headers.get("location")
            raise ToolFailed(f"{what}: unexpected HTTP {response.status_code}" + (f" to {location}" if location else ""))
        try:
            post = response.json()
        except ValueError:
            raise ToolFailed(f"{what}: HTTP {response.status_code} but the answer is not JSON") from None
        item = self._item(post, what)
        if post.get("slug") != fields["slug"]:
            # WordPress made the slug unique: a post with ours exists that lookup did not see
            logger.warning("wordpress.slug_changed", wanted=fields["slug"], got=post.get("slug"), post_id=item.external_id)
        logger.info("wordpress.published", post_id=item.external_id, url=item.url)
        return item

    def retract(self, external_id: str, notice: str) -> None:
        """Take the post down: it leaves ``publish`` (becomes a draft), so an anonymous reader gets 404.

        A draft keeps its slug, so ``lookup`` still finds it and the topic is never published a second time."""
        what = f"WordPress retract post {external_id}"
        response = self._request("POST", what, path=f"/{external_id}", json={"status": "draft"})
        if response.status_code != 200:
            raise ToolFailed(f"{what}: unexpected HTTP {response.status_code}")
        logger.info("wordpress.retracted", post_id=external_id)

    def update(self, external_id: str, article: Article) -> PublishedItem:
        """The same post, new title and body (slug and URL unchanged)."""
        fields = render_post(article)
        what = f"WordPress correct post {external_id}"
        response = self._request("POST", what, path=f"/{external_id}",
                                 json={"title": fields["title"], "content": fields["content"],
                                       "excerpt": fields["excerpt"]})
        if response.status_code != 200:
            raise ToolFailed(f"{what}: unexpected HTTP {response.status_code}")
        try:
            item = self._item(response.json(), what)
        except ValueError:
            raise ToolFailed(f"{what}: the answer is not JSON") from None
        logger.info("wordpress.corrected", post_id=item.external_id, url=item.url)
        return item
