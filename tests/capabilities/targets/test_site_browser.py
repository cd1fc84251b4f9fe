"""A published page in a real browser (Debian's chromium, headless): the article as a reader sees it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from capabilities.records import Article
from capabilities.targets import LocalTarget
from tests.paths import CORPUS

RECIPE = (CORPUS / "python-recipe.md").read_text(encoding="utf-8")


def test_a_published_page_shows_every_code_line_in_a_readable_column(browser: Any, tmp_path: Path) -> None:
    """In chromium the code block keeps each '# ' line as code, the list is a list, lines stay under ~90 characters,
    and the page runs no script and logs no error."""
    with LocalTarget(tmp_path, "127.0.0.1", 0) as site:
        item = site.publish(Article("The recipe", RECIPE.partition("\n")[2], "browser:recipe", "Bread", "en"))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(item.url)
        code = page.inner_text("pre")
        headings = page.eval_on_selector_all("h1, h2, h3, h4", "els => els.map(e => e.textContent)")
        items = page.eval_on_selector_all("article li", "els => els.map(e => e.textContent)")
        width = page.eval_on_selector("article p", "p => p.getBoundingClientRect().width")
        char = page.evaluate("""() => { const s = document.createElement('span'); s.textContent = 'x'.repeat(100);
            document.querySelector('article p').appendChild(s); const w = s.getBoundingClientRect().width; s.remove();
            return w / 100; }""")
        scripts = page.evaluate("() => document.scripts.length")
        page.close()
    assert "# the base quantities, in grams" in code and 'print(f"{name}: {grams * factor:.0f} g")' in code
    assert headings == ["The recipe", "The recipe"] and items == ["flour", "water", "salt"]
    assert width / char < 90 and scripts == 0 and errors == []
