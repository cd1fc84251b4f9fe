"""Exception tree of the local-model package.

Every failure raised by ``pipeline.localmodel`` is a ``LocalModelError``, so a
caller can catch one type; the subclasses say which stage failed.
"""

from __future__ import annotations

from pathlib import Path


class LocalModelError(RuntimeError):
    """Base class of all local-model failures."""


class DownloadError(LocalModelError):
    """A pinned package could not be fetched with pip."""


class BuildError(LocalModelError):
    """Configuring or compiling llama-server failed."""

    def __init__(self, message: str, log_path: Path) -> None:
        super().__init__(f"{message} (full log: {log_path})")
        self.log_path = log_path


class ChecksumError(LocalModelError):
    """A file's size or sha256 is not the pinned one; the file was removed."""

    def __init__(self, path: Path, expected: str, actual: str) -> None:
        super().__init__(
            f"{path.name}: checksum mismatch, expected sha256 {expected}, "
            f"got {actual}; the file was removed"
        )
        self.path = path
        self.expected = expected
        self.actual = actual


class ServerError(LocalModelError):
    """llama-server did not start, died, or did not become healthy in time."""
