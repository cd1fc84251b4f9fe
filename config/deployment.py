"""The deployment's settings: where this process runs, the same for every pipeline, read once from the environment.

    Deployment          ledger, executor, logs, metrics, web, site, model, probe, otel, prune: one group each
    VARIABLES           every deployment variable's name -> (group, field), derived from the type
    DEPLOYMENT_KEYS     the same names in lower case: the keys a pipelines file may not set
    load_deployment()   the Deployment and the problem lines of its bad values (each bad value at its default)

Each field is read under the flat variable name documented before the groups existed (``WEB_PORT`` is
``deployment.web.port``, its ``validation_alias``), from the environment and .env only: the pipelines file says
what each pipeline does, the environment says where this process runs. A bad value is one line,
``invalid setting WEB_PORT: ...``, reported once however many pipelines there are (config.pipelines).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from config.values import (HOUR, MAX_CONTEXT, BindHost, BrokerUrl, Cron, DatabaseUrl, HttpUrl, KeyValues,
                           LogFormat, LogLevel, Port, SecretKeyValues, Token, seconds)

RABBITMQ_CONSUMER_TIMEOUT_SECONDS = 1800  # RabbitMQ's default consumer_timeout: an unacked delivery's channel closes


def var(default: Any, name: str, **constraints: Any) -> Any:
    """A field read from the environment variable ``name``."""
    return Field(default, validation_alias=name, **constraints)


class Group(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")


class Ledger(Group):
    url: DatabaseUrl = var("sqlite:///var/factline.db", "DATABASE_URL")


class Execution(Group):
    """Where runs execute: in the daemon's process, or on Celery workers (pipeline.executors, pipeline.workers)."""

    kind: Literal["inline", "celery"] = var("inline", "EXECUTOR")
    broker_url: BrokerUrl = var("amqp://guest:guest@127.0.0.1:5672//", "CELERY_BROKER_URL")
    queue: str = var("factline.ticks", "CELERY_QUEUE", pattern=r"^[A-Za-z0-9_.-]{1,200}$")  # one queue per deployment
    reconcile_seconds: float = var(15.0, "CELERY_RECONCILE_SECONDS", gt=0, le=3600)  # re-sending lost ticks
    heartbeat_seconds: float = var(10.0, "RUN_HEARTBEAT_SECONDS", gt=0, le=600)  # a worker's run proves it is alive

    def over_rabbitmq(self) -> bool:
        """Whether runs are sent over RabbitMQ, whose consumer timeout bounds how long one may take."""
        return self.kind == "celery" and self.broker_url.startswith(("amqp://", "pyamqp://"))


class Logs(Group):
    """Both case-insensitive; NO_COLOR, the cross-tool convention, is read by pipeline.logs."""

    format: LogFormat = var("text", "LOG_FORMAT")
    level: LogLevel = var("INFO", "LOG_LEVEL")


class Metrics(Group):
    host: BindHost = var("127.0.0.1", "METRICS_HOST")
    port: Port = var(9464, "METRICS_PORT")  # 0: pick a free port (the daemon prints it)


class Web(Group):
    """The dashboard (factline web; the daemon serves it too when WEB_PORT is not 0): pipeline.web."""

    host: BindHost = var("127.0.0.1", "WEB_HOST")
    port: Port = var(0, "WEB_PORT")
    token: Token = var(None, "WEB_TOKEN")  # when set, required as a bearer token or the login form's cookie
    session_hours: float = var(12.0, "WEB_SESSION_HOURS", gt=0, le=24 * 30, allow_inf_nan=False)  # a login's lifetime
    trust_forwarded_proto: bool = var(False, "WEB_TRUST_FORWARDED_PROTO")  # X-Forwarded-Proto: https for Secure cookies


class Site(Group):
    """The local publish target's folder and server: one for every pipeline that publishes locally."""

    dir: Path = var(Path("var/site"), "LOCAL_SITE_DIR")
    host: BindHost = var("127.0.0.1", "LOCAL_SITE_HOST")
    port: Port = var(8765, "LOCAL_SITE_PORT")


class Model(Group):
    """The embedded local model, used by the pipelines without OPENAI_BASE_URL (pipeline.localmodel)."""

    cache_dir: Path = var(Path.home() / ".cache" / "factline", "MODEL_CACHE_DIR")
    ctx: int = var(8192, "LOCAL_MODEL_CTX", ge=512, le=MAX_CONTEXT)
    threads: int = var(2, "LOCAL_MODEL_THREADS", ge=1, le=1024)


class Probe(Group):
    """The probe suite (factline probe): concurrency, a per-run token cap, and the --gate thresholds."""

    concurrency: int = var(2, "PROBE_CONCURRENCY", ge=1, le=64)
    max_tokens: int = var(3_000_000, "PROBE_MAX_TOKENS", ge=1, le=1_000_000_000)
    gate_unknown_tool: float = var(0.05, "PROBE_GATE_UNKNOWN_TOOL", ge=0, le=1)
    gate_shadow_call: float = var(0.10, "PROBE_GATE_SHADOW_CALL", ge=0, le=1)
    gate_hallucinated_argument: float = var(0.20, "PROBE_GATE_HALLUCINATED_ARGUMENT", ge=0, le=1)


