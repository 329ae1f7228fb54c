"""Eval file parsing: every malformed shape is refused with its line and field."""

from __future__ import annotations

import pytest

from app.observability.evals import check
from app.observability.evals_file import EvalFileError, Expectation, parse_eval_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "f.yaml:1: cases: the file is empty"),
        ("cases: [\n", "f.yaml:2: not valid YAML"),
        ("other: 1\n", "f.yaml:1: (top level).other: unknown field"),
        ("cases: []\n", "f.yaml:1: cases: must be a non-empty list"),
        ("cases:\n  - name: a\n    prompt: p\n", "f.yaml:2: cases[0].expect: missing"),
        (
            "cases:\n  - name: ''\n    prompt: p\n    expect: {exact: x}\n",
            "f.yaml:2: cases[0].name: must not be empty",
        ),
        (
            "cases:\n  - name: a\n    prompt: p\n    expect: {}\n",
            "f.yaml:4: cases[0].expect: needs at least one",
        ),
        (
            "cases:\n  - name: a\n    prompt: p\n    expect:\n      equals: x\n",
            "f.yaml:5: cases[0].expect.equals",
        ),
        (
            "cases:\n  - name: a\n    prompt: p\n    expect: {regex: '('}\n",
            "cases[0].expect.regex: not a valid",
        ),
        (
            "cases:\n  - name: a\n    prompt: p\n    expect: {contains: []}\n",
            "cases[0].expect.contains: must be",
        ),
        (
            "cases:\n  - name: a\n    prompt: p\n    expect: {tools_called: x}\n",
            "expect.tools_called: must be",
        ),
        (
            "cases:\n  - name: a\n    prompt: 3\n    expect: {exact: x}\n",
            "f.yaml:3: cases[0].prompt: must be a string",
        ),
        (
            "cases:\n  - {name: a, prompt: p, expect: {exact: x}}\n"
            "  - {name: a, prompt: p, expect: {exact: x}}\n",
            "f.yaml:3: name: duplicate case name 'a'",
        ),
    ],
)
def test_malformed_yaml_names_line_and_field(text: str, expected: str) -> None:
    with pytest.raises(EvalFileError) as err:
        parse_eval_text(text, "f.yaml")
    assert expected in str(err.value)


def test_malformed_json_names_the_line() -> None:
    with pytest.raises(EvalFileError, match=r"f.json:3: not valid JSON"):
        parse_eval_text('{"cases": [\n  {"name": "a",\n  ]}', "f.json", is_json=True)


def test_a_case_checks_every_expectation_and_reports_each_miss() -> None:
    expect = Expectation(exact="A", contains=("b", "c"), regex=r"\d", tools_called=("t1", "t2"))
    assert check(expect, "A", ["t2", "t1"]) == [
        "contains: missing 'b', 'c'",
        r"regex: no match for /\d/ in 'A'",
    ]
    assert check(Expectation(exact=" ok \n"), "ok", []) == []
