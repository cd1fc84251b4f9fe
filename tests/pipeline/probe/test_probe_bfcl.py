"""Tests of the BFCL v4 -> probe converter on hand-checked entries of the real data.

Checked by hand against /work/shared/bfcl (commit 6ea57973):
* irrelevance_1: one tool "math.sum" -> "math_sum"; numbers is array of "float" ->
  items type number; decimal_places integer, not required; decoy, any call is wrong.
* simple_python_2: "math.hypot" -> "math_hypot"; z is not required and its ground truth
  is ["", 0], so z is optional-not-given with accepted value 0 and no schema default.
* live_multiple_2-1-0: ground truth "uber.ride"; sibling "uber.ride2" -> "uber_ride2",
  ratio 0.947 >= 0.8, so it is a shadow trap with lookalike uber_ride2.
* live_irrelevance_265-57-0 (not in the committed sample): nested "dict" -> object with
  properties, "float" -> number, array items "dict" -> object.
"""

import json
import os
from pathlib import Path

import pytest

from pipeline.probe import bfcl
from pipeline.probe.model import Probe
from tests.paths import ROOT

SOURCE = Path(os.environ.get("BFCL_SOURCE", "/work/shared/bfcl"))
COMMITTED = ROOT / "pipeline" / "probe" / "data" / "bfcl_v4.jsonl"
needs_data = pytest.mark.skipif(not SOURCE.is_dir(), reason=f"BFCL data not at {SOURCE}")


def _committed() -> dict[str, Probe]:
    with COMMITTED.open(encoding="utf-8") as handle:
        return {p.id: p for p in (Probe.from_dict(json.loads(line)) for line in handle)}


def test_map_schema_maps_bfcl_types_to_json_schema():
    """dict/float/tuple/any become object/number/array/unconstrained, recursively."""
    schema = {
        "type": "dict",
        "properties": {
            "point": {"type": "tuple", "items": {"type": "float"}, "description": "x, y"},
            "extra": {"type": "any", "description": "anything"},
            "opts": {"type": "dict", "properties": {"n": {"type": "integer", "default": 3, "optional": True}}},
        },
        "required": ["point"],
    }
    assert bfcl.map_schema(schema) == {
        "type": "object",
        "properties": {
            "point": {"type": "array", "description": "x, y", "items": {"type": "number"}},
            "extra": {"description": "anything"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}},
        },
        "required": ["point"],
    }


def test_map_schema_rejects_unknown_type():
    """An unmapped BFCL type is an error, not passed through."""
    with pytest.raises(ValueError):
        bfcl.map_schema({"type": "complex"})


def test_to_tool_maps_dots_in_names():
    """Function names map '.' to '_' and land in OpenAI function-tool format."""
    tool = bfcl.to_tool({"name": "a.b.c", "description": "d", "parameters": {"type": "dict", "properties": {}}})
    assert tool == {"type": "function", "function": {"name": "a_b_c", "description": "d",
                                                      "parameters": {"type": "object", "properties": {}}}}


@needs_data
def test_irrelevance_entry_becomes_decoy_with_mapped_schema():
    """irrelevance_1 is a decoy whose math_sum tool has number items and optional decimal_places."""
    probe = _committed()["irrelevance_1"]
    assert probe.kind == "decoy"
    assert probe.tool_names() == ["math_sum"]
    params = probe.tools[0]["function"]["parameters"]
    assert params["properties"]["numbers"] == {
        "type": "array", "description": "The list of numbers to be added up.", "items": {"type": "number"}}
    assert params["required"] == ["numbers"]
    assert probe.expect["missing_capability"].startswith("Solve the quadratic equation")


@needs_data
def test_simple_python_entry_lists_optional_not_given_param():
    """simple_python_2: z is optional-not-given with accepted value 0 and no schema default."""
    probe = _committed()["simple_python_2"]
    assert probe.kind == "optional_arg"
    assert probe.expect == {"tool": "math_hypot", "optional_not_given": ["z"],
                            "defaults": {"z": None}, "accepted": {"z": [0]}}


@needs_data
def test_live_multiple_entry_with_lookalike_is_shadow_trap():
    """live_multiple_2-1-0 holds uber_ride (right) beside uber_ride2 (lookalike)."""
    probe = _committed()["live_multiple_2-1-0"]
    assert probe.kind == "shadow"
    assert probe.expect == {"tool": "uber_ride", "lookalikes": ["uber_ride2"]}


@needs_data
def test_nested_dicts_and_floats_are_mapped_in_live_irrelevance():
    """live_irrelevance_265-57-0: nested dict -> object, float -> number, items dict -> object."""
    probes = {p.id: p for p in bfcl.decoy_probes(SOURCE, "BFCL_v4_live_irrelevance.json")}
    params = probes["live_irrelevance_265-57-0"].tools[0]["function"]["parameters"]
    ego = params["properties"]["ego_info"]
    assert ego["type"] == "object"
    assert ego["properties"]["position"]["properties"]["lateral"]["type"] == "number"
    assert params["properties"]["bounding_boxes"]["items"] == {"type": "object"}


@needs_data
def test_shadow_selection_uses_ratio_threshold():
    """Every shadow probe's lookalikes reach ratio 0.8 and no non-selected sibling does."""
    import difflib

    for probe in bfcl.shadow_probes(SOURCE):
        right = probe.expect["tool"]
        for name in probe.tool_names():
            ratio = difflib.SequenceMatcher(None, right, name).ratio()
            assert (name in probe.expect["lookalikes"]) == (name != right and ratio >= 0.8)


@needs_data
def test_miss_func_probe_withholds_the_tool():
    """miss_func probes never list the withheld tool."""
    for probe in bfcl.miss_func_probes(SOURCE):
        assert probe.expect["withheld"]
        assert not set(probe.expect["withheld"]) & set(probe.tool_names())


@needs_data
def test_rerun_is_byte_identical_to_committed_file(tmp_path):
    """Two fresh conversions and the committed file are the same bytes."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    bfcl.main(["--source", str(SOURCE), "--out", str(first)])
    bfcl.main(["--source", str(SOURCE), "--out", str(second)])
    assert first.read_bytes() == second.read_bytes() == COMMITTED.read_bytes()


def test_committed_file_stays_small():
    """The committed probe set stays under 3 MB."""
    assert COMMITTED.stat().st_size < 3_000_000
