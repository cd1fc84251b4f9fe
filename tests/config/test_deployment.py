"""The deployment's settings: read once, by their flat variable names, checked once, and checked with each pipeline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from config import ConfigError, load_config
from config.deployment import DEPLOYMENT_KEYS, VARIABLES, Deployment
from config.pipelines import PIPELINE_KEYS
from tests.paths import ROOT

THREE = '[[pipelines]]\nname = "a"\n[[pipelines]]\nname = "b"\n[[pipelines]]\nname = "c"\n'


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory without a pipelines file or .env; the ledger and site inside it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FACTLINE_CONFIG", raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/ledger.db")
    monkeypatch.setenv("LOCAL_SITE_DIR", str(tmp_path / "site"))
    return tmp_path


def test_each_deployment_value_is_read_from_its_flat_variable_into_its_group(workdir: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """WEB_PORT, LOG_LEVEL, CELERY_QUEUE and OTEL_SERVICE_NAME land in web, logs, executor and otel; sources say so."""
    for name, value in {"WEB_PORT": "8123", "LOG_LEVEL": "debug", "CELERY_QUEUE": "q.one",
                        "OTEL_SERVICE_NAME": "blog"}.items():
        monkeypatch.setenv(name, value)
    config = load_config()
    deployment = config.deployment
    assert (deployment.web.port, deployment.logs.level, deployment.executor.queue, deployment.otel.service_name) == (
        8123, "DEBUG", "q.one", "blog")
    assert config.sources["WEB_PORT"] == "environment $WEB_PORT"
    assert config.sources["METRICS_PORT"] == "built-in default"
    (only,) = config.pipelines
    assert only.settings.deployment() is deployment  # the pipeline carries the same one


def test_the_deployment_keys_are_the_fields_of_the_type_and_none_is_a_pipeline_key() -> None:
    """Every field of every group names its variable once; a pipelines file may set none of them."""
    fields = sum(len(info.annotation.model_fields) for info in Deployment.model_fields.values())  # type: ignore[union-attr]
    assert len(VARIABLES) == fields and "web_port" in DEPLOYMENT_KEYS and "database_url" in DEPLOYMENT_KEYS
    assert not DEPLOYMENT_KEYS & PIPELINE_KEYS


def test_a_bad_deployment_value_is_one_line_however_many_pipelines(workdir: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """WEB_PORT=99999 with three pipelines: one line, `invalid setting WEB_PORT`, before the pipelines' own."""
    (workdir / "factline.toml").write_text(THREE.replace('name = "c"', 'name = "c"\nrun_max_turns = 0'),
                                           encoding="utf-8")
    monkeypatch.setenv("WEB_PORT", "99999")
    with pytest.raises(ConfigError) as caught:
        load_config()
    lines = caught.value.problems
    assert [line.split(":")[0] for line in lines] == ["invalid setting WEB_PORT", "factline.toml"]
    assert "pipeline 'c': invalid key run_max_turns" in lines[1]


@pytest.mark.parametrize(("executor", "broker", "refused"), [
    ("celery", "amqp://guest:guest@127.0.0.1:5672//", True),
    ("celery", "redis://127.0.0.1:6379/0", False),
    ("inline", "amqp://guest:guest@127.0.0.1:5672//", False),
])
def test_a_run_as_long_as_rabbitmqs_consumer_timeout_is_refused_only_when_sent_over_amqp(
        workdir: Path, monkeypatch: pytest.MonkeyPatch, executor: str, broker: str, refused: bool) -> None:
    """RUN_MAX_SECONDS=1800 under EXECUTOR=celery over amqp:// is one line naming it; Redis and inline take it."""
    monkeypatch.setenv("EXECUTOR", executor)
    monkeypatch.setenv("CELERY_BROKER_URL", broker)
    monkeypatch.setenv("RUN_MAX_SECONDS", "1800")
    if not refused:
        assert load_config().pipelines[0].settings.run_max_seconds == 1800
        return
    with pytest.raises(ConfigError) as caught:
        load_config()
    (line,) = caught.value.problems
    assert line.startswith("invalid setting RUN_MAX_SECONDS: must be below 1800 s")


def test_a_pipeline_below_the_broker_timeout_passes_and_one_at_it_is_named(workdir: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """In a pipelines file the check is per pipeline: only the pipeline with RUN_MAX_SECONDS=1800 is named."""
    (workdir / "factline.toml").write_text(THREE.replace('name = "b"', 'name = "b"\nrun_max_seconds = 1800'),
                                           encoding="utf-8")
    monkeypatch.setenv("EXECUTOR", "celery")
    monkeypatch.setenv("RUN_MAX_SECONDS", "1799")
    with pytest.raises(ConfigError) as caught:
        load_config()
    (line,) = caught.value.problems
    assert line.startswith("factline.toml: pipeline 'b': invalid setting RUN_MAX_SECONDS: must be below 1800 s")


def test_every_command_exits_2_on_a_run_longer_than_the_rabbitmq_timeout(workdir: Path) -> None:
    """`factline runs` (not only the worker) refuses RUN_MAX_SECONDS=1800 under Celery over amqp://: exit 2, one line."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "PYTHONPATH": str(ROOT), "EXECUTOR": "celery",
           "RUN_MAX_SECONDS": "1800", "DATABASE_URL": f"sqlite:///{workdir}/ledger.db",
           "LOCAL_SITE_DIR": str(workdir / "site"), "MODEL_CACHE_DIR": str(workdir / "models")}
    result = subprocess.run([sys.executable, "-m", "pipeline.cli", "runs"], env=env, cwd=workdir,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "factline: invalid setting RUN_MAX_SECONDS: must be below 1800 s, RabbitMQ's consumer timeout, "
        "when EXECUTOR=celery sends runs over amqp://"]
