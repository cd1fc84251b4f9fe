"""Tests of the probes built from factline's own six-tool catalog."""

import pytest

from pipeline.probe.catalog_probes import build_catalog_probes
from pipeline.probe.scoring import score

NAMES = ["pick_topic", "write_draft", "humanize", "fact_check", "publish", "register", "report"]


def _tool(name: str) -> dict:
    properties = {"draft_id": {"type": "integer"}}
    if name == "publish":
        properties["channel"] = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    return {"type": "function", "function": {"name": name, "description": f"{name} tool",
                                             "parameters": {"type": "object", "properties": properties,
                                                            "required": ["draft_id"]}}}


CATALOG = [_tool(n) for n in NAMES]


def test_decoy_catalog_omits_the_needed_tool():
    """Each decoy probe lists the other tools and not the one its task needs."""
    decoys = [p for p in build_catalog_probes(CATALOG) if p.kind == "decoy"]
    assert len(decoys) == len(CATALOG)
    for probe in decoys:
        needed = probe.id.rsplit(":", 1)[1]
        assert needed not in probe.tool_names() and len(probe.tools) == len(CATALOG) - 1


def test_lookalike_sits_next_to_real_tool_with_identical_schema():
    """publish_article follows publish and differs from it only in name."""
    probe = next(p for p in build_catalog_probes(CATALOG) if p.id == "factline:shadow:publish")
    names = probe.tool_names()
    assert names[names.index("publish") + 1] == "publish_article"
    real, decoy = probe.tools[names.index("publish")], probe.tools[names.index("publish_article")]
    assert {**decoy["function"], "name": "publish"} == real["function"]
    assert score(probe, {"content": None, "tool_calls": [{"name": "publish_article",
                                                          "arguments": '{"draft_id": 7}'}]}).shadow


def test_optional_arg_probe_only_for_tools_with_nullable_params():
    """Only publish (nullable channel) gets an optional-argument probe."""
    optional = [p for p in build_catalog_probes(CATALOG) if p.kind == "optional_arg"]
    assert [p.expect for p in optional] == [{"tool": "publish", "optional_not_given": ["channel"],
                                             "defaults": {"channel": None}, "accepted": {"channel": []}}]


def test_missing_catalog_tool_is_an_error():
    """A catalog without a tool the tasks need is rejected."""
    with pytest.raises(ValueError):
        build_catalog_probes(CATALOG[:-1])


def test_real_catalog_gives_a_decoy_and_lookalike_per_tool_and_an_angle_probe():
    """Built from factline's real tools: a decoy and a lookalike for each, and write_draft's nullable angle."""
    from capabilities import CATALOG as REAL

    probes = build_catalog_probes([c.tool_schema() for c in REAL.values()])
    assert sum(p.kind == "decoy" for p in probes) == sum(p.kind == "shadow" for p in probes) == len(CATALOG)
    (optional,) = [p for p in probes if p.kind == "optional_arg"]
    assert optional.expect["tool"] == "write_draft" and optional.expect["optional_not_given"] == ["angle"]
    given = '{"topic_id": 3, "angle": null}'
    made_up = '{"topic_id": 3, "angle": "why it matters"}'
    assert not score(optional, {"content": None, "tool_calls": [{"name": "write_draft", "arguments": given}]}
                     ).hallucinated_argument
    assert score(optional, {"content": None, "tool_calls": [{"name": "write_draft", "arguments": made_up}]}
                 ).hallucinated_argument


def test_real_catalog_tasks_give_the_ids_the_required_parameters_take():
    """Each task with a required id names a number, so calling the tool needs nothing made up."""
    from capabilities import CATALOG as REAL
    from pipeline.catalog import PROBE_TASKS

    for name, capability in REAL.items():
        required = capability.tool_schema()["function"]["parameters"].get("required", [])
        needs_id = [p for p in required if p.endswith("_id")]
        assert bool(needs_id) == any(ch.isdigit() for ch in PROBE_TASKS[name]), name
