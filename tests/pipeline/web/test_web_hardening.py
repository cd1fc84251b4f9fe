"""The dashboard and the local site behind one hardened server: bodies bounded before they are read, no symlink
out of the site, no folder listing, security headers, no traceback for odd paths.

The 400 MB body is streamed over a real socket to a `factline web` process whose peak memory (VmHWM) is read
from /proc before and after.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from capabilities.targets.site import SiteServer
from testkit.daemon_process import daemon_env
from tests.cli_helpers import factline_here

TOKEN = "a-web-token-of-32-characters-xyz"
MB = 1024 * 1024


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def stream_body(port: int, head: bytes, total: int, chunked: bool) -> bytes:
    """Send ``head`` then up to ``total`` bytes of body (1 MB pieces) until the server stops reading; its answer."""
    piece = b"token=" + b"x" * (MB - 6)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head)
        sent = 0
        try:
            while sent < total:
                conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                sent += len(piece)
            if chunked:
                conn.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed: what a bound looks like
            pass
        try:
            return conn.recv(200)
        except OSError:
            return b""


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_400_mb_login_post_is_refused_before_it_is_read_and_memory_stays_flat(tmp_path: Path, chunked: bool) -> None:
    """POST /login with 400 MB (declared, or chunked without a length): 413, and the dashboard's peak memory grows
    by less than 30 MB (it read the whole body before: 912 MB)."""
    env = daemon_env(f"sqlite:///{tmp_path}/ledger.db", "http://127.0.0.1:9/v1", tmp_path, WEB_TOKEN=TOKEN)
    upgraded = factline_here(env, "db", "upgrade", cwd=tmp_path)  # in this process: only the dashboard is measured
    assert upgraded.returncode == 0, upgraded.stderr
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "web", "--port", "0"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split("factline web: ", 1)[1].split()[0].rstrip("/")
        port = int(url.rsplit(":", 1)[1])
        assert httpx.get(url + "/login").status_code == 200
        before = peak_rss_mb(proc.pid)
        length = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: %d" % (400 * MB)
        head = (b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + length + b"\r\n\r\n")
        answer = stream_body(port, head, 400 * MB, chunked)
        after = peak_rss_mb(proc.pid)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        assert after - before < 30, (before, after)
        assert httpx.get(url + "/login").status_code == 200  # still serving
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.fixture
def site(tmp_path: Path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "a-1.html").write_text("<p>an article</p>")
    (root / "sub").mkdir()
    (root / "sub" / "note.txt").write_text("inside")
    (tmp_path / "secret.txt").write_text("outside the site")
    os.symlink(tmp_path / "secret.txt", root / "leak.txt")
    os.symlink(tmp_path, root / "up")
    with SiteServer(root, "127.0.0.1", 0) as server, httpx.Client(base_url=server.url) as client:
        yield client


def test_the_local_site_serves_its_files_with_security_headers(site: httpx.Client) -> None:
    """A page of the site answers 200 with nosniff, a CSP without script, no-referrer and DENY framing."""
    page = site.get("/a-1.html")
    assert page.status_code == 200 and "an article" in page.text
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["x-frame-options"] == "DENY"
    assert "script" not in page.headers["content-security-policy"] and page.headers["referrer-policy"] == "no-referrer"
    assert site.get("/").status_code == 200  # index.html


@pytest.mark.parametrize("path", ["/leak.txt", "/up/secret.txt", "/sub/", "/sub", "/%00", "/a-1.html%00",
                                  "/..%2fsecret.txt", "/%2e%2e/secret.txt"])
def test_the_local_site_refuses_symlinks_out_listings_and_odd_paths(
        site: httpx.Client, path: str, capfd: pytest.CaptureFixture[str]) -> None:
    """A symlink out of the site, a folder, a NUL, an encoded ..: 404 (or a redirect inside), never the file outside,
    never a listing, no traceback."""
    answer = site.get(path)
    assert answer.status_code in (404, 307), (path, answer.status_code)
    assert "outside the site" not in answer.text and "note.txt" not in answer.text
    assert "Traceback" not in capfd.readouterr().err


def test_the_local_site_answers_get_only(site: httpx.Client) -> None:
    """A POST (with or without a body) is refused with 405 or 413, never kept."""
    assert site.post("/a-1.html").status_code == 405
    assert site.post("/a-1.html", content=b"x" * 100).status_code == 413


def test_a_refused_body_that_arrives_after_its_headers_still_gets_its_413(site: httpx.Client) -> None:
    """A client that sends its headers, then its (small) body a moment later, writes it whole and reads the 413:
    the server discards the body before closing, so the kernel never answers the late bytes with a reset (httpx
    saw "connection reset" writing a 100-byte POST to the local site under load)."""
    port = int(str(site.base_url).rstrip("/").rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"POST /a-1.html HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
        for _ in range(2):  # a client writing its body in two pieces: the second failed with a reset before
            time.sleep(0.3)
            conn.sendall(b"x" * 50)
        assert conn.recv(200).startswith(b"HTTP/1.1 413")
