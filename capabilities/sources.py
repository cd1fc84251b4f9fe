"""A topic's sources, read safely and once per run; their main text extracted with trafilatura.

    read_sources(ctx, topic) -> list[SourceText]
        every source of the topic, numbered [1], [2]... in the topic's order: the row this run already
        recorded, or read now and recorded (the ledger's ``sources`` table: source, final URL, status,
        digest, text, title, failure). A source whose text equals an earlier one's is recorded as failed
        ("same text as source 1"). Failures are recorded, never raised: write_draft decides what is enough.

A web source (fetch_page) is read by these rules, each hop of a redirect alike:
    - http and https only; at most MAX_REDIRECTS hops, each one checked again from the start;
    - the host is resolved first and every address must be global (no private, loopback, link-local,
      shared or reserved range, IPv4-mapped ones included) unless the host is in
      SOURCE_ALLOWED_PRIVATE_HOSTS; the request then goes to the address that was checked (the URL's
      host kept in the Host header and TLS's server name), so a second DNS answer cannot move it;
    - robots.txt of the hop's origin is honoured for the user agent "factline" (a 4xx robots.txt allows
      everything, an unreachable or 5xx one forbids everything, RFC 9309);
    - one deadline for the whole source (SOURCE_DEADLINE_SECONDS), checked after every chunk, every
      request's timeout at most what remains and at most HTTP_TIMEOUT_SECONDS; the run's deadline too
      (the run's client, pipeline.http); proxies only with HTTP_TRUST_ENV (the run's client reads them then);
    - at most SOURCE_MAX_BYTES, streamed; HTML, XHTML, plain text and Markdown only (a PDF, an image or
      a body with NUL bytes is refused); HTML's main text comes from trafilatura, boilerplate left out.
A local source (an absolute path, checked at start by config.topics) is read within the same size cap.
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
import time
import urllib.robotparser
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx
import trafilatura

from capabilities.base import CapabilityContext
from capabilities.httperrors import HTTPX_ERRORS
from capabilities.records import SourceText, TopicRecord
from config.topics import is_url

MAX_REDIRECTS = 5
MIN_TEXT_CHARS = 40
ROBOTS_MAX_BYTES = 500_000
AGENT_TOKEN = "factline"
USER_AGENT = "factline/0.1 (source reader; +https://github.com/factline/factline; robots.txt: factline)"
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "text/markdown", "text/x-markdown")


class SourceRefused(Exception):
    """This source cannot be used; the message is the one-line reason recorded in the ledger."""


@dataclass
class Reader:
    """What reading one run's sources needs: the run's client, the limits, robots.txt answers per origin."""

    http: httpx.Client
    max_bytes: int
    deadline_seconds: float
    request_timeout: float
    private_hosts: frozenset[str]
    robots: dict[str, urllib.robotparser.RobotFileParser | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    final_url: str
    status: int
    content_type: str
    body: bytes


def _global(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def pinned_address(host: str, port: int, private_hosts: frozenset[str]) -> str:
    """The address to connect to for ``host``: every address it resolves to must be global (or it is allowed)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise SourceRefused(f"host {host} does not resolve ({exc.strerror})") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if host.lower() not in private_hosts:
        if blocked := [a for a in addresses if not _global(a)]:
            raise SourceRefused(f"host {host} resolves to {blocked[0]}, a private, loopback or link-local address "
                                "(not in SOURCE_ALLOWED_PRIVATE_HOSTS); not requested")
    return addresses[0]


def _read_capped(response: httpx.Response, reader: Reader, deadline: float, max_bytes: int) -> bytes:
    too_big = SourceRefused(f"larger than SOURCE_MAX_BYTES ({max_bytes} bytes)")
    if int(response.headers.get("content-length", "0") or 0) > max_bytes:
        raise too_big
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise too_big
        if time.monotonic() > deadline:
            raise SourceRefused(f"not read within SOURCE_DEADLINE_SECONDS ({reader.deadline_seconds:g} s; "
                                f"{len(body)} bytes so far)")
    return bytes(body)


def _get(reader: Reader, url: str, deadline: float, max_bytes: int | None = None) -> tuple[int, httpx.Headers, bytes]:
    """One GET of ``url`` to the address its host was checked at; no redirect followed. (status, headers, body)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = pinned_address(host, port, reader.private_hosts)
    literal = f"[{address}]" if ":" in address else address
    target = urlunsplit((parts.scheme, f"{literal}:{port}", parts.path or "/", parts.query, ""))
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise SourceRefused(f"not read within SOURCE_DEADLINE_SECONDS ({reader.deadline_seconds:g} s)")
    timeout = httpx.Timeout(min(remaining, reader.request_timeout))
    headers = {"Host": parts.netloc.rsplit("@", 1)[-1], "User-Agent": USER_AGENT,
               "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"}
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    try:
        request = reader.http.build_request("GET", target, headers=headers, timeout=timeout, extensions=extensions)
        response = reader.http.send(request, stream=True, follow_redirects=False)
        try:
            body = b"" if response.is_redirect or response.status_code >= 400 else _read_capped(
                response, reader, deadline, max_bytes or reader.max_bytes)
            return response.status_code, response.headers, body
        finally:
            response.close()
    except httpx.TimeoutException:
        raise SourceRefused(f"timed out (HTTP_TIMEOUT_SECONDS {reader.request_timeout:g} s, "
                            f"SOURCE_DEADLINE_SECONDS {reader.deadline_seconds:g} s)") from None
    except httpx.TransportError as exc:
        raise SourceRefused(f"connection failed ({exc.__class__.__name__})") from None
    except HTTPX_ERRORS as exc:  # the rest of httpx's tree (a URL it cannot form, a body it cannot decode...)
        raise SourceRefused(f"refused by the HTTP client ({exc.__class__.__name__})") from None


def _robots(reader: Reader, url: str, deadline: float) -> urllib.robotparser.RobotFileParser | None:
    """The origin's robots.txt rules (cached per run); None: it answered 5xx, so nothing may be read (RFC 9309).

    A robots.txt that cannot be reached at all (connection refused, timeout) raises that failure: the site
    is down, and that is the reason to record."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    if origin not in reader.robots:
        rules: urllib.robotparser.RobotFileParser | None = urllib.robotparser.RobotFileParser()
        status, _, body = _get(reader, f"{origin}/robots.txt", deadline, ROBOTS_MAX_BYTES)
        assert rules is not None
        if 200 <= status < 300:
            rules.parse(body.decode("utf-8", "replace").splitlines())
        elif 300 <= status < 500:  # none there (redirects not followed for robots.txt): everything allowed
            rules.parse([])
        else:
            rules = None
        reader.robots[origin] = rules
    return reader.robots[origin]


