"""Secrets never leave: every configured secret is replaced by ``[redacted]`` wherever text is kept.

    Redactor.of(deployment, *settings)   the secrets of the Deployment and of one or more pipelines' Settings
                                         (``secret_values``)
    redactor(text)                       ``text`` with every secret replaced; redactor.data(value) does the
                                         same inside dicts and lists (a tool call's result, an event's detail)

The ledger's writer (pipeline.ledger.journal) and every log sink (pipeline.logs) pass their text
through one. The secrets are a pipeline's OPENAI_API_KEY and WORDPRESS_APP_PASSWORD (also without its
spaces: WordPress shows it in groups of four; and the Basic credentials it is sent in), and the
deployment's WEB_TOKEN, OTLP header values and the passwords inside DATABASE_URL and CELERY_BROKER_URL,
each also as it appears percent-encoded in a URL. Values shorter than MIN_LENGTH characters, and the
built-in placeholders (``not-needed``, RabbitMQ's ``guest``), are left alone: replacing ``guest`` in every
text would mangle it and protect nothing.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from config.values import key_values

if TYPE_CHECKING:
    from config.deployment import Deployment
    from config.settings import Settings

REDACTED = "[redacted]"
MIN_LENGTH = 6
PLACEHOLDERS = frozenset({"not-needed", "guest"})


def url_password(url: str) -> str | None:
    """The password inside a DSN or broker URL, decoded; None when there is none (or it does not parse)."""
    try:
        return make_url(url).password  # type: ignore[return-value]
    except (ArgumentError, ValueError):
        match = re.match(r"^[a-z0-9+.-]+://[^:/@]*:([^@/]*)@", url, re.I)
        return unquote(match.group(1)) if match else None


def secret_values(deployment: Deployment, *settings: Settings) -> set[str]:
    """The secrets of a Deployment (the passwords in DATABASE_URL and CELERY_BROKER_URL, the OTLP headers' values,
    WEB_TOKEN) and of pipelines' Settings (OPENAI_API_KEY, WORDPRESS_APP_PASSWORD), as they may appear in text."""
    values = {url_password(deployment.ledger.url) or "", url_password(deployment.executor.broker_url) or ""}
    if deployment.otel.headers is not None:  # an OTLP API key (Authorization=..., api_key=...)
        values |= set(key_values(deployment.otel.headers.get_secret_value()).values())
    if deployment.web.token is not None:
        values.add(deployment.web.token.get_secret_value())
    for one in settings:
        values.add(one.openai_api_key.get_secret_value())
        if one.wordpress_app_password is not None:
            password = one.wordpress_app_password.get_secret_value()
            values |= {password, password.replace(" ", "")}
            basic = f"{one.wordpress_user or ''}:{password}".encode()
            values.add(base64.b64encode(basic).decode())  # the Authorization header, as an error page may echo it
    values |= {quote(value, safe="") for value in values}
    return {v for v in values if len(v) >= MIN_LENGTH and v not in PLACEHOLDERS}


class Redactor:
    """Replaces every secret it knows in a text; the longest first, so a secret inside another goes too."""

    def __init__(self, secrets: Iterable[str]) -> None:
        ordered = sorted(set(secrets), key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    @classmethod
    def of(cls, deployment: Deployment, *settings: Settings) -> Redactor:
        """The secrets of the deployment and of every pipeline's settings given."""
        return cls(secret_values(deployment, *settings))

    def __call__(self, text: str) -> str:
        return self._pattern.sub(REDACTED, text) if self._pattern is not None and text else text

    def data(self, value: Any) -> Any:
        """``value`` with every string in it (keys too, at any depth) redacted."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value
