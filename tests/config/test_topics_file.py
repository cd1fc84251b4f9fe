"""Topics with sources: a JSON Lines topics file, checked at start, and feed entries' links and summaries."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from capabilities.pick_topic import read_topics
from config import ConfigError, load_settings
from config.settings import DEFAULT_TOPICS
from config.topics import read_jsonl_topics
from tests.cli_helpers import factline_here, user_env
from tests.local_http import LocalHTTP, answer


def write(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def start_problem(path: Path, **overrides: object) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(topics_source=str(path), **overrides)
    (line,) = [p for p in caught.value.problems if "TOPICS_SOURCE" in p]
    return line


def test_a_jsonl_topic_keeps_its_sources_brief_and_tags(tmp_path: Path) -> None:
    """title, sources (a URL and a file beside the topics file), brief and tags are read; paths become absolute."""
    (tmp_path / "notes.md").write_text("# Notes\n\nFacts.\n")
    path = write(tmp_path / "topics.jsonl", json.dumps(
        {"title": "Heat pumps", "sources": ["https://example.org/a", "notes.md"], "brief": "Costs.", "tags": ["energy"]}))
    (spec,) = read_jsonl_topics(path)
    assert spec.sources == ("https://example.org/a", str((tmp_path / "notes.md").resolve()))
    assert (spec.brief, spec.tags) == ("Costs.", ("energy",))


def test_jsonl_tags_are_cleaned_like_titles_and_given_once(tmp_path: Path) -> None:
    """Whitespace runs become one space, control characters go, a repeat in another case is dropped."""
    path = write(tmp_path / "topics.jsonl", json.dumps({"title": "A", "tags": [" Heat\n pumps ", "HEAT pumps", "a\u0007b"]}))
    (spec,) = read_jsonl_topics(path)
    assert spec.tags == ("Heat pumps", "a b")


@pytest.mark.parametrize(("line", "expected"), [
    ('{"title": "A", "sources": [}', "line 2: not JSON"),
    ('{"sources": ["https://example.org/"]}', "line 2: missing title"),
    ('{"title": "A", "sources": ["../../etc/passwd"]}', "line 2: source '../../etc/passwd' is outside the allowed folders"),
    ('{"title": "A", "sources": ["file:///etc/passwd"]}', "neither an http(s) URL nor a file path"),
    ('{"title": "A", "source": []}', "unknown key 'source'"),
    ('{"title": "A", "tags": ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]}', "line 2: 9 tags, more than 8"),
    ('{"title": "A", "tags": ["%s"]}' % ("x" * 61), "is longer than 60 characters"),
])
def test_a_bad_topics_line_stops_the_start_with_one_line(tmp_path: Path, line: str, expected: str) -> None:
    """Broken JSON, a missing title, a path outside the allowed folders: one line naming file and line, at start."""
    (tmp_path / "sub").mkdir()
    path = write(tmp_path / "sub" / "topics.jsonl", '{"title": "Fine"}', line)
    problem = start_problem(path)
    assert problem.startswith("invalid setting TOPICS_SOURCE: ") and expected in problem and "\n" not in problem


def test_source_local_dirs_allows_another_folder(tmp_path: Path) -> None:
    """A source outside the topics file's folder is accepted when SOURCE_LOCAL_DIRS names its folder."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "facts.md").write_text("# Facts\n")
    (tmp_path / "topics").mkdir()
    path = write(tmp_path / "topics" / "t.jsonl", json.dumps({"title": "A", "sources": ["../shared/facts.md"]}))
    assert "outside the allowed folders" in start_problem(path)
    load_settings(topics_source=str(path), source_local_dirs=str(tmp_path / "shared"))


def test_a_bad_topics_file_exits_2_at_start(tmp_path: Path) -> None:
    """`factline run` with a broken topics line exits 2 before anything runs, with the one line."""
    path = write(tmp_path / "topics.jsonl", '{"title": ')
    result = factline_here(user_env(TOPICS_SOURCE=str(path), DATABASE_URL=f"sqlite:///{tmp_path}/l.db"), "run")
    assert result.returncode == 2
    assert "TOPICS_SOURCE" in result.stderr and "line 1: not JSON" in result.stderr


def test_the_shipped_topics_have_local_sources() -> None:
    """The default topics file is JSON Lines and every topic has sources under config/ (so `make run` is grounded)."""
    specs = read_jsonl_topics(DEFAULT_TOPICS)
    assert len(specs) >= 3 and all(spec.sources for spec in specs)
    assert all(Path(s).is_file() and DEFAULT_TOPICS.parent in Path(s).parents for spec in specs for s in spec.sources)


def test_a_txt_topics_file_still_gives_titles_only(tmp_path: Path) -> None:
    """A plain text file keeps working: one title a line, no sources."""
    path = write(tmp_path / "topics.txt", "# comment", "Heat pumps", "")
    with httpx.Client() as http:
        (topic,) = read_topics(load_settings(topics_source=str(path)), http)
    assert (topic.title, topic.sources, topic.brief) == ("Heat pumps", (), None)


def test_a_feed_entry_brings_its_link_as_source_and_summary_as_brief() -> None:
    """An RSS item's link becomes its one source and its summary (as text) its brief."""
    rss = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><item><title>Heat pumps</title>'
           b"<link>https://example.org/heat</link><description>&lt;p&gt;The city installed &lt;b&gt;1,200&lt;/b&gt; "
           b"pumps.&lt;/p&gt;</description></item></channel></rss>")
    with LocalHTTP() as server, httpx.Client() as http:
        server.routes["/feed"] = answer(200, rss, {"Content-Type": "application/rss+xml"})
        (topic,) = read_topics(load_settings(topics_source=server.url("/feed")), http)
    assert (topic.title, topic.sources, topic.brief) == ("Heat pumps", ("https://example.org/heat",),
                                                         "The city installed 1,200 pumps.")


def test_fact_check_is_set_per_pipeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FACT_CHECK per pipeline in the pipelines file: a news pipeline strict, an opinion pipeline off."""
    from config import load_config

    path = tmp_path / "factline.toml"
    path.write_text('[[pipelines]]\nname = "news"\nfact_check = "strict"\n\n'
                    '[[pipelines]]\nname = "opinion"\nfact_check = "off"\n', encoding="utf-8")
    monkeypatch.setenv("FACTLINE_CONFIG", str(path))
    news, opinion = load_config().pipelines
    assert (news.settings.fact_check, opinion.settings.fact_check) == ("strict", "off")
