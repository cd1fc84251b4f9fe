"""The pipelines file: several pipelines in one deployment, each a full Settings object.

``FACTLINE_CONFIG`` names a TOML file (default: ``factline.toml`` in the working directory, when it
exists)::

    [defaults]                        # any per-pipeline key; fills what a pipeline leaves out
    schedule_timezone = "Asia/Shanghai"

    [[pipelines]]
    name = "blog-zh"                  # [a-z0-9][a-z0-9_-]*, unique
    schedule_cron = "0 6 * * *"
    language = "zh"
    publish_target = "wordpress"
    wordpress_url = "https://blog.example.com"
    wordpress_user = "factline"
    wordpress_app_password_env = "BLOG_ZH_WP_PASSWORD"   # secrets: only the NAME of the variable

Precedence, highest first: the pipeline's table > ``[defaults]`` > the environment (and .env) > the
built-in defaults. Both tables are pydantic-settings sources (``[defaults]``, parsed once with the file, is
an ``InitSettingsSource`` below the pipeline's table, the init source), so every value is validated by the
same ``Settings`` fields as the environment. (pydantic-settings' ``TomlConfigSettingsSource`` would parse the
whole file again for every pipeline: 1,000 pipelines took minutes to start.)

Deployment settings (config.deployment: the ledger, the broker, logs, metrics, the local site, the
embedded model...) are not per pipeline and are read from the environment only: the file says what each
pipeline does, the environment says where this process runs. ``load_config()`` reads them once into the
``Deployment`` of a frozen ``Config``, beside the pipelines. A file that sets one, an unknown key, a
secret written in clear or a bad value is a ``ConfigError`` with one line per problem, naming the
pipeline and the key (a bad deployment value: one line, ``invalid setting WEB_PORT``, however many
pipelines). Without a file there is one pipeline, ``content``, configured as before.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dotenv import dotenv_values
from pydantic import SecretStr
from pydantic_settings import BaseSettings, InitSettingsSource, PydanticBaseSettingsSource

from config.deployment import DEPLOYMENT_KEYS, VARIABLES, Deployment
from config.errors import ConfigError
from config.settings import RenamedEnv, Settings, check_deployment, check_settings, env_name

DEFAULT_FILE = Path("factline.toml")
SECRET_KEYS = frozenset({"openai_api_key", "wordpress_app_password"})
PIPELINE_KEYS = frozenset(Settings.model_fields) - SECRET_KEYS - {"pipeline"}


@dataclass(frozen=True)
class Pipeline:
    """One pipeline's effective settings and where each of its values came from (by field: ``factline config
    show``, with the deployment's from ``Config.sources``)."""

    name: str
    settings: Settings
    sources: dict[str, str]


@dataclass(frozen=True)
class Config:
    """What one process was configured with: the deployment, its pipelines in file order, and where each
    deployment value came from (by variable name: ``environment $WEB_PORT``, ``.env WEB_PORT``, ``built-in default``)."""

    deployment: Deployment
    pipelines: tuple[Pipeline, ...]
    sources: dict[str, str]

    def rows(self, pipeline: Pipeline) -> dict[str, tuple[str, str]]:
        """What ``factline config show`` prints for a pipeline, by key in sorted order: its own settings and the
        deployment's (under their variable names in lower case), each as ``(value as shown, where it came from)``."""
        rows = {name.lower(): (shown(value), self.sources[name.upper()])
                for name, value in self.deployment.values().items()}
        rows |= {name: (shown(getattr(pipeline.settings, name)), source)
                 for name, source in pipeline.sources.items()}
        return dict(sorted(rows.items()))


def config_path() -> Path | None:
    """The pipelines file to read: FACTLINE_CONFIG (which must exist), else ./factline.toml if it exists."""
    named = os.environ.get("FACTLINE_CONFIG")
    if named:
        path = Path(named)
        if not path.is_file():
            raise ConfigError(f"invalid setting FACTLINE_CONFIG: {named} is not a file")
        return path
    return DEFAULT_FILE if DEFAULT_FILE.is_file() else None


