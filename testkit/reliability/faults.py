"""Platform and process faults around publish and register: each one a `factline run` against the real WordPress."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable

from capabilities import CATALOG
from testkit.reliability.harness import RETRY_MAX_ATTEMPTS, Lab, Scenario, calls_named
from testkit.scripted_model import Policy, Reply, Request, happy_path, say, script, step_call

Hook = Callable[[Request], None]
HUNG_TIMEOUT_SECONDS = 2.0
SLACK_SECONDS = 2.0


def hooked(hooks: dict[str, Hook], then: Policy = happy_path) -> Policy:
    """``then``, but the first time it calls a tool named in ``hooks`` that hook runs before the answer."""
    done: set[str] = set()

    def policy(request: Request) -> Reply:
        reply = then(request)
        for call in reply.calls:
            if call.name in hooks and call.name not in done:
                done.add(call.name)
                hooks[call.name](request)
        return reply

    return policy


def until_refused(request: Request) -> Reply:
    """The happy path until a tool answers with an error; from then on, say so and call nothing."""
    last_tool = next((m for m in reversed(request.messages) if m.get("role") == "tool"), None)
    if last_tool is not None and "error" in json.loads(last_tool.get("content") or "{}"):
        return say("I stop here: the last step was refused.")
    return happy_path(request)


def lookups(lab: Lab) -> list[str]:
    """factline's REST lookups of the topic's slug in nginx's access log."""
    return [line for line in lab.access_log() if '"GET /wp-json/wp/v2/posts?slug=' in line]


def page_requests(lab: Lab) -> list[str]:
    """Requests for pages (not the REST API) in nginx's access log: the content checks of capabilities.verify."""
    return [line for line in lab.access_log() if ('"GET ' in line or '"HEAD ' in line) and "/wp-json/" not in line]


def clear_after_first(lab: Lab, status: int, seconds: float = 30.0) -> None:
    """In the background: clear the fault once nginx has logged a lookup of the topic answered ``status``."""

    def watch() -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if any(f'" {status} ' in line for line in lookups(lab)):
                lab.wp.clear_fault()
                return
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True).start()


def retry_after_503_then_recovery(lab: Lab) -> None:
    def fault(request: Request) -> None:
        lab.wp.set_fault("rest", "503")
        clear_after_first(lab, 503)

    finished = lab.run(hooked({"publish": fault}))
    detail = lab.expect_run(finished, 0, "success")
    publish = calls_named(detail, "publish")
    lab.check(
        [c.attempts for c in publish] == [2], f"publish attempts {[c.attempts for c in publish]}, expected [2]"
    )
    waits = [e.detail["wait"] for e in detail.events if e.kind == "tool_retry"]
    lab.check(waits == [1.0], f"retry waits {waits}, expected [1.0] (Retry-After 30 capped by RETRY_MAX_WAIT=1)")
    lab.note(f"publish attempts {[c.attempts for c in publish]}, waited {waits} s")
    lab.expect_posts(live=1, registrations=1)


def exhausted(lab: Lab, status: str) -> None:
    """Run against a failing WordPress; check escalation after the attempt cap, nothing posted or registered."""
    finished = lab.run()
    detail = lab.expect_run(finished, 4, "unavailable")
    first = calls_named(detail, "publish")[0]
    lab.check(
        first.reason == "retry_exhausted" and first.attempts == RETRY_MAX_ATTEMPTS,
        f"first publish {first.reason} after {first.attempts} attempts, expected retry_exhausted "
        f"after {RETRY_MAX_ATTEMPTS}",
    )
    lab.check(status in (first.detail or ""), f"publish detail {first.detail!r} does not name {status}")
    lab.note(f"{first.attempts} attempts, {len(lookups(lab))} requests, {status}")
    lab.check(
        len(lookups(lab)) == RETRY_MAX_ATTEMPTS,
        f"{len(lookups(lab))} lookups in nginx's log, expected {RETRY_MAX_ATTEMPTS}",
    )
    lab.expect_posts(live=0, registrations=0)


