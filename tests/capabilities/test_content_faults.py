"""A page that does not hold the article is not verified: faults on the real WordPress's pages (the post in
the REST API untouched) end the run `unverified`, register refused, with the page's coverage in the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pipeline.ledger.models import Publication, Registration
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.reliability.faults import until_refused
from testkit.scripted_model import Request, ScriptedModel
from testkit.wordpress import WordPress
from tests.paths import CORPUS

ARTICLE = (CORPUS / "long-article.md").read_text(encoding="utf-8")
CODE = """

## The watering script

```python
# water.py: open the valve for each bed in turn
import time

# minutes per bed, measured in July
BEDS = {"potatoes": 12, "beans": 8, "courgettes": 10, "tomatoes": 10}

# one bed at a time: the butts give too little pressure for two
for bed, minutes in BEDS.items():
    print(f"watering {bed} for {minutes} minutes")
    time.sleep(minutes * 60)
```
"""


def writer(request: Request) -> str:
    """The corpus's long article with a code block, titled by the topic; the same for draft and rewrite."""
    topic = request.last_user().removeprefix("Topic: ").splitlines()[0].lstrip("# ").strip()
    return f"# {topic}\n" + ARTICLE.partition("\n")[2] + CODE


@pytest.fixture
def faulty_run(wp: WordPress, tmp_path: Path) -> Iterator[object]:
    def run(fault: str) -> tuple[object, Publication, int]:
        wp.set_content_fault(fault)
        with ScriptedModel(policy=until_refused, writer=writer) as model:
            settings = wp.settings(database_url=f"sqlite:///{tmp_path}/ledger.db", openai_base_url=model.base_url,
                                   factline_model="scripted", retry_base_delay=0.01, http_timeout_seconds=10,
                                   topics_source=str(_topics(tmp_path)))
            with open_runtime(settings) as rt:
                result = run_once(rt)
                with rt.sessions() as s:
                    publication = s.scalars(select(Publication)).one()
                    s.expunge(publication)
                    registrations = s.scalar(select(func.count()).select_from(Registration))
        return result, publication, registrations

    yield run


def _topics(tmp_path: Path) -> Path:
    import time

    path = tmp_path / "topics.txt"
    path.write_text(f"Ten years of a community garden {time.time_ns()}\n", encoding="utf-8")
    return path


def check_unverified(outcome: tuple[object, Publication, int], most: float) -> float:
    result, publication, registrations = outcome
    assert (result.verdict, result.exit_code, registrations) == ("unverified", 4, 0)  # type: ignore[attr-defined]
    assert publication.http_status == 200 and publication.verified_at is None
    assert publication.content_coverage is not None and publication.content_coverage < most
    percent = f"{int(publication.content_coverage * 1000) / 10:g}%"
    assert f"page holds {percent} of the article" in result.error  # type: ignore[attr-defined]
    assert publication.content_found in result.error  # type: ignore[attr-defined]
    return publication.content_coverage


def test_a_filter_that_truncates_the_post_ends_unverified(faulty_run) -> None:
    """Pages show the first 40% of the post: coverage about 0.4, register refused, unverified with the figure."""
    check_unverified(faulty_run("truncate"), most=0.5)


def test_a_post_replaced_by_another_article_ends_unverified(faulty_run) -> None:
    """The page shows another article: almost none of ours is found, unverified with the figure."""
    check_unverified(faulty_run("replace"), most=0.2)


def test_a_theme_that_strips_pre_blocks_ends_unverified(faulty_run) -> None:
    """The page lacks the code block: the rest of the article is there, yet the run is unverified below 0.98."""
    coverage = check_unverified(faulty_run("strip-pre"), most=0.98)
    assert coverage > 0.7  # only the code is gone
