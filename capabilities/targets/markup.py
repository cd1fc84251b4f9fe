"""The small markdown subset factline writes, rendered to escaped HTML (shared by every target).

'#' lines become headings (one level below the page title), blank lines separate paragraphs, and
all text is HTML-escaped: nothing the model writes can become live markup on a target.
"""

from __future__ import annotations

import html
import re


def markdown_to_html(markdown: str) -> list[str]:
    """The body's HTML blocks, one string per heading or paragraph, every text escaped."""
    parts: list[str] = []
    for block in re.split(r"\n\s*\n", markdown.strip()):
        if heading := re.match(r"(#{1,6})\s+(.*)", block):
            level = min(len(heading.group(1)) + 1, 6)
            parts.append(f"<h{level}>{html.escape(heading.group(2))}</h{level}>")
        elif block.strip():
            parts.append(f"<p>{html.escape(block.strip())}</p>")
    return parts
