"""`cashcode desktop` arguments, shared by a fresh start and a request forwarded to the running
instance (app/desktop/single_instance.py), so both understand exactly the same options."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

MAX_QUICK_TEXT = 4000


@dataclass(frozen=True)
class LaunchRequest:
    """What a launch asks for beyond "show CashCode"."""

    quick_ask: bool = False
    quick_text: str | None = None  # pre-fills the Quick Ask box
    import_skill: str | None = None  # absolute path of a Skill ZIP or folder
    open_bundle: str | None = None  # absolute path of an MCP Bundle (.mcpb): its preview opens


class LaunchArgsError(ValueError):
    """Arguments that cannot be honoured; the message is for the user."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cashcode desktop", description="Open the CashCode window.")
    parser.add_argument("--log-level", default=os.environ.get("CASHCODE_LOG_LEVEL", "WARNING").upper())
    parser.add_argument(
        "--quick-ask",
        nargs="?",
        const="",
        default=None,
        metavar="TEXT",
        help="open the Quick Ask window (of the running CashCode, or start it), optionally filled with TEXT",
    )
    parser.add_argument(
        "--import-skill",
        metavar="FILE",
        default=None,
        help="open the Skill import preview for a .zip file or a folder with SKILL.md",
    )
    # What a double click on a .mcpb runs (packaging/linux.py): `cashcode desktop FILE.mcpb`.
    parser.add_argument(
        "file",
        nargs="?",
        default=None,
        metavar="FILE.mcpb",
        help="open the install preview of an MCP Bundle (.mcpb)",
    )
    return parser


def parse(argv: list[str], cwd: Path | None = None) -> tuple[argparse.Namespace, LaunchRequest]:
    """Parse and check; paths become absolute (a forwarded request is handled elsewhere)."""
    args = build_parser().parse_args(argv)
    return args, request_of(args, cwd or Path.cwd())


def request_of(args: argparse.Namespace, cwd: Path) -> LaunchRequest:
    text = args.quick_ask
    if text is not None and len(text) > MAX_QUICK_TEXT:
        raise LaunchArgsError(f"--quick-ask text is longer than {MAX_QUICK_TEXT} characters")
    skill = args.import_skill
    if skill is not None:
        path = (cwd / Path(skill).expanduser()).absolute()
        if not path.exists():
            raise LaunchArgsError(f"--import-skill: {skill} does not exist")
        if not (path.is_dir() or path.suffix.lower() == ".zip"):
            raise LaunchArgsError(f"--import-skill: {skill} is neither a .zip file nor a folder")
        skill = str(path)
    bundle = args.file
    if bundle is not None:
        path = (cwd / Path(bundle).expanduser()).absolute()
        if path.suffix.lower() != ".mcpb":
            raise LaunchArgsError(f"{bundle} is not an MCP Bundle (.mcpb); CashCode opens only those")
        if not path.is_file():
            raise LaunchArgsError(f"{bundle} does not exist")
        bundle = str(path)
    return LaunchRequest(
        quick_ask=text is not None, quick_text=text or None, import_skill=skill, open_bundle=bundle
    )


def forwarded_argv(request: LaunchRequest) -> list[str]:
    """The canonical argv sent to the running instance (absolute paths, no log options)."""
    argv: list[str] = []
    if request.quick_ask:
        argv += ["--quick-ask", request.quick_text] if request.quick_text else ["--quick-ask"]
    if request.import_skill:
        argv += ["--import-skill", request.import_skill]
    if request.open_bundle:
        argv += ["--", request.open_bundle]
    return argv


def parse_forwarded(argv: list[str]) -> LaunchRequest:
    """A request received from another launch. It comes from the same user (authkey), but is
    still checked like user input; on error an empty request just shows the window."""
    parser = build_parser()
    parser.exit_on_error = False
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:
            return LaunchRequest()
        return request_of(args, Path("/"))
    except (argparse.ArgumentError, LaunchArgsError, SystemExit):
        return LaunchRequest()
