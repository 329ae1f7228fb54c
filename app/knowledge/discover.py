"""Which files of a knowledge base's roots are indexed, and why the others are not.

Skipped (each listed with its reason): hidden files and folders (dot names: `.git`, `.env`,
editors' state), paths a `.gitignore` inside the root ignores (nested files apply below their
folder, as git does), the app's own folders (data, config, logs, cache), symbolic links (never
followed: no loops, no escapes out of the root), files over the size cap and binaries. A
skipped folder is listed once, not file by file (a `.git` or `node_modules` holds thousands).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.knowledge.extract import BINARY_SUFFIXES, DOCUMENT_SUFFIXES, HARD_LINK, looks_binary
from app.knowledge.models import Skipped

if TYPE_CHECKING:  # the matcher loads on the first scan, not at every start (`cashcode ask`)
    import pathspec

DEFAULT_SIZE_CAP = 20 * 1024 * 1024  # the default of the capability (app/knowledge/capability.py)


@dataclass(frozen=True, slots=True)  # a scan holds one per file (10,000s)
class Found:
    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Scan:
    files: tuple[Found, ...]
    skipped: tuple[Skipped, ...]


class Discovery:
    def __init__(
        self, roots: Sequence[Path], private_roots: Sequence[Path], size_cap: int = DEFAULT_SIZE_CAP
    ) -> None:
        self._roots = tuple(roots)
        self._private = tuple(private_roots)
        self._cap = size_cap
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}
        self._above: dict[tuple[Path, Path], list[tuple[str, pathspec.GitIgnoreSpec]]] = {}

    def scan(self) -> Scan:
        files: dict[str, Found] = {}
        skipped: dict[str, Skipped] = {}
        for root in self._roots:
            for item in self._walk_root(root):
                if isinstance(item, Found):
                    files.setdefault(item.path, item)
                else:
                    skipped.setdefault(item.path, item)
        return Scan(tuple(files.values()), tuple(s for p, s in skipped.items() if p not in files))

    def check(self, path: Path) -> Found | Skipped | None:
        """One path (a watcher event): what a scan would say about it; None if it is not in
        any root, does not exist or is a folder."""
        for root in self._roots:
            if path == root:
                return self._file(path)
            if root in path.parents:
                folder = root
                for part in path.relative_to(root).parts[:-1]:
                    folder = folder / part
                    reason = "symbolic link (not followed)" if folder.is_symlink() else None
                    reason = reason or self._folder_reason(root, folder)
                    if reason:
                        return Skipped(path=str(folder), reason=reason)
                if path.is_symlink():
                    return Skipped(path=str(path), reason="symbolic link (not followed)")
                reason = self._name_reason(root, path, is_dir=False)
                return Skipped(path=str(path), reason=reason) if reason else self._file(path)
        return None

    # ---- walking ----------------------------------------------------------------------------

    def _walk_root(self, root: Path) -> Iterator[Found | Skipped]:
        try:
            st = root.lstat()
        except OSError as exc:
            yield Skipped(path=str(root), reason=f"cannot be read ({exc.strerror or exc})")
            return
        if stat.S_ISREG(st.st_mode):
            found = self._file(root)
            if found is not None:
                yield found
            return
        if not stat.S_ISDIR(st.st_mode):
            yield Skipped(path=str(root), reason="not a regular file or folder")
            return
        if self._private_reason(root):
            yield Skipped(path=str(root), reason="CashCode's own folder")
            return
        yield from self._walk_dir(root, root)

    def _walk_dir(self, root: Path, folder: Path) -> Iterator[Found | Skipped]:
        # Files are handled as strings, folders as Paths: a Path interns each part of its name
        # (pathlib), and the interpreter's table of interned strings never shrinks, so a Path
        # per file kept ~1 MB per 10,000 files after every start-up scan (bench README).
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield Skipped(path=str(folder), reason=f"cannot be read ({exc.strerror or exc})")
            return
        for entry in entries:
            if entry.is_symlink():
                yield Skipped(path=entry.path, reason="symbolic link (not followed)")
            elif entry.is_dir(follow_symlinks=False):
                path = Path(entry.path)
                reason = self._folder_reason(root, path)
                if reason:
                    yield Skipped(path=entry.path, reason=reason)
                else:
                    yield from self._walk_dir(root, path)
            elif entry.is_file(follow_symlinks=False):
                reason = self._entry_reason(root, folder, entry.name, is_dir=False)
                if reason:
                    yield Skipped(path=entry.path, reason=reason)
                else:
                    # Not private: its folder was checked on the way down.
                    found = self._file_at(entry.path, entry.name)
                    if found is not None:
                        yield found

    # ---- rules ------------------------------------------------------------------------------

    def _folder_reason(self, root: Path, folder: Path) -> str | None:
        if folder.name.startswith("."):
            return "hidden folder"
        if self._private_reason(folder):
            return "CashCode's own folder"
        return self._name_reason(root, folder, is_dir=True)

    def _name_reason(self, root: Path, path: Path, *, is_dir: bool) -> str | None:
        return self._entry_reason(root, path.parent, path.name, is_dir=is_dir)

    def _entry_reason(self, root: Path, folder: Path, name: str, *, is_dir: bool) -> str | None:
        if not is_dir and name.startswith("."):
            return "hidden file"
        if self._ignored(root, folder, name, is_dir):
            return "ignored by .gitignore"
        return None

    def _private_reason(self, path: Path) -> bool:
        return any(path == p or p in path.parents for p in self._private)

    def _ignored(self, root: Path, folder: Path, name: str, is_dir: bool) -> bool:
        # Every .gitignore from the root down to the path's folder; deeper files decide last.
        ignored = False
        for rel_folder, spec in self._specs_above(root, folder):
            rel = f"{rel_folder}{name}" + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                ignored = bool(result.include)
        return ignored

    def _specs_above(self, root: Path, folder: Path) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
        """The .gitignore specs from the root down to `folder`, each with `folder` relative to
        its base as a prefix ("" or "a/b/"); computed once per folder."""
        key = (root, folder)
        if (known := self._above.get(key)) is not None:
            return known
        chain = [folder, *folder.parents]
        out = []
        for base in reversed([f for f in chain if f == root or root in f.parents]):
            spec = self._spec(base)
            if spec is not None:
                rel = folder.relative_to(base).as_posix()
                out.append(("" if rel == "." else rel + "/", spec))
        self._above[key] = out
        return out

    def _spec(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        import pathspec

        if folder not in self._specs:
            try:
                lines = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = None
            self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self._specs[folder]

    def _file(self, path: Path) -> Found | Skipped | None:
        return self._file_at(str(path), path.name, private=self._private_reason(path))

    def _file_at(self, path: str, name: str, *, private: bool = False) -> Found | Skipped | None:
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None if stat.S_ISDIR(st.st_mode) else Skipped(path=path, reason="not a regular file")
        if private:
            return Skipped(path=path, reason="CashCode's own folder")
        if st.st_nlink > 1:  # another name of the file may be outside the folder (issue 33.7)
            return Skipped(path=path, reason=HARD_LINK)
        if st.st_size > self._cap:
            return Skipped(path=path, reason=f"larger than {self._cap // (1024 * 1024)} MB")
        suffix = os.path.splitext(name)[1].lower()
        if suffix in BINARY_SUFFIXES or (suffix not in DOCUMENT_SUFFIXES and looks_binary(path)):
            return Skipped(path=path, reason="binary file")
        return Found(path=path, size=st.st_size, mtime_ns=st.st_mtime_ns)
