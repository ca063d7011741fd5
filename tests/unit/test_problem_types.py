"""The problem-type catalogue names every code the service's source can raise, with its status.

The codes are found in the source itself (its syntax tree), independently of the catalogue:
each call that builds an error -- ApiError(status, code, ...), each domain error with a code of
its own (service/errors.py) at the status problems.DOMAIN_STATUSES gives its kind,
problem_response(status, code, ...), RulesError(code, ..., conflict=...), the engine's
conflict()/invalid() helpers (409 / 422) and MeldError(code, ...) (422,
renamed by the engine's MELD_ERROR_CODES) -- and werkzeug's HTTP codes. A call whose code is not
written out as a literal is refused unless it is one of the known ones, so that a new error
path cannot slip past this test.
"""

from __future__ import annotations

import ast
from pathlib import Path

from service.api.problem_types import HTTP_CODES, PROBLEM_TYPES, entry_json, title_of, type_uri
from service.api.problems import DOMAIN_STATUSES
from service.errors import DomainError
from service.rules.deciders import MELD_ERROR_CODES

SERVICE = Path(__file__).resolve().parents[2] / "service"

# call name -> (index of the code argument, status: an int, "arg0" for the first argument, or
# "rules" for RulesError's conflict= keyword)
_BUILDERS = {
    "ServiceError": (1, "arg0"),
    "ApiError": (1, "arg0"),
    "problem_response": (1, "arg0"),
    "RulesError": (0, "rules"),
    "conflict": (0, 409),
    "invalid": (0, 422),
    "MeldError": (0, 422),
}
# commands.py's _bad(message) builds RulesError("invalid_command", ...), found through that call
# calls whose code is not a literal: the builders forwarding their own parameter (their callers
# are scanned), the error map forwarding an exception's code, and the meld errors, renamed by
# the engine from the codes MeldError's calls give
_COMPUTED = {
    ("errors.py", "RulesError", "code"),  # conflict() and invalid()
    ("problems.py", "problem_response", "code"),  # werkzeug's errors, through HTTP_CODES
    ("problems.py", "problem_response", "err.code"),  # an ApiError
    ("problems.py", "problem_response", "exc.code"),  # a RulesError or a domain error
    ("deciders.py", "invalid", "MELD_ERROR_CODES.get(err.code, err.code)"),
}


def _name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def raised_codes() -> tuple[dict[str, set[int]], set[tuple[str, str, str]]]:
    """({code: statuses} found in the source, {(file, call, code expression)} not written as a literal)."""
    found: dict[str, set[int]] = {}
    computed: set[tuple[str, str, str]] = set()
    for path in sorted(SERVICE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node)
            if name not in _BUILDERS:
                continue
            index, status = _BUILDERS[name]
            if len(node.args) <= index:
                continue
            arg = node.args[index]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                computed.add((path.name, name, ast.unparse(arg)))
                continue
            if status == "arg0":
                status = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
                assert isinstance(status, int), f"{path.name}: {ast.unparse(node)} has no literal status"
            elif status == "rules":
                flag = next((k.value for k in node.keywords if k.arg == "conflict"), None)
                status = 409 if isinstance(flag, ast.Constant) and flag.value else 422
            code = arg.value
            if name == "MeldError":
                code = MELD_ERROR_CODES.get(code, code)
            found.setdefault(code, set()).add(status)
    for status, code in HTTP_CODES.items():
        found.setdefault(code, set()).add(status)
    # the use cases' refusals (service.errors), each with a code of its own, get the status of
    # their kind in the API's one map
    for error in _refusals(DomainError):
        kinds = [DOMAIN_STATUSES[c] for c in error.__mro__ if c in DOMAIN_STATUSES]
        assert kinds, f"{error.__name__} is of no kind the API maps to a status"
        found.setdefault(error.code, set()).add(kinds[0])
    return found, computed


def _refusals(cls) -> list:
    """Every subclass of ``cls`` (at any depth) that states a code of its own."""
    out = []
    for sub in cls.__subclasses__():
        if "code" in vars(sub):
            out.append(sub)
        out += _refusals(sub)
    return out


def test_every_code_the_source_raises_is_in_the_catalogue_with_its_status():
    found, _ = raised_codes()
    assert len(found) > 40  # the scan itself works: the engine alone has some thirty codes
    missing = {code: statuses for code, statuses in found.items() if code not in PROBLEM_TYPES}
    assert missing == {}
    wrong = {code: (statuses, PROBLEM_TYPES[code].statuses) for code, statuses in found.items()
             if not statuses <= set(PROBLEM_TYPES[code].statuses)}
    assert wrong == {}


def test_no_code_is_computed_except_the_meld_errors_renamed_by_the_engine():
    _, computed = raised_codes()
    assert computed == _COMPUTED


def test_the_catalogue_lists_nothing_the_source_cannot_raise():
    found, _ = raised_codes()
    assert set(PROBLEM_TYPES) - set(found) == {"http_error"}  # werkzeug's other statuses, by construction
    assert 422 in PROBLEM_TYPES["http_error"].statuses and 404 not in PROBLEM_TYPES["http_error"].statuses


def test_an_entry_on_the_wire_names_its_own_type():
    assert type_uri("wrong_phase") == "/problems/wrong_phase"
    assert entry_json("wrong_phase") == {
        "type": "/problems/wrong_phase", "code": "wrong_phase", "title": "Wrong phase", "statuses": [409],
        "description": PROBLEM_TYPES["wrong_phase"].description,
    }
    assert title_of("no_such_code") == "No such code"
