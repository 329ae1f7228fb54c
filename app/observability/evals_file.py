"""Eval files (YAML or JSON): `cases: [{name, prompt, expect: {exact, contains, regex,
tools_called}}]` (a bare list of cases is accepted too). cdy-agent's format is this format
with only `exact`/`contains`.

Every problem is reported as `EvalFileError` naming the line and the field, before any case
runs: a malformed file never half-runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 2_000_000
EXPECT_KEYS = ("exact", "contains", "regex", "tools_called")
CASE_KEYS = ("name", "prompt", "expect")


class EvalFileError(ValueError):
    """A malformed eval file; the message names the file, the line and the field."""


@dataclass(frozen=True)
class Expectation:
    exact: str | None = None
    contains: tuple[str, ...] = ()
    regex: str | None = None
    tools_called: tuple[str, ...] | None = None


@dataclass(frozen=True)
class EvalCase:
    name: str
    prompt: str
    expect: Expectation


def load_eval_file(path: Path, data: bytes | None = None) -> list[EvalCase]:
    """`data`: the file's bytes when the caller has read them already (bounded, see the CLI)."""
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise EvalFileError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise EvalFileError(f"{path}: the file is larger than {MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise EvalFileError(f"{path}: the file is not UTF-8 text") from None
    return parse_eval_text(text, str(path), is_json=path.suffix.lower() == ".json")


def parse_eval_text(text: str, source: str, *, is_json: bool = False) -> list[EvalCase]:
    import yaml

    if is_json:
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise EvalFileError(f"{source}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    try:
        # The node tree keeps line numbers; JSON is read the same way (a YAML subset).
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise EvalFileError(
            f"{source}{line}: not valid YAML ({getattr(exc, 'problem', None) or exc})"
        ) from None
    return _Reader(source).cases(root)


class _Reader:
    def __init__(self, source: str) -> None:
        self._source = source

    def _fail(self, node: Any, field: str, problem: str) -> EvalFileError:
        line = node.start_mark.line + 1 if node is not None else 1
        return EvalFileError(f"{self._source}:{line}: {field}: {problem}")

    def cases(self, root: Any) -> list[EvalCase]:
        import yaml

        if root is None:
            raise self._fail(None, "cases", "the file is empty")
        items = root
        if isinstance(root, yaml.MappingNode):
            mapping = self._mapping(root, "(top level)", ("cases",))
            if "cases" not in mapping:
                raise self._fail(root, "cases", "missing (a list of cases)")
            items = mapping["cases"][1]
        if not isinstance(items, yaml.SequenceNode) or not items.value:
            raise self._fail(items, "cases", "must be a non-empty list of cases")
        cases = [self._case(node, i) for i, node in enumerate(items.value)]
        seen: set[str] = set()
        for node, case in zip(items.value, cases, strict=True):
            if case.name in seen:
                raise self._fail(node, "name", f"duplicate case name {case.name!r}")
            seen.add(case.name)
        return cases

    def _mapping(self, node: Any, field: str, allowed: tuple[str, ...]) -> dict[str, tuple[Any, Any]]:
        import yaml

        if not isinstance(node, yaml.MappingNode):
            raise self._fail(node, field, "must be a mapping")
        out: dict[str, tuple[Any, Any]] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name not in allowed:
                raise self._fail(
                    key, f"{field}.{name}", f"unknown field (expected one of: {', '.join(allowed)})"
                )
            if name in out:
                raise self._fail(key, f"{field}.{name}", "given twice")
            out[name] = (key, value)
        return out

    def _string(self, node: Any, field: str) -> str:
        import yaml

        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
            raise self._fail(node, field, "must be a string")
        value = str(node.value)
        if not value.strip():
            raise self._fail(node, field, "must not be empty")
        return value

    def _strings(self, node: Any, field: str, *, allow_one: bool) -> tuple[str, ...]:
        import yaml

        if allow_one and isinstance(node, yaml.ScalarNode):
            return (self._string(node, field),)
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            kind = "a string or a non-empty list of strings" if allow_one else "a non-empty list of strings"
            raise self._fail(node, field, f"must be {kind}")
        return tuple(self._string(item, f"{field}[{i}]") for i, item in enumerate(node.value))

    def _case(self, node: Any, index: int) -> EvalCase:
        where = f"cases[{index}]"
        fields = self._mapping(node, where, CASE_KEYS)
        for key in CASE_KEYS:
            if key not in fields:
                raise self._fail(node, f"{where}.{key}", "missing")
        name = self._string(fields["name"][1], f"{where}.name")
        prompt = self._string(fields["prompt"][1], f"{where}.prompt")
        return EvalCase(name=name, prompt=prompt, expect=self._expect(fields["expect"][1], f"{where}.expect"))

    def _expect(self, node: Any, where: str) -> Expectation:
        fields = self._mapping(node, where, EXPECT_KEYS)
        if not fields:
            raise self._fail(node, where, f"needs at least one of: {', '.join(EXPECT_KEYS)}")
        exact = self._string(fields["exact"][1], f"{where}.exact") if "exact" in fields else None
        contains = (
            self._strings(fields["contains"][1], f"{where}.contains", allow_one=True)
            if "contains" in fields
            else ()
        )
        regex = None
        if "regex" in fields:
            regex = self._string(fields["regex"][1], f"{where}.regex")
            try:
                re.compile(regex)
            except re.error as exc:
                raise self._fail(
                    fields["regex"][1], f"{where}.regex", f"not a valid regular expression ({exc})"
                ) from None
        tools = None
        if "tools_called" in fields:
            tools = self._strings(fields["tools_called"][1], f"{where}.tools_called", allow_one=False)
        return Expectation(exact=exact, contains=contains, regex=regex, tools_called=tools)
