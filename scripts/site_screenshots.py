#!/usr/bin/env python3
"""Screenshots of the local site into docs/img/: an article page and the index, as a reader's browser shows them.

    python scripts/site_screenshots.py [--out docs/img]

Three corpus articles (tests/corpus/) are published to a LocalTarget in a temporary folder, the way a run
publishes them; the browser is Debian's chromium via Playwright (testkit.browser), at a laptop's width
and at a phone's. (CJK pages need a CJK font on the machine, e.g. Debian's fonts-noto-cjk.)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from capabilities.records import Article  # noqa: E402
from capabilities.targets import LocalTarget  # noqa: E402
from testkit.browser import launch  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"
ARTICLES = (("heat-pumps.md", "Heat pumps", "en"), ("table-prices.md", "Energy prices", "en"),
            ("python-recipe.md", "Bread at home", "en"))


def publish_corpus(site: LocalTarget) -> str:
    """Publish ARTICLES one second apart (the index orders by second); the URL of the last one."""
    url = ""
    for name, topic, language in ARTICLES:
        title, _, body = (CORPUS / name).read_text(encoding="utf-8").partition("\n")
        url = site.publish(Article(title.lstrip("# ").strip(), body, f"screenshot:{name}", topic, language)).url
        time.sleep(1.05)
    return url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, LocalTarget(Path(tmp), "127.0.0.1", 0) as site, \
            sync_playwright() as p:
        article = publish_corpus(site)
        browser = launch(p)
        shots = {"site_article": (article, 1100), "site_index": (site.base_url, 1100),
                 "site_article_phone": (article, 390)}
        for name, (url, width) in shots.items():
            page = browser.new_page(viewport={"width": width, "height": 800})
            page.goto(url)
            target = args.out / f"{name}.png"
            page.screenshot(path=str(target), full_page=True)
            page.close()
            print(f"wrote {target}", file=sys.stderr)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
