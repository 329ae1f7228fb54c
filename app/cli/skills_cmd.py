"""`cashcode skills …`: list, show, validate, import, export, versions, rollback, delete."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.skills.catalog import CatalogEntry
    from app.skills.wiring import SkillServices

# The app.skills imports live inside the handlers: registering the parser must stay cheap,
# because `cashcode ask` builds the whole parser before doing anything (start-up budget).


def resolve_data_dir(env: Mapping[str, str]) -> Path:
    """CASHCODE_DATA_DIR wins; then the settings module (when present); then platformdirs."""
    if env.get("CASHCODE_DATA_DIR", "").strip():
        return Path(env["CASHCODE_DATA_DIR"].strip()).expanduser().absolute()
    try:
        from app.settings.paths import AppPaths

        return Path(AppPaths.from_env(dict(env)).data_dir)
    except (ImportError, AttributeError):
        import platformdirs

        return Path(platformdirs.user_data_dir("CashCode", appauthor=False))


def resolve_workspace(arg: str | None, env: Mapping[str, str]) -> Path:
    return Path(arg or env.get("WORKSPACE_DIR") or os.getcwd())


def _build(args: argparse.Namespace) -> SkillServices:
    from app.skills.wiring import build_skill_services

    data_dir = resolve_data_dir(os.environ)
    return build_skill_services(data_dir, Path.home(), resolve_workspace(args.workspace, os.environ))


def _line(entry: CatalogEntry) -> str:
    flags = [] if entry.enabled else ["disabled"]
    if entry.shadows:
        flags.append("shadows " + ", ".join(s.source for s in entry.shadows))
    extra = f" [{'; '.join(flags)}]" if flags else ""
    summary = " ".join(entry.manifest.description.split())
    if len(summary) > 70:
        summary = summary[:69] + "…"
    return f"{entry.name:<28} {entry.source:<9}{extra} {summary}"


def cmd_list(args: argparse.Namespace) -> int:
    snapshot = _build(args).catalog.refresh()
    active = snapshot.active()
    if not active:
        print("No Skills found.")
    for entry in active:
        print(_line(entry))
    if snapshot.diagnostics:
        print("\nInvalid Skills (not usable):")
        for diag in snapshot.diagnostics:
            print(f"  {diag.source}/{diag.dir_name}: {diag.reason}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    deps = _build(args)
    entry = deps.store.entry(args.name)
    text = deps.store.read(args.name)
    m = entry.manifest
    print(f"name:     {m.name}\nsource:   {entry.source}\npath:     {entry.path}")
    print(
        f"enabled:  {'yes' if entry.enabled else 'no'}\nversion:  {m.version or '-'}\nsha256:   {text.sha256}"
    )
    print("")
    print(text.content, end="" if text.content.endswith("\n") else "\n")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    import tempfile
    import zipfile

    from app.skills.archive import ArchiveLimits, extract_archive
    from app.skills.model import InvalidSkill, describe_problems
    from app.skills.validate import validate_package

    path = Path(args.path)
    if path.is_file() and path.name == "SKILL.md":
        path = path.parent
    if path.is_file() and zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="cashcode-validate-") as tmp:
            package = Path(tmp) / "package"
            extract_archive(path, package, ArchiveLimits())
            result = validate_package(package, check_folder=False)
    else:
        result = validate_package(path)
    if isinstance(result, InvalidSkill):
        _fail(f"invalid: {describe_problems(result.problems)}")
        return 1
    from app.skills.manifest import advisory_warnings

    print(f"valid: {result.document.manifest.name} (sha256 {result.document.sha256[:12]})")
    for warning in advisory_warnings(result.document.manifest, result.document.body):
        print(f"warning: {warning}")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    """BM25 over name, display name, description, tags and triggers (same as `skill_search`)."""
    import json

    from app.skills.search_index import SkillSearchIndex, listing_description

    snapshot = _build(args).catalog.refresh()
    hits = SkillSearchIndex().search(snapshot.entries, args.query, args.limit)
    if args.json:
        rows = [
            {
                "name": h.entry.name,
                "source": h.entry.source,
                "description": h.entry.manifest.description,
                "score": round(h.score, 4),
            }
            for h in hits
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("No Skill matches that query.")
    for h in hits:
        description = listing_description(h.entry.manifest.description, 100)
        print(f"{h.score:6.2f}  {h.entry.name} [{h.entry.source}]  {description}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    import os
    import stat

    from app.skills.model import SkillError

    try:
        mode = os.stat(args.zip).st_mode
    except OSError:
        mode = None  # missing or unreadable: the import below says which
    if mode is not None and not stat.S_ISREG(mode):  # a device or FIFO would never end
        raise SkillError(f"{args.zip} is not a regular file; pass a Skill .zip file.")
    if not str(args.zip).lower().endswith(".zip"):  # as the HTTP upload route
        raise SkillError("Only .zip files can be imported; name the archive NAME.zip.")
    installed = _build(args).store.import_zip(Path(args.zip))
    print(f"Imported '{installed.name}' into the user Skills ({installed.path}).")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    out = Path(args.output) if args.output else Path.cwd() / f"{args.name}.zip"
    _build(args).store.export(args.name, out)
    print(f"Exported '{args.name}' to {out}.")
    return 0


def cmd_versions(args: argparse.Namespace) -> int:
    versions = _build(args).store.versions(args.name)
    if not versions:
        print(f"'{args.name}' has no saved versions yet.")
    for v in versions:
        print(f"{v.version_id}  {v.reason:<8}  {(v.skill_md_sha256 or '?')[:12]}  {v.created_at}")
    return 0


def cmd_rollback(args: argparse.Namespace) -> int:
    text = _build(args).store.rollback(args.name, args.version)
    print(f"Rolled '{args.name}' back to {args.version} (sha256 {text.sha256[:12]}).")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    if not args.yes:
        if not sys.stdin.isatty():
            _fail("refusing to delete without confirmation; pass --yes")
            return 1
        answer = input(f"Delete the Skill '{args.name}'? A snapshot is kept. [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Cancelled.")
            return 1
    version = _build(args).store.delete(args.name)
    print(f"Deleted '{args.name}'. Restore with: cashcode skills rollback {args.name} {version.version_id}")
    return 0


def _set_enabled(enabled: bool) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        _build(args).store.set_enabled(args.name, enabled)
        print(f"{'Enabled' if enabled else 'Disabled'} '{args.name}'.")
        return 0

    return handler


def _fail(message: str) -> None:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn expected failures into one line on stderr and exit code 1."""

    def run(args: argparse.Namespace) -> int:
        from app.skills.model import ArchiveRejected, SkillError

        try:
            return handler(args)
        except ArchiveRejected as exc:
            _fail(f"ZIP refused: {exc}")
        except SkillError as exc:
            _fail(str(exc))
        except OSError as exc:
            _fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return 1

    return run


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("skills", help="manage Skills")
    parser.add_argument(
        "--workspace", help="workspace folder (default: $WORKSPACE_DIR or the current folder)"
    )
    commands = parser.add_subparsers(dest="skills_command", required=True)

    def add(
        name: str, handler: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
        sub.set_defaults(func=_guarded(handler))
        return sub

    add("list", cmd_list, "list Skills and invalid packages")
    add("show", cmd_show, "show one Skill and its SKILL.md").add_argument("name")
    search = add("search", cmd_search, "search Skills by words (best match first)")
    search.add_argument("query")
    search.add_argument("--json", action="store_true", help="print a JSON array")
    search.add_argument("--limit", type=int, default=20, help="at most this many results (default 20)")
    add("validate", cmd_validate, "validate a Skill folder, SKILL.md or ZIP").add_argument("path")
    add("import", cmd_import, "import a Skill from a ZIP file").add_argument("zip")
    export = add("export", cmd_export, "export a Skill as a ZIP file")
    export.add_argument("name")
    export.add_argument("-o", "--output", help="output file (default: ./NAME.zip)")
    add("versions", cmd_versions, "list saved versions of a Skill").add_argument("name")
    rollback = add("rollback", cmd_rollback, "restore a saved version")
    rollback.add_argument("name")
    rollback.add_argument("version")
    delete = add("delete", cmd_delete, "delete a user or agent Skill")
    delete.add_argument("name")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add("enable", _set_enabled(True), "enable a Skill").add_argument("name")
    add("disable", _set_enabled(False), "disable a Skill").add_argument("name")


def main(argv: list[str]) -> int:
    """Entry for tests and scripts: `main(["skills", "list"])` or `main(["list"])`."""
    parser = argparse.ArgumentParser(prog="cashcode")
    add_parser(parser.add_subparsers(dest="command", required=True))
    if not argv or argv[0] != "skills":
        argv = ["skills", *argv]
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.func
    return handler(args)
