"""What the review tests share: an editor's environment, a run held for review, what a command told the editor,
the pages on the local site."""

from __future__ import annotations

import subprocess
from pathlib import Path

from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import factline_here, user_env


def env_for(db_url: str, model: ScriptedModel, tmp_path: Path, **values: str) -> dict[str, str]:
    return user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                    LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT="0", RETRY_BASE_DELAY="0.01",
                    PREVIEW_DIR=str(tmp_path / "preview"), **{"REVIEW_MODE": "required", **values})


def held_run(env: dict[str, str], *args: str) -> int:
    """`factline run` in the test process (factline_here) that held its run for review: the run's id."""
    done = factline_here(env, "run", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "awaits review" in done.stdout and "factline review approve" in done.stdout
    return int(done.stdout.split("run ", 1)[1].split(":", 1)[0])


def answer(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What the command said to the editor on stderr (its lines starting factline:, not the log events)."""
    return [line for line in done.stderr.splitlines() if line.startswith("factline:")]


def pages(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "site").glob("a-*.html"))
