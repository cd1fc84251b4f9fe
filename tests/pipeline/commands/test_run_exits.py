"""Every way a run ends closes its row: a crash, Ctrl-C, SIGTERM; and the local model server dies with its parent.

The signal tests start `factline run` as a real process against the scripted model (slowed, so a request
is in flight when the signal arrives) and read the ledger afterwards as an outside observer.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from config import Settings
from pipeline.outcome import RunStatus, Verdict
from pipeline.runner import AgentLoop, run_once
from pipeline.runtime import Runtime
from testkit.daemon_process import LedgerProbe, pid_alive, wait_for
from testkit.scripted_model import ScriptedModel, happy_path
from tests.cli_helpers import FACTLINE, ROOT, user_env


def slow(policy: Any, seconds: float) -> Any:
    return lambda request: dataclasses.replace(policy(request), delay=seconds)


def run_env(db_url: str, model: ScriptedModel, tmp_path: Path, **values: str) -> dict[str, str]:
    return user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                    LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT="0", RETRY_BASE_DELAY="0.01", **values)


def test_a_crash_inside_the_loop_closes_the_run_as_error_with_one_line(
        runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the loop: the row is `finished`/`error`, its error one line naming the exception, never `running`."""
    def broken(self: AgentLoop, *args: object) -> None:
        raise RuntimeError("the decision table is missing\nsecond line")

    monkeypatch.setattr(AgentLoop, "_decide", broken)
    result = run_once(runtime)
    assert result.verdict == Verdict.error and result.stop_reason == "crash"
    assert result.error == "RuntimeError: the decision table is missing"
    probe = LedgerProbe(runtime.settings.deployment().ledger.url)
    try:
        assert probe.rows("SELECT status, verdict, stop_reason, error FROM runs") == [
            (RunStatus.finished, Verdict.error, "crash", "RuntimeError: the decision table is missing")]
    finally:
        probe.close()


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_a_model_turn_closes_the_run_as_interrupted(
        sig: signal.Signals, code: int, settings: Settings, model: ScriptedModel, tmp_path: Path) -> None:
    """Ctrl-C or SIGTERM while `factline run` waits on the model: exit 128+n, row `interrupted`, no traceback."""
    model.policy = slow(happy_path, 30)  # the first turn is in flight for 30 s
    env = run_env(settings.deployment().ledger.url, model, tmp_path)
    process = subprocess.Popen([*FACTLINE, "run"], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    probe = LedgerProbe(settings.deployment().ledger.url)
    try:
        wait_for(lambda: model.requests, timeout=60)
        sent = time.monotonic()
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=20)
        seconds = time.monotonic() - sent
        assert process.returncode == code, stderr
        assert seconds < 10  # at once, not after the 30 s answer
        assert "Traceback" not in stderr
        assert f"factline: stopped by {sig.name}" in stderr
        assert probe.rows("SELECT status, verdict, stop_reason FROM runs") == [
            (RunStatus.interrupted, Verdict.interrupted, "signal")]
    finally:
        process.kill()
        probe.close()


FAKE_SERVER = """\
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --port ] && port=$2; shift; done
exec {python} -m http.server "$port" --bind 127.0.0.1 --directory {webroot}
"""

OWNER = """\
import sys, time
from pathlib import Path
from pipeline.localmodel import LocalModelServer
server = LocalModelServer(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), startup_timeout=30)
server.start()
print(server._process.pid, flush=True)
time.sleep(300)
"""


def test_the_model_server_dies_when_its_owner_is_killed_with_sigkill(tmp_path: Path) -> None:
    """kill -9 of the process that started llama-server (a stand-in here) leaves no orphan behind."""
    webroot = tmp_path / "www"
    webroot.mkdir()
    (webroot / "health").write_text('{"status":"ok"}')
    binary = tmp_path / "llama-server"
    binary.write_text(textwrap.dedent(FAKE_SERVER.format(python=sys.executable, webroot=webroot)))
    binary.chmod(0o755)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"gguf")
    server_pid = 0
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(binary), str(model), str(tmp_path / "server.log")],
                             cwd=ROOT, env=user_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        server_pid = int(owner.stdout.readline())
        assert pid_alive(server_pid)
        owner.kill()
        owner.wait(10)
        wait_for(lambda: not pid_alive(server_pid), timeout=10)
    finally:
        owner.kill()
        if server_pid and pid_alive(server_pid):  # the test failed: leave no orphan behind either
            os.kill(server_pid, signal.SIGKILL)