def fetch_page(reader: Reader, url: str) -> Page:
    """GET ``url`` under the module's rules, following redirects by hand; SourceRefused says why not."""
    deadline = time.monotonic() + reader.deadline_seconds
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        if urlsplit(current).scheme not in ("http", "https") or not urlsplit(current).hostname:
            raise SourceRefused(f"redirected to {current}, not an http(s) URL; not followed")
        hop = urlsplit(current)
        pinned_address(hop.hostname or "", hop.port or 80, reader.private_hosts)  # refused before robots.txt is asked
        rules = _robots(reader, current, deadline)
        if rules is None:
            raise SourceRefused(f"robots.txt of {hop.netloc} answered 5xx: nothing may be read; not requested")
        if not rules.can_fetch(AGENT_TOKEN, current):
            raise SourceRefused(f"robots.txt disallows {current} for factline; not requested")
        status, headers, body = _get(reader, current, deadline)
        if 300 <= status < 400 and "location" in headers:
            current = urljoin(current, headers["location"])
            continue
        if status >= 400:
            raise SourceRefused(f"HTTP {status}")
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in TEXT_TYPES or b"\x00" in body[:4096]:
            raise SourceRefused(f"not a text page ({content_type or 'no content type'}); only HTML and plain text are read")
        return Page(current, status, content_type, body)
    raise SourceRefused(f"more than {MAX_REDIRECTS} redirects")


def _decode(body: bytes) -> str:
    return body.decode("utf-8", "replace")


def extract(body: bytes, content_type: str, url: str | None) -> tuple[str | None, str]:
    """(title, main text) of a page or file: trafilatura for HTML, plain text as it is."""
    if content_type in ("text/html", "application/xhtml+xml"):
        document = trafilatura.bare_extraction(_decode(body), url=url, with_metadata=True, include_comments=False,
                                               include_tables=True)
        text = (document.text if document else "") or ""
        return (document.title if document else None), text.strip()
    text = _decode(body).strip()
    heading = next((line.lstrip("#").strip() for line in text.splitlines() if line.strip()), None)
    return heading, text


def _read_one(reader: Reader, number: int, source: str) -> SourceText:
    final_url, status, title, text = None, None, None, ""
    try:
        if is_url(source):
            page = fetch_page(reader, source)
            final_url, status = page.final_url, page.status
            title, text = extract(page.body, page.content_type, page.final_url)
        else:
            path = Path(source)
            if path.stat().st_size > reader.max_bytes:
                raise SourceRefused(f"larger than SOURCE_MAX_BYTES ({reader.max_bytes} bytes)")
            body = path.read_bytes()
            if b"\x00" in body[:4096]:
                raise SourceRefused("not a text file")
            kind = "text/html" if path.suffix.lower() in (".html", ".htm") else "text/plain"
            title, text = extract(body, kind, None)
            title = title or path.name
        if len(text) < MIN_TEXT_CHARS:
            raise SourceRefused(f"no extractable text ({len(text)} characters)")
    except SourceRefused as exc:
        return SourceText(number, source, final_url, status, False, None, None, None, str(exc)[:500])
    except OSError as exc:
        return SourceText(number, source, None, None, False, None, None, None, f"cannot read: {exc.strerror}")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return SourceText(number, source, final_url, status, True, (title or source)[:500], digest, text, None)


def read_sources(ctx: CapabilityContext, topic: TopicRecord) -> list[SourceText]:
    """The topic's sources as this run read them (each read once per run; see the module docstring)."""
    settings = ctx.settings
    recorded = {s.source: s for s in ctx.store.run_sources()}
    reader = Reader(ctx.http, settings.source_max_bytes, settings.source_deadline_seconds,
                    settings.http_timeout_seconds, frozenset(settings.source_allowed_private_hosts))
    read: list[SourceText] = []
    for number, source in enumerate(topic.sources, 1):
        if source not in recorded:
            found = _read_one(reader, number, source)
            if found.ok and (twin := next((r for r in read if r.ok and r.digest == found.digest), None)):
                found = SourceText(number, source, found.final_url, found.status, False, found.title, found.digest,
                                   None, f"same text as source {twin.number}")
            recorded[source] = ctx.store.add_source(topic_id=topic.id, source=found)
        read.append(recorded[source])
    return read
