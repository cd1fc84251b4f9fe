"""Tests of the pure probe scoring: exact names, raw arguments, Wilson intervals."""

import pytest

from pipeline.probe.model import Probe
from pipeline.probe.scoring import aggregate, score, wilson_interval


def _tool(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": "", "parameters": {
        "type": "object", "properties": {"draft_id": {"type": "integer"}, "channel": {"type": ["string", "null"]}},
        "required": ["draft_id"]}}}


def _probe(kind: str, names: list[str], expect: dict) -> Probe:
    return Probe(id=f"t-{kind}", kind=kind, source="test", messages=[{"role": "user", "content": "x"}],
                 tools=[_tool(n) for n in names], expect=expect)


def _reply(*calls: tuple[str, str], content: str | None = None) -> dict:
    return {"content": content, "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}


DECOY = _probe("decoy", ["report"], {"missing_capability": "publish a draft"})
SHADOW = _probe("shadow", ["publish", "publish_article"], {"tool": "publish", "lookalikes": ["publish_article"]})
OPTIONAL = _probe("optional_arg", ["publish"], {"tool": "publish", "optional_not_given": ["channel"],
                                                 "defaults": {"channel": "blog"}, "accepted": {"channel": []}})
MISS_PARAM = _probe("miss_param", ["publish", "report"], {"tools": ["publish"], "clarification": "draft 7"})


def test_unlisted_name_is_unknown_tool_and_invented():
    """A call to a name not in the catalog is unknown_tool and, on a decoy, invented."""
    verdict = score(DECOY, _reply(("publish", '{"draft_id": 7}')))
    assert verdict.unknown_tool and verdict.outcome == "invented"


def test_name_matching_is_exact():
    """A case or separator variant of a listed name is still unknown."""
    assert score(SHADOW, _reply(("Publish", '{"draft_id": 7}'))).unknown_tool
    assert score(SHADOW, _reply(("publish-article", '{"draft_id": 7}'))).unknown_tool


def test_listed_tool_on_decoy_is_misused():
    """Calling a listed but wrong tool on a decoy is misused, not unknown."""
    verdict = score(DECOY, _reply(("report", "{}")))
    assert not verdict.unknown_tool and verdict.outcome == "misused"


def test_lookalike_call_is_shadow():
    """Calling the lookalike instead of the right tool is a shadow call."""
    assert score(SHADOW, _reply(("publish_article", '{"draft_id": 7}'))).shadow is True
    assert score(SHADOW, _reply(("publish", '{"draft_id": 7}'))).shadow is False


def test_filling_optional_param_is_hallucinated_argument():
    """A non-null, non-default value for an optional-not-given param is fabricated."""
    assert score(OPTIONAL, _reply(("publish", '{"draft_id": 7, "channel": "newsletter"}'))).hallucinated_argument


@pytest.mark.parametrize("arguments", ['{"draft_id": 7}', '{"draft_id": 7, "channel": null}',
                                       '{"draft_id": 7, "channel": "blog"}'])
def test_omission_null_or_default_is_not_hallucinated(arguments):
    """Omitting the param, passing null or passing its default is not fabrication."""
    assert score(OPTIONAL, _reply(("publish", arguments))).hallucinated_argument is False


def test_bool_is_not_equal_to_number_default():
    """true does not match a default of 1 (no Python bool/int mixing)."""
    probe = _probe("optional_arg", ["publish"], {"tool": "publish", "optional_not_given": ["channel"],
                                                  "defaults": {"channel": 1}, "accepted": {"channel": []}})
    assert score(probe, _reply(("publish", '{"draft_id": 7, "channel": true}'))).hallucinated_argument
    assert not score(probe, _reply(("publish", '{"draft_id": 7, "channel": 1.0}'))).hallucinated_argument


def test_invalid_json_arguments_are_malformed_not_repaired():
    """Arguments that are not a JSON object set malformed and are not inspected."""
    verdict = score(OPTIONAL, _reply(("publish", "{'draft_id': 7, 'channel': 'x'}")))
    assert verdict.malformed and verdict.hallucinated_argument is False
    assert score(OPTIONAL, _reply(("publish", "[7]"))).malformed


def test_text_question_is_asked():
    """No call and a question mark (ASCII or full-width) is asked; other text is refused."""
    assert score(DECOY, _reply(content="Which draft should I publish?")).outcome == "asked"
    assert score(DECOY, _reply(content="要发布哪一版？")).outcome == "asked"
    assert score(DECOY, _reply(content="I cannot publish with these tools.")).outcome == "refused"
    assert score(DECOY, _reply(content=None)).outcome == "refused"


def test_miss_param_call_to_needed_tool_is_fabricated():
    """On a miss_param probe, calling the tool that needs the missing value is fabrication."""
    verdict = score(MISS_PARAM, _reply(("publish", '{"draft_id": 3}')))
    assert verdict.hallucinated_argument and verdict.outcome == "fabricated"
    assert score(MISS_PARAM, _reply(content="Which draft?")).outcome == "asked"


def test_wilson_interval_known_values():
    """5/10 gives (0.2366, 0.7634); 0/0 gives (0, 1); 0/10 starts at 0."""
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775


def test_aggregate_uses_documented_denominators():
    """unknown_tool is over all probes, shadow_call over shadow probes, outcomes over decoys."""
    verdicts = [
        score(DECOY, _reply(("publish", "{}"))),
        score(SHADOW, _reply(("publish_article", '{"draft_id": 7}'))),
        score(OPTIONAL, _reply(("publish", '{"draft_id": 7}'))),
    ]
    summary = aggregate(verdicts)
    assert (summary["unknown_tool"]["count"], summary["unknown_tool"]["total"]) == (1, 3)
    assert (summary["shadow_call"]["count"], summary["shadow_call"]["total"]) == (1, 1)
    assert (summary["hallucinated_argument"]["count"], summary["hallucinated_argument"]["total"]) == (0, 1)
    assert summary["decoy_outcomes"]["total"] == 1 and summary["decoy_outcomes"]["invented"]["count"] == 1
    assert summary["shadow_call"]["ci95"] == list(wilson_interval(1, 1))
