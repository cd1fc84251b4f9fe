"""The pipelines file: several pipelines, their precedence, secrets by variable name, one-line errors."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from config import ConfigError, load_config
from pipeline.catalog import PROMPT_VERSIONS, SYSTEM_PROMPTS
from pipeline.ledger.models import Publication, Run, Topic
from pipeline.runner import run_once
from pipeline.runtime import open_runtimes
from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import factline_here, factline_read


TWO = """
[defaults]
schedule_timezone = "Asia/Shanghai"
run_max_turns = 20

[[pipelines]]
name = "blog-zh"
language = "zh"
schedule_cron = "*/5 * * * * *"
run_max_turns = 9

[[pipelines]]
name = "news"
"""


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a pipelines file and point FACTLINE_CONFIG at it."""
    monkeypatch.chdir(tmp_path)

    def write(text: str) -> Path:
        path = tmp_path / "pipelines.toml"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setenv("FACTLINE_CONFIG", str(path))
        return path

    return write


def test_without_a_file_there_is_one_pipeline_named_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No FACTLINE_CONFIG and no ./factline.toml: the one pipeline `content`, from the environment as before."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FACTLINE_CONFIG", raising=False)
    monkeypatch.setenv("SCHEDULE_CRON", "5 4 * * *")
    (only,) = load_config().pipelines
    assert only.name == "content" and only.settings.schedule_cron == "5 4 * * *"
    assert only.sources["schedule_cron"] == "environment $SCHEDULE_CRON"


def test_factline_toml_in_the_working_directory_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without FACTLINE_CONFIG, ./factline.toml is the pipelines file when it exists."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FACTLINE_CONFIG", raising=False)
    (tmp_path / "factline.toml").write_text(TWO, encoding="utf-8")
    assert [p.name for p in load_config().pipelines] == ["blog-zh", "news"]


def test_pipeline_table_beats_defaults_beats_environment_beats_builtin(config_file, monkeypatch) -> None:
    """Precedence: the pipeline's table > [defaults] > the environment > the built-in default."""
    config_file(TWO)
    monkeypatch.setenv("RUN_MAX_TURNS", "40")
    monkeypatch.setenv("SCHEDULE_TIMEZONE", "Europe/Paris")
    monkeypatch.setenv("RUN_MAX_TOOL_CALLS", "7")
    zh, news = load_config().pipelines
    assert (zh.settings.run_max_turns, news.settings.run_max_turns) == (9, 20)
    assert zh.settings.schedule_timezone == news.settings.schedule_timezone == "Asia/Shanghai"
    assert news.settings.run_max_tool_calls == 7 and news.settings.run_max_unknown_tools == 3
    assert zh.settings.language == "zh" and news.settings.language == "en"
    assert news.settings.schedule_cron == "0 6 * * *"
    assert zh.sources["run_max_turns"].endswith("pipeline 'blog-zh'")
    assert news.sources["run_max_turns"].endswith("[defaults]")
    assert news.sources["run_max_tool_calls"] == "environment $RUN_MAX_TOOL_CALLS"
    assert news.sources["run_max_unknown_tools"] == "built-in default"


def test_secrets_come_only_from_the_variable_the_file_names(config_file, monkeypatch) -> None:
    """`wordpress_app_password_env = "VAR"` reads $VAR; the secret itself never appears in the file."""
    monkeypatch.setenv("NEWS_WP_PASSWORD", "s3cret-app-pass")
    config_file('[[pipelines]]\nname = "news"\npublish_target = "wordpress"\nwordpress_url = "http://127.0.0.1:9"\n'
                'wordpress_user = "bot"\nwordpress_app_password_env = "NEWS_WP_PASSWORD"\n')
    (news,) = load_config().pipelines
    assert news.settings.wordpress_app_password.get_secret_value() == "s3cret-app-pass"
    assert news.sources["wordpress_app_password"].endswith("(from $NEWS_WP_PASSWORD)")


@pytest.mark.parametrize(("table", "expected"), [
    ('schedule_cron = 5', "pipeline 'a': invalid key schedule_cron"),
    ('run_max_turns = 0', "pipeline 'a': invalid key run_max_turns"),
    ('language = "fr"', "pipeline 'a': invalid key language"),
    ('wordpress_app_password = "plain"', "pipeline 'a': key wordpress_app_password is a secret"),
    ('openai_api_key_env = "UNSET_VARIABLE_X"', "pipeline 'a': key openai_api_key_env names 'UNSET_VARIABLE_X'"),
    ('database_url = "sqlite:///x.db"', "pipeline 'a': key database_url is a deployment setting"),
    ('schedule_crn = "* * * * *"', "pipeline 'a': unknown key 'schedule_crn'"),
])
def test_a_bad_key_fails_in_one_line_naming_pipeline_and_key(config_file, table: str, expected: str) -> None:
    """Each bad entry raises ConfigError: one line with the file, the pipeline and the key."""
    config_file(f'[[pipelines]]\nname = "a"\n{table}\n')
    with pytest.raises(ConfigError) as exc:
        load_config().pipelines
    assert expected in str(exc.value) and "\n" not in str(exc.value)


