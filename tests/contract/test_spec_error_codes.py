"""Every error code openapi.yaml names is one the server answers with, at the status the spec gives.

tests/unit/test_problem_types.py holds the catalogue of problem types (GET /problems) to the
source: every code the source raises is listed there with its statuses. Nothing held the spec's
prose to that catalogue, so a code could be documented that no answer carries -- the meld
checker's ``invalid_meld``, which the engine renames ``invalid_melds`` before it leaves, was
listed beside it. Here every code the spec writes is looked up in the catalogue:

- the engine's codes the overview lists under "409 when ..." and "422 when ...";
- every code in the description of a 4xx/5xx answer, at that answer's status;
- every "<status> `<code>`" written anywhere (an operation's description, a field's).

Whether a listed code is really answered where the spec says (``not_advisor`` was documented
while the service answered ``forbidden`` in its place) is for the integration tests of each
operation; this test makes sure that no code is documented that the server cannot send at all.
"""

from __future__ import annotations

import re

import yaml

from service.api.problem_types import PROBLEM_TYPES
from support.apiclient import SPEC_PATH

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
METHODS = {"get", "post", "put", "patch", "delete"}
#: the members of a problem document, which descriptions of error answers also name
PROBLEM_MEMBERS = {"type", "title", "status", "detail", "code", "errors"}
_CODE = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)*)`")


def _statuses(code: str) -> tuple[int, ...]:
    entry = PROBLEM_TYPES.get(code)
    return entry.statuses if entry is not None else ()


def _texts(node, where: str = ""):
    """(where, text) of every description in the spec."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield where, value
            else:
                yield from _texts(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _texts(value, f"{where}/{i}")


def _error_answers():
    """(where, status, description) of every 4xx/5xx answer the operations declare."""
    components = SPEC["components"]["responses"]
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            if method not in METHODS:
                continue
            for status, answer in op["responses"].items():
                if str(status)[0] not in "45":
                    continue
                if "$ref" in answer:
                    answer = components[answer["$ref"].rsplit("/", 1)[-1]]
                yield f"{method.upper()} {path} {status}", int(status), answer.get("description", "")


def test_the_engines_codes_the_overview_lists_are_answered_with_their_status():
    overview = next(p for p in SPEC["info"]["description"].split("\n\n") if p.startswith("**Errors**"))
    groups = re.findall(r"(\d{3}) when [^(]*\(([^)]*)\)", overview)
    assert {status for status, _ in groups} == {"409", "422"}, groups
    wrong = {}
    for status, listed in groups:
        for code in _CODE.findall(listed):
            if int(status) not in _statuses(code):
                wrong[code] = (int(status), _statuses(code))
    assert wrong == {}, "codes the overview lists that no answer carries at that status (code: (listed, answered))"


def _looks_like_a_code(word: str) -> bool:
    """A catalogued code, or a snake_case word such as codes are (a parameter such as `charset`,
    a member such as `errors`, also quoted in these descriptions, is not taken for one)."""
    return word in PROBLEM_TYPES or ("_" in word and word not in PROBLEM_MEMBERS)


def test_every_code_an_error_answer_describes_is_answered_at_that_status():
    wrong = []
    for where, status, text in _error_answers():
        for code in filter(_looks_like_a_code, set(_CODE.findall(text))):
            if status not in _statuses(code):
                wrong.append(f"{where}: `{code}` is answered with {_statuses(code) or 'nothing'}")
    assert wrong == []


def test_every_status_and_code_written_together_is_answered_so():
    wrong = []
    for where, text in _texts(SPEC):
        for status, code in re.findall(r"\b([45]\d\d) `([a-z][a-z0-9_]*)`", text):
            if int(status) not in _statuses(code):
                wrong.append(f"{where}: {status} `{code}`, answered with {_statuses(code) or 'nothing'}")
    assert wrong == []
