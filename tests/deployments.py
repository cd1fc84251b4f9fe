"""Tests that change a deployment value do it here: on the Deployment a pipeline's Settings carries, never through
the Settings (which has no such field: ``settings.model_copy(update={"web_port": ...})`` raises)."""

from __future__ import annotations

from config.deployment import VARIABLES, Deployment, nest
from config.settings import Settings


def redeploy(settings: Settings, **changes: object) -> Settings:
    """``settings`` carrying its Deployment with ``changes`` (by variable name in lower case: ``web_token=...``),
    each checked as the environment's value would be."""
    unknown = sorted(name for name in changes if name.upper() not in VARIABLES)
    assert not unknown, f"not deployment variables: {', '.join(unknown)}"
    values = {**settings.deployment().values(), **changes}
    return settings.with_deployment(Deployment(**nest(values)))
