"""Bad input on the publish path: text from the model's writer is published faithfully (escaped) or refused
with a clear error before any request reaches WordPress; never half-published."""

from __future__ import annotations

import html

import httpx

from testkit.reliability.faults import lookups, until_refused
from testkit.reliability.harness import Lab, Scenario, calls_named
from testkit.scripted_model import Request

MARKUP_TITLE = 'Hi <script>alert("t")</script> & <b>bold</b>'
MARKUP_BODY = "Text <script>alert('b')</script> & more.\n\n<img src=x onerror=alert(1)>"
CJK_TITLE = "Tea 🍵 and 漢字 — ça va"
CJK_BODY = "日本語の段落です。🙂👍🏽\n\n한국어 문단 and 中文段落 ✅"
PARAGRAPH = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20


def write(lab: Lab, title: str, body: str) -> None:
    """Make every plain completion (the draft and its rewrite) answer this title and body."""

    def writer(request: Request) -> str:
        return f"# {title}\n\n{body}"

    lab.model.writer = writer


def published(lab: Lab, title: str, body: str) -> dict:
    """Run with this text; check success and one post; return the post (raw title and content)."""
    write(lab, title, body)
    lab.expect_run(lab.run(until_refused), 0, "success")
    lab.expect_posts(live=1, registrations=1)
    posts = lab.live_posts()
    return posts[0] if posts else {"title": {"raw": ""}, "content": {"raw": ""}, "link": ""}


def refused(lab: Lab, body: str, tool: str, reason: str) -> None:
    """Run with this body; check ``tool`` refused it naming ``reason``, and nothing reached WordPress."""
    write(lab, "A plain title", body)
    detail = lab.expect_run(lab.run(until_refused), 4, "incomplete")
    attempts = calls_named(detail, tool)
    details = [c.detail or "" for c in attempts]
    lab.check(bool(attempts) and all(c.outcome != "ok" for c in attempts), f"{tool} {details} was not refused")
    lab.check(all(reason in d for d in details), f"{tool} details {details} do not say {reason!r}")
    if details:
        lab.note(f"{tool}: {details[0][:100]}")
    lab.check(calls_named(detail, "publish") == [] or tool == "publish", "publish was called with refused text")
    lab.check(lookups(lab) == [], f"requests reached WordPress: {lookups(lab)}")
    lab.expect_posts(live=0, registrations=0)


def markup_is_published_escaped(lab: Lab) -> None:
    post = published(lab, MARKUP_TITLE, MARKUP_BODY)
    stored = post["title"]["raw"] + post["content"]["raw"]
    lab.check(
        post["title"]["raw"] == html.escape(MARKUP_TITLE, quote=False), f"title stored as {post['title']['raw']!r}"
    )
    lab.check(not any(tag in stored for tag in ("<script", "<img", "<b>")), f"live markup stored: {stored!r}")
    page = httpx.get(post["link"]).text if post["link"] else ""
    lab.check("<script>alert(" not in page and "<img src=x" not in page, "the page serves the article's markup live")
    lab.note(f"title stored as {post['title']['raw'][:48]}")


def one_megabyte_body_is_published_whole(lab: Lab) -> None:
    body = "\n\n".join(f"{i} {PARAGRAPH}" for i in range(900))
    post = published(lab, "A long one", body)
    paragraphs = post["content"]["raw"].count("<p>")
    lab.check(paragraphs == 900, f"{paragraphs} paragraphs stored, expected 900")
    lab.note(f"{len(body.encode()) // 1000} kB body, {paragraphs} paragraphs stored")


def emoji_and_cjk_are_published_faithfully(lab: Lab) -> None:
    post = published(lab, CJK_TITLE, CJK_BODY)
    lab.check(post["title"]["raw"] == CJK_TITLE, f"title stored as {post['title']['raw']!r}")
    expected = "<p>日本語の段落です。🙂👍🏽</p>\n<p>한국어 문단 and 中文段落 ✅</p>\n"  # markdown-it ends each block with a newline
    lab.check(post["content"]["raw"] == expected, f"content stored as {post['content']['raw']!r}")
    lab.note(f"title stored as {post['title']['raw']}")


def body_over_two_megabytes_is_refused(lab: Lab) -> None:
    refused(lab, "x" * 2_100_000, "publish", "larger than")


def control_characters_are_refused(lab: Lab) -> None:
    refused(lab, "A bell \x07 rings in this body.", "publish", "control character")


def lone_surrogates_are_refused(lab: Lab) -> None:
    refused(lab, "Broken \ud800 text.", "write_draft", "not valid UTF-8")


SCENARIOS = [
    Scenario("markup_is_published_escaped", "exit 0, success; stored escaped", markup_is_published_escaped),
    Scenario(
        "one_megabyte_body_is_published_whole",
        "exit 0, success; 900 paragraphs stored",
        one_megabyte_body_is_published_whole,
    ),
    Scenario(
        "emoji_and_cjk_are_published_faithfully",
        "exit 0, success; text unchanged",
        emoji_and_cjk_are_published_faithfully,
    ),
    Scenario(
        "body_over_two_megabytes_is_refused",
        "exit 4, incomplete; publish refuses, no request",
        body_over_two_megabytes_is_refused,
    ),
    Scenario(
        "control_characters_are_refused",
        "exit 4, incomplete; publish refuses, no request",
        control_characters_are_refused,
    ),
    Scenario(
        "lone_surrogates_are_refused",
        "exit 4, incomplete; write_draft refuses, no request",
        lone_surrogates_are_refused,
    ),
]
