"""A real WordPress for tests and scripts: ``start_wordpress``/``stop_wordpress`` and the controls of ``WordPress``.

``start_wordpress`` runs scripts/wordpress/wp-up.sh (idempotent: installs the Debian packages and
the site when missing, starts what is not running) and reads $WP_BASE/env. ``WordPress.restore``
clears any fault, resumes/restarts php-fpm, starts MariaDB and waits until the REST API answers
again. The pytest fixtures ``wordpress`` (once per session) and ``wp`` (restored after each test)
are in tests/conftest.py.

Environment: WP_BASE (default /tmp/factline-wp), WP_PORT (8080), FACTLINE_WP_KEEP=1 to leave the
servers running after a session that started them (by default they are stopped only if this
session started them; a WordPress that was already up is left up).
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from capabilities.targets.wordpress import WordPressTarget, slug_for
from config.settings import Settings, load_settings

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts" / "wordpress"
ALL_STATUSES = "publish,future,draft,pending,private,trash"


@dataclass
class WordPress:
    """A running test WordPress and the controls the fault tests need."""

    url: str
    user: str
    app_password: str = field(repr=False)   # a test secret, but kept out of pytest's failure output
    base: Path
    env: dict[str, str] = field(repr=False)

    # --- scripts/wordpress/wp-ctl.sh -------------------------------------------------------
    def ctl(self, *args: str) -> str:
        """Run ``wp-ctl.sh args...``; raise with its stderr if it fails."""
        done = subprocess.run([str(SCRIPTS / "wp-ctl.sh"), *args], env=self.env, capture_output=True,
                              text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"wp-ctl.sh {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def set_fault(self, scope: str, action: str) -> None:
        """Make the fault plugin answer ``action`` (an HTTP status or 'sleep N') for ``scope`` (front|rest|all)."""
        self.ctl("fault", scope, *action.split())

    def clear_fault(self) -> None:
        self.ctl("fault-clear")
        self.ctl("content-fault-clear")

    def set_content_fault(self, kind: str) -> None:
        """Pages show every post changed: 'truncate' (first 40%), 'replace' (another article), 'strip-pre'."""
        self.ctl("content-fault", kind)

    def fpm(self, action: str) -> None:
        """php-fpm master and workers: 'kill' (SIGKILL), 'stop' (SIGSTOP), 'cont' (SIGCONT), 'restart'."""
        self.ctl("fpm", action)

    def db(self, action: str) -> None:
        """The private MariaDB: 'stop' or 'start'."""
        self.ctl("db", action)

    def trash(self, post_id: int | str) -> None:
        """Move a post to the trash (PHP CLI, independent of HTTP faults)."""
        self.ctl("trash", str(post_id))

    # --- REST, authenticated, with a client of its own --------------------------------------
    def client(self, timeout: float = 30.0) -> httpx.Client:
        return httpx.Client(auth=(self.user, self.app_password), timeout=timeout)

    def posts(self, slug: str | None = None, key: str | None = None) -> list[dict[str, Any]]:
        """Every post (any status, trashed included) with ``slug`` or the slug of ``key``; all posts if neither.

        A trashed post's slug is '<slug>__trashed', so both spellings are asked for.
        """
        if key is not None:
            slug = slug_for(key)
        params: dict[str, Any] = {"status": ALL_STATUSES, "context": "edit", "per_page": 100}
        if slug is not None:
            params["slug"] = f"{slug},{slug}__trashed"
        found: list[dict[str, Any]] = []
        with self.client() as http:
            for page in range(1, 1000):
                r = http.get(f"{self.url}/wp-json/wp/v2/posts", params={**params, "page": page})
                r.raise_for_status()
                found.extend(r.json())
                if page >= int(r.headers.get("x-wp-totalpages", "1")):
                    return found
        return found

    def post(self, post_id: int | str) -> dict[str, Any]:
        """One post in the edit context (raw title/content)."""
        with self.client() as http:
            r = http.get(f"{self.url}/wp-json/wp/v2/posts/{post_id}", params={"context": "edit"})
            r.raise_for_status()
            return r.json()

    def wait_healthy(self, seconds: float = 30.0) -> None:
        """Until the authenticated REST API answers 200 (after a fault is undone)."""
        deadline = time.monotonic() + seconds
        last = "no answer"
        with self.client(timeout=5) as http:
            while time.monotonic() < deadline:
                try:
                    r = http.get(f"{self.url}/wp-json/wp/v2/users/me")
                    if r.status_code == 200:
                        return
                    last = f"HTTP {r.status_code}"
                except httpx.HTTPError as exc:
                    last = exc.__class__.__name__
                time.sleep(0.2)
        raise RuntimeError(f"WordPress at {self.url} did not recover within {seconds} s ({last})")

    def restore(self) -> None:
        """Undo every fault: clear the fault files, resume or restart php-fpm, start MariaDB, wait for REST."""
        self.clear_fault()
        self.ctl("fpm", "restart")   # SIGCONTs a stopped php-fpm, starts a killed one
        self.db("start")
        self.wait_healthy()

    # --- factline objects --------------------------------------------------------------------
    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "publish_target": "wordpress", "wordpress_url": self.url, "wordpress_user": self.user,
            "wordpress_app_password": SecretStr(self.app_password),
        }
        return load_settings(**{**values, **overrides})

    def target(self, http: httpx.Client, **overrides: Any) -> WordPressTarget:
        return WordPressTarget.from_settings(self.settings(**overrides), http)


def _read_env(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        name, sep, value = line.partition("=")
        if sep:
            values[name.strip()] = value
    return values


def start_wordpress() -> tuple[WordPress, bool]:
    """Bring the test WordPress up with scripts/wordpress/wp-up.sh; (site, whether it was already up).

    Raises RuntimeError with wp-up.sh's stderr when it cannot.
    """
    env = {**os.environ, "WP_BASE": os.environ.get("WP_BASE", "/tmp/factline-wp"),
           "WP_PORT": os.environ.get("WP_PORT", "8080")}
    base = Path(env["WP_BASE"])
    status = subprocess.run([str(SCRIPTS / "wp-ctl.sh"), "status"], env=env, capture_output=True, text=True)
    was_up = status.returncode == 0 and status.stdout.count(" up (") == 3
    up = subprocess.run([str(SCRIPTS / "wp-up.sh")], env=env, capture_output=True, text=True, timeout=900)
    if up.returncode != 0:
        raise RuntimeError(f"scripts/wordpress/wp-up.sh failed ({up.returncode}); stderr:\n{up.stderr[-3000:]}")
    values = _read_env(base / "env")
    site = WordPress(url=values["WORDPRESS_URL"], user=values["WORDPRESS_USER"],
                     app_password=values["WORDPRESS_APP_PASSWORD"], base=base, env=env)
    return site, was_up


def stop_wordpress(site: WordPress) -> None:
    """Stop the servers of the test WordPress (scripts/wordpress/wp-down.sh)."""
    subprocess.run([str(SCRIPTS / "wp-down.sh")], env=site.env, capture_output=True, text=True, timeout=120)
