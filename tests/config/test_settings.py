"""Settings: defaults that run on a fresh machine; a bad value fails with one line naming it."""

from __future__ import annotations

import pytest

from config import ConfigError, load_settings


def test_defaults_are_sqlite_local_target_and_guard_on(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """With nothing configured: SQLite under ./var, the local target whitelisted, the guard on with 2 nudges."""
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert s.deployment().ledger.url == "sqlite:///var/factline.db"
    assert s.publish_target == "local" and "127.0.0.1" in s.publish_domain_whitelist
    assert s.agent_hallucination_guard is True and s.agent_hallucination_max_nudges == 2


@pytest.mark.parametrize(("name", "value"), [
    ("DATABASE_URL", "mysql://x"), ("AGENT_HALLUCINATION_GUARD", "perhaps"), ("AGENT_HALLUCINATION_MAX_NUDGES", "-1"),
    ("PUBLISH_TARGET", "ftp"), ("OPENAI_BASE_URL", "localhost:8080"), ("RUN_MAX_TOOL_CALLS", "0"),
    ("WORDPRESS_URL", "blog.example.com"),
])
def test_bad_value_names_the_variable_in_one_line(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    """Each bad value raises ConfigError whose single line names the variable."""
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as exc:
        load_settings()
    message = str(exc.value)
    assert name in message and "\n" not in message


@pytest.mark.parametrize("missing", ["WORDPRESS_URL", "WORDPRESS_USER", "WORDPRESS_APP_PASSWORD"])
def test_wordpress_target_requires_its_credentials(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    """PUBLISH_TARGET=wordpress without one of its three settings fails at start, naming that one."""
    monkeypatch.setenv("PUBLISH_TARGET", "wordpress")
    for name, value in (("WORDPRESS_URL", "http://127.0.0.1:8080"), ("WORDPRESS_USER", "admin"),
                        ("WORDPRESS_APP_PASSWORD", "abcd efgh")):
        monkeypatch.setenv(name, value) if name != missing else monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match=f"missing setting {missing}:"):
        load_settings()


def test_whitelist_is_a_comma_separated_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """PUBLISH_DOMAIN_WHITELIST splits on commas, trims and lower-cases."""
    monkeypatch.setenv("PUBLISH_DOMAIN_WHITELIST", " Blog.Example.com, 127.0.0.1 ")
    assert load_settings().publish_domain_whitelist == ["blog.example.com", "127.0.0.1"]


def test_log_level_and_format_are_case_insensitive(monkeypatch: pytest.MonkeyPatch) -> None:
    """LOG_LEVEL=debug and LOG_FORMAT=JSON are read as DEBUG and json."""
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("LOG_FORMAT", "JSON")
    s = load_settings()
    assert (s.deployment().logs.level, s.deployment().logs.format) == ("DEBUG", "json")


def test_every_bad_setting_is_reported_at_once_one_line_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four bad values and a missing credential give five lines, each naming its variable, no value quoted; the
    deployment's first."""
    for name, value in {"LOG_LEVEL": "loud", "RUN_MAX_TURNS": "0", "SCHEDULE_TIMEZONE": "Mars/Base",
                        "DATABASE_URL": "mysql://root:hunter2@db/x", "PUBLISH_TARGET": "wordpress",
                        "WORDPRESS_USER": "me", "WORDPRESS_APP_PASSWORD": "pw"}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as exc:
        load_settings()
    lines = str(exc.value).splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "invalid setting DATABASE_URL", "invalid setting LOG_LEVEL", "invalid setting RUN_MAX_TURNS",
        "invalid setting SCHEDULE_TIMEZONE", "missing setting WORDPRESS_URL"]
    assert "hunter2" not in str(exc.value) and exc.value.problems == tuple(lines)


@pytest.mark.parametrize("name", ["SCHEDULE_CRON", "REPORT_CRON"])
def test_a_cron_that_never_fires_is_rejected(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """February 31st is a valid-looking crontab that never fires: one line naming the variable."""
    monkeypatch.setenv(name, "0 0 31 2 *")
    with pytest.raises(ConfigError, match=f"^invalid setting {name}: '0 0 31 2 \\*' never fires"):
        load_settings()
