"""Publishing targets behind one small protocol (capabilities.base.PublishTarget)."""

from __future__ import annotations

from contextlib import AbstractContextManager

import httpx

from capabilities.base import PublishTarget
from capabilities.targets.local import LocalTarget
from config import Settings


def open_target(settings: Settings, http: httpx.Client) -> AbstractContextManager[PublishTarget]:
    """The configured target, as a context manager that owns its resources (a local HTTP server, ...)."""
    if settings.publish_target == "wordpress":
        from capabilities.targets.wordpress import WordPressTarget

        return WordPressTarget.from_settings(settings, http)
    return LocalTarget(settings.local_site_dir, settings.local_site_host, settings.local_site_port)


__all__ = ["LocalTarget", "open_target"]
