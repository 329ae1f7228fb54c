"""Property-based fuzzing (hypothesis): parsers and boundaries never crash, never leak a
traceback and never write outside the allowed place, whatever bytes they are given."""

from __future__ import annotations

import io
import json
import os
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.settings.config_errors import ConfigError
from app.settings.user_settings import SettingsError, SettingsStore, UserSettings
from app.settings.workspace_config import WorkspaceConfig, load_workspace_config
from app.skills.archive import ArchiveLimits, extract_archive
from app.skills.frontmatter import Frontmatter, parse_frontmatter
from app.skills.model import ArchiveRejected, SkillProblem

FAST = settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
yamlish = st.text(alphabet=st.sampled_from(list("-:\n \"'[]{}&*!|>#%@`,?abc0\t\\")), max_size=200)


@FAST
@given(st.one_of(st.text(max_size=400), yamlish.map(lambda y: f"---\n{y}\n---\nbody")))
def test_the_frontmatter_parser_returns_a_result_or_a_problem(text: str) -> None:
    result = parse_frontmatter(text)
    assert isinstance(result, Frontmatter | SkillProblem)


@FAST
@given(st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode())))
def test_settings_files_load_or_fail_plainly(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "settings.json"
        path.write_bytes(raw)
        try:
            assert isinstance(SettingsStore(path).load(), UserSettings)
        except SettingsError as exc:
            assert "Traceback" not in str(exc)
        assert path.read_bytes() == raw  # loading never rewrites the file


@FAST
@given(st.one_of(yamlish, st.text(max_size=200), json_values.map(json.dumps)))
def test_workspace_config_files_load_or_fail_plainly(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            assert isinstance(load_workspace_config(path), WorkspaceConfig)
        except ConfigError as exc:
            assert "Traceback" not in str(exc)


member_names = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["../evil", "/abs/evil", "a/../../evil", "C:\\evil", "a\\..\\..\\evil", "SKILL.md", "x/SKILL.md"]
        + ["", "."]
    ),
)


@FAST
@given(st.lists(st.tuples(member_names, st.binary(max_size=64)), max_size=6), st.binary(max_size=64))
def test_the_zip_importer_extracts_inside_or_rejects(members: list[tuple[str, bytes]], junk: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        archive = root / "in.zip"
        buffer = io.BytesIO()
        with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as zf:
            warnings.simplefilter("ignore")  # duplicate member names are part of the test
            for name, data in members:
                try:
                    zf.writestr(name or "empty", data)
                except (ValueError, UnicodeEncodeError):
                    pass
        archive.write_bytes(buffer.getvalue() + junk)
        dest = root / "out" / "pkg"
        (root / "out").mkdir()
        try:
            extract_archive(archive, dest, ArchiveLimits())
        except ArchiveRejected:
            pass
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                where = Path(dirpath) / name
                assert where == archive or where.is_relative_to(dest), where


@FAST
@given(st.binary(max_size=2000))
def test_random_bytes_as_a_zip_are_rejected_plainly(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "x.zip"
        archive.write_bytes(data)
        with pytest.raises(ArchiveRejected):
            extract_archive(archive, Path(tmp) / "pkg", ArchiveLimits())


cli_tokens = st.sampled_from(
    ["ask", "chat", "sessions", "list", "show", "delete", "config", "models", "skills", "--model",
     "--workspace", "--approval-mode", "autonomous", "yolo", "--max-iterations", "-5", "abc",
     "--stream", "--no-stream", "--resume", "--help-me", "--", "-", "\x00", "é", "--version"]  # fmt: skip
) | st.text(max_size=12)


@FAST
@given(st.lists(cli_tokens, max_size=6))
def test_cli_arguments_parse_or_end_with_a_usage_error(argv: list[str]) -> None:
    import contextlib

    from app.cli.main import _command, build_parser

    if argv and argv[0] in ("desktop", "serve"):
        return
    parser = build_parser(_command(argv))
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(argv)
        except SystemExit as exc:
            assert exc.code in (0, 2)


HOSTILE_VALUES = ["../../etc/passwd", "/dev/zero", "/", "http://127.0.0.1:9/v1", "always", "x" * 300]


def _payloads() -> st.SearchStrategy[Any]:
    return st.one_of(
        json_values,
        st.dictionaries(
            st.sampled_from(
                ["chat_id", "text", "model", "provider_id", "approval_id", "decision", "grant_id",
                 "name", "kind", "base_url", "api_key", "id", "title", "path", "workspace", "limit",
                 "before", "tool_policies", "max_iterations", "exec_env", "theme", "language", "query",
                 "content"]  # fmt: skip
            ),
            json_values | st.sampled_from(HOSTILE_VALUES),
            max_size=5,
        ),
    )


def test_every_route_answers_garbage_with_a_clear_error(tmp_path: Path) -> None:
    """`CashCodeApp.invoke` for every route: never `internal`, never a traceback."""
    import asyncio

    from app.api.bootstrap import build_app
    from app.api.route_types import ROUTE_TYPES
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring

    base = tmp_path / "home"
    paths = AppPaths(base / "data", base / "config", base / "logs", base / "cache")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.mkfifo(workspace / "fifo")
    app = build_app(paths, {}, secrets=SecretStore(backend=MemoryKeyring()), workspace=workspace)
    loop = asyncio.new_event_loop()
    deep: Any = []
    for _ in range(50_000):
        deep = [deep]

    def check(route: str) -> None:
        @settings(max_examples=6, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(_payloads())
        def one(payload: Any) -> None:
            envelope = loop.run_until_complete(asyncio.wait_for(app.invoke(route, payload), 30))
            if not envelope["ok"]:
                assert envelope["error"]["code"] != "internal", (route, payload, envelope)
            assert "Traceback" not in json.dumps(envelope)

        one()

    try:
        for route in sorted(ROUTE_TYPES):
            check(route)
        for route in sorted(ROUTE_TYPES):
            envelope = loop.run_until_complete(app.invoke(route, {"chat_id": deep, "text": deep}))
            assert not envelope["ok"] and envelope["error"]["code"] != "internal", (route, envelope)
    finally:
        loop.run_until_complete(app.aclose())
        loop.close()
