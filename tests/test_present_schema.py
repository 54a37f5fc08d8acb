"""The JSON Schemas shipped in the package describe, completely, what runctx prints."""

from __future__ import annotations

import json

import attrs
import jsonschema
import pytest
from hooktools import runctx
from proctools import make_checkout
from schematools import load_schema, validate

from runctx.present.json import report_json
from runctx.present.schema import SCHEMA_VERSION, SCHEMAS, schema_path
from runctx.scanning import scan, viewpoint
from runctx.sources.load import Load
from runctx.unknown import Reason, Unknown


def printed(*argv: str, cwd) -> dict:
    """What ``runctx ARGV`` prints on stdout, parsed."""
    done = runctx(*argv, cwd=cwd)
    assert done.stderr == ""
    return json.loads(done.stdout)


def test_every_schema_is_valid_json_schema():
    """Each shipped schema is a valid draft 2020-12 schema with the current version."""
    for name in SCHEMAS:
        schema = load_schema(name)
        jsonschema.Draft202012Validator.check_schema(schema)
    version = load_schema("report")["properties"]["schema_version"]["const"]
    assert version == SCHEMA_VERSION


def test_status_json_of_real_runs_is_valid_and_fully_described(ours_and_foreign):
    """Status --json with runs of ours and foreign: valid, and every field is in the schema."""
    document = printed("status", "--json", cwd=ours_and_foreign.mine)
    assert document["schema_version"] == SCHEMA_VERSION
    assert {run["verdict"] for run in document["runs"]} >= {"ours", "foreign"}
    validate(document)


def test_check_json_is_valid_with_its_outcome(ours_and_foreign):
    """Check --json is the report plus check and exit_status, and the schema says so."""
    validate(printed("check", "--json", cwd=ours_and_foreign.mine))


def test_unknown_values_are_described_with_their_reasons(shared_tmp):
    """A report whose load was not readable: nulls with reasons, valid by the schema."""
    quiet = make_checkout(shared_tmp, "quiet")
    report = scan(viewpoint(cwd=str(quiet)))
    hidden = Unknown(Reason.DENIED, "subset=pid")
    blind = attrs.evolve(
        report, load=Load(usable_cpus=hidden, load_average=hidden, cpu_pressure=hidden)
    )
    document = json.loads(json.dumps(report_json(blind)))
    assert document["load"]["unknown"]["load_average"]["unknown"] == "denied"
    validate(document)


def test_the_schema_names_every_reason_an_unknown_can_have():
    """The reasons the schema allows are exactly runctx's reasons."""
    allowed = load_schema("report")["$defs"]["unknown"]["properties"]["unknown"]["enum"]
    assert sorted(allowed) == sorted(reason.value for reason in Reason)


def test_an_unknown_schema_name_is_refused():
    """Only the shipped schemas have paths."""
    with pytest.raises(KeyError):
        schema_path("nope")
