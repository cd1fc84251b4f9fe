"""Kinds of setting values shared by the deployment's settings and a pipeline's, each checked in one place.

A value's check is an ``Annotated`` type here (``DatabaseUrl``, ``BindHost``, ``Cron``...), so the same
variable is validated the same way whichever type holds it; a ValueError's message becomes the one line
``invalid setting NAME: message`` (config.deployment, config.settings).
"""

from __future__ import annotations

import ipaddress
import re
from datetime import timezone
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlsplit

from pydantic import AfterValidator, BeforeValidator, Field, SecretStr
from sqlalchemy.engine import make_url

from config.cron import parse_cron, parse_time_zone

HOUR, DAY = 3600, 86_400
MAX_CONTEXT = 1_048_576  # tokens: no model reads more in one request
MAX_BYTES = 1_000_000_000  # a feed or page cap beyond this is no cap on a 2-core host
NUMERIC_HOST = re.compile(r"^[0-9.]+$")  # 999.1.1.1 looks like an address and is none
BARE_HOST = re.compile(r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")


def ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def seconds(default: float, most: float, **field: Any) -> Any:
    """A duration setting: finite, above 0 and at most ``most`` (inf, nan and 1e300 are refused at start)."""
    return Field(default, gt=0, le=most, allow_inf_nan=False, **field)


def key_values(text: str) -> dict[str, str]:
    """``a=1,b=2`` (the OTEL_* list form, values percent-decoded) as a dict; ValueError on a pair without ``=``."""
    pairs = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{item!r} is not key=value")
        pairs[key.strip()] = unquote(value.strip())
    return pairs


def _database(value: str) -> str:
    if not value.startswith(("sqlite://", "postgresql://", "postgresql+psycopg://")):
        raise ValueError("must start with sqlite:// or postgresql+psycopg://")
    if value.startswith("sqlite") and make_url(value).database in (None, "", ":memory:"):
        raise ValueError("names an in-memory SQLite database, which is lost when the process ends; "
                         "name a file: sqlite:///var/factline.db")
    if value.startswith("postgresql://"):
        return "postgresql+psycopg://" + value.removeprefix("postgresql://")
    return value


def _broker(value: str) -> str:
    if not value.startswith(("amqp://", "pyamqp://", "redis://", "rediss://")):
        raise ValueError("must start with amqp:// (RabbitMQ) or redis://")
    return value


def _http_url(value: str | None) -> str | None:
    if not value:
        return None
    if not value.startswith(("http://", "https://")):
        raise ValueError("must be an http:// or https:// URL")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise ValueError("is not a URL (its host or port cannot be read)") from None
    if not parts.hostname or any(ord(c) < 33 or ord(c) == 127 for c in value):
        raise ValueError("must name a host, without spaces or control characters (http://host[:port]/...)")
    return value


def _bind_host(value: str) -> str:
    if ip_literal(value) or (BARE_HOST.match(value.lower()) and not NUMERIC_HOST.match(value)):
        return value
    raise ValueError("must be an IP address (such as 127.0.0.1 or 0.0.0.0) or a host name")


def _cron(value: str) -> str:
    parse_cron(value, timezone.utc)
    return value


def _time_zone(value: str) -> str:
    parse_time_zone(value)
    return value


def _long_token(value: SecretStr | None) -> SecretStr | None:
    if value is None or not value.get_secret_value():
        return None  # WEB_TOKEN= (empty) means no token
    if len(value.get_secret_value()) < 16:
        raise ValueError("must be at least 16 characters (e.g. `python -c 'import secrets; print(secrets.token_urlsafe())'`)")
    return value


def _key_value_text(value: str | None) -> str | None:
    if value:
        key_values(value)
    return value or None


def _secret_key_values(value: SecretStr | None) -> SecretStr | None:
    if value is None or not value.get_secret_value():
        return None
    try:
        key_values(value.get_secret_value())
    except ValueError:
        raise ValueError("must be key=value pairs separated by commas") from None  # the value is a secret
    return value


def _upper(value: object) -> object:
    return value.strip().upper() if isinstance(value, str) else value


def _lower(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


DatabaseUrl = Annotated[str, AfterValidator(_database)]
BrokerUrl = Annotated[str, AfterValidator(_broker)]
HttpUrl = Annotated[str | None, AfterValidator(_http_url)]
BindHost = Annotated[str, AfterValidator(_bind_host)]
Cron = Annotated[str, AfterValidator(_cron)]
TimeZone = Annotated[str, AfterValidator(_time_zone)]
Token = Annotated[SecretStr | None, AfterValidator(_long_token)]
KeyValues = Annotated[str | None, AfterValidator(_key_value_text)]
SecretKeyValues = Annotated[SecretStr | None, AfterValidator(_secret_key_values)]
LogLevel = Annotated[Literal["DEBUG", "INFO", "WARNING", "ERROR"], BeforeValidator(_upper)]  # LOG_LEVEL=debug
LogFormat = Annotated[Literal["text", "json"], BeforeValidator(_lower)]
Port = Annotated[int, Field(ge=0, le=65535)]
