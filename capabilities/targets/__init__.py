"""Publishing targets behind one small protocol (capabilities.base.PublishTarget)."""

from __future__ import annotations

from contextlib import AbstractContextManager

import httpx

from capabilities.base import PublishTarget
from capabilities.targets.local import LocalTarget
from config import Settings
from config.deployment import Site


def open_target(site: Site, settings: Settings, http: httpx.Client) -> AbstractContextManager[PublishTarget]:
    """The pipeline's target, as a context manager that owns its resources: its WordPress site, or the deployment's
    local ``site`` (folder and server)."""
    if settings.publish_target == "wordpress":
        from capabilities.targets.wordpress import WordPressTarget

        return WordPressTarget.from_settings(settings, http)
    return LocalTarget(site.dir, site.host, site.port)


__all__ = ["LocalTarget", "open_target"]
