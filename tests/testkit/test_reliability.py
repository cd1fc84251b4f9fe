"""The reliability suite: `factline run` against the real test WordPress, one test per scenario.

The scenarios live in testkit/reliability/faults.py and testkit/reliability/inputs.py and are shared with
scripts/reliability.py, which prints them as a table and writes docs/reliability.md. The fault
scenarios kill php-fpm and stop MariaDB: when someone else uses the default WordPress at the same
time, run these against your own instance (WP_BASE=/tmp/factline-wp-mine WP_PORT=8081). The ledger is
SQLite; the SIGKILL scenario, where the ledger's durability matters, runs on PostgreSQL too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.reliability import SCENARIOS, play
from testkit.wordpress import WordPress

pytestmark = pytest.mark.slow  # and external: every test takes the test WordPress


def check(name: str, wp: WordPress, tmp_path: Path, db_url: str | None = None) -> None:
    outcome = play(SCENARIOS[name], wp, tmp_path / name, db_url)
    assert outcome.failures == [], f"{name}: observed {outcome.observed}"


def test_publish_retries_after_503_with_capped_retry_after_then_registers(wp: WordPress, tmp_path: Path) -> None:
    """A 503 with Retry-After 30 on publish waits RETRY_MAX_WAIT, retries once and ends in success with one post."""
    check("retry_after_503_then_recovery", wp, tmp_path)


def test_http_500_until_the_attempt_cap_is_unavailable(wp: WordPress, tmp_path: Path) -> None:
    """HTTP 500 on every attempt: escalated as unavailable (exit 4) after the cap, no post, no registration."""
    check("http_500_until_the_attempt_cap", wp, tmp_path)


def test_killed_php_fpm_502_until_the_attempt_cap_is_unavailable(wp: WordPress, tmp_path: Path) -> None:
    """php-fpm SIGKILLed (nginx 502): unavailable (exit 4) after the cap, no post, no registration."""
    check("php_fpm_killed_502_until_the_attempt_cap", wp, tmp_path)


def test_hung_php_fpm_times_out_and_gives_up_within_the_bound(wp: WordPress, tmp_path: Path) -> None:
    """php-fpm SIGSTOPped: each attempt times out, publish gives up within attempts*timeout + waits, exit 4."""
    check("hung_php_fpm_times_out_within_bound", wp, tmp_path)


def test_mariadb_down_is_unavailable_without_registration(wp: WordPress, tmp_path: Path) -> None:
    """MariaDB stopped (WordPress 500): classified retryable, unavailable (exit 4), nothing registered."""
    check("mariadb_down_until_the_attempt_cap", wp, tmp_path)


def test_wrong_application_password_stops_at_the_first_request(wp: WordPress, tmp_path: Path) -> None:
    """A wrong application password ends the run with exit 6 after one request and one attempt."""
    check("wrong_password_stops_at_first_401", wp, tmp_path)


def test_post_trashed_before_register_is_unverified_and_not_registered(wp: WordPress, tmp_path: Path) -> None:
    """A post trashed after publish answers GET 404 at register: refused, verdict unverified, exit 4."""
    check("post_trashed_before_register", wp, tmp_path)


def test_link_outside_the_whitelist_is_never_requested(wp: WordPress, tmp_path: Path) -> None:
    """With only 'localhost' whitelisted, the 127.0.0.1 link is never requested (no GET of the page) and stays unverified (exit 4)."""
    check("link_outside_whitelist_is_never_requested", wp, tmp_path)


def test_sigkill_between_publish_and_register_then_rerun_leaves_one_post(
    wp: WordPress, tmp_path: Path, db_url: str
) -> None:
    """factline SIGKILLed before register, then run again: run 1 interrupted, one post, one registration."""
    check("sigkill_between_publish_and_register", wp, tmp_path, db_url)


def test_publish_is_not_repeated_after_nudge(wp: WordPress, tmp_path: Path) -> None:
    """A model nudged after a false claim calls publish again: answered from dedup, one post."""
    check("publish_repeated_after_nudge", wp, tmp_path)


def test_markup_in_title_and_body_is_published_escaped(wp: WordPress, tmp_path: Path) -> None:
    """HTML and <script> from the writer are stored and served escaped, never as live markup."""
    check("markup_is_published_escaped", wp, tmp_path)


def test_one_megabyte_body_is_published_whole(wp: WordPress, tmp_path: Path) -> None:
    """A 1 MB body is published with all of its 900 paragraphs."""
    check("one_megabyte_body_is_published_whole", wp, tmp_path)


def test_emoji_and_cjk_are_published_faithfully(wp: WordPress, tmp_path: Path) -> None:
    """Emoji and CJK come back unchanged in the stored title and content."""
    check("emoji_and_cjk_are_published_faithfully", wp, tmp_path)


def test_body_over_two_megabytes_is_refused_before_any_request(wp: WordPress, tmp_path: Path) -> None:
    """A body over 2 MB is refused by publish before any request reaches WordPress (exit 4)."""
    check("body_over_two_megabytes_is_refused", wp, tmp_path)


def test_control_characters_are_refused_before_any_request(wp: WordPress, tmp_path: Path) -> None:
    """A control character in the body is refused by publish before any request reaches WordPress (exit 4)."""
    check("control_characters_are_refused", wp, tmp_path)


def test_lone_surrogates_are_refused_before_any_request(wp: WordPress, tmp_path: Path) -> None:
    """Model text with a lone surrogate is refused by write_draft; nothing reaches WordPress (exit 4)."""
    check("lone_surrogates_are_refused", wp, tmp_path)
