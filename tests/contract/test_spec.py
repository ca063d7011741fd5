"""openapi.yaml is a valid OpenAPI 3.1 document and describes exactly the routes the app serves."""

from __future__ import annotations

import re

import pytest
import yaml
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

from support.apiclient import SPEC_PATH

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def _spec() -> dict:
    spec, _ = read_from_filename(str(SPEC_PATH))
    return spec


def test_openapi_yaml_is_a_valid_openapi_3_1_document():
    spec = _spec()
    assert str(spec["openapi"]).startswith("3.1")
    validate(spec)  # raises OpenAPIValidationError on any violation


def _flask_path(rule: str) -> str:
    """'/games/<game_id>/seats/<int:seat>' -> '/games/{game_id}/seats/{seat}'."""
    return re.sub(r"<(?:[a-z_]+(?:\([^)]*\))?:)?([A-Za-z_][A-Za-z0-9_]*)>", r"{\1}", rule)


def test_the_apps_routes_and_the_specs_operations_are_the_same_set(api_app):
    served = set()
    for rule in api_app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            served.add((method.lower(), _flask_path(rule.rule)))
    documented = {
        (method, path)
        for path, item in _spec()["paths"].items()
        for method in item
        if method in HTTP_METHODS
    }
    assert served - documented == set(), "routes the spec does not document"
    assert documented - served == set(), "operations the app does not serve"


def test_the_served_openapi_yaml_is_the_top_level_file(api):
    resp = api.get("/openapi.yaml")
    assert resp.status_code == 200
    assert yaml.safe_load(resp.get_data(as_text=True)) == yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))


def test_every_operation_declares_its_error_answers_as_problem_json():
    """Each 4xx/5xx response the spec declares is application/problem+json."""
    spec = _spec()
    wrong = []
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method not in HTTP_METHODS:
                continue
            for status, response in op.get("responses", {}).items():
                if "$ref" in response:
                    name = response["$ref"].rsplit("/", 1)[-1]
                    response = spec["components"]["responses"][name]
                if str(status)[0] in "45" and "application/problem+json" not in response.get("content", {}):
                    wrong.append(f"{method.upper()} {path} {status}")
    assert wrong == []


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a mapping naming one key twice (PyYAML keeps the last silently,
    while the docs page's parser refuses the whole document)."""


def _mapping_without_duplicates(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while reading a mapping", node.start_mark, f"duplicated key {key!r} (first at line "
                f"{seen[key] + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def test_openapi_yaml_names_no_key_twice_in_one_mapping():
    yaml.load(SPEC_PATH.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # raises on a duplicated key


def test_the_duplicate_key_check_finds_a_duplicated_key():
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicated key 'security'"):
        yaml.load("post:\n  security: []\n  summary: x\n  security: [{a: []}]\n", Loader=_UniqueKeyLoader)
