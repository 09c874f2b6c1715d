"""What both SDK clients call: cases.json's valid arguments, arguments made from a schema,
and bad arguments made from a schema (the JavaScript client has the same rules, in
ts_client.mjs)."""

import json
from pathlib import Path


def load_cases(root):
    cases = json.loads((Path(__file__).parent / "cases.json").read_text())

    def expand(v):
        if isinstance(v, str) and v.startswith("@"):
            return (root / v[1:]).read_text()
        if isinstance(v, dict):
            return {k: expand(x) for k, x in v.items()}
        if isinstance(v, list):
            return [expand(x) for x in v]
        return v

    return expand(cases)


def check_schemas(tool):
    """What Claude's and Gemini's tool rules refuse: a combinator at the top of an input
    schema, a `type` that is a list anywhere."""
    problems = []
    name = tool["name"]
    for combinator in ("anyOf", "oneOf", "allOf", "not"):
        if combinator in tool["inputSchema"]:
            problems.append(f"{name}: a top-level {combinator} in inputSchema")

    def walk(v, at):
        if isinstance(v, dict):
            if isinstance(v.get("type"), list):
                problems.append(f"{at}: type {v['type']}")
            for k, x in v.items():
                walk(x, f"{at}.{k}")
        elif isinstance(v, list):
            for x in v:
                walk(x, at)

    walk(tool["inputSchema"], f"{name}.inputSchema")
    walk(tool.get("outputSchema"), f"{name}.outputSchema")
    return problems


def sample(spec):
    if "enum" in spec:
        return spec["enum"][0]
    return {"string": "x", "integer": spec.get("minimum", 1), "number": 1, "boolean": True,
            "array": [], "object": {}}.get(spec.get("type"), "x")


def valid_arguments(name, schema, cases):
    if name in cases["valid"]:
        return cases["valid"][name]
    props = schema.get("properties", {})
    return [{k: sample(props[k]) for k in schema.get("required", [])}]


WRONG = {"string": 17, "integer": "one", "number": "one", "boolean": "yes", "array": "x", "object": "x"}


def bad_arguments(schema):
    """An unknown argument, and each argument given a value of the wrong type (with the
    required ones present)."""
    props = schema.get("properties", {})
    base = {k: sample(props[k]) for k in schema.get("required", [])}
    bad = [dict(base, no_such_argument=1)]
    for k, spec in props.items():
        if spec.get("type") in WRONG:
            bad.append(dict(base, **{k: WRONG[spec["type"]]}))
    return bad
