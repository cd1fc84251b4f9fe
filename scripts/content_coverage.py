#!/usr/bin/env python3
"""The corpus's coverage figures (docs/content.md): every tests/corpus/*.md article published to the local site
and to the test WordPress, each page measured as capabilities.verify measures it, then the three content faults.

    WP_PORT=8083 WP_BASE=/tmp/factline-wp-mine python scripts/content_coverage.py [--no-wordpress]

Prints one line per target (articles, lowest and median coverage, the lowest article) and per fault, and the
time one coverage measurement takes on the longest page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402

from capabilities.pagetext import coverage, visible_text, words  # noqa: E402
from capabilities.records import Article  # noqa: E402
from capabilities.render import render_markdown  # noqa: E402
from capabilities.targets import LocalTarget  # noqa: E402
from testkit.wordpress import start_wordpress  # noqa: E402

CORPUS = sorted((Path(__file__).resolve().parent.parent / "tests" / "corpus").glob("*.md"))


def article(path: Path, key: str) -> Article:
    first, _, rest = path.read_text(encoding="utf-8").partition("\n")
    if first.startswith("# "):
        return Article(first[2:].strip(), rest, key, "corpus", "en")
    return Article(path.stem.replace("-", " "), first + "\n" + rest, key, "corpus", "en")


def measure(a: Article, page: str) -> float:
    return coverage(words(visible_text(page)), words(a.title),
                    words(visible_text(render_markdown(a.body_markdown)))).ratio


def line(target: str, figures: dict[str, float]) -> str:
    low = min(figures, key=figures.__getitem__)
    return (f"{target:<10} {len(figures)} articles: lowest {figures[low]:.4f} ({low}), "
            f"median {statistics.median(figures.values()):.4f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-wordpress", action="store_true", help="the local site only")
    args = parser.parse_args(argv)
    tag = str(time.time_ns())
    with tempfile.TemporaryDirectory() as tmp, LocalTarget(Path(tmp), "127.0.0.1", 0) as site, \
            httpx.Client(timeout=30, trust_env=False) as http:
        local = {}
        for path in CORPUS:
            a = article(path, f"coverage:{tag}:{path.stem}")
            local[path.stem] = measure(a, http.get(site.publish(a).url).text)
        print(line("local", local))
        longest = max(CORPUS, key=lambda p: p.stat().st_size)
        page = http.get(site.lookup(f"coverage:{tag}:{longest.stem}").url).text  # type: ignore[union-attr]
        started = time.perf_counter()
        for _ in range(20):
            measure(article(longest, "x"), page)
        print(f"measuring {longest.name} ({len(page)} bytes of page): "
              f"{(time.perf_counter() - started) / 20 * 1000:.1f} ms each")
        if args.no_wordpress:
            return 0
        wp, _ = start_wordpress()
        wp.restore()
        target = wp.target(http)
        remote, urls = {}, {}
        for path in CORPUS:
            a = article(path, f"coverage:{tag}:{path.stem}")
            item = target.publish(a)
            urls[path.stem] = (a, item.url)
            remote[path.stem] = measure(a, http.get(item.url, follow_redirects=True).text)
        print(line("wordpress", remote))
        faulty = ("long-article", "python-recipe", "code-blank-lines")
        try:
            for fault in ("truncate", "replace", "strip-pre"):
                wp.set_content_fault(fault)
                figures = {name: measure(urls[name][0], http.get(urls[name][1], follow_redirects=True).text)
                           for name in faulty}
                print(f"fault {fault:<9} " + ", ".join(f"{n} {v:.4f}" for n, v in figures.items()))
        finally:
            wp.restore()
    return 0


if __name__ == "__main__":
    sys.exit(main())
