"""--version and --help as people expect them: every option explained, the settings a command reads, examples."""

from __future__ import annotations

import argparse
import re
from importlib.metadata import version

import pytest

from config import Settings
from config.settings import setting_fields
from pipeline.cli import COMMANDS, build_parser
from pipeline.commands.common import setting_names
from pipeline.localmodel.weights import QWEN_CODER_05B
from tests.cli_helpers import factline, factline_read, user_env


def leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command and subcommand parser, with the words that reach it."""
    found = [(path, parser)] if path else []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += leaves(child, (*path, name))
    return found


ALL = leaves(build_parser())


def test_version_prints_the_installed_version() -> None:
    """`factline --version` prints "factline <version>" and exits 0."""
    done = factline_read(user_env(), "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"factline {version('factline')}"


@pytest.mark.parametrize(("words", "parser"), ALL, ids=[" ".join(w) for w, _ in ALL])
def test_every_option_of_every_command_has_help(words: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
    """No option is left with an empty help line."""
    missing = [a.dest for a in parser._actions if not isinstance(a, argparse._SubParsersAction) and not a.help]
    assert missing == []


@pytest.mark.parametrize(("words", "parser"), ALL, ids=[" ".join(w) for w, _ in ALL])
def test_every_command_help_lists_settings_with_defaults_and_examples(words: tuple[str, ...],
                                                                     parser: argparse.ArgumentParser) -> None:
    """Each --help names the settings it reads (each a real setting, with its default) and gives examples."""
    text = parser.format_help()
    listed = re.findall(r"^  ([A-Z][A-Z0-9_]+)  +(\S.*)$", text.split("settings it reads", 1)[-1], re.M)
    assert "examples:\n  factline" in text
    assert listed and {name for name, _ in listed} <= set(setting_fields())  # FACTLINE_LANGUAGE, WEB_PORT...


def test_setting_patterns_expand_over_the_settings_and_can_leave_some_out() -> None:
    """"RUN_*" finds every RUN_ setting, the deployment's first; "!PROBE_*" removes the probe ones from "*"."""
    assert setting_names("RUN_*") == ["RUN_HEARTBEAT_SECONDS",
                                      *(f.upper() for f in Settings.model_fields if f.startswith("run_"))]
    everything = setting_names("*", "!PROBE_*")
    assert "DATABASE_URL" in everything and not any(name.startswith("PROBE_") for name in everything)
    assert "FACTLINE_LANGUAGE" in everything and "LANGUAGE" not in everything  # the variable it is read from


def test_run_help_says_what_happens_without_an_endpoint() -> None:
    """run --help: without OPENAI_BASE_URL the embedded model is built (minutes) and its weights downloaded."""
    done = factline_read(user_env(), "run", "--help")
    text = " ".join(done.stdout.split())
    assert done.returncode == 0 and "Without it, factline uses its embedded model" in text
    assert f"{QWEN_CODER_05B.size / 1e6:.0f} MB" in text and "several minutes" in text


def test_the_main_help_lists_every_command_and_the_exit_codes() -> None:
    """factline --help: one line per registered command, then the exit codes 0-6, 2, 130 and 143."""
    done = factline_read(user_env(), "--help")
    commands = [words[0] for words, _ in ALL if len(words) == 1]
    assert done.returncode == 0 and len(commands) == len(COMMANDS)
    assert commands == ["run", "runs", "report", "diff", "review", "retract", "correct", "audit", "daemon", "probe", "guard", "model", "db", "web",
                        "site",
                        "pipelines", "config", "worker"]
    for name in commands:
        assert re.search(rf"^    {name}( |$)", done.stdout, re.M)  # a long name gets its help on the next line
    assert "  3  hallucinated" in done.stdout and "130  interrupted" in done.stdout
    assert "143  interrupted by SIGTERM" in done.stdout


@pytest.mark.parametrize("words", [["probe", "--limit", "1"], ["probe", "run", "--limit", "1"]])
def test_probe_run_and_bare_probe_are_the_same_command(words: list[str]) -> None:
    """`probe run` (as gh and kubectl spell it) and bare `probe` run the suite with the same options."""
    args = build_parser().parse_args(words)
    assert args.handler.__name__ == "cmd_probe" and args.limit == 1 and args.source == "all"


@pytest.mark.parametrize(("line", "expected"), [("factline ru", {"run", "runs"}), ("factline runs --l", {"--limit"}),
                                                ("factline probe r", {"run", "report"})])
def test_tab_completion_offers_commands_and_options(tmp_path, line: str, expected: set[str]) -> None:
    """With argcomplete installed, the shell's completion request gets the matching words back."""
    out = tmp_path / "completions"
    env = user_env(_ARGCOMPLETE="1", COMP_LINE=line, COMP_POINT=str(len(line)), _ARGCOMPLETE_STDOUT_FILENAME=str(out))
    assert factline(env).returncode == 0
    assert {word.strip() for word in out.read_text().split("\v")} == expected