def load_config(**overrides: Any) -> Config:
    """The deployment and every configured pipeline, in file order (one pipeline ``content`` from the environment
    without a file); a ConfigError with one line per problem, the deployment's first."""
    deployment, problems = check_deployment({k: v for k, v in overrides.items() if k in DEPLOYMENT_KEYS})
    overrides = {k: v for k, v in overrides.items() if k not in DEPLOYMENT_KEYS}
    path = config_path()
    if path is None:
        settings = check_settings(Settings, overrides, deployment, problems=problems)
        return Config(deployment, (Pipeline(settings.pipeline, settings, _sources(settings, {}, {}, None)),),
                      _deployment_sources())
    data = _read(path)
    defaults, tables = data.get("defaults", {}), data.get("pipelines", [])
    problems += _check_table(path, "[defaults]", defaults)
    names: set[str] = set()
    for i, table in enumerate(tables):
        where = f"pipeline {table.get('name', f'#{i + 1}')!r}"
        if not isinstance(table.get("name"), str):
            problems.append(f"{path}: {where}: key name is required (a string)")
        elif table["name"] in names:
            problems.append(f"{path}: {where}: key name is used twice")
        names.add(str(table.get("name")))
        problems += _check_table(path, where, table)
    if not tables:
        problems.append(f"{path}: no [[pipelines]] table")
    cls = _file_settings_class(data.get("defaults"))
    pipelines = []
    for table in tables:  # a table with a bad key still has its values checked: one start shows every problem
        where = f"{path}: pipeline {table.get('name')!r}"
        if not isinstance(table.get("name"), str):
            continue
        init = {"pipeline": table["name"], **_plain(table), **_secrets(defaults), **_secrets(table), **overrides}
        try:
            settings = check_settings(cls, init, deployment, where=where)
        except ConfigError as exc:
            problems.extend(exc.problems)
            continue
        pipelines.append(Pipeline(table["name"], settings, _sources(settings, table, defaults, path)))
    if problems:
        raise ConfigError(*problems)
    return Config(deployment, tuple(pipelines), _deployment_sources())


def select(pipelines: Sequence[Pipeline], name: str | None) -> Pipeline:
    """The pipeline called ``name`` (the only one when ``name`` is None); ConfigError naming the choices."""
    if name is None:
        if len(pipelines) == 1:
            return pipelines[0]
        raise ConfigError(f"several pipelines are configured; choose one with --pipeline "
                          f"({', '.join(p.name for p in pipelines)})")
    for pipeline in pipelines:
        if pipeline.name == name:
            return pipeline
    raise ConfigError(f"no pipeline {name!r} (configured: {', '.join(p.name for p in pipelines)})")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"invalid pipelines file {path}: {exc}") from None
    problems = [f"{path}: unknown top-level key {key!r} (expected [defaults] and [[pipelines]])"
                for key in data if key not in ("defaults", "pipelines")]
    if not isinstance(data.get("defaults", {}), dict) or not isinstance(data.get("pipelines", []), list):
        problems.append(f"{path}: defaults must be a table and pipelines an array of tables ([[pipelines]])")
    if problems:
        raise ConfigError(*problems)
    return data


def _check_table(path: Path, where: str, table: dict[str, Any]) -> list[str]:
    """Keys a table may not hold: unknown, deployment-wide, a secret in clear, an unset secret variable."""
    problems = []
    for key, value in table.items():
        if key == "name" and where != "[defaults]":
            continue
        if key.removesuffix("_env") in SECRET_KEYS and key.endswith("_env"):
            if not isinstance(value, str) or not os.environ.get(value):
                problems.append(f"{path}: {where}: key {key} names {value!r}, which is not set in the environment")
        elif key in SECRET_KEYS:
            problems.append(f"{path}: {where}: key {key} is a secret; write {key}_env = \"VARIABLE_NAME\" instead")
        elif key in DEPLOYMENT_KEYS:
            problems.append(f"{path}: {where}: key {key} is a deployment setting; set {key.upper()} in the "
                            "environment instead")
        elif key not in PIPELINE_KEYS:
            problems.append(f"{path}: {where}: unknown key {key!r}")
    return problems


