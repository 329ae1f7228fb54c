from __future__ import annotations

from pathlib import Path

import pytest

from app.desktop.launch_args import (
    LaunchArgsError,
    LaunchRequest,
    forwarded_argv,
    parse,
    parse_forwarded,
)


def test_quick_ask_with_and_without_text(tmp_path: Path) -> None:
    assert parse(["--quick-ask"], tmp_path)[1] == LaunchRequest(quick_ask=True)
    assert parse(["--quick-ask", "hi there"], tmp_path)[1] == LaunchRequest(
        quick_ask=True, quick_text="hi there"
    )
    assert parse([], tmp_path)[1] == LaunchRequest()


def test_import_skill_becomes_an_absolute_path_and_must_exist(tmp_path: Path) -> None:
    (tmp_path / "s.zip").write_bytes(b"PK")
    request = parse(["--import-skill", "s.zip"], tmp_path)[1]
    assert request.import_skill == str(tmp_path / "s.zip")
    with pytest.raises(LaunchArgsError, match="does not exist"):
        parse(["--import-skill", "missing.zip"], tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(LaunchArgsError, match="neither"):
        parse(["--import-skill", "notes.txt"], tmp_path)


def test_a_request_survives_forwarding_unchanged(tmp_path: Path) -> None:
    (tmp_path / "s.zip").write_bytes(b"PK")
    request = parse(["--quick-ask", "hi", "--import-skill", str(tmp_path / "s.zip")], tmp_path)[1]
    assert parse_forwarded(forwarded_argv(request)) == request


def test_a_malformed_forwarded_request_only_shows_the_window() -> None:
    assert parse_forwarded(["--bogus"]) == LaunchRequest()
    assert parse_forwarded(["--import-skill", "/no/such/file.zip"]) == LaunchRequest()


def test_a_bundle_path_argument_opens_its_preview_and_survives_forwarding(tmp_path: Path) -> None:
    bundle = tmp_path / "-odd name.mcpb"  # starts with '-': forwarded after "--"
    bundle.write_bytes(b"PK")
    request = parse(["./-odd name.mcpb"], tmp_path)[1]
    assert request == LaunchRequest(open_bundle=str(bundle))
    assert forwarded_argv(request) == ["--", str(bundle)]
    assert parse_forwarded(forwarded_argv(request)) == request
    with pytest.raises(LaunchArgsError, match="does not exist"):
        parse(["gone.mcpb"], tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(LaunchArgsError, match="not an MCP Bundle"):
        parse(["notes.txt"], tmp_path)
    assert parse_forwarded(["--", "/no/such/kit.mcpb"]) == LaunchRequest()