def test_every_problem_of_the_file_is_reported_at_once(config_file) -> None:
    """Two bad values, a duplicate name and an unknown key in four pipelines: one line each."""
    config_file('[[pipelines]]\nname = "a"\nrun_max_turns = 0\n[[pipelines]]\nname = "b"\nlanguage = "fr"\n'
                '[[pipelines]]\nname = "c"\n[[pipelines]]\nname = "c"\n[[pipelines]]\nname = "d"\ncolour = 1\n')
    with pytest.raises(ConfigError) as exc:
        load_config().pipelines
    lines = str(exc.value).splitlines()
    assert len(lines) == 4
    assert [line.split(": ", 2)[1] for line in lines] == ["pipeline 'c'", "pipeline 'd'", "pipeline 'a'", "pipeline 'b'"]


def _clean_env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("FACTLINE_", "SCHEDULE_", "WORDPRESS_"))}
    return {**keep, **extra}


def test_cli_exits_2_with_the_line_naming_the_pipeline(tmp_path: Path) -> None:
    """`factline pipelines` with a bad file: exit 2, one line on stderr, no traceback."""
    (tmp_path / "factline.toml").write_text('[[pipelines]]\nname = "x"\nschedule_timezone = 3\n', encoding="utf-8")
    result = factline_read(_clean_env(), "pipelines", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("factline: factline.toml: pipeline 'x': invalid key schedule_timezone")
    assert "Traceback" not in result.stderr


def test_config_show_masks_secrets_and_names_each_source(tmp_path: Path) -> None:
    """`config show --json`: the app password and the DSN password are masked; sources are named."""
    (tmp_path / "factline.toml").write_text(
        '[defaults]\nwordpress_app_password_env = "WP_PW"\n[[pipelines]]\nname = "news"\npublish_target = "wordpress"\n'
        'wordpress_url = "http://127.0.0.1:9"\nwordpress_user = "bot"\n', encoding="utf-8")
    env = _clean_env(WP_PW="hunter2-secret", DATABASE_URL="postgresql://u:pgsecret@127.0.0.1:5432/x")
    result = factline_read(env, "config", "show", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)["news"]
    assert "hunter2" not in result.stdout and "pgsecret" not in result.stdout
    assert shown["wordpress_app_password"] == {"value": "********", "source": "factline.toml: [defaults] (from $WP_PW)"}
    assert shown["database_url"]["value"] == "postgresql+psycopg://u:********@127.0.0.1:5432/x"
    assert shown["database_url"]["source"] == "environment $DATABASE_URL"
    assert shown["publish_target"]["source"] == "factline.toml: pipeline 'news'"


def test_pipelines_lists_next_fire_time_and_last_verdict(tmp_path: Path, model: ScriptedModel) -> None:
    """`factline pipelines --json` after a run of one pipeline: its verdict, the other has none yet."""
    (tmp_path / "factline.toml").write_text(TWO, encoding="utf-8")
    topics = tmp_path / "topics.txt"
    topics.write_text("Pipelines topic\n", encoding="utf-8")
    env = _clean_env(DATABASE_URL=f"sqlite:///{tmp_path}/ledger.db", OPENAI_BASE_URL=model.base_url,
                     FACTLINE_MODEL="scripted", TOPICS_SOURCE=str(topics), LOCAL_SITE_PORT="0")
    assert factline_here(env, "run", cwd=tmp_path).returncode == 2  # several pipelines: --pipeline is required
    ran = factline_here(env, "run", "--pipeline", "news", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    listed = factline_read(env, "pipelines", "--json", cwd=tmp_path)
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    assert rows["news"]["last_verdict"] == "success" and rows["blog-zh"]["last_verdict"] is None
    assert rows["blog-zh"]["next_fire_time"].endswith("+08:00")
    report = factline_read(env, "report", "--day", date.today().isoformat(), "--pipeline", "blog-zh", cwd=tmp_path)
    assert "no publications" in report.stdout.splitlines()[0]


def test_two_pipelines_publish_the_same_title_once_each(config_file, model: ScriptedModel, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch, db_url: str) -> None:
    """Topics are per pipeline: both pipelines publish 'Shared title', under keys naming the pipeline."""
    topics = tmp_path / "topics.txt"
    topics.write_text("Shared title\n", encoding="utf-8")
    for name, value in {"DATABASE_URL": db_url, "OPENAI_BASE_URL": model.base_url, "FACTLINE_MODEL": "scripted",
                        "TOPICS_SOURCE": str(topics), "LOCAL_SITE_PORT": "0",
                        "LOCAL_SITE_DIR": str(tmp_path / "site")}.items():
        monkeypatch.setenv(name, value)
    config_file(TWO)
    config = load_config()
    with open_runtimes(config.deployment, [p.settings for p in config.pipelines]) as runtimes:
        assert [run_once(runtimes[name]).verdict for name in ("blog-zh", "news")] == ["success", "success"]
        assert run_once(runtimes["news"]).verdict != "success"  # the title is used up in `news` only
        with runtimes["news"].sessions() as s:
            assert sorted(s.scalars(select(Topic.pipeline))) == ["blog-zh", "news"]
            keys = sorted(s.scalars(select(Publication.idempotency_key)))
            assert [k.split(":")[1] for k in keys] == ["blog-zh", "news"]
            assert sorted(s.scalars(select(Run.pipeline))) == ["blog-zh", "news", "news"]
            versions = dict(s.execute(select(Run.pipeline, Run.prompt_version)).all())
    assert len(list((tmp_path / "site").glob("a-*.html"))) == 2
    zh_prompts = [r for r in model.requests if "Simplified Chinese" in json.dumps(r, ensure_ascii=False)]
    assert zh_prompts, "the zh pipeline asks for articles in Chinese"
    agent_prompts = {r["messages"][0]["content"] for r in model.requests if r.get("tools")}
    assert agent_prompts == {SYSTEM_PROMPTS["zh"], SYSTEM_PROMPTS["en"]}  # the agent's closing sentence too
    assert versions == {"blog-zh": PROMPT_VERSIONS["zh"], "news": PROMPT_VERSIONS["en"]}


def test_gettext_language_variable_is_not_the_article_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """LANGUAGE=en_US:en (set on most Linux logins) is ignored; FACTLINE_LANGUAGE sets the language."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FACTLINE_CONFIG", raising=False)
    monkeypatch.setenv("LANGUAGE", "en_US:en")
    assert load_config().pipelines[0].settings.language == "en"
    monkeypatch.setenv("FACTLINE_LANGUAGE", "zh")
    (only,) = load_config().pipelines
    assert only.settings.language == "zh" and only.sources["language"] == "environment $FACTLINE_LANGUAGE"


def test_inline_daemon_ticks_every_pipeline_on_its_own_schedule(model: ScriptedModel, tmp_path: Path) -> None:
    """Two pipelines, every second and every 2 s: both tick, their runs and /metrics carry their names."""
    import httpx

    from testkit.daemon_process import DaemonProcess, LedgerProbe, daemon_env, wait_for

    config = tmp_path / "factline.toml"
    config.write_text('[[pipelines]]\nname = "fast"\nschedule_cron = "* * * * * *"\n'
                      '[[pipelines]]\nname = "slow"\nschedule_cron = "*/2 * * * * *"\n', encoding="utf-8")
    db_url = f"sqlite:///{tmp_path}/ledger.db"
    env = daemon_env(db_url, model.base_url, tmp_path, FACTLINE_CONFIG=str(config))
    probe = LedgerProbe(db_url)
    daemon = DaemonProcess(env, tmp_path / "daemon.log")
    try:
        wait_for(lambda: probe.scalar("SELECT count(DISTINCT pipeline) FROM runs WHERE verdict = 'success'") == 2,
                 timeout=60, interval=0.5)
        metrics = httpx.get(daemon.metrics_url).text
    finally:
        assert daemon.stop() == 0
        probe.close()
    assert 'factline_ticks_total{outcome="run",pipeline="fast"}' in metrics
    assert 'factline_ticks_total{outcome="run",pipeline="slow"}' in metrics


def test_a_pipelines_file_reports_every_problem_at_once_unknown_keys_and_bad_values_alike(config_file) -> None:
    """An unknown key no longer hides the other bad values of its table; integers have an upper bound."""
    path = config_file("""
[defaults]
run_max_turns = 100000000000000000000000

[[pipelines]]
name = "news"
colour = "blue"
run_max_tool_calls = 0
llm_max_tokens_text = 100000000000000000000
""")
    with pytest.raises(ConfigError) as caught:
        load_config().pipelines
    lines = caught.value.problems
    assert f"{path}: pipeline 'news': unknown key 'colour'" in lines
    for key in ("run_max_turns", "run_max_tool_calls", "llm_max_tokens_text"):
        assert any(line.startswith(f"{path}: pipeline 'news': invalid key {key}:") for line in lines), lines