def http_500_until_the_attempt_cap(lab: Lab) -> None:
    lab.wp.set_fault("rest", "500")
    exhausted(lab, "HTTP 500")


def php_fpm_killed_502_until_the_attempt_cap(lab: Lab) -> None:
    lab.wp.fpm("kill")
    exhausted(lab, "HTTP 502")


def mariadb_down_until_the_attempt_cap(lab: Lab) -> None:
    lab.wp.db("stop")
    exhausted(lab, "HTTP 500")


def hung_php_fpm_times_out_within_bound(lab: Lab) -> None:
    lab.wp.fpm("stop")
    try:
        finished = lab.run(HTTP_TIMEOUT_SECONDS=str(HUNG_TIMEOUT_SECONDS))
    finally:
        lab.wp.fpm("cont")
    detail = lab.expect_run(finished, 4, "unavailable")
    first = calls_named(detail, "publish")[0]
    lab.check("timed out" in (first.detail or ""), f"publish detail {first.detail!r} is not a timeout")
    bound = RETRY_MAX_ATTEMPTS * HUNG_TIMEOUT_SECONDS + (RETRY_MAX_ATTEMPTS - 1) * 1.0 + SLACK_SECONDS
    lab.check(first.latency_ms / 1000 <= bound, f"publish took {first.latency_ms} ms, bound {bound} s")
    started, ended = detail.started_at, detail.finished_at
    assert ended is not None  # expect_run checked the run finished
    run_seconds = (ended - started).total_seconds()
    lab.check(
        run_seconds <= bound + SLACK_SECONDS, f"the run took {run_seconds:.1f} s, bound {bound + SLACK_SECONDS} s"
    )
    lab.note(
        f"{first.attempts} timeouts, publish gave up after {first.latency_ms / 1000:.1f} s "
        f"(bound {bound:.0f} s), run {run_seconds:.1f} s"
    )
    lab.wp.wait_healthy()
    lab.expect_posts(live=0, registrations=0)


def wrong_password_stops_at_first_401(lab: Lab) -> None:
    finished = lab.run(WORDPRESS_APP_PASSWORD="abcd efgh ijkl mnop qrst uvwx")
    detail = lab.expect_run(finished, 6, "auth_failed")
    publish = calls_named(detail, "publish")
    lab.check(
        [c.attempts for c in publish] == [1], f"publish attempts {[c.attempts for c in publish]}, expected [1]"
    )
    lab.check(len(lookups(lab)) == 1, f"{len(lookups(lab))} requests in nginx's log, expected 1")
    lab.check(lab.wp.app_password not in finished.stdout + finished.stderr, "the application password was printed")
    lab.note(f"publish attempts {[c.attempts for c in publish]}, {len(lookups(lab))} request")
    lab.expect_posts(live=0, registrations=0)


def post_trashed_before_register(lab: Lab) -> None:
    def trash(request: Request) -> None:
        lab.wp.trash(request.results()["publish"]["external_id"])

    finished = lab.run(hooked({"register": trash}, then=until_refused))
    detail = lab.expect_run(finished, 4, "unverified")
    publication = lab.publications()[0]
    lab.check(
        publication.http_status == 404 and publication.verified_at is None,
        f"publication HTTP {publication.http_status}, verified {publication.verified_at}",
    )
    lab.check([c.outcome for c in calls_named(detail, "register")] == ["rejected"], "register was not refused")
    lab.note(f"register refused, GET {publication.http_status}; post trashed")
    lab.expect_posts(live=0, registrations=0)


def link_outside_whitelist_is_never_requested(lab: Lab) -> None:
    finished = lab.run(until_refused, PUBLISH_DOMAIN_WHITELIST="localhost")
    lab.expect_run(finished, 4, "unverified")
    lab.check(page_requests(lab) == [], f"requests for the post's page: {page_requests(lab)}")
    publication = lab.publications()[0]
    lab.check(
        publication.http_status is None and publication.verified_at is None,
        f"publication HTTP {publication.http_status}, verified {publication.verified_at}",
    )
    lab.note(f"{len(page_requests(lab))} page requests, register refused")
    lab.expect_posts(live=1, registrations=0)