def _plain(table: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k in PIPELINE_KEYS and k != "name"}


def _secrets(table: dict[str, Any]) -> dict[str, Any]:
    """``<secret>_env = "VAR"`` resolved to the variable's value (checked to be set by _check_table)."""
    return {k.removesuffix("_env"): SecretStr(os.environ[v]) for k, v in table.items()
            if k.endswith("_env") and k.removesuffix("_env") in SECRET_KEYS and isinstance(v, str) and os.environ.get(v)}


def _file_settings_class(defaults: dict[str, Any] | None) -> type[Settings]:
    """Settings whose sources are: init (the pipeline's table) > [defaults] > environment > .env."""

    environment: list[dict[str, object]] = []  # the environment and .env, read once for every pipeline of the file

    class FileSettings(Settings):
        @classmethod
        def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                       init_settings: PydanticBaseSettingsSource,
                                       env_settings: PydanticBaseSettingsSource,
                                       dotenv_settings: PydanticBaseSettingsSource,
                                       file_secret_settings: PydanticBaseSettingsSource,
                                       ) -> tuple[PydanticBaseSettingsSource, ...]:
            if not environment:  # 184 fields looked up in each: 30 ms a pipeline, 30 s for 1,000
                environment.extend([RenamedEnv(settings_cls, env_settings)(), RenamedEnv(settings_cls, dotenv_settings)()])
            env = tuple(InitSettingsSource(settings_cls, dict(values)) for values in environment)
            if defaults is None:
                return init_settings, *env
            return init_settings, InitSettingsSource(settings_cls, _plain(defaults)), *env

    FileSettings.__name__ = FileSettings.__qualname__ = "Settings"
    return FileSettings


def _deployment_sources() -> dict[str, str]:
    """Where each deployment variable's value came from: the environment, .env, or the built-in default."""
    dotenv = {k.upper() for k in dotenv_values(".env")} if Path(".env").is_file() else set()
    env = {k.upper() for k in os.environ}
    return {name: f"environment ${name}" if name in env else f".env {name}" if name in dotenv else "built-in default"
            for name in VARIABLES}


def _sources(settings: Settings, table: dict[str, Any], defaults: dict[str, Any], path: Path | None) -> dict[str, str]:
    """Where each field's value came from, by the same precedence the sources apply."""
    env_file = dotenv_values(".env") if Path(".env").is_file() else {}
    env = {k.upper() for k in os.environ}
    dotenv = {k.upper() for k in env_file}
    found = {}
    for name in Settings.model_fields:
        if name == "pipeline":
            found[name] = f"{path}: [[pipelines]] name" if path else "built-in default"
        elif name in table or f"{name}_env" in table:
            found[name] = f"{path}: pipeline {settings.pipeline!r}" + (
                f" (from ${table[name + '_env']})" if f"{name}_env" in table else "")
        elif name in defaults or f"{name}_env" in defaults:
            found[name] = f"{path}: [defaults]" + (
                f" (from ${defaults[name + '_env']})" if f"{name}_env" in defaults else "")
        elif env_name(name) in env:
            found[name] = f"environment ${env_name(name)}"
        elif env_name(name) in dotenv:
            found[name] = f".env {env_name(name)}"
        else:
            found[name] = "built-in default"
    return found


def shown(value: object) -> str:
    """A setting's value as ``config show`` prints it: secrets masked, passwords in URLs masked."""
    if value is None:
        return "(unset)"
    if isinstance(value, SecretStr):
        return "********" if value.get_secret_value() else "(empty)"
    if isinstance(value, list):
        return ",".join(map(str, value))
    text = str(value)
    if "://" in text and "@" in text.split("://", 1)[1].split("/", 1)[0]:
        scheme, rest = text.split("://", 1)
        userinfo, host = rest.split("@", 1)
        user = userinfo.split(":", 1)[0]
        return f"{scheme}://{user}:********@{host}" if ":" in userinfo else text
    return text
