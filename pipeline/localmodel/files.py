"""Small file helpers shared by the build and weights steps: hashing, locking, pip downloads.

A pip download shows its bytes as a progress bar (pipeline.progress): pip is run with
``--progress-bar raw``, which prints ``Progress <done> of <total>`` lines on stdout, and those lines
feed the bar. pip stays the client that talks to the registry.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
import subprocess
import sys
import tempfile
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


RAW_PROGRESS = re.compile(r"Progress (\d+) of (\d+)")


def pip_download(requirement: str, dest: Path, *extra_args: str, label: str | None = None) -> None:
    """Fetch one pinned distribution (no dependencies) into ``dest`` with pip, with a byte progress bar."""
    from pipeline.progress import Progress as Bar  # rich: here, not in every factline process that names this package

    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
        "--progress-bar", "raw", "-d", str(dest), *extra_args, requirement,
    ]
    with tempfile.TemporaryFile("w+") as errors, contextlib.ExitStack() as stack:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, text=True)
        bar: Bar | None = None
        assert proc.stdout is not None
        for line in proc.stdout:
            if (hit := RAW_PROGRESS.fullmatch(line.strip())) is None:
                continue
            if bar is None:
                bar = stack.enter_context(Bar(label or requirement, unit="bytes"))
            bar(int(hit.group(1)), int(hit.group(2)))
        returncode = proc.wait()
        errors.seek(0)
        tail = "\n".join(errors.read().strip().splitlines()[-15:])
    if returncode != 0:
        raise DownloadError(f"pip download {requirement} failed (exit {returncode}):\n{tail}")
