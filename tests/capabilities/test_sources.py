"""Reading a topic's sources: a real HTTP server on 127.0.0.1 that answers, redirects, trickles and refuses."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from capabilities.sources import Reader, SourceRefused, _read_one, fetch_page, pinned_address, read_sources
from tests.local_http import LocalHTTP, answer, redirect, trickle

ARTICLE = (b"<html><head><title>Heat pumps</title></head><body><nav>Home | About</nav><article><h1>Heat pumps"
           b"</h1><p>In 2024 the city installed 1,200 heat pumps. Each one saves about 30 percent of the heating "
           b"bill, said Jane Smith of the energy office.</p><p>The programme runs until 2027.</p></article>"
           b"<footer>Cookies</footer></body></html>")
HTML = {"Content-Type": "text/html; charset=utf-8"}


@pytest.fixture
def server() -> Iterator[LocalHTTP]:
    with LocalHTTP() as http_server:
        http_server.routes["/robots.txt"] = answer(404)
        yield http_server


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(trust_env=False) as client:
        yield client


def reader(http: httpx.Client, **limits: object) -> Reader:
    values: dict[str, object] = {"max_bytes": 2_000_000, "deadline_seconds": 3.0, "request_timeout": 2.0,
                                 "private_hosts": frozenset({"127.0.0.1"})}
    values.update(limits)
    return Reader(http, **values)  # type: ignore[arg-type]


def failure(http: httpx.Client, url: str, **limits: object) -> str:
    found = _read_one(reader(http, **limits), 1, url)
    assert not found.ok and found.text is None
    assert found.failure is not None
    return found.failure


def test_main_text_is_extracted_without_the_page_chrome(server: LocalHTTP, http: httpx.Client) -> None:
    """An HTML page gives its article text (trafilatura): the navigation and footer are left out."""
    server.routes["/a"] = answer(200, ARTICLE, HTML)
    found = _read_one(reader(http), 1, server.url("/a"))
    assert found.ok and found.status == 200 and found.final_url == server.url("/a")
    assert found.text and "1,200 heat pumps" in found.text and "Cookies" not in found.text
    assert found.digest and len(found.digest) == 64


def test_the_user_agent_names_factline(server: LocalHTTP, http: httpx.Client) -> None:
    """Every request says it is factline, so a site can tell it apart and address it in robots.txt."""
    agents: list[str] = []

    def page(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        agents.append(handler.headers.get("User-Agent", ""))
        answer(200, ARTICLE, HTML)(handler, stop)

    server.routes["/a"] = page
    fetch_page(reader(http), server.url("/a"))
    assert agents and agents[0].startswith("factline/")


def test_a_404_is_recorded_with_its_status(server: LocalHTTP, http: httpx.Client) -> None:
    """A source that answers 404 is a failure naming the status."""
    assert failure(http, server.url("/missing")) == "HTTP 404"


def test_a_silent_server_times_out(server: LocalHTTP, http: httpx.Client) -> None:
    """A server that never answers fails within the per-request timeout."""
    server.routes["/slow"] = lambda handler, stop: stop.wait(5)
    assert "timed out" in failure(http, server.url("/slow"), request_timeout=0.5)


def test_a_trickling_page_stops_at_the_source_deadline(server: LocalHTTP, http: httpx.Client) -> None:
    """A byte every 0.1 s never trips a read timeout; the source's deadline stops it."""
    server.routes["/trickle"] = trickle(b"x", every=0.1, head=b"<html><body><p>")
    assert "SOURCE_DEADLINE_SECONDS" in failure(http, server.url("/trickle"), deadline_seconds=1.0)


def test_a_60_mb_page_is_not_read_past_the_cap(server: LocalHTTP, http: httpx.Client) -> None:
    """A 60 MB body (announced or streamed) stops at SOURCE_MAX_BYTES."""
    server.routes["/big"] = answer(200, b"<p>" + b"a" * 60_000_000, HTML)
    assert "larger than SOURCE_MAX_BYTES" in failure(http, server.url("/big"))
    server.routes["/stream"] = trickle(b"a" * 65536, every=0.0001, head=b"<html><body><p>")
    assert "larger than SOURCE_MAX_BYTES" in failure(http, server.url("/stream"), deadline_seconds=10.0)


