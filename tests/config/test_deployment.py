"""The deployment's settings: read once, by their flat variable names, checked once, and checked with each pipeline;
a pipeline's Settings holds none of them and carries the Deployment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from config import ConfigError, Settings, load_config, load_settings
from config.deployment import DEPLOYMENT_KEYS, VARIABLES, Deployment
from config.pipelines import PIPELINE_KEYS
from tests.cli_helpers import factline_read
from config.secrets import Redactor
from tests.deployments import redeploy
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
    result = factline_read(env, "runs", cwd=workdir)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "factline: invalid setting RUN_MAX_SECONDS: must be below 1800 s, RabbitMQ's consumer timeout, "
        "when EXECUTOR=celery sends runs over amqp://"]


def test_a_pipelines_settings_hold_no_deployment_value_but_carry_the_deployment(workdir: Path) -> None:
    """No deployment variable is a field of Settings; each pipeline carries the one Deployment the process loaded."""
    assert not DEPLOYMENT_KEYS & set(Settings.model_fields)
    config = load_config(web_port=8123)
    (only,) = config.pipelines
    assert only.settings.deployment() is config.deployment and config.deployment.web.port == 8123
    assert "_deployment" not in only.settings.model_dump() and "deployment" not in Settings.model_fields


def test_a_deployment_value_given_to_settings_is_refused() -> None:
    """Settings(database_url=...) is a validation error, not a value ignored: the ledger is the Deployment's."""
    with pytest.raises(ValidationError, match="database_url"):
        Settings(database_url="sqlite:///elsewhere.db")  # type: ignore[call-arg]


def test_model_copy_refuses_a_name_that_is_not_a_pipelines_setting(workdir: Path) -> None:
    """model_copy(update={"web_port": ...}) raises, naming it, where it used to change nothing; a pipeline's
    setting is copied and the copy keeps its Deployment."""
    settings = load_settings()
    with pytest.raises(ValueError, match="web_port .*deployment"):
        settings.model_copy(update={"web_port": 8080})
    with pytest.raises(ValueError, match="no_such_setting"):
        settings.model_copy(update={"no_such_setting": 1})
    copy = settings.model_copy(update={"run_max_turns": 4})
    assert copy.run_max_turns == 4 and copy.deployment() is settings.deployment()


def test_redeploy_changes_the_deployment_a_pipeline_carries_and_checks_the_value(workdir: Path) -> None:
    """tests/deployments.redeploy: a new Deployment with the change, the pipeline's settings as they were."""
    settings = load_settings(run_max_turns=5)
    moved = redeploy(settings, web_port=8124, web_token="a-token-of-twenty-chars")
    assert moved.deployment().web.port == 8124 and moved.deployment().web.token is not None
    assert moved.run_max_turns == 5 and settings.deployment().web.port == 0
    with pytest.raises(ValidationError):
        redeploy(settings, web_port=99999)


@pytest.mark.parametrize("with_file", [False, True])
def test_a_dotenv_holding_deployment_and_unknown_variables_loads(workdir: Path, with_file: bool) -> None:
    """A .env with WEB_PORT=8080 (the deployment's) and a variable nobody reads beside RUN_MAX_TURNS=7 (a pipeline's):
    each value goes to its owner, nothing is refused; with a pipelines file too."""
    (workdir / ".env").write_text("WEB_PORT=8080\nCELERY_QUEUE=q.env\nSOMEONE_ELSES=1\nRUN_MAX_TURNS=7\n",
                                  encoding="utf-8")
    if with_file:
        (workdir / "factline.toml").write_text(THREE, encoding="utf-8")
    config = load_config()
    assert (config.deployment.web.port, config.deployment.executor.queue) == (8080, "q.env")
    assert config.sources["WEB_PORT"] == ".env WEB_PORT"
    assert [p.settings.run_max_turns for p in config.pipelines] == [7] * len(config.pipelines)


def test_the_redactor_hides_the_deployments_secrets_and_the_pipelines(workdir: Path) -> None:
    """Redactor.of(deployment, settings): the DSN's password, WEB_TOKEN, an OTLP header's value and OPENAI_API_KEY."""
    settings = load_settings(database_url="postgresql://u:db-pass-123@127.0.0.1:5432/x", web_token="w" * 20,
                             otel_exporter_otlp_headers="Authorization=otlp-key-456",
                             openai_api_key=SecretStr("sk-pipeline-789"))
    redact = Redactor.of(settings.deployment(), settings)
    assert redact(f"db-pass-123 {'w' * 20} otlp-key-456 sk-pipeline-789") == " ".join(["[redacted]"] * 4)


def test_config_show_lists_the_deployments_values_in_every_pipeline(workdir: Path) -> None:
    """`config show --json` with two pipelines: each lists every deployment variable (lower case) beside its own
    settings, with the value and its source as before the types were split; nothing else."""
    (workdir / "factline.toml").write_text(THREE, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "PYTHONPATH": str(ROOT), "WEB_PORT": "8123",
           "DATABASE_URL": "postgresql://u:pgsecret@127.0.0.1:5432/x", "LOCAL_SITE_DIR": str(workdir / "site")}
    result = subprocess.run([sys.executable, "-m", "pipeline.cli", "config", "show", "--json"], env=env, cwd=workdir,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert list(shown) == ["a", "b", "c"]
    for rows in shown.values():
        assert list(rows) == sorted(DEPLOYMENT_KEYS | set(Settings.model_fields))
        assert rows["web_port"] == {"value": "8123", "source": "environment $WEB_PORT"}
        assert rows["metrics_port"] == {"value": "9464", "source": "built-in default"}
        assert rows["database_url"]["value"] == "postgresql+psycopg://u:********@127.0.0.1:5432/x"
        assert rows["run_max_turns"] == {"value": "30", "source": "built-in default"}