def sigkill_between_publish_and_register(lab: Lab) -> None:
    asked, killed = threading.Event(), threading.Event()

    def block(request: Request) -> None:
        asked.set()  # publish has returned: the process now waits for the register turn
        killed.wait(60)

    process = lab.start(hooked({"register": block}))
    try:
        lab.check(asked.wait(90), "the first run never reached the register turn")
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=10)
    finally:
        killed.set()
    lab.check(process.returncode == -signal.SIGKILL, f"first run ended {process.returncode} before it was killed")
    lab.check(
        len(lab.publications()) == 1 and lab.count_registrations() == 0, "killed run left no unregistered publication"
    )
    finished = lab.run(happy_path)
    first, second = lab.runs()
    lab.check(
        (first.status, first.stop_reason) == ("interrupted", "process_died"),
        f"first run {first.status}/{first.stop_reason}, expected interrupted/process_died",
    )
    lab.expect_run(finished, 0, "success")
    replayed = [c.result.get("replayed") for c in calls_named(second, "publish")]
    lab.check(replayed == [True], f"second run's publish replayed={replayed}, expected [True]")
    lab.outcome.observed = (
        f"run 1 killed ({first.status}); run 2 exit {finished.exit_code}, {second.verdict}, "
        f"publish replayed={replayed}"
    )
    lab.expect_posts(live=1, registrations=1)


def publish_repeated_after_nudge(lab: Lab) -> None:
    claim = say("Published and registered as CT-20260101-001.")
    through_publish = list(CATALOG).index("publish") + 1  # the happy path's steps up to and including publish
    finished = lab.run(script(*[happy_path] * through_publish, claim, step_call("publish")))
    detail = lab.expect_run(finished, 0, "success")
    outcomes = [str(c.outcome) for c in calls_named(detail, "publish")]
    lab.check(outcomes == ["ok", "dedup"], f"publish outcomes {outcomes}, expected ['ok', 'dedup']")
    lab.check(len(detail.nudges) >= 1, "the model was not nudged")
    lab.note(f"nudged ({', '.join(n.kind for n in detail.nudges)}), publish {outcomes}")
    lab.expect_posts(live=1, registrations=1)


SCENARIOS = [
    Scenario(
        "retry_after_503_then_recovery",
        "exit 0, success: retried once after min(30, 1) s",
        retry_after_503_then_recovery,
    ),
    Scenario("http_500_until_the_attempt_cap", "exit 4, unavailable after 3 attempts", http_500_until_the_attempt_cap),
    Scenario(
        "php_fpm_killed_502_until_the_attempt_cap",
        "exit 4, unavailable after 3 attempts",
        php_fpm_killed_502_until_the_attempt_cap,
    ),
    Scenario(
        "hung_php_fpm_times_out_within_bound",
        "exit 4, unavailable; timeouts, bounded time",
        hung_php_fpm_times_out_within_bound,
    ),
    Scenario(
        "mariadb_down_until_the_attempt_cap", "exit 4, unavailable (HTTP 500)", mariadb_down_until_the_attempt_cap
    ),
    Scenario(
        "wrong_password_stops_at_first_401", "exit 6, auth_failed after 1 request", wrong_password_stops_at_first_401
    ),
    Scenario("post_trashed_before_register", "exit 4, unverified (GET 404)", post_trashed_before_register),
    Scenario(
        "link_outside_whitelist_is_never_requested",
        "exit 4, unverified; the page never requested",
        link_outside_whitelist_is_never_requested,
    ),
    Scenario(
        "sigkill_between_publish_and_register", "killed; rerun exit 0, one post", sigkill_between_publish_and_register
    ),
    Scenario(
        "publish_repeated_after_nudge", "exit 0, success; second publish deduplicated", publish_repeated_after_nudge
    ),
]