def test_a_pdf_or_binary_body_is_refused(server: LocalHTTP, http: httpx.Client) -> None:
    """Only HTML and plain text are read: a PDF, or a 'text' body with NUL bytes, is refused."""
    server.routes["/paper.pdf"] = answer(200, b"%PDF-1.7\n%\xe2\xe3", {"Content-Type": "application/pdf"})
    assert "not a text page (application/pdf)" in failure(http, server.url("/paper.pdf"))
    server.routes["/bin"] = answer(200, b"\x00\x01\x02" * 100, {"Content-Type": "text/plain"})
    assert "not a text page" in failure(http, server.url("/bin"))


def test_a_page_without_text_is_refused(server: LocalHTTP, http: httpx.Client) -> None:
    """A page whose main text is empty (a script-only app shell) is 'no extractable text'."""
    server.routes["/app"] = answer(200, b"<html><body><div id=root></div><script>boot()</script></body></html>", HTML)
    assert failure(http, server.url("/app")).startswith("no extractable text")


def test_a_redirect_to_a_private_address_is_not_followed(server: LocalHTTP, http: httpx.Client) -> None:
    """Every hop is resolved and checked: a redirect to localhost (loopback, not allowed by name) is refused."""
    server.routes["/go"] = redirect(f"http://localhost:{server.port}/a")
    server.routes["/a"] = answer(200, ARTICLE, HTML)
    reason = failure(http, server.url("/go"))
    assert "private, loopback or link-local" in reason and "localhost" in reason
    assert [path for _, path, _ in server.requests if path == "/a"] == []


def test_private_and_link_local_addresses_are_refused_unless_allowed() -> None:
    """Loopback, private and link-local addresses are refused after resolution; a host named as allowed passes."""
    for host in ("127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "::ffff:127.0.0.1"):
        with pytest.raises(SourceRefused, match="private, loopback or link-local"):
            pinned_address(host, 80, frozenset())
    assert pinned_address("127.0.0.1", 80, frozenset({"127.0.0.1"})) == "127.0.0.1"


def test_robots_txt_disallow_is_honoured(server: LocalHTTP, http: httpx.Client) -> None:
    """A path robots.txt disallows for factline is never requested."""
    server.routes["/robots.txt"] = answer(200, b"User-agent: factline\nDisallow: /private\n", {"Content-Type": "text/plain"})
    server.routes["/private/a"] = answer(200, ARTICLE, HTML)
    assert "robots.txt disallows" in failure(http, server.url("/private/a"))
    assert all(path != "/private/a" for _, path, _ in server.requests)


def test_an_unreachable_robots_txt_forbids_everything(server: LocalHTTP, http: httpx.Client) -> None:
    """A robots.txt answering 503 means nothing may be read (RFC 9309)."""
    server.routes["/robots.txt"] = answer(503)
    server.routes["/a"] = answer(200, ARTICLE, HTML)
    assert "robots.txt" in failure(http, server.url("/a"))
    assert all(path != "/a" for _, path, _ in server.requests)


def test_a_redirect_chain_is_followed_and_recorded(server: LocalHTTP, http: httpx.Client) -> None:
    """Redirects are followed by hand, each hop checked; the final URL is recorded."""
    server.routes["/old"] = redirect("/new")
    server.routes["/new"] = answer(200, ARTICLE, HTML)
    found = _read_one(reader(http), 1, server.url("/old"))
    assert found.ok and found.final_url == server.url("/new")


def test_the_same_page_under_two_urls_is_one_source(server: LocalHTTP, http: httpx.Client, tmp_path) -> None:  # noqa: ANN001
    """Two URLs serving the same text: the second is recorded as failed, 'same text as source 1'."""
    from capabilities.base import CapabilityContext
    from capabilities.records import TopicRecord
    from config import load_settings

    class Store:
        def __init__(self) -> None:
            self.rows: list = []

        def run_sources(self) -> list:
            return list(self.rows)

        def add_source(self, *, topic_id: int, source):  # noqa: ANN001, ANN201
            self.rows.append(source)
            return source

    server.routes["/a"] = answer(200, ARTICLE, HTML)
    server.routes["/copy"] = answer(200, ARTICLE, HTML)
    settings = load_settings(source_allowed_private_hosts="127.0.0.1", database_url=f"sqlite:///{tmp_path}/x.db")
    ctx = CapabilityContext(run_id=1, settings=settings, store=Store(), http=http, text_model=None,  # type: ignore[arg-type]
                            target=None, page_http=http)  # type: ignore[arg-type]
    first, second = read_sources(ctx, TopicRecord(1, "Heat pumps", (server.url("/a"), server.url("/copy"))))
    assert first.ok and not second.ok and second.failure == "same text as source 1"