class Otel(Group):
    """OpenTelemetry traces (pipeline.tracing): off unless an OTLP endpoint or OTEL_TRACES_EXPORTER says where to
    send them; the standard variable names, read here and passed down (the SDK reads none of them itself)."""

    sdk_disabled: bool = var(False, "OTEL_SDK_DISABLED")
    traces_exporter: Literal["otlp", "console", "none"] | None = var(None, "OTEL_TRACES_EXPORTER")  # unset: otlp
    endpoint: HttpUrl = var(None, "OTEL_EXPORTER_OTLP_ENDPOINT")  # the collector's base URL; /v1/traces is appended
    traces_endpoint: HttpUrl = var(None, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")  # the traces endpoint, used as it is
    protocol: Literal["http/protobuf"] = var("http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL")
    headers: SecretKeyValues = var(None, "OTEL_EXPORTER_OTLP_HEADERS")  # key=value,... (an API key: never logged)
    timeout: float = seconds(10.0, HOUR, validation_alias="OTEL_EXPORTER_OTLP_TIMEOUT")  # one export request
    service_name: str = var("factline", "OTEL_SERVICE_NAME")
    resource_attributes: KeyValues = var(None, "OTEL_RESOURCE_ATTRIBUTES")  # key=value,key=value
    bsp_max_queue_size: int = var(2048, "OTEL_BSP_MAX_QUEUE_SIZE", ge=1)  # waiting spans; past it new ones drop
    bsp_schedule_delay: int = var(5000, "OTEL_BSP_SCHEDULE_DELAY", ge=1)  # milliseconds between two exports
    bsp_max_export_batch_size: int = var(512, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", ge=1)
    capture_content: bool = var(False, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")  # texts in spans

    def tracing_on(self) -> bool:
        """Whether OTEL_* settings ask for traces: an exporter named, or an OTLP endpoint given."""
        if self.sdk_disabled or self.traces_exporter == "none":
            return False
        return self.traces_exporter is not None or bool(self.endpoint or self.traces_endpoint)


class Prune(Group):
    """Retention (pipeline.ledger.prune): the daemon clears the bulky texts of runs older than AFTER_DAYS, at CRON
    (UTC); 0: never. With ARCHIVE_DIR it first appends them to prune-<UTC date>.jsonl there."""

    after_days: int = var(0, "PRUNE_AFTER_DAYS", ge=0, le=36_500)
    cron: Cron = var("30 3 * * *", "PRUNE_CRON")
    archive_dir: Path | None = var(None, "PRUNE_ARCHIVE_DIR")  # where the daemon's prune first appends what it clears


class Deployment(BaseSettings):
    """Where this process runs and what it serves: the same for every pipeline of the deployment."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    ledger: Ledger = Ledger()
    executor: Execution = Execution()
    logs: Logs = Logs()
    metrics: Metrics = Metrics()
    web: Web = Web()
    site: Site = Site()
    model: Model = Model()
    probe: Probe = Probe()
    otel: Otel = Otel()
    prune: Prune = Prune()

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, FlatVariables(settings_cls, env_settings), FlatVariables(settings_cls, dotenv_settings)

    def values(self) -> dict[str, Any]:
        """Every deployment value under its variable's name in lower case (``web_port``): a pipeline's view."""
        return {name.lower(): getattr(getattr(self, group), field) for name, (group, field) in VARIABLES.items()}


def _variables() -> dict[str, tuple[str, str]]:
    found = {}
    for group, info in Deployment.model_fields.items():
        assert isinstance(info.annotation, type) and issubclass(info.annotation, Group)
        for field, field_info in info.annotation.model_fields.items():
            assert isinstance(field_info.validation_alias, str), f"{group}.{field} names no variable"
            found[field_info.validation_alias] = (group, field)
    return found


VARIABLES = _variables()
DEPLOYMENT_KEYS = frozenset(name.lower() for name in VARIABLES)


class FlatVariables(PydanticBaseSettingsSource):
    """The environment (or .env) read by each field's flat variable name, nested into the groups."""

    def __init__(self, settings_cls: type[BaseSettings], inner: PydanticBaseSettingsSource) -> None:
        super().__init__(settings_cls)
        self.inner = inner

    def get_field_value(self, field: object, field_name: str) -> tuple[object, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        variables = {k.lower(): v for k, v in getattr(self.inner, "env_vars", {}).items()}
        return nest({name: variables[name.lower()] for name in VARIABLES if variables.get(name.lower()) is not None})


def nest(flat: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{"WEB_PORT": 80}`` (names in any case) as ``{"web": {"WEB_PORT": 80}}``; names not of the deployment left out."""
    nested: dict[str, dict[str, Any]] = {}
    for name, value in flat.items():
        if name.upper() in VARIABLES:
            nested.setdefault(VARIABLES[name.upper()][0], {})[name.upper()] = value
    return nested


def _variable(loc: tuple[int | str, ...]) -> str:
    """The variable a validation error's location names: ("web", "WEB_PORT") or ("web", "port") -> WEB_PORT."""
    if len(loc) >= 2 and str(loc[1]).upper() in VARIABLES:
        return str(loc[1]).upper()
    for name, (group, field) in VARIABLES.items():
        if loc[:2] == (group, field):
            return name
    return str(loc[0]).upper() if loc else "settings"


def load_deployment(overrides: dict[str, Any] | None = None) -> tuple[Deployment, list[str]]:
    """The Deployment from the environment and .env (``overrides``, by variable name, above both), and one line per
    bad value; a bad value is replaced by its default so that the checks across values still run."""
    init = nest(overrides or {})
    try:
        return Deployment(**init), []
    except ValidationError as exc:
        errors = exc.errors()
    problems = list(dict.fromkeys(
        f"invalid setting {_variable(err['loc'])}: {str(err['msg']).removeprefix('Value error, ')}" for err in errors))
    defaults = {}
    for name in {_variable(err["loc"]) for err in errors}:
        if name in VARIABLES:
            group, field = VARIABLES[name]
            defaults[name] = Deployment.model_fields[group].annotation.model_fields[field].default  # type: ignore[union-attr]
    init = nest({**(overrides or {}), **defaults})
    return Deployment(**init), problems
