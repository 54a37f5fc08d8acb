"""The shipped JSON Schemas, as the tests validate with them: as shipped, and complete."""

from __future__ import annotations

import copy
import json

import jsonschema

from runctx.present.schema import schema_path


def load_schema(name):
    """The shipped schema called ``name``, parsed."""
    with open(schema_path(name), encoding="utf-8") as stream:
        return json.load(stream)


def closed(schema: object) -> object:
    """``schema`` with every object that lists its properties closed to any other.

    The shipped schema lets fields be added (a consumer must not break when
    they are); validating output against this closed copy proves the schema
    names every field the output has.
    """
    schema = copy.deepcopy(schema)

    def close(node: object) -> None:
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def validate(document: object, name: str = "report") -> None:
    """Validate ``document`` against the shipped schema, and against its closed copy."""
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    jsonschema.validate(document, closed(schema), cls=jsonschema.Draft202012Validator)
