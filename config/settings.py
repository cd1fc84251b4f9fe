"""A pipeline's Settings, read from the environment, an optional .env file and the pipelines file; every check.

Two types, two owners (docs/architecture.md, "Settings: the deployment's and a pipeline's"):

    Deployment   config.deployment: where this process runs (ledger, executor, logs, metrics, web, site, model,
                 probe, otel, prune), the same for every pipeline, read once from the environment and .env
    Settings     here: what one pipeline does (schedule, language, model and endpoint, budgets, sources, target)
                 and its secrets; no deployment value is a field of it. It carries the Deployment it was
                 loaded with (``settings.deployment()``), which no settings source can fill

Nothing reads ``os.environ`` at import time: ``config.pipelines.load_config()`` is called by the CLI's ``main()``
and the result is passed down (``load_settings()`` builds one pipeline's Settings the same way, for tests and
scripts). A bad value raises ``ConfigError`` whose message is one line naming the variable; every bad setting is
reported at once (one line each, the deployment's first), then the CLI exits 2. A check of one value is its type
(config.values) or a ``field_validator``; a check across values is a function in ``DEPLOYMENT_CHECKS`` (run once
on the Deployment) or ``CROSS_CHECKS`` (run per pipeline, with its deployment) that returns its problem lines.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from sqlalchemy.engine import make_url
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from config.deployment import (DEPLOYMENT_KEYS, RABBITMQ_CONSUMER_TIMEOUT_SECONDS, VARIABLES, Deployment,
                               load_deployment)
from config.errors import ConfigError
from config.topics import TopicsFileError, read_jsonl_topics
from config.values import BARE_HOST, DAY, HOUR, MAX_BYTES, MAX_CONTEXT, Cron, HttpUrl, TimeZone, ip_literal, seconds

CONFIG_DIR = Path(__file__).resolve().parent
DEFAULT_TOPICS = CONFIG_DIR / "topics.jsonl"

CommaList = Annotated[list[str], NoDecode]
ENV_NAMES = {"language": "FACTLINE_LANGUAGE",  # LANGUAGE is gettext's variable, set on most Linux logins
             "review": "REVIEW_MODE"}  # `review` in the pipelines file


class Settings(BaseSettings):
    """What one pipeline does, and its secrets. Environment names are the field names in upper case.

    No deployment value is a field (``Settings(database_url=...)`` is a validation error; a deployment variable
    in the environment or .env is the Deployment's, which RenamedEnv leaves out); code that reads one takes the
    Deployment. ``deployment()`` is the Deployment these settings were loaded with (check_settings sets it)."""

    model_config = SettingsConfigDict(env_file=".env", extra="forbid", frozen=True)
    _deployment: Deployment | None = PrivateAttr(None)  # set by check_settings: no settings source can fill it

    # the pipeline these settings belong to (its name comes from the pipelines file: config.pipelines)
    pipeline: str = Field("content", pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    language: Literal["en", "zh"] = "en"  # the language of the articles this pipeline writes (FACTLINE_LANGUAGE)

    # the LLM endpoint (any OpenAI-compatible chat-completions server with tools)
    openai_base_url: HttpUrl = None
    openai_api_key: SecretStr = SecretStr("not-needed")
    factline_model: str = Field("qwen2.5-coder-0.5b-instruct", max_length=200)
    tool_call_mode: Literal["auto", "native", "constrained"] = "auto"
    llm_timeout_seconds: float = seconds(120.0, HOUR)  # the longest silence between two pieces of an answer
    llm_max_tokens_turn: int = Field(512, ge=16, le=MAX_CONTEXT)  # one agent turn (a tool call or a short answer)
    llm_max_tokens_text: int = Field(1024, ge=64, le=MAX_CONTEXT)  # one draft or rewrite
    llm_temperature: float = Field(0.0, ge=0, le=2)

    # the hallucination guard
    agent_hallucination_guard: bool = True
    agent_hallucination_max_nudges: int = Field(2, ge=0, le=10)
    agent_max_continue_prompts: int = Field(2, ge=0, le=10)

    # limits of one run (checked in pipeline.gateway.budget)
    run_max_turns: int = Field(30, ge=1, le=10_000)
    run_max_tool_calls: int = Field(12, ge=1, le=10_000)
    run_max_tokens: int = Field(60_000, ge=1, le=100_000_000)
    run_max_seconds: float = seconds(900.0, DAY)  # a wall-clock deadline, enforced in flight (pipeline.http)
    run_max_unknown_tools: int = Field(3, ge=1, le=1000)
    run_loop_window: int = Field(6, ge=4, le=1000)

    # retries of capabilities and of the LLM endpoint
    retry_max_attempts: int = Field(3, ge=1, le=10)
    retry_base_delay: float = Field(0.5, ge=0, le=HOUR, allow_inf_nan=False)
    retry_max_wait: float = Field(30.0, ge=0, le=HOUR, allow_inf_nan=False)
    http_timeout_seconds: float = seconds(10.0, HOUR)
    http_trust_env: bool = False  # read HTTP(S)_PROXY and .netrc (pipeline.http); off: the whitelist says where requests go

    # content: TOPICS_SOURCE is a text file (one topic a line) or an RSS/Atom URL read within these limits
    topics_source: str = str(DEFAULT_TOPICS)
    topics_feed_max_bytes: int = Field(5_000_000, ge=1024, le=MAX_BYTES)
    topics_feed_deadline_seconds: float = seconds(30.0, HOUR)
    topics_feed_max_items: int = Field(200, ge=1, le=1_000_000)
    # sources of a topic (capabilities.sources): local files only inside the topics file's folder or these
    source_local_dirs: CommaList = []
    source_allowed_private_hosts: CommaList = []  # bare hosts whose private/loopback addresses may be read
    source_max_bytes: int = Field(2_000_000, ge=1024, le=MAX_BYTES)  # one source's body, streamed
    source_deadline_seconds: float = seconds(20.0, HOUR)  # one source, every hop and chunk
    source_token_budget: int = Field(2400, ge=100)  # the sources' text in write_draft's prompt, split fairly
    # the fact check before publish (capabilities.fact_check): auto = strict when the topic has sources, else off
    fact_check: Literal["auto", "strict", "warn", "off"] = "auto"
    fact_check_max_revisions: int = Field(2, ge=0, le=5)

    # publishing
    publish_target: Literal["local", "wordpress"] = "local"
    publish_domain_whitelist: CommaList = ["127.0.0.1", "localhost"]
    wordpress_url: HttpUrl = None
    wordpress_user: str | None = None
    wordpress_app_password: SecretStr | None = None
    wordpress_categories: CommaList = []  # the pipeline's post categories, created on WordPress when missing
    # verification: a GET of the published page must hold this share of the article (capabilities.verify)
    content_coverage_min: float = Field(0.98, gt=0, le=1)
    page_max_bytes: int = Field(5_000_000, ge=1024, le=MAX_BYTES)  # a page larger than this is not read, and not verified
    preview_dir: Path = Path("var/preview")  # factline run --dry-run renders the page here
    # the editor's gate before publish (pipeline.review): none, required (every article), flagged (only those
    # the guard or the fact check flagged); a review not decided within REVIEW_EXPIRE_HOURS closes `expired`
    review: Literal["none", "required", "flagged"] = "none"
    review_expire_hours: float = seconds(72.0, 24 * 366)

    # daemon (crontab expressions and an IANA time zone, checked here with config.cron)
    schedule_cron: Cron = "0 6 * * *"
    schedule_timezone: TimeZone = "UTC"
    schedule_misfire_grace_seconds: int = Field(300, ge=1, le=DAY)
    # ticks missed while no scheduler ran (within the grace time): each its own run, only the latest, or none
    schedule_catch_up: Literal["all", "latest", "none"] = "all"
    report_cron: Cron = "55 23 * * *"
    alert_webhook_url: HttpUrl = None
    alert_deadline_seconds: float = seconds(10.0, HOUR)  # one POST, all of it (pipeline.webhook)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, RenamedEnv(settings_cls, env_settings), RenamedEnv(settings_cls, dotenv_settings)

    @field_validator("publish_domain_whitelist", "source_allowed_private_hosts", "source_local_dirs", "wordpress_categories",
                     mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        if isinstance(value, str):
            return [h.strip() for h in value.split(",") if h.strip()]
        return value

    @field_validator("source_allowed_private_hosts")
    @classmethod
    def _bare_private_hosts(cls, hosts: list[str]) -> list[str]:
        hosts = [h.lower() for h in hosts]
        bad = [h for h in hosts if not BARE_HOST.match(h) and not ip_literal(h)]
        if bad:
            raise ValueError(f"entries must be bare host names, without scheme, port or path (not {', '.join(bad)})")
        return hosts

    @field_validator("publish_domain_whitelist")
    @classmethod
    def _bare_hosts(cls, hosts: list[str]) -> list[str]:
        hosts = [h.lower() for h in hosts]
        if not hosts:
            raise ValueError("must name at least one host (comma-separated)")
        bad = [h for h in hosts if not BARE_HOST.match(h) and not ip_literal(h)]
        if bad:
            raise ValueError(f"entries must be bare host names, without scheme, port or path (not {', '.join(bad)})")
        return hosts

    @field_validator("factline_model")
    @classmethod
    def _model_named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must name the model (it is empty)")
        return value

    def deployment(self) -> Deployment:
        """The Deployment these settings were loaded with (the same for every pipeline of a process): what opening
        one pipeline on its own needs (pipeline.runtime.open_runtime)."""
        if self._deployment is None:
            raise RuntimeError("these Settings were built without a Deployment: load them with config.load_settings "
                               "or config.load_config")
        return self._deployment

    def with_deployment(self, deployment: Deployment) -> Settings:
        """A copy carrying ``deployment`` instead (a test or script that changes a deployment value:
        tests/deployments.py)."""
        copy = super().model_copy()
        copy._deployment = deployment
        return copy

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Settings:
        """A copy with ``update`` applied, which may name only a pipeline's settings: a deployment value changed here
        would change nothing (change the Deployment instead)."""
        if unknown := sorted(set(update or {}) - set(type(self).model_fields)):
            raise ValueError(f"not a pipeline's setting: {', '.join(unknown)}"
                             + (" (a deployment value: change the Deployment)" if set(unknown) & DEPLOYMENT_KEYS else ""))
        return super().model_copy(update=update, deep=deep)

    def wordpress_site(self) -> tuple[str, str, SecretStr]:
        """WORDPRESS_URL, WORDPRESS_USER and WORDPRESS_APP_PASSWORD; a ConfigError names every one missing."""
        if missing := _missing_wordpress(self):
            raise ConfigError(*missing)
        assert self.wordpress_url and self.wordpress_user and self.wordpress_app_password  # for the type checker
        return self.wordpress_url, self.wordpress_user, self.wordpress_app_password


WORDPRESS_FIELDS = ("wordpress_url", "wordpress_user", "wordpress_app_password")


def _missing_wordpress(settings: Settings) -> list[str]:
    """The one check of the WordPress settings (load_settings and WordPressTarget.from_settings both use it)."""
    return [f"missing setting {field.upper()}: required when PUBLISH_TARGET=wordpress"
            for field in WORDPRESS_FIELDS if not getattr(settings, field)]


class RenamedEnv(PydanticBaseSettingsSource):
    """An environment source in which a field listed in ENV_NAMES is read from its own variable name, and which
    hands over nothing but fields: with extra fields forbidden, pydantic-settings' .env source returns every other
    variable of the file too (a deployment's WEB_PORT=8080, say), which would fail every pipeline's Settings."""

    def __init__(self, settings_cls: type[BaseSettings], inner: PydanticBaseSettingsSource) -> None:
        super().__init__(settings_cls)
        self.inner = inner

    def get_field_value(self, field: object, field_name: str) -> tuple[object, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, object]:
        values = dict(self.inner())
        variables = {k.lower(): v for k, v in getattr(self.inner, "env_vars", {}).items()}
        for field, variable in ENV_NAMES.items():
            values.pop(field, None)
            if (value := variables.get(variable.lower())) is not None:
                values[field] = value
        return {name: value for name, value in values.items() if name in self.settings_cls.model_fields}


def env_name(field: str) -> str:
    """The environment variable a field is read from."""
    return ENV_NAMES.get(field, field.upper())


def _wordpress_credentials(deployment: Deployment, settings: Settings) -> list[str]:
    return _missing_wordpress(settings) if settings.publish_target == "wordpress" else []


def _topics_readable(deployment: Deployment, settings: Settings) -> list[str]:
    source = settings.topics_source
    if source.startswith(("http://", "https://")):
        return []
    if not os.path.isfile(source) or not os.access(source, os.R_OK):
        return [f"invalid setting TOPICS_SOURCE: {source} is not a readable file (nor an http(s) feed URL)"]
    if source.endswith(".jsonl"):
        try:
            read_jsonl_topics(Path(source), [Path(d) for d in settings.source_local_dirs])
        except TopicsFileError as exc:
            return [f"invalid setting TOPICS_SOURCE: {exc}"]
    return []


def _writable_dir(path: Path) -> bool:
    """Whether a file can be made in ``path`` (tried: ``os.access`` says yes to root even on /proc)."""
    try:
        with tempfile.TemporaryFile(dir=path):
            return True
    except OSError:
        return False


def _creatable(path: Path, folder: bool) -> bool:
    """Whether ``path`` (a folder, or a file's folder) exists and takes files, or can be created under its nearest
    existing ancestor; nothing is left behind."""
    place = path.absolute() if folder else path.absolute().parent
    while not place.exists():
        place = place.parent
    return place.is_dir() and _writable_dir(place)


def _ledger_writable(deployment: Deployment) -> list[str]:
    url = deployment.ledger.url
    if url.startswith("sqlite") and not _creatable(Path(make_url(url).database or ""), folder=False):
        return ["invalid setting DATABASE_URL: the SQLite file's folder cannot be created or written here"]
    return []


def _archive_writable(deployment: Deployment) -> list[str]:
    archive = deployment.prune.archive_dir
    if deployment.prune.after_days and archive is not None and not _creatable(archive, folder=True):
        return ["invalid setting PRUNE_ARCHIVE_DIR: not a folder this process can create or write in"]
    return []


def _tracing_installed(deployment: Deployment) -> list[str]:
    """Traces need the SDK and the OTLP exporter, which are an extra (``pip install 'factline[otel]'``)."""
    otel = deployment.otel
    if not otel.tracing_on() or importlib.util.find_spec("opentelemetry.sdk") is not None and (
            otel.traces_exporter == "console"
            or importlib.util.find_spec("opentelemetry.exporter.otlp.proto.http") is not None):
        return []
    name = "OTEL_TRACES_EXPORTER" if otel.traces_exporter else "OTEL_EXPORTER_OTLP_ENDPOINT"
    return [f"invalid setting {name}: traces need the OpenTelemetry SDK and OTLP exporter: pip install 'factline[otel]'"]


def _site_writable(deployment: Deployment, settings: Settings) -> list[str]:
    if settings.publish_target == "local" and not _creatable(deployment.site.dir, folder=True):
        return ["invalid setting LOCAL_SITE_DIR: not a folder this process can create or write in"]
    return []


def _run_fits_broker(deployment: Deployment, settings: Settings) -> list[str]:
    """A run sent over RabbitMQ must end before its consumer timeout closes the channel (docs/architecture.md,
    "Settings: the deployment's and a pipeline's"); Redis has none, and the inline executor sends nothing."""
    if deployment.executor.over_rabbitmq() and settings.run_max_seconds >= RABBITMQ_CONSUMER_TIMEOUT_SECONDS:
        return [f"invalid setting RUN_MAX_SECONDS: must be below {RABBITMQ_CONSUMER_TIMEOUT_SECONDS} s, RabbitMQ's "
                "consumer timeout, when EXECUTOR=celery sends runs over amqp://"]
    return []


DEPLOYMENT_CHECKS: tuple[Callable[[Deployment], list[str]], ...] = (_ledger_writable, _archive_writable,
                                                                   _tracing_installed)
CROSS_CHECKS: tuple[Callable[[Deployment, Settings], list[str]], ...] = (_wordpress_credentials, _topics_readable,
                                                                          _site_writable, _run_fits_broker)


def _problem(error: Any, where: str) -> str:
    """One line naming the variable (or the pipelines file's key). The value is never quoted: it may be a secret."""
    name = str(error["loc"][0]) if error["loc"] else "settings"
    message = str(error["msg"]).removeprefix("Value error, ")
    if where:
        return f"{where}: invalid key {name}: {message}"
    return f"invalid setting {env_name(name)}: {message}"


def check_deployment(overrides: dict[str, Any] | None = None) -> tuple[Deployment, list[str]]:
    """The Deployment (a bad value at its default) and every problem of it: its values, then DEPLOYMENT_CHECKS."""
    deployment, problems = load_deployment(overrides)
    return deployment, problems + [line for check in DEPLOYMENT_CHECKS for line in check(deployment)]


def load_settings(**overrides: object) -> Settings:
    """One pipeline's Settings from the environment (and .env), carrying the Deployment; a ConfigError with a line
    per bad variable, the deployment's first. ``overrides`` are by field or deployment variable name in lower case
    (``run_max_turns``, ``web_port``). (The CLI reads the pipelines file too: config.pipelines.)"""
    deployment, problems = check_deployment({k: v for k, v in overrides.items() if k in DEPLOYMENT_KEYS})
    return check_settings(Settings, {k: v for k, v in overrides.items() if k not in DEPLOYMENT_KEYS}, deployment,
                          problems=problems)


def check_settings(cls: type[Settings], values: dict[str, Any], deployment: Deployment, where: str = "",
                   problems: list[str] | None = None) -> Settings:
    """``cls(**values)`` carrying ``deployment``, or a ConfigError with ``problems`` and one line per bad setting.

    When some values are invalid, the checks across values still run, on those values' defaults, so one start
    reports every problem. ``where`` prefixes each line (the pipelines file and pipeline).
    """
    problems = list(problems or [])
    try:
        settings = cls(**values)
    except ValidationError as exc:
        errors = exc.errors()
        problems += list(dict.fromkeys(_problem(err, where) for err in errors))
        bad = {str(err["loc"][0]) for err in errors if err["loc"]}
        fields = Settings.model_fields
        settings = cls(**{**{k: v for k, v in values.items() if k in fields},
                          **{name: fields[name].default for name in bad if name in fields}})
    settings._deployment = deployment
    problems += [f"{where}: {line}" if where else line for check in CROSS_CHECKS for line in check(deployment, settings)]
    if problems:
        raise ConfigError(*problems)
    return settings


def setting_fields() -> dict[str, FieldInfo]:
    """Every setting by the variable it is read from, the deployment's first (config.deployment), then a pipeline's
    in the order Settings declares them: what ``--help`` lists, with its default."""
    deployment = {name: Deployment.model_fields[group].annotation.model_fields[field]  # type: ignore[union-attr]
                  for name, (group, field) in VARIABLES.items()}
    return {**deployment, **{env_name(name): info for name, info in Settings.model_fields.items()}}
