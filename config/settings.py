"""A pipeline's Settings, read from the environment, an optional .env file and the pipelines file; every check.

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
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from sqlalchemy.engine import make_url
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from config.deployment import (DEPLOYMENT_KEYS, RABBITMQ_CONSUMER_TIMEOUT_SECONDS, VARIABLES, Deployment,
                               load_deployment, nest)
from config.errors import ConfigError
from config.topics import TopicsFileError, read_jsonl_topics
from config.values import (BARE_HOST, DAY, HOUR, MAX_BYTES, MAX_CONTEXT, BindHost, BrokerUrl, Cron, DatabaseUrl,
                           HttpUrl, KeyValues, LogFormat, LogLevel, SecretKeyValues, TimeZone, Token, ip_literal,
                           seconds)

CONFIG_DIR = Path(__file__).resolve().parent
DEFAULT_TOPICS = CONFIG_DIR / "topics.jsonl"

CommaList = Annotated[list[str], NoDecode]
ENV_NAMES = {"language": "FACTLINE_LANGUAGE",  # LANGUAGE is gettext's variable, set on most Linux logins
             "review": "REVIEW_MODE"}  # `review` in the pipelines file


class Settings(BaseSettings):
    """What one pipeline does, and its secrets. Environment names are the field names in upper case.

    It also holds its deployment's values under their flat names (``database_url``, ``web_port``...: the fields
    of config.deployment.Deployment), filled from the one Deployment the process loaded, so that they agree in
    every pipeline; code takes them from the Deployment, ``config show`` and the Redactor read them here."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    # the pipeline these settings belong to (its name comes from the pipelines file: config.pipelines)
    pipeline: str = Field("content", pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    language: Literal["en", "zh"] = "en"  # the language of the articles this pipeline writes (FACTLINE_LANGUAGE)

    # ledger
    database_url: DatabaseUrl = "sqlite:///var/factline.db"

    # where runs execute: in the daemon's process, or on Celery workers (pipeline.daemon, pipeline.workers)
    executor: Literal["inline", "celery"] = "inline"
    celery_broker_url: BrokerUrl = "amqp://guest:guest@127.0.0.1:5672//"
    celery_queue: str = Field("factline.ticks", pattern=r"^[A-Za-z0-9_.-]{1,200}$")  # one queue per deployment
    celery_reconcile_seconds: float = Field(15.0, gt=0, le=3600)  # how often the scheduler re-sends lost ticks
    run_heartbeat_seconds: float = Field(10.0, gt=0, le=600)  # a worker's run proves it is alive this often

    # the LLM endpoint (any OpenAI-compatible chat-completions server with tools)
    openai_base_url: HttpUrl = None
    openai_api_key: SecretStr = SecretStr("not-needed")
    factline_model: str = Field("qwen2.5-coder-0.5b-instruct", max_length=200)
    tool_call_mode: Literal["auto", "native", "constrained"] = "auto"
    llm_timeout_seconds: float = seconds(120.0, HOUR)  # the longest silence between two pieces of an answer
    llm_max_tokens_turn: int = Field(512, ge=16, le=MAX_CONTEXT)  # one agent turn (a tool call or a short answer)
    llm_max_tokens_text: int = Field(1024, ge=64, le=MAX_CONTEXT)  # one draft or rewrite
    llm_temperature: float = Field(0.0, ge=0, le=2)

    # the embedded local model, used when OPENAI_BASE_URL is unset (pipeline.localmodel)
    model_cache_dir: Path = Path.home() / ".cache" / "factline"
    local_model_ctx: int = Field(8192, ge=512, le=MAX_CONTEXT)
    local_model_threads: int = Field(2, ge=1, le=1024)

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
    local_site_dir: Path = Path("var/site")
    local_site_host: BindHost = "127.0.0.1"
    local_site_port: int = Field(8765, ge=0, le=65535)
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

    # logging (both case-insensitive; NO_COLOR, the cross-tool convention, is read by pipeline.logs)
    log_format: LogFormat = "text"
    log_level: LogLevel = "INFO"

    # daemon (crontab expressions and an IANA time zone, checked here with config.cron)
    schedule_cron: Cron = "0 6 * * *"
    schedule_timezone: TimeZone = "UTC"
    schedule_misfire_grace_seconds: int = Field(300, ge=1, le=DAY)
    # ticks missed while no scheduler ran (within the grace time): each its own run, only the latest, or none
    schedule_catch_up: Literal["all", "latest", "none"] = "all"
    report_cron: Cron = "55 23 * * *"
    # retention (pipeline.ledger.prune): the daemon clears the bulky texts of runs older than this many days,
    # at PRUNE_CRON (UTC); 0: never. With PRUNE_ARCHIVE_DIR it first appends them to prune-<UTC date>.jsonl there
    prune_after_days: int = Field(0, ge=0, le=36_500)
    prune_cron: Cron = "30 3 * * *"
    prune_archive_dir: Path | None = None
    alert_webhook_url: HttpUrl = None
    alert_deadline_seconds: float = seconds(10.0, HOUR)  # one POST, all of it (pipeline.webhook)
    metrics_host: BindHost = "127.0.0.1"
    metrics_port: int = Field(9464, ge=0, le=65535)  # 0: pick a free port (the daemon prints it)

    # OpenTelemetry traces (pipeline.tracing): off unless an OTLP endpoint or OTEL_TRACES_EXPORTER says where to
    # send them; the standard variable names, read here and passed down (the SDK reads none of them itself)
    otel_sdk_disabled: bool = False
    otel_traces_exporter: Literal["otlp", "console", "none"] | None = None  # unset: otlp when an endpoint is set
    otel_exporter_otlp_endpoint: HttpUrl = None  # the collector's base URL; /v1/traces is appended
    otel_exporter_otlp_traces_endpoint: HttpUrl = None  # the full URL of the traces endpoint, used as it is
    otel_exporter_otlp_protocol: Literal["http/protobuf"] = "http/protobuf"
    otel_exporter_otlp_headers: SecretKeyValues = None  # key=value,key=value (an API key: a secret, never logged)
    otel_exporter_otlp_timeout: float = seconds(10.0, HOUR)  # one export request (seconds, as the Python SDK reads it)
    otel_service_name: str = "factline"
    otel_resource_attributes: KeyValues = None  # key=value,key=value
    otel_bsp_max_queue_size: int = Field(2048, ge=1)  # spans waiting for export; past it new spans are dropped
    otel_bsp_schedule_delay: int = Field(5000, ge=1)  # milliseconds between two exports
    otel_bsp_max_export_batch_size: int = Field(512, ge=1)
    otel_instrumentation_genai_capture_message_content: bool = False  # message, tool argument and result text in spans

    # the dashboard (factline web; the daemon serves it too when WEB_PORT is not 0): pipeline.web
    web_host: BindHost = "127.0.0.1"
    web_port: int = Field(0, ge=0, le=65535)
    web_token: Token = None  # when set, required as a bearer token or the login form's cookie
    web_session_hours: float = Field(12.0, gt=0, le=24 * 30, allow_inf_nan=False)  # a login cookie's lifetime
    web_trust_forwarded_proto: bool = False  # believe X-Forwarded-Proto: https (a TLS proxy in front) for Secure cookies

    # probe suite (factline probe): concurrency, a per-run token cap, and the --gate thresholds
    probe_concurrency: int = Field(2, ge=1, le=64)
    probe_max_tokens: int = Field(3_000_000, ge=1, le=1_000_000_000)
    probe_gate_unknown_tool: float = Field(0.05, ge=0, le=1)
    probe_gate_shadow_call: float = Field(0.10, ge=0, le=1)
    probe_gate_hallucinated_argument: float = Field(0.20, ge=0, le=1)

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
        """The deployment's values these settings were loaded with (config.deployment; the same in every pipeline
        of a process): what opening one pipeline on its own needs (pipeline.runtime.open_runtime)."""
        return Deployment(**nest({name: getattr(self, name.lower()) for name in VARIABLES}))

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
    """An environment source in which a field listed in ENV_NAMES is read from its own variable name."""

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
        return values


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
    """One pipeline's Settings from the environment (and .env), with the deployment's values; a ConfigError with a
    line per bad variable, the deployment's first. (The CLI reads the pipelines file too: config.pipelines.)"""
    deployment, problems = check_deployment({k: v for k, v in overrides.items() if k in DEPLOYMENT_KEYS})
    return check_settings(Settings, overrides, deployment, problems=problems)


def check_settings(cls: type[Settings], values: dict[str, Any], deployment: Deployment, where: str = "",
                   problems: list[str] | None = None) -> Settings:
    """``cls(**values)`` with the deployment's values, or a ConfigError with ``problems`` and one line per bad setting.

    When some values are invalid, the checks across values still run, on those values' defaults, so one start
    reports every problem. ``where`` prefixes each line (the pipelines file and pipeline).
    """
    problems = list(problems or [])
    values = {**values, **deployment.values()}
    try:
        settings = cls(**values)
    except ValidationError as exc:
        errors = exc.errors()
        problems += list(dict.fromkeys(_problem(err, where) for err in errors))
        bad = {str(err["loc"][0]) for err in errors if err["loc"]}
        defaults = {name: Settings.model_fields[name].default for name in bad if name in Settings.model_fields}
        settings = cls(**{**values, **defaults})
    problems += [f"{where}: {line}" if where else line for check in CROSS_CHECKS for line in check(deployment, settings)]
    if problems:
        raise ConfigError(*problems)
    return settings
